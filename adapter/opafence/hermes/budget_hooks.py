"""Wiring budgets into the plugin: model-call middleware, delegation counting, receipts.

`BudgetHooks` sits beside the Fence (hermes/fence.py) and reads its configuration, bridge,
audit trail and session store after `Fence.setup()`. The fence calls `annotate()` on every
decision input (it adds the delegation counts of a call that launches sub-agents); Hermes
calls the rest. Nothing here lets an exception out to Hermes: middleware exceptions fail
open in Hermes, so every failure becomes a stopped model call or a logged error."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from opafence.audit.forward import HeadForwarder
from opafence.audit.trail import AuditError
from opafence.budget.launches import DelegationWindows, launches_of
from opafence.budget.spend import CallInfo, Plan, SpendGuard
from opafence.budget.spend_ledger_pg import open_ledger
from opafence.hermes.llm_shapes import stop_response

if TYPE_CHECKING:
    from opafence.hermes.fence import Fence

log = logging.getLogger("opafence.budget")

DELEGATE_TOOL = "delegate_task"


class BudgetHooks:
    def __init__(self, fence: Fence) -> None:
        self.fence = fence
        self.spend: SpendGuard | None = None
        self.delegation: DelegationWindows | None = None
        self.forwarder: HeadForwarder | None = None

    # --- setup -----------------------------------------------------------------------------------

    def setup(self) -> None:
        """After Fence.setup(): build the ledger, the windows and the spend guard."""
        f = self.fence
        if f.store is None or f.bridge is None:
            return  # the fence failed to set up; its error stops every model call
        budgets = f.config.budgets
        budget_dir = f.state / "budget"
        self.delegation = DelegationWindows(budget_dir / "delegations.json", budgets.delegation)
        ledger = open_ledger(budgets, budget_dir, f.config.task_host_id())
        self.spend = SpendGuard(budgets, ledger, f.bridge, f.audit, self._ready)
        audit_cfg = f.config.audit
        if audit_cfg.forward_url and f.audit is not None:
            self.forwarder = HeadForwarder(
                f.audit.path,
                audit_cfg.forward_url,
                audit_cfg.forward_token_file,
                audit_cfg.forward_interval_s,
            )
            f.audit.on_append = self.forwarder.poke
            self.forwarder.start()
            self.forwarder.poke()

    def register(self, ctx: Any) -> None:
        ctx.register_middleware("llm_request", self.llm_request)
        ctx.register_middleware("llm_execution", self.llm_execution)
        ctx.register_hook("post_tool_call", self.post_tool_call)
        ctx.register_hook("on_session_end", self.session_end)
        ctx.register_hook("post_approval_response", self.approval_response)
        self.keep_first()

    def keep_first(self) -> None:
        """Put the spend check first in the llm_execution chain, so it wraps every other
        middleware, including one that calls a provider itself or answers in its place.
        (`PluginManager._middleware` is an internal of Hermes 0.19.0; checked each call.)"""
        try:
            import importlib

            mgr = importlib.import_module("hermes_cli.plugins").get_plugin_manager()
            chain: list[Callable[..., Any]] = mgr._middleware.get("llm_execution", [])
            if chain and chain[0] != self.llm_execution and self.llm_execution in chain:
                chain[:] = [self.llm_execution] + [cb for cb in chain if cb != self.llm_execution]
        except Exception:
            log.debug("opafence: cannot reorder llm_execution middleware", exc_info=True)

    def _ready(self) -> str | None:
        f = self.fence
        if f.error is None and f._ready.is_set():
            return None
        if not f.wait_ready():
            return f.error or "OPA did not become ready in time"
        return f.error

    # --- keys ------------------------------------------------------------------------------------

    def task_key(self, session_id: str, task_id: str) -> str:
        store = self.fence.store
        if store is None:
            return ""
        root = store.root_session(session_id or "", task_id or "") or "unscoped"
        return store.task_key(root)

    @staticmethod
    def call_key(task: str, call_id: str, args: Any) -> str:
        from opafence.hermes.call import args_hash, snapshot

        return f"{task}:{call_id}" if call_id else f"{task}:h:{args_hash(snapshot(args))}"

    def _touch(self, task: str) -> None:
        if self.delegation is not None and task:
            try:
                self.delegation.touch(task)
            except Exception:
                log.exception("opafence: the delegation clock failed")

    def _receipt(self, record: dict[str, Any]) -> None:
        audit = self.fence.audit
        if audit is None:
            return
        try:
            audit.append(record)
        except (AuditError, OSError) as e:
            log.error("opafence: cannot write the audit trail: %s", e)

    # --- decisions on tool calls (called by the fence) ---------------------------------------------

    def annotate(self, doc: dict[str, Any], task: str, tool: str, args: dict[str, Any], call_id: str) -> None:
        """Add the delegation counts to a call that launches sub-agents, and reserve its launches."""
        if tool != DELEGATE_TOOL:
            return
        launching = launches_of(args)
        if self.delegation is None:
            counts: dict[str, Any] = {
                "launching": launching,
                "short": 0,
                "long": 0,
                "error": "opafence's delegation counter did not start",
            }
        else:
            counts = self.delegation.reserve(task, self.call_key(task, call_id, args), launching)
        doc["session"]["delegation"] = counts
        self._receipt({"event": "delegation", "task": task, "call": call_id, **counts})

    # --- Hermes middleware and hooks ------------------------------------------------------------------

    def llm_request(
        self,
        request: Any = None,
        model: str = "",
        session_id: str = "",
        task_id: str = "",
        platform: str = "",
        api_mode: str = "",
        api_request_id: str = "",
        **_: Any,
    ) -> dict[str, Any] | None:
        """Preview: switch to the cheaper model when Rego would, so Hermes' trace shows it."""
        self.keep_first()
        try:
            if self.spend is None or not isinstance(request, dict):
                return None
            info = CallInfo(
                session_id, self.task_key(session_id, task_id), api_request_id, platform, api_mode
            )
            cheaper = self.spend.preview(request, model, info)
        except Exception:
            log.exception("opafence: the spend preview failed (the execution check still applies)")
            return None
        if cheaper is None:
            return None
        return {
            "request": {**request, "model": cheaper},
            "source": "opafence",
            "reason": f"daily soft spend cap: switched to {cheaper}",
        }

    def llm_execution(
        self,
        request: Any = None,
        next_call: Callable[[Any], Any] | None = None,
        model: str = "",
        api_mode: str = "",
        session_id: str = "",
        task_id: str = "",
        api_request_id: str = "",
        platform: str = "",
        original_request: Any = None,
        **_: Any,
    ) -> Any:
        """Decide and reserve, call the provider, settle; a stopped call ends the turn."""
        task = ""
        plan: Plan | None = None
        if self.spend is None:
            message = f"opafence stopped this model call: opafence could not start: {self.fence.error}."
        else:
            message = (
                "opafence stopped this model call: the request is not one it can read [SPEND_BAD_INPUT]."
            )
        try:
            task = self.task_key(session_id, task_id)
            self._touch(task)
            if self.spend is not None and isinstance(request, dict):
                info = CallInfo(session_id, task, api_request_id, platform, api_mode)
                requested = original_request.get("model") if isinstance(original_request, dict) else None
                plan = self.spend.decide(request, model, info, str(requested or ""))
                message = plan.message
        except Exception as e:
            log.exception("opafence: the spend check failed")
            if plan is not None and self.spend is not None:
                self.spend.release(plan, e)
            plan = None
            message = (
                f"opafence stopped this model call: its check failed [SPEND_ERROR] ({type(e).__name__})."
            )
        if plan is None or not plan.allowed or next_call is None or self.spend is None:
            if plan is not None and self.spend is not None and plan.rid is not None:
                self.spend.release(plan, RuntimeError("not called"))
            return stop_response(message, api_mode, model)
        try:
            response = next_call(plan.request)
        except BaseException as e:
            self.spend.release(plan, e)
            raise
        self.spend.settle(plan, response, api_mode)
        self._touch(task)
        return response

    def post_tool_call(
        self,
        tool_name: str = "",
        args: Any = None,
        task_id: str = "",
        session_id: str = "",
        tool_call_id: str = "",
        status: str = "",
        **_: Any,
    ) -> None:
        """A launching call that did not run gives its launches back."""
        try:
            if tool_name != DELEGATE_TOOL or self.delegation is None:
                return
            if status in ("ok", "error", ""):
                return
            task = self.task_key(session_id, task_id)
            if self.delegation.release(task, self.call_key(task, tool_call_id or "", args)):
                self._receipt(
                    {"event": "delegation_released", "task": task, "call": tool_call_id, "status": status}
                )
        except Exception:
            log.exception("opafence: post_tool_call (delegation) failed")

    def session_end(self, session_id: str = "", task_id: str = "", **_: Any) -> None:
        """A root session's turn ended: its active-time clock stops until the next event."""
        try:
            store = self.fence.store
            if self.delegation is None or store is None or not session_id or store.is_child(session_id):
                return
            self.delegation.pause(self.task_key(session_id, task_id))
        except Exception:
            log.exception("opafence: on_session_end (delegation clock) failed")

    def approval_response(
        self,
        command: str = "",
        pattern_key: str = "",
        surface: str = "",
        choice: str = "",
        tool_call_id: str = "",
        **_: Any,
    ) -> None:
        """Record an approval outcome Hermes reports (gateway prompts, dangerous commands):
        the choice, and keyed digests of what was approved, never its text."""
        try:
            audit = self.fence.audit
            if audit is None:
                return
            digests = audit.arg_digests({"pattern": str(pattern_key), "command": str(command)})
            self._receipt(
                {
                    "event": "approval_response",
                    "surface": str(surface),
                    "choice": str(choice),
                    "call": str(tool_call_id or ""),
                    "args": digests,
                }
            )
        except Exception:
            log.exception("opafence: post_approval_response failed")
