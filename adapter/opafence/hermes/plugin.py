"""Hermes entry point (group `hermes_agent.plugins`, name `opafence`): `register(ctx)`.

The lockdown hook is registered before anything that can fail; a failed setup leaves every
tool call blocked with the reason, never Hermes unguarded."""

from __future__ import annotations

import logging
from typing import Any

from opafence.budget.hooks import BudgetHooks
from opafence.hermes import command
from opafence.hermes.fence import Fence

log = logging.getLogger("opafence.plugin")


def register(ctx: Any) -> None:
    fence = Fence()
    ctx.register_hook("pre_tool_call", fence.pre_tool_call)
    budgets = BudgetHooks(fence)
    try:
        # Model calls next: spend caps, and a stopped agent when setup fails.
        budgets.register(ctx)
        ctx.register_middleware("tool_execution", fence.tool_execution)
        ctx.register_hook("pre_llm_call", fence.pre_llm_call)
        ctx.register_hook("post_tool_call", fence.post_tool_call)
        ctx.register_hook("subagent_start", fence.subagent_start)
        ctx.register_hook("on_session_start", fence.session_start)
        ctx.register_hook("on_session_finalize", fence.session_finalize)
        ctx.register_command(
            "fence",
            lambda raw_args="": command.run(fence, raw_args),
            description="opafence: the task's policy and recent decisions",
            args_hint="[audit N | budget]",
        )
        fence.setup()
        budgets.setup()
        fence.budgets = budgets
        fence.keep_order()
    except Exception as e:
        fence.fail(f"setup failed: {type(e).__name__}: {e}")
