"""The model-call middleware around a real Fence (real OPA), outside Hermes: a provider error
releases the reservation and propagates, a success settles, a failed setup stops every call."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from opafence.hermes.budget_hooks import BudgetHooks
from opafence.hermes.fence import Fence
from opafence.state_files import state_dir


@pytest.fixture
def hooks() -> Iterator[BudgetHooks]:
    state_dir().mkdir(parents=True)
    (state_dir() / "config.yaml").write_text(
        "budgets:\n  daily_hard_cents: 100\n  prices: {m: {input: 1, output: 2}}\n"
    )
    fence = Fence()
    fence.setup(start_in_background=False)
    assert fence.error is None, fence.error
    h = BudgetHooks(fence)
    h.setup()
    fence.budgets = h
    try:
        yield h
    finally:
        fence.close()


REQUEST = {"model": "m", "messages": [{"role": "user", "content": "hi"}], "max_tokens": 10}


def test_a_provider_error_releases_the_reservation_and_propagates(hooks: BudgetHooks) -> None:
    def failing(request: Any) -> Any:
        assert hooks.spend is not None and hooks.spend.ledger.snapshot().reserved > 0  # held during the call
        raise ConnectionError("provider down")

    with pytest.raises(ConnectionError):
        hooks.llm_execution(
            request=REQUEST, next_call=failing, model="m", session_id="s1", api_request_id="r1"
        )
    assert hooks.spend is not None
    f = hooks.spend.ledger.snapshot()
    assert (f.reserved, f.spent, f.calls) == (0, 0, 0)
    phases = [e["phase"] for e in hooks.fence.audit.tail(10) if e.get("event") == "model_call"]  # type: ignore[union-attr]
    assert phases == ["decide", "release"]


def test_a_success_settles_and_returns_the_provider_response(hooks: BudgetHooks) -> None:
    sentinel = {"usage": {"prompt_tokens": 100, "completion_tokens": 10}}
    seen: list[dict[str, Any]] = []

    def ok(request: dict[str, Any]) -> Any:
        seen.append(request)
        return sentinel

    assert hooks.llm_execution(request=REQUEST, next_call=ok, model="m", session_id="s1") is sentinel
    assert seen == [REQUEST]
    assert hooks.spend is not None and hooks.spend.ledger.snapshot().spent == 100 * 100 + 10 * 200


def test_not_a_request_is_stopped(hooks: BudgetHooks) -> None:
    out = hooks.llm_execution(request=None, next_call=lambda r: r, model="m", api_mode="chat_completions")
    assert "SPEND_BAD_INPUT" in out.choices[0].message.content


def test_a_failed_setup_stops_every_model_call(tmp_path: Path) -> None:
    state_dir().mkdir(parents=True)
    (state_dir() / "config.yaml").write_text("budgets:\n  daily_hard_cent: 100\n")  # a typo
    fence = Fence()
    fence.setup(start_in_background=False)
    h = BudgetHooks(fence)
    h.setup()
    called: list[Any] = []
    out = h.llm_execution(request=REQUEST, next_call=called.append, model="m", api_mode="anthropic_messages")
    assert called == []
    text = out.content[0].text
    assert text.startswith("opafence stopped this model call: opafence could not start")
    assert "daily_hard_cent" in text
