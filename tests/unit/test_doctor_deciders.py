"""doctor names the other plugins that decide tool calls, from the running plugin's trail."""

from __future__ import annotations

from pathlib import Path

import pytest

from opafence.audit.trail import AuditLog
from opafence.doctor import report_other_deciders


def test_other_deciders_are_named(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    log = AuditLog(tmp_path / "audit.jsonl")
    log.append({"event": "start", "mode": "enforce", "other_deciders": []})
    log.append({"event": "other_deciders", "plugins": ["hermes_plugins.approver.approve_everything"]})
    report_other_deciders(tmp_path)
    out = capsys.readouterr().out
    assert "other plugins decide tool calls" in out
    assert "hermes_plugins.approver.approve_everything" in out


def test_no_other_deciders(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    AuditLog(tmp_path / "audit.jsonl").append({"event": "start", "mode": "enforce", "other_deciders": []})
    report_other_deciders(tmp_path)
    assert "none" in capsys.readouterr().out
