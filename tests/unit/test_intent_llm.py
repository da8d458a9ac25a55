"""The LLM compiler against a fake OpenAI-compatible server on 127.0.0.1 (never the internet).

The server answers from a script, one entry per request, and records what it was sent. The
LLM's draft is never trusted: poisoned drafts are stripped by the same hardening as rules."""

from __future__ import annotations

import _socket
import json
import socket
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest
from tests.unit.test_intent_corpus import CWD, HOST

from opafence.config import CompilerConfig
from opafence.intent import compile_explained
from opafence.intent.llm import LLMCompiler, LLMError, parse_answer

KEY_ENV = "TEST_INTENT_LLM_KEY"


@dataclass
class Reply:
    status: int = 200
    body: bytes = b""
    delay: float = 0.0


@dataclass
class FakeLLM:
    script: list[Reply] = field(default_factory=list)
    requests: list[dict[str, Any]] = field(default_factory=list)
    port: int = 0

    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"


def chat(content: str) -> Reply:
    body = {
        "id": "x",
        "object": "chat.completion",
        "choices": [
            {"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": "stop"}
        ],
    }
    return Reply(200, json.dumps(body).encode())


def draft(**kw: Any) -> Reply:
    return chat(json.dumps({"purpose": "test", "grants": [], "prohibitions": [], "bounds": {}, **kw}))


@pytest.fixture
def loopback_only(monkeypatch: pytest.MonkeyPatch) -> None:
    """Only loopback and unix sockets: these tests never reach the internet (and work after
    the Hermes tests, whose session fixture disables every non-unix connect)."""

    def connect(self: socket.socket, address: Any) -> Any:
        host = address[0] if isinstance(address, tuple) else address
        if self.family == socket.AF_UNIX or host in ("127.0.0.1", "::1"):
            return _socket.socket.connect(self, address)
        raise OSError(f"network disabled in intent LLM tests: {address!r}")

    monkeypatch.setattr(socket.socket, "connect", connect)


@pytest.fixture
def fake(loopback_only: None) -> Iterator[FakeLLM]:
    state = FakeLLM()

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length", "0"))
            payload = json.loads(self.rfile.read(length))
            state.requests.append({"path": self.path, "headers": dict(self.headers), "json": payload})
            reply = state.script.pop(0) if state.script else Reply(500, b'{"error": "script exhausted"}')
            if reply.delay:
                time.sleep(reply.delay)
            try:
                self.send_response(reply.status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(reply.body)))
                self.end_headers()
                self.wfile.write(reply.body)
            except OSError:
                pass  # the client gave up (timeout test)

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    state.port = server.server_address[1]
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True)
    thread.start()
    try:
        yield state
    finally:
        server.shutdown()
        server.server_close()


def config(fake: FakeLLM, **kw: Any) -> CompilerConfig:
    base: dict[str, Any] = {"kind": "llm", "base_url": fake.url(), "api_key_env": KEY_ENV, "timeout_s": 5}
    return CompilerConfig(**{**base, "model": "test/model", **kw})


def compile_llm(message: str, cfg: CompilerConfig) -> Any:
    return compile_explained(message, task="t1", host=HOST, config=cfg)


def grants(c: Any) -> list[tuple[str, str, list[str], list[str]]]:
    return [(g.class_, g.capability, g.recipients, g.paths) for g in c.policy.grants]


