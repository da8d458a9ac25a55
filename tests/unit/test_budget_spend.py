"""Spend caps end to end with the real OPA: estimate, decide in Rego, reserve, settle, receipts."""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from opafence.audit.trail import AuditLog
from opafence.audit.verify import verify_trail
from opafence.budget.estimate import estimate
from opafence.budget.prices import PriceTable
from opafence.budget.spend import CallInfo, SpendGuard
from opafence.budget.spend_ledger import Hold, Ledger
from opafence.config import Config
from opafence.hermes.llm_shapes import stop_response
from opafence.opa.bridge import Bridge

PRICES = {
    "big": {"input": "10", "output": "30"},
    "small": {"input": "1", "output": "3"},
    "cheap-in-dear-out": {"input": "0.5", "output": "50"},
}
INFO = CallInfo(session="s1", task="t1", request_id="r1", platform="cli", api_mode="chat_completions")
SECRET = "the-user-prompt-" + uuid.uuid4().hex


@pytest.fixture(scope="module")
def opa(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Bridge]:
    b = Bridge(Config(), tmp_path_factory.mktemp("state"))
    b.start()
    try:
        yield b
    finally:
        b.close()


def make_guard(opa: Bridge, tmp_path: Path, ready: Any = None, **budgets: Any) -> SpendGuard:
    config = Config.model_validate({"budgets": {"prices": PRICES, **budgets}})
    opa.config = config
    opa._push_all()
    return SpendGuard(
        config.budgets,
        Ledger(tmp_path / "budget" / "ledger.json"),
        opa,
        AuditLog(tmp_path / "audit.jsonl"),
        ready or (lambda: None),
    )


def request(model: str = "big", chars: int = 4000, max_tokens: int = 1000) -> dict[str, Any]:
    return {
        "model": model,
        "messages": [{"role": "user", "content": SECRET + "x" * chars}],
        "max_tokens": max_tokens,
    }


def cost_of(guard: SpendGuard, req: dict[str, Any]) -> int:
    price = PriceTable.for_budgets(guard.budgets).lookup(req["model"])
    assert price is not None
    return estimate(req, guard.budgets.default_output_tokens).cost(price)


def completion(usage: dict[str, Any] | None) -> Any:
    from openai.types.chat import ChatCompletion

    body: dict[str, Any] = {
        "id": "c",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": "big",
        "choices": [{"index": 0, "message": {"role": "assistant", "content": "ok"}, "finish_reason": "stop"}],
    }
    if usage is not None:
        body["usage"] = usage
    return ChatCompletion.model_validate(body)


def spend(guard: SpendGuard, amount: int) -> None:
    """Put `amount` micro-cents of settled spend on today's ledger."""
    _, rid, _ = guard.ledger.reserve(lambda f: (None, Hold(amount, "big", True)))
    assert rid is not None
    guard.ledger.settle(rid, amount)


def receipts(guard: SpendGuard) -> list[dict[str, Any]]:
    assert guard.audit is not None
    return [e for e in guard.audit.tail(1000) if e.get("event") == "model_call"]


def test_an_allowed_call_is_reserved_then_settled_at_its_reported_usage(opa: Bridge, tmp_path: Path) -> None:
    guard = make_guard(opa, tmp_path, daily_hard_cents=100)
    req = request()
    plan = guard.decide(req, "big", INFO)
    assert plan.allowed and plan.request["model"] == "big"
    assert plan.charge == cost_of(guard, req)
    assert guard.ledger.snapshot().reserved == plan.charge
    guard.settle(plan, completion({"prompt_tokens": 900, "completion_tokens": 100, "total_tokens": 1000}), "")
    f = guard.ledger.snapshot()
    assert (f.spent, f.reserved, f.calls) == (900 * 1000 + 100 * 3000, 0, 1)
    decide, settle = receipts(guard)
    assert decide["phase"] == "decide" and decide["verdict"] == "allow" and decide["charge"] == plan.charge
    assert decide["task"] == "t1" and decide["request"] == "r1" and decide["priced"] is True
    assert settle["phase"] == "settle" and settle["source"] == "usage" and settle["cost"] == f.spent
    assert SECRET not in guard.audit.path.read_text()  # type: ignore[union-attr]
    assert verify_trail(guard.audit.path).ok  # type: ignore[union-attr]


def test_the_provider_reported_cost_wins_and_no_usage_keeps_the_estimate(opa: Bridge, tmp_path: Path) -> None:
    guard = make_guard(opa, tmp_path, daily_hard_cents=100)
    plan = guard.decide(request(), "big", INFO)
    usage = {"prompt_tokens": 10, "completion_tokens": 10, "total_tokens": 20, "cost": 0.0042}
    guard.settle(plan, completion(usage), "chat_completions")
    assert guard.ledger.snapshot().spent == 420_000
    plan2 = guard.decide(request(), "big", INFO)
    guard.settle(plan2, completion(None), "chat_completions")
    assert guard.ledger.snapshot().spent == 420_000 + plan2.charge
    assert [r["source"] for r in receipts(guard) if r["phase"] == "settle"] == ["provider", "estimate"]


