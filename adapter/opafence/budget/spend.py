"""Spend caps on model calls, enforced in Hermes' `llm_execution` middleware.

Before each provider call: estimate its cost (estimate.py, prices.py), then under the
ledger's lock read the home's figures, ask Rego (`data.opafence.budget.spend.decision`) and
reserve the amount Rego settles on, in one step. A signed receipt of the decision goes to the
audit trail before the call; a call whose receipt cannot be written does not run. A blocked
call never reaches the provider: the middleware returns a final assistant message that ends
the turn (shapes.py). After the call, the provider's reported cost, or its usage at the
table's price, replaces the reservation; a failed call releases it.

`llm_request` middleware runs earlier and only previews the decision: when Rego would switch
to the cheaper model, it rewrites the request's model, so Hermes' request trace and observers
show the model actually called. The execution middleware stays authoritative.

Without any cap configured there is nothing for Rego to decide: calls are reserved, settled
and receipted, but not queried (and not blocked when OPA is down). A damaged ledger or an
unwritable trail blocks model calls in every case, with a message that says how to recover."""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from opafence.audit.trail import AuditError, AuditLog
from opafence.budget.estimate import Estimate, estimate, usage_of
from opafence.budget.prices import Price, PriceTable
from opafence.budget.spend_ledger import Figures, Hold, Ledger, LedgerError, LedgerUnavailable
from opafence.config import BudgetsConfig
from opafence.decision import Monitor, Reason
from opafence.errors import FIXES, BridgeError

log = logging.getLogger("opafence.budget")

SPEND_RULE = "spend/decision"


class BudgetBridge(Protocol):
    def budget_query(self, rule: str, doc: dict[str, Any]) -> Any: ...


