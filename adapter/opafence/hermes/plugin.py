"""Hermes entry point (group `hermes_agent.plugins`, name `opafence`): `register(ctx)`.

The lockdown hook and the execution re-check are registered before anything that can fail;
a failed setup leaves every tool call blocked with the reason, never Hermes unguarded. Hermes
keeps whatever a raising register() registered and goes on without the plugin, so register()
itself never raises: if even the Fence cannot be built, a bare lockdown is registered."""

from __future__ import annotations

import atexit
import contextlib
import json
import logging
import sys
from collections.abc import Callable
from typing import Any

from opafence.hermes import command
from opafence.hermes.budget_hooks import BudgetHooks
from opafence.hermes.fence import Fence
from opafence.printable import lockdown_status

log = logging.getLogger("opafence.plugin")


def register(ctx: Any) -> None:
    try:
        fence = Fence()
    except Exception as e:
        _bare_lockdown(ctx, f"opafence could not be built: {type(e).__name__}: {e}")
        return
    ctx.register_hook("pre_tool_call", fence.pre_tool_call)
    ctx.register_middleware("tool_execution", fence.tool_execution)
    # The end-of-run summary of unattended blocks (hermes -z, chat -q): at exit, whatever is left.
    atexit.register(fence.notices.flush)
    try:
        budgets = BudgetHooks(fence)
        # Model calls next: spend caps, and a stopped agent when setup fails.
        budgets.register(ctx)
        ctx.register_hook("pre_llm_call", fence.pre_llm_call)
        ctx.register_middleware("llm_request", fence.llm_request)
        ctx.register_hook("post_tool_call", fence.post_tool_call)
        ctx.register_hook("subagent_start", fence.subagent_start)
        ctx.register_hook("on_session_start", fence.session_start)
        ctx.register_hook("on_session_finalize", fence.session_finalize)
        ctx.register_command(
            "fence",
            lambda raw_args="", *_, **__: command.run_safely(fence, raw_args),
            description="opafence: the task's policy and recent decisions",
            args_hint="[audit N | budget]",
        )
        fence.setup()
        budgets.setup()
        fence.budgets = budgets
    except Exception as e:
        fence.fail(f"setup failed: {type(e).__name__}: {e}")
    # First among deciders even when setup failed: the lockdown must win over an approving plugin.
    try:
        fence.keep_order()
    except Exception:
        log.exception("opafence: cannot put its hook first")


def _bare_lockdown(ctx: Any, reason: str) -> None:
    """Block every tool call with the reason (no state, nothing that can fail)."""
    log.error("%s", reason)
    message = f"{reason}. Fix it, or disable the plugin."
    with contextlib.suppress(Exception):
        print(
            f"opafence: {lockdown_status(reason)}. Fix it, or disable the plugin.",
            file=sys.stderr,
            flush=True,
        )

    def pre_tool_call(**_: Any) -> dict[str, str]:
        return {"action": "block", "message": message}

    def tool_execution(next_call: Callable[[Any], Any] | None = None, **_: Any) -> str:
        return json.dumps({"error": message}, ensure_ascii=False)

    ctx.register_hook("pre_tool_call", pre_tool_call)
    ctx.register_middleware("tool_execution", tool_execution)
    try:
        hooks = ctx._manager._hooks["pre_tool_call"]  # Hermes 0.19.0 internals: be first
        hooks[:] = [pre_tool_call, *(cb for cb in hooks if cb is not pre_tool_call)]
    except Exception:
        log.exception("opafence: cannot put its lockdown hook first")
