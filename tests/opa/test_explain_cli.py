"""`opafence explain` against the real opa binary: verdict, reasons, classes, facts, trace."""

from __future__ import annotations

import json

import pytest

from opafence.cli import main
from opafence.config import Config
from opafence.explain_cmd import explain_call, render, trace_params
from opafence.host import Host
from opafence.judge import Judge
from opafence.opa.bridge import Bridge

HOST = Host(auto_approve=False, interactive=True, platform="cli", workspace=("/srv/app",), cwd="/srv/app")


def test_explain_a_read(bridge: Bridge) -> None:
    out = explain_call(
        Judge(bridge, HOST, Config()), "What is in this repo?", "read_file", {"path": "README.md"}
    )
    assert out["verdict"] == "allow"
    assert out["classes"] == ["READ"]
    assert out["reasons"] == []
    assert out["facts"]["tool"]["name"] == "read_file"
    assert out["input"]["call"] == {"tool": "read_file", "args": {"path": "README.md"}, "id": ""}
    assert out["policy"]["compiled_by"] in {"fallback", "rules", "llm"}
    assert "explanation" not in out


def test_explain_an_unknown_tool_with_notes(bridge: Bridge) -> None:
    out = explain_call(
        Judge(bridge, HOST, Config()), "Summarize my inbox.", "mystery_tool", {}, trace="notes"
    )
    assert out["verdict"] == "ask"
    assert [r["code"] for r in out["reasons"]] == ["UNKNOWN_TOOL"]
    assert out["classes"] == ["UNKNOWN"]
    notes = "\n".join(out["explanation"])
    assert "UNKNOWN is not authorized by the task" in notes
    text = render(out)
    assert text.startswith("verdict: ask\nclasses: UNKNOWN\nreasons:\n  - [UNKNOWN_TOOL]")
    assert "OPA explanation:" in text


def test_trace_params() -> None:
    assert trace_params(None) == ""
    assert trace_params("full") == "&explain=full&pretty=true"


def test_explain_closes_its_task(bridge: Bridge) -> None:
    explain_call(Judge(bridge, HOST, Config()), "x", "read_file", {"path": "a"})
    assert bridge.task_keys() == []


def test_cli_json(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(
        [
            "explain",
            "--message",
            "Summarize my inbox.",
            "--tool",
            "memory",
            "--args",
            '{"action": "add"}',
            "--json",
        ]
    )
    assert code == 0
    out = json.loads(capsys.readouterr().out)
    assert out["verdict"] == "ask"
    assert out["classes"] == ["MEMORY_WRITE"]
    assert out["reasons"][0]["code"] == "NOT_AUTHORIZED"


def test_cli_full_trace_is_readable(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["explain", "--message", "x", "--tool", "read_file", "--args", '{"path": "a"}', "--trace"])
    assert code == 0
    text = capsys.readouterr().out
    assert text.startswith("verdict: allow\n")
    assert "Enter data.opafence.decision" in text


@pytest.mark.parametrize("bad", ["{", "[1, 2]"])
def test_cli_bad_args(bad: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["explain", "--message", "x", "--tool", "t", "--args", bad]) == 2
    assert "--args" in capsys.readouterr().err
