"""`opafence audit`, `audit verify`, `audit reseal` and `audit rebuild-ledger` through the real CLI."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from opafence.audit.trail import AuditLog
from opafence.budget.spend import CallInfo, SpendGuard
from opafence.budget.spend_ledger import Ledger
from opafence.cli import main
from opafence.config import Config
from opafence.opa.bridge import Bridge
from opafence.state_files import state_dir


def trail() -> AuditLog:
    log = AuditLog(state_dir() / "audit.jsonl")
    state_dir().mkdir(parents=True, exist_ok=True)
    for tool, verdict, reasons in [
        ("read_file", "allow", []),
        ("terminal", "block", ["NOT_AUTHORIZED"]),
        ("terminal", "ask", ["NOT_AUTHORIZED", "UNKNOWN_TOOL"]),
        ("mcp__gmail__send_email", "block", ["USER_PROHIBITION"]),
    ]:
        log.append({"event": "decision", "task": "t", "tool": tool, "verdict": verdict, "reasons": reasons})
    log.append({"event": "approval", "task": "t", "tool": "terminal", "outcome": "denied"})
    return log


def spend_some(calls: int, unsettled: int = 0) -> tuple[SpendGuard, int]:
    """Model calls through the spend guard (no caps: no OPA needed); returns the spend."""
    from openai.types.chat import ChatCompletion

    budgets = Config.model_validate({"budgets": {"prices": {"big": {"input": "10", "output": "30"}}}}).budgets
    state = state_dir()
    guard = SpendGuard(
        budgets,
        Ledger(state / "budget" / "ledger.json"),
        Bridge(Config(), state),
        AuditLog(state / "audit.jsonl"),
        lambda: None,
    )
    request = {"model": "big", "messages": [{"role": "user", "content": "hello"}], "max_tokens": 100}
    usage = {"prompt_tokens": 100, "completion_tokens": 10, "total_tokens": 110}
    response = ChatCompletion.model_validate(
        {
            "id": "c",
            "object": "chat.completion",
            "created": 0,
            "model": "big",
            "usage": usage,
            "choices": [
                {"index": 0, "message": {"role": "assistant", "content": "ok"}, "finish_reason": "stop"}
            ],
        }
    )
    for i in range(calls):
        guard.settle(guard.decide(request, "big", CallInfo(task="t", request_id=f"r{i}")), response, "")
    for i in range(unsettled):
        guard.decide(request, "big", CallInfo(task="t", request_id=f"open{i}"))  # its process "died"
    return guard, guard.ledger.snapshot().spent


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str]:
    code = main(list(argv))
    out = capsys.readouterr()
    return code, out.out + out.err


def test_audit_shows_counts_by_verdict_rule_and_tool_and_spend_against_caps(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    trail()
    spend_some(2)
    config = tmp_path / "config.yaml"
    config.write_text("budgets:\n  daily_soft_cents: 100\n  daily_hard_cents: 500\n  per_minute_cents: 50\n")
    code, out = run(capsys, "audit", "--config", str(config))
    assert code == 0
    assert "4 tool decisions" in out
    assert "by verdict: block 2, allow 1, ask 1" in out
    assert "by rule:    NOT_AUTHORIZED 2" in out and "USER_PROHIBITION 1" in out
    assert "by tool:    terminal 2" in out
    assert "model calls: 2 (0 stopped, 0 downgraded), cost $0.0026" in out
    assert "approvals: denied 1" in out
    assert "spend today" in out and "of soft $1.00 / hard $5.00; 2 calls" in out
    assert "per minute" in out


def test_audit_json(capsys: pytest.CaptureFixture[str]) -> None:
    trail()
    code, out = run(capsys, "audit", "--json", "--since", "24h")
    data = json.loads(out)
    assert code == 0 and data["decisions"] == 4 and data["by_verdict"]["block"] == 2
    assert data["spend"]["spent"] == 0 and data["caps"]["daily_hard_cents"] is None


def test_bad_since_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    code, out = run(capsys, "audit", "--since", "last tuesday")
    assert code == 2 and "--since" in out


def test_verify_passes_then_fails_naming_the_entry(capsys: pytest.CaptureFixture[str]) -> None:
    log = trail()
    code, out = run(capsys, "audit", "verify")
    assert code == 0 and "OK: 5 entries" in out and "signed head at seq 5" in out
    rows = log.path.read_text().splitlines()
    edited = json.loads(rows[1])
    edited["verdict"] = "allow"
    rows[1] = json.dumps(edited)
    log.path.write_text("\n".join(rows) + "\n")
    code, out = run(capsys, "audit", "verify")
    assert code == 1
    assert "FAIL audit.jsonl:2 (seq 2): its content was changed after it was written" in out


def test_verify_on_an_empty_home(capsys: pytest.CaptureFixture[str]) -> None:
    code, out = run(capsys, "audit", "verify")
    assert code == 0 and "no entries yet" in out


def test_reseal_after_truncation(capsys: pytest.CaptureFixture[str]) -> None:
    log = trail()
    log.path.write_text("".join(line + "\n" for line in log.path.read_text().splitlines()[:-2]))
    assert run(capsys, "audit", "verify")[0] == 1
    code, out = run(capsys, "audit", "reseal", "--reason", "checked with the security team")
    assert code == 0 and "resealed" in out
    code, out = run(capsys, "audit", "verify")
    assert code == 0 and "note:" in out and "checked with the security team" in out


def test_rebuild_ledger_from_the_signed_trail(capsys: pytest.CaptureFixture[str]) -> None:
    guard, spent = spend_some(3, unsettled=1)
    open_charge = guard.ledger.snapshot().reserved
    assert open_charge > 0
    guard.ledger.path.write_text("{damaged")
    code, out = run(capsys, "audit", "rebuild-ledger")
    assert code == 0 and "the old ledger is kept" in out
    f = guard.ledger.snapshot()
    # settled calls at their cost, the call that never settled at its estimate
    assert (f.spent, f.calls) == (spent + open_charge, 4)


def test_rebuild_leaves_out_entries_that_do_not_verify(capsys: pytest.CaptureFixture[str]) -> None:
    guard, spent = spend_some(2)
    rows = guard.audit.path.read_text().splitlines()  # type: ignore[union-attr]
    settle: dict[str, Any] = json.loads(rows[-1])
    settle["cost"] = 1  # a forged, cheaper settlement
    rows[-1] = json.dumps(settle)
    guard.audit.path.write_text("\n".join(rows) + "\n")  # type: ignore[union-attr]
    code, out = run(capsys, "audit", "rebuild-ledger")
    assert code == 0 and "1 model-call entries failed verification" in out
    decided = [json.loads(r) for r in rows if '"phase":"decide"' in r]
    f = guard.ledger.snapshot()
    # The forged settlement is left out; its call counts at the estimate it was decided with.
    assert f.spent == spent // 2 + decided[-1]["charge"] and f.calls == 2
