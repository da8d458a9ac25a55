"""Spend caps and delegation limits in the real Hermes loop (only the provider is stubbed).

The caps are set per test on the session's one opafence (the config is read once at start):
the test swaps in a spend guard with its own ledger and pushes the matching data.config."""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from opafence.audit.verify import verify_trail
from opafence.budget.launches import DelegationWindows
from opafence.budget.spend import SpendGuard
from opafence.budget.spend_ledger import Hold, Ledger
from opafence.config import BudgetsConfig

from .agents import fake_agent, tool_messages
from .conftest import Harness, Script

PRICES = {
    "fake-model": {"input": "10", "output": "30"},
    "fake-mini": {"input": "1", "output": "3"},
    "fake-odd": {"input": "0.1", "output": "90"},
}
CENT = 1_000_000


@pytest.fixture
def caps(hermes: Harness, tmp_path: Path) -> Iterator[Callable[..., SpendGuard]]:
    fence = hermes.fence
    hooks = fence.budgets
    saved = (fence.config, hooks.spend, hooks.delegation)

    def configure(**budgets: Any) -> SpendGuard:
        config = fence.config.model_copy(
            update={"budgets": BudgetsConfig.model_validate({"prices": PRICES, **budgets})}
        )
        fence.config = config
        fence.bridge.config = config
        fence.bridge._push_all()
        hooks.spend = SpendGuard(
            config.budgets,
            Ledger(tmp_path / "budget" / "ledger.json"),
            fence.bridge,
            fence.audit,
            hooks._ready,
        )
        hooks.delegation = DelegationWindows(
            tmp_path / "budget" / "delegations.json", config.budgets.delegation
        )
        return hooks.spend

    try:
        yield configure
    finally:
        fence.config, hooks.spend, hooks.delegation = saved
        fence.bridge.config = fence.config
        fence.bridge._push_all()


class Provider:
    """A scripted provider that records the model each request asked for."""

    def __init__(
        self, script: Callable[[list[dict[str, Any]]], dict[str, Any]], cost_usd: float | None
    ) -> None:
        self.script = script
        self.cost_usd = cost_usd
        self.models: list[str] = []
        self.requests: list[list[dict[str, Any]]] = []

    def __call__(self, api_kwargs: dict[str, Any]) -> Any:
        from openai.types.chat import ChatCompletion

        self.models.append(str(api_kwargs.get("model")))
        messages = list(api_kwargs.get("messages", []))
        self.requests.append(messages)
        reply = self.script(messages)
        usage: dict[str, Any] = {"prompt_tokens": 1000, "completion_tokens": 100, "total_tokens": 1100}
        if self.cost_usd is not None:
            usage["cost"] = self.cost_usd
        return ChatCompletion.model_validate(
            {
                "id": f"c-{uuid.uuid4().hex[:6]}",
                "object": "chat.completion",
                "created": int(time.time()),
                "model": str(api_kwargs.get("model")),
                "choices": [
                    {
                        "index": 0,
                        "message": reply,
                        "finish_reason": "tool_calls" if reply.get("tool_calls") else "stop",
                    }
                ],
                "usage": usage,
            }
        )


@pytest.fixture
def provider(monkeypatch: pytest.MonkeyPatch) -> Callable[..., Provider]:
    import run_agent

    def install(
        script: Callable[[list[dict[str, Any]]], dict[str, Any]], cost_usd: float | None = None
    ) -> Provider:
        p = Provider(script, cost_usd)
        monkeypatch.setattr(run_agent.AIAgent, "_interruptible_api_call", lambda self, kw, *a, **k: p(kw))
        monkeypatch.setattr(
            run_agent.AIAgent, "_interruptible_streaming_api_call", lambda self, kw, *a, **k: p(kw)
        )
        return p

    return install


def agent(session: str, toolsets: list[str] | None = None) -> Any:
    # max_tokens: the output reserved per call (Hermes' default here is 65536)
    return fake_agent(session, toolsets or ["opafence_test"], max_iterations=6, max_tokens=2000)


def say(text: str) -> dict[str, Any]:
    return {"role": "assistant", "content": text}


