"""The target summary the trail keeps (`audit.targets`), built from real facts, and `opafence log`."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from opafence.audit.redaction import redact_url, redacted_command, summarize
from opafence.audit.trail import AuditLog
from opafence.audit.verify import verify_trail
from opafence.cli import main
from opafence.config import AuditConfig, ConfigError, load_config
from opafence.facts import FactsContext, build_facts

CTX = FactsContext(home="/home/ann", cwd="/home/ann/src/app", hermes_home="/home/ann/.hermes")


def target(tool: str, args: dict[str, Any], mode: str = "redacted") -> dict[str, list[str]]:
    return summarize(build_facts(tool, args, CTX), args, mode)  # type: ignore[arg-type]


REDACTED = [
    # (tool, args, expected summary, strings that must not appear)
    (
        "terminal",
        {
            "command": "TOKEN=s3cr3t curl -s -H 'Authorization: Bearer abc123' "
            "'https://bob:pw@api.example.com/v1/x?key=k9&q=1'"
        },
        {"commands": ["curl https://api.example.com/v1/x?key=&q="], "hosts": ["api.example.com"]},
        ["s3cr3t", "abc123", "bob", "pw@", "k9"],
    ),
    (
        "terminal",
        {"command": "rm -rf build && git push origin main"},
        {"commands": ["rm build", "git push"]},
        [],
    ),
    (
        "terminal",
        {"command": "mysql --password hunter2 -e 'select 1' prod"},
        {"commands": ["mysql prod"]},
        ["hunter2", "select"],
    ),
    (
        "terminal",
        {"command": "make DEPLOY_KEY=xyz release"},
        {"commands": ["make DEPLOY_KEY="]},
        ["xyz"],
    ),
    (
        "mcp__gmail__send_email",
        {"to": ["Ann Smith <ann@acme.com>", "bob@corp.example"], "subject": "numbers", "body": "q3 is 12"},
        {"recipients": ["@acme.com", "@corp.example"]},
        ["ann@", "bob@", "numbers", "q3"],
    ),
    ("read_file", {"path": "~/notes/today.md"}, {"paths": ["/home/ann/notes/today.md"]}, []),
    (
        "web_extract",
        {"urls": ["https://user:tok@docs.example.org/page?sid=42#frag"]},
        {"hosts": ["docs.example.org"]},
        ["tok", "sid=42", "user"],
    ),
]


@pytest.mark.parametrize(("tool", "args", "expected", "hidden"), REDACTED)
def test_redacted_keeps_what_names_the_call_and_drops_what_could_be_secret(
    tool: str, args: dict[str, Any], expected: dict[str, list[str]], hidden: list[str]
) -> None:
    got = target(tool, args)
    assert got == expected
    text = json.dumps(got)
    for secret in hidden:
        assert secret not in text


def test_none_keeps_nothing_and_full_keeps_the_call_as_written() -> None:
    args = {"command": "curl -H 'X: 1' https://u:p@h.example/x?a=b"}
    assert target("terminal", args, "none") == {}
    full = target("terminal", args, "full")
    assert full["command"] == ["curl -H 'X: 1' https://u:p@h.example/x?a=b"]
    assert full["urls"] == ["https://u:p@h.example/x?a=b"]
    mail = target("mcp__gmail__send_email", {"to": ["ann@acme.com"], "body": "x"}, "full")
    assert mail == {"recipients": ["ann@acme.com"]}


def test_agent_strings_are_stored_printable() -> None:
    got = target("read_file", {"path": "/tmp/\x1b]0;owned\x07a\u202etxt.exe"})
    assert got == {"paths": ["/tmp/atxt.exe"]}


@pytest.mark.parametrize(
    ("url", "shown"),
    [
        ("https://a:b@h.example:8443/p?x=1&y=2#f", "https://h.example:8443/p?x=&y="),
        ("http://h.example", "http://h.example"),
        ("https://[::1", "<url>"),
    ],
)
def test_redact_url(url: str, shown: str) -> None:
    assert redact_url(url) == shown


def test_a_command_of_options_only_shows_its_name() -> None:
    assert redacted_command({"name": "ls", "argv": ["ls", "-la"]}) == "ls"
    assert redacted_command({"name": "git", "argv": ["git", "-C", "/srv/repo", "status"]}) == "git status"


def test_the_setting_is_validated(tmp_path: Path) -> None:
    assert AuditConfig().targets == "redacted"
    cfg = tmp_path / "config.yaml"
    cfg.write_text("audit: {targets: full}\n")
    assert load_config(cfg).audit.targets == "full"
    cfg.write_text("audit: {targets: everything}\n")
    with pytest.raises(ConfigError, match="targets"):
        load_config(cfg)


def _trail(tmp_path: Path) -> AuditLog:
    log = AuditLog(tmp_path / "audit.jsonl")
    log.append({"event": "start", "mode": "enforce"})
    log.append(
        {
            "event": "decision",
            "session": "s1",
            "tool": "read_file",
            "verdict": "allow",
            "reasons": [],
            "target": {"paths": ["/home/ann/notes.md"]},
        }
    )
    log.append(
        {
            "event": "decision",
            "session": "s1",
            "tool": "mcp__gmail__send_email",
            "verdict": "block",
            "reasons": ["USER_PROHIBITION"],
            "target": {"recipients": ["@attacker.example"]},
        }
    )
    log.append({"event": "lockdown", "reason": "OPA_NOT_FOUND: no opa binary"})
    log.append(
        {
            "event": "decision",
            "session": "s2\x1b[2J",
            "tool": "terminal\u202e",
            "verdict": "block",
            "reasons": ["LOCKDOWN"],
            "target": {"commands": ["rm build"]},
        }
    )
    return log


def test_log_lists_decisions_with_targets(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _trail(tmp_path)
    assert main(["log", "--state-dir", str(tmp_path)]) == 0
    rows = capsys.readouterr().out.splitlines()
    assert len(rows) == 4
    assert rows[0].endswith("s1  read_file  allow  -  /home/ann/notes.md")
    assert rows[1].endswith("s1  mcp__gmail__send_email  block  USER_PROHIBITION  @attacker.example")
    assert rows[2].endswith("LOCKED DOWN: every tool call is blocked because OPA_NOT_FOUND: no opa binary")
    assert rows[3].endswith("s2  terminal  block  LOCKDOWN  rm build")
    assert not any("\x1b" in r or "\u202e" in r for r in rows)


def test_log_blocked_last_n_and_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _trail(tmp_path)
    assert main(["log", "--state-dir", str(tmp_path), "--blocked"]) == 0
    rows = capsys.readouterr().out.splitlines()
    assert [r.split("  ")[-1] for r in rows] == [
        "@attacker.example",
        "LOCKED DOWN: every tool call is blocked because OPA_NOT_FOUND: no opa binary",
        "rm build",
    ][: len(rows)]
    assert len(rows) == 3
    assert main(["log", "--state-dir", str(tmp_path), "-n", "1", "--json"]) == 0
    (only,) = capsys.readouterr().out.splitlines()
    assert json.loads(only)["reasons"] == ["LOCKDOWN"]
    assert "\x1b" not in only  # JSON escapes it


def test_log_of_an_empty_trail_says_so(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["log", "--state-dir", str(tmp_path), "--blocked"]) == 0
    assert capsys.readouterr().out.startswith("no blocked calls in ")


def test_verify_covers_the_target(tmp_path: Path) -> None:
    log = _trail(tmp_path)
    assert verify_trail(log.path, []).ok
    rows = log.path.read_text().splitlines()
    entry = json.loads(rows[2])
    entry["target"] = {"recipients": ["@example.com"]}
    rows[2] = json.dumps(entry)
    log.path.write_text("".join(r + "\n" for r in rows))
    report = verify_trail(log.path, [])
    assert not report.ok
    assert any(p.seq == 3 for p in report.problems), [str(p) for p in report.problems]


def test_follow_prints_new_entries_as_they_come(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from opafence.log_cmd import follow

    log = _trail(tmp_path)
    last = json.loads(log.path.read_text().splitlines()[-1])
    poll = follow(log.path, int(last["seq"]), float(last["time"]), blocked=True, as_json=False)
    next(poll)
    assert capsys.readouterr().out == ""
    log.append({"event": "decision", "session": "s3", "tool": "read_file", "verdict": "allow", "reasons": []})
    log.append(
        {"event": "decision", "session": "s3", "tool": "terminal", "verdict": "block", "reasons": ["X"]}
    )
    next(poll)
    rows = capsys.readouterr().out.splitlines()
    assert len(rows) == 1 and rows[0].endswith("s3  terminal  block  X")
    poll.close()
