"""opafence inside real Hermes 0.19.0 dispatch (handle_function_call)."""

from __future__ import annotations

import json
import uuid

import pytest

from .conftest import Harness


def sid() -> str:
    return f"s-{uuid.uuid4().hex[:8]}"


def test_discovered_through_entry_point_and_first(hermes: Harness) -> None:
    from hermes_cli.plugins import get_plugin_manager

    mgr = get_plugin_manager()
    assert mgr._plugins["opafence"].enabled
    assert mgr._hooks["pre_tool_call"][0] == hermes.fence.pre_tool_call
    assert mgr._middleware["tool_execution"][-1] == hermes.fence.tool_execution


def test_read_runs_unknown_blocks_when_nobody_can_answer(hermes: Harness) -> None:
    s = sid()
    ok = hermes.call("read_file", {"path": str(hermes.home / "config.yaml")}, s, "c1")
    assert "error" not in json.loads(ok)
    blocked = hermes.call("mock_deploy", {"target": "prod"}, s, "c2")
    assert json.loads(blocked)["error"].startswith("opafence blocked mock_deploy:")
    assert "NOBODY_TO_ASK" in blocked
    assert hermes.ran_tools() == []


def test_approve_everything_plugin_in_yolo_cannot_run_a_blocked_tool(
    hermes: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tools import approval

    monkeypatch.setenv("OPAFENCE_TEST_APPROVER", "1")
    monkeypatch.setattr(approval, "_YOLO_MODE_FROZEN", True)
    s = sid()
    for i in range(3):
        out = hermes.call("mock_deploy", {"target": "prod"}, s, f"c{i}")
        # opafence's own decision won (it is first), not the execution backstop.
        assert json.loads(out)["error"].startswith("opafence blocked mock_deploy: This action needs")
    assert hermes.ran_tools() == []


def test_backstop_when_another_plugin_is_first(hermes: Harness, monkeypatch: pytest.MonkeyPatch) -> None:
    """If opafence is displaced and an approve-everything plugin wins in yolo, the tool still
    does not run: the execution re-check finds no allow for it."""
    from hermes_cli.plugins import get_plugin_manager
    from tools import approval

    from opafence.hermes import ordering

    monkeypatch.setenv("OPAFENCE_TEST_APPROVER", "1")
    monkeypatch.setattr(approval, "_YOLO_MODE_FROZEN", True)
    monkeypatch.setattr(ordering, "ensure_order", lambda *a: [])
    hooks = get_plugin_manager()._hooks["pre_tool_call"]
    saved = list(hooks)
    approver = next(cb for cb in hooks if getattr(cb, "__name__", "") == "approve_everything")
    hooks[:] = [approver] + [cb for cb in hooks if cb is not approver]
    try:
        out = hermes.call("mock_deploy", {"target": "prod"}, sid(), "c1")
    finally:
        hooks[:] = saved
    assert "NOT_DECIDED" in json.loads(out)["error"]
    assert hermes.ran_tools() == []


def test_args_mutated_after_decision_are_blocked(hermes: Harness, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPAFENCE_TEST_MUTATOR", "1")
    out = hermes.call("read_file", {"path": str(hermes.home / "config.yaml")}, sid(), "c1")
    assert "ARGS_CHANGED" in json.loads(out)["error"]


def test_undecided_execution_is_blocked(hermes: Harness) -> None:
    """A path that skips pre_tool_call still meets the execution re-check."""
    out = hermes.model_tools.handle_function_call(
        "mock_deploy",
        {"target": "x"},
        task_id="t",
        session_id=sid(),
        tool_call_id="never",
        skip_pre_tool_call_hook=True,
    )
    assert "NOT_DECIDED" in json.loads(out)["error"]
    assert hermes.ran_tools() == []


def test_hook_moves_back_to_front_when_displaced(hermes: Harness) -> None:
    from hermes_cli.plugins import get_plugin_manager

    hooks = get_plugin_manager()._hooks["pre_tool_call"]
    hooks.remove(hermes.fence.pre_tool_call)
    hooks.append(hermes.fence.pre_tool_call)
    hermes.call("read_file", {"path": "/etc/hostname"}, sid(), "c1")
    assert hooks[0] == hermes.fence.pre_tool_call


def test_audit_lines_are_chained_and_hold_no_contents(hermes: Harness) -> None:
    from opafence.audit.trail import verify_chain

    secret = "very-secret-body-" + uuid.uuid4().hex
    hermes.call("mcp__gmail__send_email", {"to": ["a@b.c"], "body": secret}, sid(), "c1")
    log = hermes.fence.audit.path
    assert secret not in log.read_text()
    assert verify_chain([log]) == []
    assert oct(log.stat().st_mode & 0o777) == "0o600"


def test_decisions_record_a_redacted_target(hermes: Harness) -> None:
    """audit.targets defaults to redacted: the recipient's domain, never the address or body."""
    session = sid()
    hermes.call("mcp__gmail__send_email", {"to": ["ann.smith@acme.example"], "body": "q3"}, session, "c1")
    entries = [json.loads(line) for line in hermes.fence.audit.path.read_text().splitlines()]
    (mine,) = [e for e in entries if e.get("event") == "decision" and e.get("session") == session]
    assert mine["target"] == {"recipients": ["@acme.example"]}
    assert "ann.smith" not in json.dumps(mine)


def test_a_decision_that_cannot_be_recorded_is_a_block(
    hermes: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    from opafence.audit.trail import AuditError

    def broken(record: object) -> None:
        raise AuditError("the head record does not match the log (run `opafence audit verify`)")

    monkeypatch.setattr(hermes.fence.audit, "append", broken)
    out = json.loads(hermes.call("read_file", {"path": "/etc/hostname"}, sid(), "c1"))
    assert "AUDIT_UNAVAILABLE" in out["error"] and "head record" in out["error"]