def call(name: str, args: dict[str, Any]) -> dict[str, Any]:
    return {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {
                "id": f"call_{uuid.uuid4().hex[:8]}",
                "type": "function",
                "function": {"name": name, "arguments": json.dumps(args)},
            }
        ],
    }


def fill(guard: SpendGuard, amount: int) -> None:
    _, rid, _ = guard.ledger.reserve(lambda f: (None, Hold(amount, "fake-model", True)))
    assert rid is not None
    guard.ledger.settle(rid, amount)


def model_receipts(hermes: Harness, session: str) -> list[dict[str, Any]]:
    return [
        e
        for e in hermes.fence.audit.tail(5000)
        if e.get("event") == "model_call" and e.get("session") == session
    ]


def sid() -> str:
    return f"s-{uuid.uuid4().hex[:8]}"


def test_the_hard_cap_stops_the_loop_before_the_provider_with_the_message(
    hermes: Harness, caps: Callable[..., SpendGuard], provider: Callable[..., Provider]
) -> None:
    guard = caps(daily_hard_cents=100)
    fill(guard, 100 * CENT)
    p = provider(lambda messages: say("should never be produced"))
    session = sid()
    result = agent(session).run_conversation("Summarize the deployment docs.")
    assert p.models == []  # the provider was never called
    final = str(result.get("final_response"))
    assert final.startswith("opafence stopped this model call:") and "[SPEND_HARD_CAP]" in final
    assert "raise budgets.daily_hard_cents" in final
    receipts = model_receipts(hermes, session)
    assert [(r["phase"], r["verdict"]) for r in receipts] == [("decide", "block")]  # no retry, no fallback
    assert guard.ledger.snapshot().in_flight == 0


def test_the_cap_reached_mid_task_ends_the_turn_cleanly(
    hermes: Harness, caps: Callable[..., SpendGuard], provider: Callable[..., Provider]
) -> None:
    guard = caps(daily_hard_cents=50)

    def script(messages: list[dict[str, Any]]) -> dict[str, Any]:
        if not tool_messages(messages):
            return call("mcp__gmail__search_emails", {"query": "invoices"})
        return say("done")

    p = provider(script, cost_usd=0.49)  # the first call is billed 49 cents by the provider
    session = sid()
    result = agent(session).run_conversation("Search my mail for invoices.")
    assert len(p.models) == 1
    assert "[SPEND_HARD_CAP]" in str(result.get("final_response"))
    f = guard.ledger.snapshot()
    assert f.spent == 49 * CENT and f.in_flight == 0
    phases = [(r["phase"], r.get("verdict") or r.get("source")) for r in model_receipts(hermes, session)]
    assert phases == [("decide", "allow"), ("settle", "provider"), ("decide", "block")]


def test_the_soft_cap_downgrades_only_to_a_really_cheaper_model(
    hermes: Harness, caps: Callable[..., SpendGuard], provider: Callable[..., Provider]
) -> None:
    guard = caps(daily_soft_cents=1, daily_hard_cents=1000, cheaper_model="fake-mini")
    fill(guard, 2 * CENT)
    p = provider(lambda messages: say("ok"))
    session = sid()
    agent(session).run_conversation("Hello")
    assert p.models == ["fake-mini"]
    decide = model_receipts(hermes, session)[0]
    # llm_request already switched the model (Hermes' trace shows it); the receipt says so.
    assert (
        decide["downgraded"] is True
        and decide["requested"] == "fake-model"
        and decide["model"] == "fake-mini"
    )
    assert decide["reasons"] == ["SPEND_SOFT_CAP"]

    guard = caps(daily_soft_cents=1, daily_hard_cents=1000, cheaper_model="fake-odd")  # dearer output
    fill(guard, 2 * CENT)
    p = provider(lambda messages: say("ok"))
    agent(sid()).run_conversation("Hello")
    assert p.models == ["fake-model"]