def test_the_hard_cap_blocks_with_a_clear_message(opa: Bridge, tmp_path: Path) -> None:
    guard = make_guard(opa, tmp_path, daily_hard_cents=100)
    req = request()
    spend(guard, 100 * 1_000_000 - cost_of(guard, req))  # exactly room for this call
    assert guard.decide(req, "big", INFO).allowed
    blocked = guard.decide(req, "big", INFO)  # the first one's reservation fills the cap
    assert not blocked.allowed and blocked.rid is None
    assert "[SPEND_HARD_CAP]" in blocked.message and "daily hard cap of $1.00" in blocked.message
    assert "raise budgets.daily_hard_cents" in blocked.message
    assert receipts(guard)[-1]["verdict"] == "block" and receipts(guard)[-1]["reasons"] == ["SPEND_HARD_CAP"]


def test_the_soft_cap_switches_only_to_a_really_cheaper_model(opa: Bridge, tmp_path: Path) -> None:
    guard = make_guard(opa, tmp_path / "a", daily_soft_cents=1, daily_hard_cents=1000, cheaper_model="small")
    spend(guard, 2_000_000)
    req = request()
    plan = guard.decide(req, "big", INFO)
    assert plan.allowed and plan.request["model"] == "small" and plan.model == "small"
    assert req["model"] == "big"  # Hermes' own dict is left alone
    assert plan.charge == cost_of(guard, {**req, "model": "small"})
    assert receipts(guard)[-1]["downgraded"] is True and receipts(guard)[-1]["requested"] == "big"
    assert guard.preview(req, "big", INFO) == "small"

    dear = make_guard(
        opa, tmp_path / "b", daily_soft_cents=1, daily_hard_cents=1000, cheaper_model="cheap-in-dear-out"
    )
    spend(dear, 2_000_000)
    kept = dear.decide(request(), "big", INFO)
    assert kept.allowed and kept.request["model"] == "big"
    assert dear.preview(request(), "big", INFO) is None


def test_below_the_soft_cap_nothing_changes(opa: Bridge, tmp_path: Path) -> None:
    guard = make_guard(opa, tmp_path, daily_soft_cents=500, cheaper_model="small")
    plan = guard.decide(request(), "big", INFO)
    assert plan.allowed and plan.model == "big"
    assert guard.preview(request(), "big", INFO) is None


def test_the_per_minute_cap(opa: Bridge, tmp_path: Path) -> None:
    guard = make_guard(opa, tmp_path, per_minute_cents=5)
    req = request()
    spend(guard, 5 * 1_000_000 - cost_of(guard, req) + 1)
    blocked = guard.decide(req, "big", INFO)
    assert not blocked.allowed and "[SPEND_RATE]" in blocked.message


def test_an_unpriced_model_blocks_under_a_hard_cap_unless_allowed(opa: Bridge, tmp_path: Path) -> None:
    guard = make_guard(opa, tmp_path / "a", daily_hard_cents=100)
    blocked = guard.decide(request("mystery-model"), "mystery-model", INFO)
    assert (
        not blocked.allowed and "[SPEND_UNPRICED]" in blocked.message and "budgets.prices" in blocked.message
    )

    lenient = make_guard(opa, tmp_path / "b", daily_hard_cents=100, unpriced="allow")
    plan = lenient.decide(request("mystery-model"), "mystery-model", INFO)
    assert plan.allowed and plan.charge == 0 and plan.price is None
    lenient.settle(plan, completion({"prompt_tokens": 50, "completion_tokens": 5, "total_tokens": 55}), "")
    f = lenient.ledger.snapshot()
    assert (f.spent, f.unpriced_calls) == (0, 1)  # recorded as unpriced, not as free
    assert receipts(lenient)[-1]["source"] == "unpriced" and receipts(lenient)[-1]["cost"] is None
    # A provider that reports the cost prices the call after all.
    plan = lenient.decide(request("mystery-model"), "mystery-model", INFO)
    lenient.settle(
        plan, completion({"prompt_tokens": 5, "completion_tokens": 5, "total_tokens": 10, "cost": 0.01}), ""
    )
    assert lenient.ledger.snapshot().spent == 1_000_000


def test_without_caps_calls_are_recorded_but_opa_is_not_needed(tmp_path: Path) -> None:
    unstarted = Bridge(Config(), tmp_path / "state")  # any query would fail: OPA is not running
    config = Config.model_validate({"budgets": {"prices": PRICES}})
    guard = SpendGuard(
        config.budgets,
        Ledger(tmp_path / "ledger.json"),
        unstarted,
        AuditLog(tmp_path / "a.jsonl"),
        lambda: "down",
    )
    plan = guard.decide(request(), "big", INFO)
    assert plan.allowed
    guard.settle(plan, completion(None), "")
    assert guard.ledger.snapshot().spent == plan.charge


