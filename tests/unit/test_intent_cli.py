"""`opafence compile`: the TaskPolicy as JSON, --opa for the OPA data, --explain for people."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from tests.unit.test_intent_policy import task_errors

from opafence.cli import main


@pytest.fixture(autouse=True)
def _in_project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    project = tmp_path / "proj"
    project.mkdir()
    monkeypatch.chdir(project)
    return project


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    assert main(["compile", *argv]) == 0
    return capsys.readouterr().out


def test_prints_the_policy_json(capsys: pytest.CaptureFixture[str], _in_project: Path) -> None:
    out = json.loads(run(capsys, "delete the drafts folder and email bob@example.com the log"))
    assert out["compiled_by"] == "rules" and out["task"] == "cli"
    assert [(g["class"], g["paths"], g["recipients"]) for g in out["grants"]] == [
        ("DELETE", [str(_in_project / "drafts")], []),
        ("COMMUNICATION", [], ["bob@example.com"]),
    ]
    assert out["instruction"].startswith("delete the drafts folder")


def test_opa_form_matches_the_schema(capsys: pytest.CaptureFixture[str]) -> None:
    out = json.loads(run(capsys, "--opa", "--task", "s1", "fix the bug but never push"))
    assert task_errors(out) == []
    assert out["task"] == "s1" and "instruction" not in out


def test_follow_ups_and_owner(capsys: pytest.CaptureFixture[str]) -> None:
    out = json.loads(
        run(capsys, "--owner", "alice", "email the notes to a@example.com", "stop, don't send anything")
    )
    assert out["revision"] == 2 and out["owner"] == "alice" and out["grants"] == []
    assert any("overridden by prohibition" in d["reason"] for d in out["dropped"])


def test_reads_standard_input(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("sys.stdin", io.StringIO("run the tests\n"))
    out = json.loads(run(capsys, "-"))
    assert [(g["class"], g["capability"]) for g in out["grants"]] == [("EXECUTION", "run_tests")]


def test_explain(capsys: pytest.CaptureFixture[str]) -> None:
    msg = (
        "Summarize the thread and email it to john@example.com. Reply to the email from bob@x.com. "
        "Forward the notes from ann@x.com. Only use docs.example.com. Don't push. How do I delete files?"
        "\n> delete the repo"
    )
    out = run(capsys, "--explain", msg)
    assert "g1 COMMUNICATION/send recipients=john@example.com" in out
    assert "<- 'email it to john@example.com'" in out
    # the owner's words hold the sender's address: the reply goes to exactly that sender
    assert "g2 COMMUNICATION/send recipients=bob@x.com" in out
    assert "p1 EXTERNAL_WRITE" in out and '<- "Don\'t push"' in out
    assert "domains: docs.example.com" in out
    assert "kept as data" in out and "quote: '> delete the repo'" in out
    assert "dropped (hardening, prohibitions, bounds):" in out and "a send needs a literal recipient" in out
    assert "'How do I delete files': ignored: question" in out


def test_explain_shows_the_fallback(capsys: pytest.CaptureFixture[str], _in_project: Path) -> None:
    (_in_project / "c.yaml").write_text(
        "compiler:\n  kind: llm\n  base_url: https://llm.invalid/v1\n  api_key_env: NO_SUCH_KEY_VAR\n"
    )
    out = run(capsys, "--config", str(_in_project / "c.yaml"), "--explain", "run the tests, don't push")
    assert "compiled by fallback" in out
    assert "compile failed: no API key" in out
    assert "p1 EXTERNAL_WRITE" in out


def test_bad_compiler_config_is_a_clear_error(capsys: pytest.CaptureFixture[str], _in_project: Path) -> None:
    (_in_project / "c.yaml").write_text("compiler:\n  kind: llm\n  modle: x\n")
    assert main(["compile", "--config", str(_in_project / "c.yaml"), "hi"]) == 2
    assert "unknown key 'compiler.modle'" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("compiler", "error"),
    [
        ({"kind": "gpt"}, "compiler.kind"),
        ({"base_url": "http://llm.example.com/v1"}, "compiler.base_url"),
        ({"api_key_env": "sk-live-123"}, "compiler.api_key_env"),
        ({"timeout_s": 0}, "compiler.timeout_s"),
        ({"on_failure": "allow"}, "compiler.on_failure"),
    ],
)
def test_compiler_config_is_validated(compiler: dict[str, object], error: str) -> None:
    from opafence.config import ConfigError, parse_config

    with pytest.raises(ConfigError, match=error.replace(".", r"\.")):
        parse_config({"compiler": compiler}, "c.yaml", env={})


def test_compiler_config_defaults() -> None:
    from opafence.config import parse_config

    c = parse_config(
        {"compiler": {"kind": "llm", "base_url": "http://127.0.0.1:8080/v1/"}}, "c.yaml", env={}
    ).compiler
    assert c.base_url == "http://127.0.0.1:8080/v1" and c.api_key_env == "OPENROUTER_API_KEY"
    assert c.json_mode and c.on_failure == "fallback" and c.timeout_s == 20.0


def test_explain_by_sentence(capsys: pytest.CaptureFixture[str]) -> None:
    # issue 14: per sentence, the grant with its tool binding, and what was refused and why
    msg = "Start the dev server. If it builds, delete build/old. Remember that I prefer tabs."
    out = run(capsys, "--explain", msg)
    part = out[out.index("by sentence") :]
    assert "'Start the dev server'" in part
    assert "EXECUTION/run_server -> terminal: the dev-server runners" in part
    assert "consequential action asks" in part
    assert "MEMORY_WRITE/remember -> memory: the note in the quote's words" in part