def test_usage_settles_the_ledger_and_every_call_has_signed_receipts(
    hermes: Harness, caps: Callable[..., SpendGuard], provider: Callable[..., Provider]
) -> None:
    guard = caps(daily_hard_cents=10_000)
    provider(lambda messages: say("ok"))  # no reported cost: usage at the table's price
    session = sid()
    agent(session).run_conversation("Hello")
    f = guard.ledger.snapshot()
    assert f.spent == 1000 * 1000 + 100 * 3000 and f.calls == 1
    receipts = model_receipts(hermes, session)
    assert [r["phase"] for r in receipts] == ["decide", "settle"]
    assert all(r["task"] == session and r["sig"] for r in receipts)
    assert verify_trail(hermes.fence.audit.path).ok


def test_a_damaged_ledger_stops_the_loop_with_the_way_to_recover(
    hermes: Harness, caps: Callable[..., SpendGuard], provider: Callable[..., Provider]
) -> None:
    guard = caps()
    fill(guard, 1)
    guard.ledger.path.write_text("{half")
    p = provider(lambda messages: say("never"))
    result = agent(sid()).run_conversation("Hello")
    assert p.models == []
    final = str(result.get("final_response"))
    assert "[LEDGER_DAMAGED]" in final and "opafence audit rebuild-ledger" in final


def test_delegation_over_the_limit_asks_and_a_denial_gives_the_launches_back(
    hermes: Harness,
    caps: Callable[..., SpendGuard],
    provider: Callable[..., Provider],
    person: tuple[Script, str],
) -> None:
    from gateway.session_context import declare_stateless_channel

    declare_stateless_channel()
    caps(delegation={"short_max": 2, "long_max": 10})
    batch = {"tasks": [{"goal": "Check a"}, {"goal": "Check b"}, {"goal": "Check c"}]}

    def script(messages: list[dict[str, Any]]) -> dict[str, Any]:
        return say("done") if tool_messages(messages) else call("delegate_task", batch)

    provider(script)
    answers, session = person
    answers.answers = ["deny"]
    agent(session, ["delegation", "opafence_test"]).run_conversation("Check the three services")
    decisions = [
        e
        for e in hermes.fence.audit.tail(5000)
        if e.get("event") == "decision" and e.get("session") == session and e.get("tool") == "delegate_task"
    ]
    assert decisions and decisions[-1]["verdict"] == "ask" and "DELEGATION_LIMIT" in decisions[-1]["reasons"]
    assert answers.prompts and "3 sub-agent(s)" in answers.prompts[0][1]
    # Denied: the three launches were given back.
    assert hermes.fence.budgets.delegation.counts(session) == (0, 0)


def test_launches_count_per_task_tree_and_unattended_blocks(
    hermes: Harness, caps: Callable[..., SpendGuard]
) -> None:
    caps(delegation={"short_max": 1, "long_max": 10})
    fence = hermes.fence
    parent, child = sid(), sid()
    fence.pre_llm_call(session_id=parent, task_id="t1", user_message="Check the services", platform="cli")
    fence.subagent_start(parent_session_id=parent, child_session_id=child, child_subagent_id="sa-0-abc")
    first = fence.pre_tool_call(
        tool_name="delegate_task", args={"goal": "a"}, session_id=parent, tool_call_id="c1"
    )
    # Nobody can answer here (no interactive user): over-limit becomes a block.
    second = fence.pre_tool_call(
        tool_name="delegate_task", args={"goal": "b"}, task_id="sa-0-abc", session_id=child, tool_call_id="c2"
    )
    assert second is not None and second["action"] == "block"
    assert (
        "DELEGATION_LIMIT" in second["message"]
        and "1 were already launched by this task" in second["message"]
    )
    assert first is None or "DELEGATION_LIMIT" not in first.get("message", "")


def test_fence_budget_shows_spend_against_the_caps(
    hermes: Harness, caps: Callable[..., SpendGuard], provider: Callable[..., Provider]
) -> None:
    from opafence.hermes import command

    guard = caps(daily_soft_cents=100, daily_hard_cents=500)
    provider(lambda messages: say("ok"))
    session = sid()
    agent(session).run_conversation("Hello")
    out = command.run(hermes.fence, "budget")
    assert "spend today" in out and "of soft $1.00 / hard $5.00" in out
    assert f"{guard.ledger.snapshot().calls} calls" in out
    assert "model calls: 1" in out and "sub-agents launched" in out
