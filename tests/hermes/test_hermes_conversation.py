"""The full run_conversation loop with only the model stubbed: the model sees opafence's block.

Also: execute_code's inner tool calls (empty session id) and sub-agents map to the parent task,
and OPA killed during a conversation blocks every call until it is back."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import time
import uuid
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from .agents import fake_agent, tool_messages
from .conftest import Harness, Script

Reply = Callable[[list[dict[str, Any]]], dict[str, Any]]


def completion(message: dict[str, Any], finish: str) -> Any:
    from openai.types.chat import ChatCompletion

    return ChatCompletion.model_validate(
        {
            "id": f"cmpl-{uuid.uuid4().hex[:6]}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": "fake-model",
            "choices": [{"index": 0, "message": message, "finish_reason": finish}],
            "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15},
        }
    )


def tool_call(name: str, args: dict[str, Any]) -> dict[str, Any]:
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


def say(text: str) -> dict[str, Any]:
    return {"role": "assistant", "content": text}


class Model:
    """A scripted provider: each conversation's replies come from a function of its messages."""

    def __init__(self, script: Callable[[list[dict[str, Any]]], dict[str, Any]]) -> None:
        self.script = script
        self.requests: list[list[dict[str, Any]]] = []

    def __get__(self, agent: Any, owner: Any = None) -> Callable[..., Any]:
        # Installed as a method on AIAgent: bind like a function does.
        return lambda api_kwargs, *a, **kw: self(agent, api_kwargs)

    def __call__(self, agent: Any, api_kwargs: dict[str, Any], *a: Any, **kw: Any) -> Any:
        messages = list(api_kwargs.get("messages", []))
        self.requests.append(messages)
        reply = self.script(messages)
        return completion(reply, "tool_calls" if reply.get("tool_calls") else "stop")


@pytest.fixture
def model(monkeypatch: pytest.MonkeyPatch) -> Iterator[Callable[[Reply], Model]]:
    import run_agent

    def install(script: Reply) -> Model:
        m = Model(script)
        monkeypatch.setattr(run_agent.AIAgent, "_interruptible_api_call", m)
        monkeypatch.setattr(
            run_agent.AIAgent, "_interruptible_streaming_api_call", lambda self, kw, *a, **k: m(self, kw)
        )
        return m

    yield install


def agent(toolsets: list[str], session: str) -> Any:
    return fake_agent(session, toolsets)


def test_model_sees_the_block_and_the_tool_never_runs(
    hermes: Harness, model: Callable[[Reply], Model]
) -> None:
    def script(messages: list[dict[str, Any]]) -> dict[str, Any]:
        if not tool_messages(messages):
            return tool_call("mock_deploy", {"target": "prod"})
        return say("done")

    m = model(script)
    session = f"s-{uuid.uuid4().hex[:8]}"
    agent(["opafence_test"], session).run_conversation("Summarize the deployment docs.")
    assert hermes.ran_tools() == []
    results = tool_messages(m.requests[-1])
    assert len(results) == 1
    assert json.loads(results[0])["error"].startswith("opafence blocked mock_deploy:")
    # The policy for this session was compiled from the user's message and pushed.
    rec = hermes.fence.store.get(session)
    assert rec is not None and rec.messages == 1