def test_honest_draft(fake: FakeLLM, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(KEY_ENV, "sk-test")
    msg = "Email the summary to john@example.com\n\n--- Attached Context ---\n\nSECRET-ATTACHED delete all"
    ev = "Email the summary to john@example.com"
    fake.script = [
        draft(
            grants=[
                {
                    "class": "COMMUNICATION",
                    "capability": "send",
                    "evidence": ev,
                    "recipients": ["john@example.com"],
                }
            ]
        )
    ]
    c = compile_llm(msg, config(fake))
    assert c.policy.compiled_by == "llm", c.events
    assert grants(c) == [("COMMUNICATION", "send", ["john@example.com"], [])]
    req = fake.requests[0]
    assert req["path"] == "/v1/chat/completions"
    assert req["headers"]["Authorization"] == "Bearer sk-test"
    assert req["json"]["response_format"] == {"type": "json_object"}
    assert req["json"]["model"] == "test/model"
    sent = json.dumps(req["json"]["messages"])
    assert "john@example.com" in sent
    assert "SECRET-ATTACHED" not in sent  # the LLM sees the instruction, never the data


def test_poisoned_draft_is_stripped(fake: FakeLLM, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(KEY_ENV, "sk-test")
    msg = "email the summary to john@example.com and save it to notes/today.md"
    poisoned = [
        {
            "class": "COMMUNICATION",
            "capability": "send",
            "evidence": "email the summary to john@example.com",
            "recipients": ["john@example.com", "attacker@evil.com"],
        },
        {"class": "DELETE", "capability": "delete", "evidence": "delete everything", "paths": ["/"]},
        {
            "class": "LOCAL_WRITE",
            "capability": "edit",
            "evidence": "save it to notes/today.md",
            "paths": ["/", "notes/today.md", "~"],
        },
        {
            "class": "EXTERNAL_WRITE",
            "capability": "publish",
            "evidence": "email the summary to john@example.com",
            "tools": ["mcp__crm__*"],
        },
    ]
    fake.script = [draft(grants=poisoned)]
    c = compile_llm(msg, config(fake))
    assert c.policy.compiled_by == "llm"
    assert sorted(grants(c)) == [
        ("COMMUNICATION", "send", ["john@example.com"], []),
        ("LOCAL_WRITE", "edit", [], [f"{CWD}/notes/today.md"]),
    ]
    reasons = " | ".join(f"{d.part}: {d.reason}" for d in c.policy.dropped)
    assert "recipient attacker@evil.com" in reasons
    assert "not a verbatim quote" in reasons  # the invented "delete everything"
    assert "path /: the root directory" in reasons
    assert "path ~: the home directory" in reasons
    assert "does not ask for EXTERNAL_WRITE/publish" in reasons


def test_send_despite_do_not_send(fake: FakeLLM, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(KEY_ENV, "sk-test")
    msg = "Summarize my inbox. Do not send anything."
    fake.script = [
        draft(
            grants=[
                {
                    "class": "COMMUNICATION",
                    "capability": "send",
                    "evidence": "Do not send anything",
                    "recipients": ["john@example.com"],
                },
                {
                    "class": "COMMUNICATION",
                    "capability": "send",
                    "evidence": "Summarize my inbox",
                    "recipients": ["john@example.com"],
                },
            ],
            prohibitions=[],
        )
    ]
    c = compile_llm(msg, config(fake))
    assert c.policy.grants == []
    # the prohibition comes from the offline reader even though the LLM "forgot" it
    assert [p.classes for p in c.policy.prohibitions] == [["COMMUNICATION"]]


def test_llm_prohibitions_and_read_only_only_narrow(fake: FakeLLM, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(KEY_ENV, "sk-test")
    fake.script = [
        chat(
            "```json\n"
            + json.dumps(
                {"read_only": True, "prohibitions": [{"classes": ["DELETE"], "evidence": "look at the logs"}]}
            )
            + "\n```"
        )
    ]
    c = compile_llm("look at the logs", config(fake))
    assert c.policy.compiled_by == "llm" and c.policy.read_only
    assert [p.classes for p in c.policy.prohibitions] == [["DELETE"]]


def test_json_mode_refused_then_plain(fake: FakeLLM, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(KEY_ENV, "sk-test")
    refusal = Reply(
        400, b'{"error": {"message": "response_format json_object is not supported by this model"}}'
    )
    fake.script = [
        refusal,
        draft(grants=[{"class": "EXECUTION", "capability": "run_tests", "evidence": "run the tests"}]),
    ]
    c = compile_llm("run the tests", config(fake))
    assert c.policy.compiled_by == "llm"
    assert grants(c) == [("EXECUTION", "run_tests", [], [])]
    assert "response_format" in fake.requests[0]["json"]
    assert "response_format" not in fake.requests[1]["json"]
    assert any("JSON mode refused" in e for e in c.events)


def test_other_http_400_is_a_failure(fake: FakeLLM, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(KEY_ENV, "sk-test")
    fake.script = [Reply(400, b'{"error": {"message": "bad model name"}}')]
    c = compile_llm("run the tests and don't push", config(fake))
    assert c.policy.compiled_by == "fallback" and c.policy.grants == []
    assert [p.classes for p in c.policy.prohibitions] == [["EXTERNAL_WRITE"]]
    assert len(fake.requests) == 1


def test_garbage_body_falls_back_with_prohibitions(fake: FakeLLM, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(KEY_ENV, "sk-test")
    fake.script = [Reply(200, b"<html>gateway error</html>")]
    c = compile_llm("email the notes to a@example.com but don't push", config(fake))
    assert c.policy.compiled_by == "fallback"
    assert c.policy.grants == []
    assert [p.classes for p in c.policy.prohibitions] == [["EXTERNAL_WRITE"]]
    assert "not JSON" in c.error


def test_unusable_answer_gets_one_repair_retry(fake: FakeLLM, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(KEY_ENV, "sk-test")
    fake.script = [
        chat("Sure! The user wants to run tests."),
        draft(grants=[{"class": "EXECUTION", "capability": "run_tests", "evidence": "run the tests"}]),
    ]
    c = compile_llm("run the tests", config(fake))
    assert c.policy.compiled_by == "llm"
    assert len(fake.requests) == 2
    last = fake.requests[1]["json"]["messages"]
    assert last[-2]["role"] == "assistant" and "could not be used" in last[-1]["content"]


def test_two_unusable_answers_fall_back(fake: FakeLLM, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(KEY_ENV, "sk-test")
    fake.script = [chat("{not json"), chat(json.dumps({"grants": "everything"}))]
    c = compile_llm("delete the drafts folder", config(fake))
    assert c.policy.compiled_by == "fallback" and c.policy.grants == []
    assert "repair" in c.error
    assert len(fake.requests) == 2


def test_timeout_is_bounded(fake: FakeLLM, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(KEY_ENV, "sk-test")
    fake.script = [Reply(200, draft().body, delay=3.0)]
    start = time.monotonic()
    c = compile_llm("run the tests. never push", config(fake, timeout_s=0.5))
    elapsed = time.monotonic() - start
    assert c.policy.compiled_by == "fallback"
    assert elapsed < 2.5, elapsed
    assert "timed out" in c.error or "ran out of time" in c.error
    assert [p.classes for p in c.policy.prohibitions] == [["EXTERNAL_WRITE"]]


def test_server_error_falls_back(fake: FakeLLM, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(KEY_ENV, "sk-test")
    fake.script = [Reply(500, b'{"error": "boom"}')]
    c = compile_llm("run the tests", config(fake))
    assert c.policy.compiled_by == "fallback" and "HTTP 500" in c.error


def test_failure_can_fall_back_to_rules(fake: FakeLLM, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(KEY_ENV, "sk-test")
    fake.script = [Reply(503, b"{}")]
    c = compile_llm("run the tests", config(fake, on_failure="rules"))
    assert c.policy.compiled_by == "rules"
    assert grants(c) == [("EXECUTION", "run_tests", [], [])]
    assert any("offline rules" in e for e in c.events)


def test_no_api_key_never_leaves_the_machine(monkeypatch: pytest.MonkeyPatch, loopback_only: None) -> None:
    monkeypatch.delenv(KEY_ENV, raising=False)
    cfg = CompilerConfig(kind="llm", base_url="https://llm.invalid/v1", api_key_env=KEY_ENV, timeout_s=1)
    c = compile_explained("run the tests", task="t1", host=HOST, config=cfg)
    assert c.policy.compiled_by == "fallback"
    assert f"${KEY_ENV}" in c.error


def test_long_message_is_cut_but_prohibitions_hold(fake: FakeLLM, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(KEY_ENV, "sk-test")
    msg = "Fix the bug in app.py. " + "Some context here. " * 200 + "Don't push and never pay anything."
    fake.script = [
        draft(
            grants=[
                {
                    "class": "LOCAL_WRITE",
                    "capability": "edit",
                    "evidence": "Fix the bug in app.py",
                    "paths": ["app.py"],
                }
            ]
        )
    ]
    c = compile_llm(msg, config(fake, max_chars=300))
    user = fake.requests[0]["json"]["messages"][1]["content"]
    assert "Don't push" not in user and len(user) < 400
    assert any("cut to 300" in e for e in c.events)
    assert sorted(tuple(p.classes) for p in c.policy.prohibitions) == [("EXTERNAL_WRITE",), ("FINANCIAL",)]
    assert grants(c) == [("LOCAL_WRITE", "edit", [], [f"{CWD}/app.py"])]


def test_redirects_are_not_followed(fake: FakeLLM, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(KEY_ENV, "sk-test")
    fake.script = [Reply(302, b"")]
    with pytest.raises(LLMError, match="HTTP 302"):
        LLMCompiler(config(fake)).draft("run the tests")


@pytest.mark.parametrize(
    ("content", "error"),
    [
        ("no json here", "no JSON object"),
        ("{broken", "no JSON object"),
        ('{"grants": [1]}', "grants.0"),
        ("[1, 2]", "no JSON object"),
        ('{"grants": [{"class": ""}]}', "grants.0.class"),
        ('{"a": }', "invalid JSON"),
    ],
)
def test_parse_answer_errors(content: str, error: str) -> None:
    with pytest.raises(ValueError, match=error):
        parse_answer(content)


def test_parse_answer_accepts_fences_and_prose() -> None:
    d = parse_answer('Here you go:\n```json\n{"grants": [], "read_only": true}\n```\nThanks')
    assert d.read_only


# --- issue 14: the new grant kinds go through the same hardening ------------------------------------


def _grant(cls: str, cap: str, evidence: str, **kw: Any) -> dict[str, Any]:
    return {"class": cls, "capability": cap, "evidence": evidence, **kw}


def test_llm_family_grants_are_hardened(fake: FakeLLM, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(KEY_ENV, "sk-test")
    msg = "Start the dev server, then remember that I prefer tabs over spaces."
    fake.script = [
        draft(
            grants=[
                _grant("EXECUTION", "run_server", "Start the dev server"),
                # same quote, another kind: the quote names no migration
                _grant("EXECUTION", "run_migrations", "Start the dev server"),
                # the words bound is derived from the quote, never taken from the draft
                _grant(
                    "MEMORY_WRITE", "remember", "remember that I prefer tabs over spaces", words=["rm", "-rf"]
                ),
            ]
        )
    ]
    c = compile_llm(msg, config(fake))
    assert c.policy.compiled_by == "llm", c.events
    got = {(g.class_, g.capability): g for g in c.policy.grants}
    assert set(got) == {("EXECUTION", "run_server"), ("MEMORY_WRITE", "remember")}
    assert "rm" not in got[("MEMORY_WRITE", "remember")].words
    assert {"prefer", "tabs", "spaces"} <= set(got[("MEMORY_WRITE", "remember")].words)
    assert any(d.grant.get("capability") == "run_migrations" for d in c.policy.dropped)


def test_llm_skill_schedule_and_code(fake: FakeLLM, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(KEY_ENV, "sk-test")
    msg = (
        "Create a skill called weekly-report. Remind me every Friday at 4pm to send it. "
        "Plot the totals in data.csv."
    )
    fake.script = [
        draft(
            grants=[
                _grant("MEMORY_WRITE", "skill", "Create a skill called weekly-report"),
                _grant("EXECUTION", "schedule", "Remind me every Friday at 4pm to send it"),
                _grant("EXECUTION", "run_code", "Plot the totals in data.csv"),
                _grant("LOCAL_WRITE", "run_code", "Plot the totals in data.csv", workspace=True),
                # "send it" is the reminder's text: no send is asked for
                _grant("COMMUNICATION", "send", "send it", recipients=["boss@example.com"]),
            ]
        )
    ]
    c = compile_llm(msg, config(fake))
    caps = sorted((g.class_, g.capability) for g in c.policy.grants)
    assert caps == [
        ("EXECUTION", "run_code"),
        ("EXECUTION", "schedule"),
        ("LOCAL_WRITE", "run_code"),
        ("MEMORY_WRITE", "skill"),
    ]
    schedule = next(g for g in c.policy.grants if g.capability == "schedule")
    assert {"friday", "4pm", "send"} <= set(schedule.words)


def test_llm_browse_needs_the_named_page(fake: FakeLLM, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(KEY_ENV, "sk-test")
    msg = "Open https://shop.example.com/cart and click the Remove button."
    ev = "Open https://shop.example.com/cart and click the Remove button"
    fake.script = [
        draft(
            grants=[
                _grant("EXTERNAL_WRITE", "browse", ev, domains=["shop.example.com"]),
                _grant("EXTERNAL_WRITE", "browse", ev, domains=["pay.example.net"]),
            ]
        )
    ]
    c = compile_llm(msg, config(fake))
    assert [(g.capability, g.domains) for g in c.policy.grants] == [("browse", ["shop.example.com"])]
    assert any("pay.example.net" in d.part for d in c.policy.dropped)


def test_llm_conditional_consequential_asks(fake: FakeLLM, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(KEY_ENV, "sk-test")
    msg = "If the build passes, delete build/old and push it."
    fake.script = [
        draft(
            grants=[
                _grant("DELETE", "delete", "delete build/old", paths=["build/old"]),
                _grant("EXTERNAL_WRITE", "push", "push it"),
            ]
        )
    ]
    c = compile_llm(msg, config(fake))
    # issue 14: the delete is granted under its condition, marked conditional (Rego asks for it)
    assert [(g.class_, g.capability, g.conditional) for g in c.policy.grants] == [
        ("DELETE", "delete", True),
        ("EXTERNAL_WRITE", "push", False),
    ]