def test_with_caps_an_unreachable_opa_blocks(tmp_path: Path) -> None:
    config = Config.model_validate({"budgets": {"prices": PRICES, "daily_hard_cents": 100}})
    unstarted = Bridge(config, tmp_path / "state")
    guard = SpendGuard(
        config.budgets,
        Ledger(tmp_path / "ledger.json"),
        unstarted,
        AuditLog(tmp_path / "a.jsonl"),
        lambda: None,
    )
    plan = guard.decide(request(), "big", INFO)
    assert not plan.allowed and "[OPA_UNAVAILABLE]" in plan.message
    assert guard.ledger.snapshot().in_flight == 0
    not_ready = SpendGuard(
        config.budgets, Ledger(tmp_path / "l2.json"), unstarted, None, lambda: "OPA did not start"
    )
    assert "[SPEND_UNAVAILABLE]" in not_ready.decide(request(), "big", INFO).message


def test_a_failed_call_releases_its_reservation(opa: Bridge, tmp_path: Path) -> None:
    guard = make_guard(opa, tmp_path, daily_hard_cents=100)
    plan = guard.decide(request(), "big", INFO)
    guard.release(plan, TimeoutError("provider timed out"))
    f = guard.ledger.snapshot()
    assert (f.reserved, f.spent, f.calls) == (0, 0, 0)
    assert receipts(guard)[-1]["phase"] == "release" and receipts(guard)[-1]["error"] == "TimeoutError"


def test_a_damaged_ledger_blocks_every_call_and_says_how_to_recover(opa: Bridge, tmp_path: Path) -> None:
    for budgets in ({"daily_hard_cents": 100}, {}):
        guard = make_guard(opa, tmp_path / str(len(budgets)), **budgets)
        spend(guard, 10)
        guard.ledger.path.write_text('{"day": "x"')
        plan = guard.decide(request(), "big", INFO)
        assert not plan.allowed and "[LEDGER_DAMAGED]" in plan.message
        assert "opafence audit rebuild-ledger" in plan.message
        assert receipts(guard)[-1]["reasons"] == ["LEDGER_DAMAGED"]


def test_a_broken_audit_trail_blocks_the_call_and_releases_its_reservation(
    opa: Bridge, tmp_path: Path
) -> None:
    guard = make_guard(opa, tmp_path, daily_hard_cents=100)
    assert guard.decide(request(), "big", INFO).allowed
    with guard.audit.path.open("a") as f:  # type: ignore[union-attr]
        f.write('{"seq": 99, "torn')  # a damaged last entry
    before = guard.ledger.snapshot().reserved
    plan = guard.decide(request(), "big", INFO)
    assert (
        not plan.allowed and "[AUDIT_UNAVAILABLE]" in plan.message and "opafence audit reseal" in plan.message
    )
    assert guard.ledger.snapshot().reserved == before


def test_a_broken_price_file_blocks(opa: Bridge, tmp_path: Path) -> None:
    bad = tmp_path / "prices.yaml"
    bad.write_text("models: {x: {input: -1, output: 1}}")
    guard = make_guard(opa, tmp_path, prices_file=str(bad))
    plan = guard.decide(request(), "big", INFO)
    assert not plan.allowed and "price table cannot be read" in plan.message


def test_monitor_mode_lets_the_call_through_and_records_what_enforce_would_do(
    opa: Bridge, tmp_path: Path
) -> None:
    config = Config.model_validate({"mode": "monitor", "budgets": {"prices": PRICES, "daily_hard_cents": 1}})
    opa.config = config
    opa._push_all()
    guard = SpendGuard(
        config.budgets, Ledger(tmp_path / "l.json"), opa, AuditLog(tmp_path / "a.jsonl"), lambda: None
    )
    spend(guard, 5_000_000)
    plan = guard.decide(request(), "big", INFO)
    assert plan.allowed and plan.model == "big"
    assert receipts(guard)[-1]["monitor"] == "block"


@pytest.mark.parametrize(
    "mode", ["chat_completions", "anthropic_messages", "codex_responses", "bedrock_converse"]
)
def test_a_stopped_call_is_a_final_answer_in_every_api_mode(mode: str) -> None:
    import agent.transports.anthropic
    import agent.transports.bedrock
    import agent.transports.chat_completions
    import agent.transports.codex  # noqa: F401  (registers the transports)
    from agent.transports import get_transport

    transport = get_transport(mode)
    response = stop_response("opafence stopped this model call: x [SPEND_HARD_CAP].", mode, "m")
    assert transport.validate_response(response)
    normalized = transport.normalize_response(response)
    assert normalized.content == "opafence stopped this model call: x [SPEND_HARD_CAP]."
    assert normalized.finish_reason == "stop" and not normalized.tool_calls
    assert getattr(response, "usage", None) is None  # nothing for Hermes to bill


def test_receipts_hold_no_prompt_text(opa: Bridge, tmp_path: Path) -> None:
    guard = make_guard(opa, tmp_path)
    guard.settle(guard.decide(request(), "big", INFO), completion(None), "")
    text = guard.audit.path.read_text()  # type: ignore[union-attr]
    assert SECRET not in text and "xxxx" not in text
    assert all(json.loads(line)["sig"] for line in text.splitlines())