class SpendDecision(BaseModel):
    """data.opafence.budget.spend.decision, validated."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    verdict: Literal["allow", "block"]
    model: str
    downgraded: bool
    charge: int = Field(ge=0)
    reasons: list[Reason]
    monitor: Monitor | None = None


def _blocked(code: str, message: str, fix: str = "") -> SpendDecision:
    reason = Reason(code=code, message=message, source="budget", fix=fix)
    return SpendDecision(verdict="block", model="", downgraded=False, charge=0, reasons=[reason])


def explain(reasons: list[Reason], limit: int = 3) -> str:
    shown = "; ".join(f"{r.message.rstrip('.')} [{r.code}]" for r in reasons[:limit]) or "no rule allowed it"
    fix = next((r.fix for r in reasons if r.fix), "")
    return f"{shown}." + (f" {fix}" if fix else "")


@dataclass
class Plan:
    """One model call, from its decision to its settlement."""

    allowed: bool
    message: str
    request: dict[str, Any]
    model: str
    estimate: Estimate
    price: Price | None
    charge: int
    rid: str | None = None
    context: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class CallInfo:
    session: str = ""
    task: str = ""
    request_id: str = ""
    platform: str = ""
    api_mode: str = ""


class SpendGuard:
    def __init__(
        self,
        budgets: BudgetsConfig,
        ledger: Ledger,
        bridge: BudgetBridge,
        audit: AuditLog | None,
        ready: Callable[[], str | None],
        prices: PriceTable | None = None,
    ) -> None:
        self.budgets = budgets
        self.ledger = ledger
        self.bridge = bridge
        self.audit = audit
        self.ready = ready  # None when opafence can decide, else why not
        self.error = ""
        self.prices = prices
        if prices is None:
            try:
                self.prices = PriceTable.for_budgets(budgets)
            except Exception as e:  # a broken price file must block, not crash the plugin
                self.error = f"the price table cannot be read: {e}"

    # --- figures -------------------------------------------------------------------------------

    def estimate(self, request: Mapping[str, Any]) -> Estimate:
        b = self.budgets
        return estimate(request, b.default_output_tokens, b.reserve_output_tokens)

    def _price(self, model: str) -> Price | None:
        return self.prices.lookup(model) if self.prices is not None else None

    def spend_input(
        self, model: str, est: Estimate, price: Price | None, figures: Figures, info: CallInfo
    ) -> dict[str, Any]:
        """The spend query's input (rego/schemas/spend_input.jsonschema)."""
        doc: dict[str, Any] = {
            "model": price.to_input(model)
            if price
            else {"name": model, "priced": False, "input": 0, "output": 0},
            "estimate": est.cost(price) if price else 0,
            "tokens": {"input": est.input_tokens, "output": est.output_tokens},
            "ledger": figures.to_input(),
            "host": {"platform": info.platform, "subagent": info.platform == "subagent"},
        }
        cheaper = self.budgets.cheaper_model
        if cheaper:
            cp = self._price(cheaper)
            doc["cheaper"] = (
                {**cp.to_input(cheaper), "estimate": est.cost(cp)}
                if cp
                else {"name": cheaper, "priced": False, "input": 0, "output": 0, "estimate": 0}
            )
        return doc

    def _judge(self, doc: dict[str, Any]) -> SpendDecision:
        try:
            return SpendDecision.model_validate(self.bridge.budget_query(SPEND_RULE, doc))
        except BridgeError as e:
            return _blocked(e.code, e.sentence(), FIXES[e.code])
        except ValidationError as e:
            first = e.errors()[0]
            where = ".".join(str(p) for p in first["loc"]) or "result"
            return _blocked("OPA_BAD_RESULT", f"the spend decision is malformed at {where}: {first['msg']}")

    # --- before the call -------------------------------------------------------------------------

    def decide(
        self, request: Mapping[str, Any], fallback_model: str, info: CallInfo, requested: str = ""
    ) -> Plan:
        """`requested`: the model before any llm_request middleware (ours may have switched it)."""
        model = str(request.get("model") or fallback_model or "")
        est = self.estimate(request)
        price = self._price(model)
        plan = Plan(False, "", dict(request), model, est, price, est.cost(price) if price else 0)
        plan.context = {"session": info.session, "task": info.task, "request": info.request_id}
        capped = self.budgets.spend_capped
        problem = self.error or (self.ready() if capped else None)
        if problem:
            return self._refuse(
                plan, _blocked("SPEND_UNAVAILABLE", f"opafence cannot check spend: {problem}")
            )

        def judge(figures: Figures) -> tuple[SpendDecision, Hold | None]:
            if capped:
                decision = self._judge(self.spend_input(model, est, price, figures, info))
            else:
                decision = SpendDecision(
                    verdict="allow", model=model, downgraded=False, charge=plan.charge, reasons=[]
                )
            if decision.verdict != "allow":
                return decision, None
            used = decision.model or model
            priced = (self._price(used) if used != model else price) is not None
            return decision, Hold(decision.charge, used, priced)

        try:
            decision, rid, figures = self.ledger.reserve(judge)
        except LedgerUnavailable as e:
            return self._refuse(plan, _blocked("LEDGER_UNAVAILABLE", str(e)))
        except LedgerError as e:
            return self._refuse(plan, _blocked("LEDGER_DAMAGED", str(e)))
        except OSError as e:
            return self._refuse(plan, _blocked("LEDGER_DAMAGED", f"the spend ledger cannot be written: {e}"))
        plan.rid = rid
        if decision.model and decision.model != model:
            plan.model = decision.model
            plan.request["model"] = decision.model
            plan.price = self._price(decision.model)
        plan.charge = decision.charge
        record = {
            **self._receipt(plan, "decide"),
            "requested": requested or model,
            "verdict": decision.verdict,
            "reasons": [r.code for r in decision.reasons],
            "downgraded": decision.downgraded or plan.model != (requested or model),
            "charge": plan.charge,
            "monitor": decision.monitor.would if decision.monitor else None,
            "tokens": {"in": est.input_tokens, "out": est.output_tokens},
            "priced": plan.price is not None,
            "day": figures.day,
            "spent": figures.spent,
            "reserved": figures.reserved,
        }
        if not self._write(record):
            self._give_back(plan)
            return self._refuse(plan, _blocked("AUDIT_UNAVAILABLE", self._audit_problem), record=False)
        if decision.verdict != "allow":
            plan.message = f"opafence stopped this model call: {explain(decision.reasons)}"
            return plan
        plan.allowed = True
        if decision.downgraded or decision.monitor is not None:
            for r in [*decision.reasons, *(decision.monitor.reasons if decision.monitor else [])]:
                log.warning("opafence: %s [%s]", r.message, r.code)
        return plan

    def _refuse(self, plan: Plan, decision: SpendDecision, record: bool = True) -> Plan:
        plan.allowed = False
        plan.message = f"opafence stopped this model call: {explain(decision.reasons)}"
        if record:
            self._write(
                {
                    **self._receipt(plan, "decide"),
                    "verdict": "block",
                    "reasons": [r.code for r in decision.reasons],
                }
            )
        log.error("%s", plan.message)
        return plan

    # --- after the call --------------------------------------------------------------------------

    def settle(self, plan: Plan, response: Any, api_mode: str) -> None:
        """Replace the reservation with what the call cost. Never raises."""
        try:
            usage = usage_of(response, api_mode)
            amount: int | None
            if usage is not None and usage.reported_micro() is not None:
                amount, source = usage.reported_micro(), "provider"
            elif usage is not None and plan.price is not None:
                amount, source = usage.cost(plan.price), "usage"
            elif plan.price is not None:
                amount, source = plan.charge, "estimate"
            else:
                amount, source = None, "unpriced"
            if plan.rid is not None:
                self.ledger.settle(plan.rid, amount)
            tokens = (
                {
                    "in": usage.input,
                    "out": usage.output,
                    "cache_read": usage.cache_read,
                    "cache_write": usage.cache_write,
                }
                if usage is not None
                else None
            )
            self._write(
                {
                    **self._receipt(plan, "settle"),
                    "cost": amount,
                    "source": source,
                    "tokens": tokens,
                    "estimate": plan.charge,
                }
            )
        except Exception:
            log.exception("opafence: settling a model call failed; its reservation stays until it expires")

    def release(self, plan: Plan, error: BaseException) -> None:
        """The call failed: give its reservation back. Never raises."""
        try:
            self._give_back(plan)
            self._write({**self._receipt(plan, "release"), "error": type(error).__name__})
        except Exception:
            log.exception("opafence: releasing a model call's reservation failed")

    def _give_back(self, plan: Plan) -> None:
        if plan.rid is not None:
            try:
                self.ledger.release(plan.rid)
            except (LedgerError, OSError):
                log.exception("opafence: could not release a reservation")
            plan.rid = None

    # --- receipts -------------------------------------------------------------------------------

    _audit_problem = "the audit trail cannot be written"

    def _receipt(self, plan: Plan, phase: str) -> dict[str, Any]:
        return {"event": "model_call", "phase": phase, **plan.context, "model": plan.model}

    def _write(self, record: Mapping[str, Any]) -> bool:
        if self.audit is None:
            return True
        try:
            self.audit.append(record)
        except (AuditError, OSError) as e:
            self._audit_problem = f"the audit trail cannot be written: {e}"
            log.error("opafence: %s", self._audit_problem)
            return False
        return True

    # --- Hermes middleware -------------------------------------------------------------------------

    def preview(self, request: Mapping[str, Any], fallback_model: str, info: CallInfo) -> str | None:
        """The model the soft cap would switch this call to, or None (no reservation made)."""
        if not (self.budgets.spend_capped and self.budgets.cheaper_model) or self.error or self.ready():
            return None
        model = str(request.get("model") or fallback_model or "")
        est = self.estimate(request)
        figures = self.ledger.snapshot()
        decision = self._judge(self.spend_input(model, est, self._price(model), figures, info))
        if decision.verdict == "allow" and decision.downgraded and decision.model and decision.model != model:
            return decision.model
        return None