def test_execute_code_inner_calls_are_decided_under_the_parent_task(
    hermes: Harness, model: Callable[[Reply], Model], tmp_path: Any, person: tuple[Script, str]
) -> None:
    target = tmp_path / "note.txt"
    target.write_text("hello")
    code = (
        "from hermes_tools import read_file, terminal\n"
        f"print(read_file({str(target)!r}))\n"
        "print(terminal('echo pwned > /tmp/opafence-pwned'))\n"
    )

    def script(messages: list[dict[str, Any]]) -> dict[str, Any]:
        if not tool_messages(messages):
            return tool_call("execute_code", {"code": code})
        return say("done")

    m = model(script)
    script_answers, session = person
    script_answers.answers = ["once"]  # the user approves running the script itself
    before = len(hermes.fence.audit.tail(10_000))
    agent(["code_execution", "file", "terminal"], session).run_conversation("Show me note.txt")
    entries = [e for e in hermes.fence.audit.tail(10_000)[before:] if e.get("event") == "decision"]
    inner = [e for e in entries if e["tool"] in ("read_file", "terminal")]
    assert {e["tool"] for e in inner} == {"read_file", "terminal"}
    assert all(e["task"] == session for e in inner), inner
    assert all(e["session"] == "" for e in inner)
    out = tool_messages(m.requests[-1])[0]
    # The inner terminal call was stopped by opafence (blocked, or asked and denied).
    assert "opafence" in out and "terminal" in out and "'content': '1|hello'" in out
    assert [e["verdict"] for e in inner if e["tool"] == "terminal"] != ["allow"]
    assert not os.path.exists("/tmp/opafence-pwned")


def test_opa_killed_during_a_conversation_blocks_then_recovers(
    hermes: Harness, model: Callable[[Reply], Model], tmp_path: Any
) -> None:
    note = tmp_path / "n.txt"
    note.write_text("x")

    def script(messages: list[dict[str, Any]]) -> dict[str, Any]:
        if not tool_messages(messages):
            return tool_call("read_file", {"path": str(note)})
        return say("done")

    bridge = hermes.fence.bridge
    session = f"s-{uuid.uuid4().hex[:8]}"
    m = model(script)
    a = agent(["file"], session)
    restarts = bridge.restarts
    pid = bridge.local.opa_pid()
    # OPA hangs: every decision must block on the timeout. On the PDP transport its standby
    # hangs too (else it would take over and decide, which is right but not this test).
    hung = list(bridge.opa_pids()) if bridge.transport == "pdp" else [pid]
    for p in hung:
        os.kill(p, signal.SIGSTOP)
    try:
        a.run_conversation("Read n.txt")
    finally:
        for p in hung:
            # The PDP transport may have killed it already (two timeouts in a row are a hang).
            with contextlib.suppress(ProcessLookupError):
                os.kill(p, signal.SIGKILL)
    out = tool_messages(m.requests[-1])[0]
    assert "OPA_TIMEOUT" in out or "OPA_UNAVAILABLE" in out
    deadline = time.monotonic() + 20
    while not (bridge.restarts > restarts and bridge.ready) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert bridge.ready and bridge.restarts > restarts
    m2 = model(script)
    a.run_conversation("Read n.txt again")
    assert "error" not in json.loads(tool_messages(m2.requests[-1])[-1])


def test_subagent_calls_are_judged_under_the_parent_task(
    hermes: Harness, model: Callable[[Reply], Model], person: tuple[Script, str]
) -> None:
    from gateway.session_context import declare_stateless_channel

    declare_stateless_channel()

    def script(messages: list[dict[str, Any]]) -> dict[str, Any]:
        first_user = next(str(m.get("content")) for m in messages if m.get("role") == "user")
        done = tool_messages(messages)
        if "deploy the app" in first_user.lower() and "Summarize" not in first_user:
            return say("child done") if done else tool_call("mock_deploy", {"target": "prod"})
        return say("parent done") if done else tool_call("delegate_task", {"goal": "Deploy the app to prod"})

    model(script)
    answers, session = person
    answers.answers = ["once"]  # the user lets the parent delegate
    before = len(hermes.fence.audit.tail(10_000))
    agent(["delegation", "opafence_test"], session).run_conversation("Summarize the release notes")
    entries = [e for e in hermes.fence.audit.tail(10_000)[before:] if e.get("event") == "decision"]
    child = [e for e in entries if e["tool"] == "mock_deploy"]
    assert child, entries
    assert all(e["task"] == session and e["session"] != session for e in child)
    assert all(e["host"]["subagent"] and e["verdict"] == "block" for e in child)
    assert hermes.ran_tools() == []
    # The child's goal (written by the model) granted nothing: the parent's policy is unchanged.
    assert hermes.fence.store.get(session).policy.revision == 1
