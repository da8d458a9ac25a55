"""Paths by which Hermes 0.19.0 would run a tool opafence did not allow (HERMES_PLUGIN_API.md
§3 and §8), each through real Hermes dispatch: a concurrent batch (every pre_tool_call before
any call runs) re-checked by call id, calls inside execute_code (empty ids) re-checked by
task, tool and argument hash, a decision used twice, a broken execution re-check (Hermes
fails open on a raising middleware), hooks called with odd arguments, and /fence in a
process that serves several people."""

from __future__ import annotations

import json
import logging
import os
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from .conftest import Harness, Script
from .test_hermes_conversation import Model, agent, say, tool_messages


def sid() -> str:
    return f"s-{uuid.uuid4().hex[:8]}"


def batch(*calls: tuple[str, dict[str, Any]]) -> dict[str, Any]:
    """One assistant message with several tool calls (Hermes may run them concurrently)."""
    return {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {
                "id": f"call_{i}_{uuid.uuid4().hex[:6]}",
                "type": "function",
                "function": {"name": name, "arguments": json.dumps(args)},
            }
            for i, (name, args) in enumerate(calls)
        ],
    }


@pytest.fixture
def scripted(monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    """install(reply) -> Model: the provider answers with reply(messages)."""
    import run_agent

    def install(reply: Any) -> Model:
        m = Model(reply)
        monkeypatch.setattr(run_agent.AIAgent, "_interruptible_api_call", m)
        monkeypatch.setattr(
            run_agent.AIAgent, "_interruptible_streaming_api_call", lambda self, kw, *a, **k: m(self, kw)
        )
        return m

    yield install


def notes(tmp_path: Path) -> tuple[Path, Path]:
    a, b = tmp_path / "a.txt", tmp_path / "b.txt"
    a.write_text("alpha-note")
    b.write_text("beta-note")
    return a, b


# --- a concurrent batch --------------------------------------------------------------------------


def test_a_concurrent_batch_is_rechecked_by_call_id(hermes: Harness, scripted: Any, tmp_path: Path) -> None:
    from run_agent import _should_parallelize_tool_batch

    a, b = notes(tmp_path)
    secret = os.path.join(os.path.expanduser("~"), ".ssh", "id_rsa")
    message = batch(
        ("read_file", {"path": str(a)}), ("read_file", {"path": secret}), ("read_file", {"path": str(b)})
    )
    assert _should_parallelize_tool_batch([_Call(c) for c in message["tool_calls"]])  # the concurrent path

    m = scripted(lambda messages: say("done") if tool_messages(messages) else message)
    before = len(hermes.fence.audit.tail(10_000))
    session = sid()
    agent(["file"], session).run_conversation("Read a.txt and b.txt in my notes.")
    results = {
        msg["tool_call_id"]: str(msg["content"]) for msg in m.requests[-1] if msg.get("role") == "tool"
    }
    ids = [c["id"] for c in message["tool_calls"]]
    assert "alpha-note" in results[ids[0]] and "beta-note" in results[ids[2]]
    assert json.loads(results[ids[1]])["error"].startswith("opafence blocked read_file:")
    decisions = [e for e in hermes.fence.audit.tail(10_000)[before:] if e.get("event") == "decision"]
    assert {e["call"]: e["verdict"] for e in decisions} == {ids[0]: "allow", ids[1]: "block", ids[2]: "allow"}


class _Call:
    """The shape Hermes' batch planner reads (tool_call.function.name / .arguments)."""

    def __init__(self, raw: dict[str, Any]) -> None:
        self.id = raw["id"]
        self.function = type("F", (), raw["function"])()


def test_a_concurrent_batch_mutated_after_its_decisions_runs_nothing(
    hermes: Harness, scripted: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A later plugin rewrites every call's path after opafence decided the whole batch."""
    a, b = notes(tmp_path)
    message = batch(("read_file", {"path": str(a)}), ("read_file", {"path": str(b)}))
    m = scripted(lambda messages: say("done") if tool_messages(messages) else message)
    monkeypatch.setenv("OPAFENCE_TEST_MUTATOR", "1")  # rewrites "path" to /etc/shadow
    agent(["file"], sid()).run_conversation("Read a.txt and b.txt in my notes.")
    results = tool_messages(m.requests[-1])
    assert len(results) == 2
    for out in results:  # (Hermes may append a loop warning after the JSON)
        assert out.startswith('{"error": "opafence blocked read_file:') and "ARGS_CHANGED" in out, out
        assert "root:" not in out


# --- execute_code: inner calls have empty ids ----------------------------------------------------


def test_an_inner_execute_code_call_mutated_after_its_decision_is_blocked(
    hermes: Harness,
    scripted: Any,
    tmp_path: Path,
    person: tuple[Script, str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    a, _ = notes(tmp_path)
    code = f"from hermes_tools import read_file\nprint(read_file({str(a)!r}))\n"
    m = scripted(
        lambda messages: say("done") if tool_messages(messages) else batch(("execute_code", {"code": code}))
    )
    answers, session = person
    answers.answers = ["once"]  # the user lets the script run
    monkeypatch.setenv("OPAFENCE_TEST_MUTATOR", "1")
    before = len(hermes.fence.audit.tail(10_000))
    agent(["code_execution", "file"], session).run_conversation("Show me a.txt")
    out = tool_messages(m.requests[-1])[0]
    inner = [e for e in hermes.fence.audit.tail(10_000)[before:] if e.get("tool") == "read_file"]
    assert [(e["event"], e["verdict"], e["call"], e["session"]) for e in inner] == [
        ("decision", "allow", "", "")
    ]
    assert "NOT_DECIDED" in out and "alpha-note" not in out and "root:" not in out


# --- one decision, one run -----------------------------------------------------------------------


def test_a_decided_call_runs_only_once(hermes: Harness) -> None:
    tool, args = "mcp__gmail__search_emails", {"query": "from:alice invoice"}
    s = sid()
    assert "error" not in json.loads(hermes.call(tool, args, s, "c1"))
    again = hermes.model_tools.handle_function_call(
        tool, args, task_id=f"task-{s}", session_id=s, tool_call_id="c1", skip_pre_tool_call_hook=True
    )
    assert "ALREADY_RAN" in json.loads(again)["error"]
    assert hermes.ran_tools() == [tool]
    # Decided again, it runs again.
    assert "error" not in json.loads(hermes.call(tool, args, s, "c1"))
    assert hermes.ran_tools() == [tool, tool]


def test_an_execute_code_style_decision_is_used_once(hermes: Harness) -> None:
    """Empty session and call ids (what execute_code's RPC passes): keyed by task, tool, args."""
    tool, args = "mcp__gmail__search_emails", {"query": "subject:minutes"}
    s = sid()
    turn = f"task-{s}"
    hermes.call("mcp__gmail__read_email", {"id": "1"}, s, "c0", task=turn)  # the turn is known
    first = hermes.model_tools.handle_function_call(tool, args, task_id=turn, session_id="", tool_call_id="")
    assert "error" not in json.loads(first)
    replay = hermes.model_tools.handle_function_call(
        tool, args, task_id=turn, session_id="", tool_call_id="", skip_pre_tool_call_hook=True
    )
    assert "ALREADY_RAN" in json.loads(replay)["error"]
    assert hermes.ran_tools().count(tool) == 1


# --- the execution re-check itself fails closed --------------------------------------------------


def test_a_broken_execution_check_blocks_and_never_calls_the_tool(
    hermes: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(key: str) -> None:
        raise RuntimeError("boom")

    monkeypatch.setattr(hermes.fence.store, "take_for_execution", broken)
    out = hermes.call("mock_deploy", {"target": "staging"}, sid(), "c1")
    assert json.loads(out)["error"].startswith("opafence blocked mock_deploy")
    assert hermes.ran_tools() == []


def test_hooks_take_any_arguments_and_never_raise(hermes: Harness, caplog: pytest.LogCaptureFixture) -> None:
    from hermes_cli.plugins import invoke_hook

    odd: dict[str, Any] = {"args": "not a dict", "task_id": None, "session_id": None, "tool_call_id": None}
    with caplog.at_level(logging.WARNING):
        got = invoke_hook("pre_tool_call", tool_name=None, brand_new_kwarg=1, **odd)
        invoke_hook("post_tool_call", tool_name=None, result=None, status=None, brand_new_kwarg=1, **odd)
        invoke_hook("pre_llm_call", session_id=None, user_message=object(), platform=None, brand_new_kwarg=1)
        invoke_hook("subagent_start", parent_session_id=None, child_session_id=None, brand_new_kwarg=1)
        invoke_hook("on_session_start", session_id=None, brand_new_kwarg=1)
        invoke_hook("on_session_finalize", session_id=None, brand_new_kwarg=1)
    assert not [
        r for r in caplog.records if "raised" in r.getMessage() and "opafence" in r.getMessage().lower()
    ]
    mine = [d for d in got if isinstance(d, dict) and "opafence" in str(d.get("message", ""))]
    assert mine and mine[0]["action"] == "block"  # an odd call is decided (blocked), not skipped


# --- /fence where several people share the process -----------------------------------------------


def fence_command(raw: str = "") -> str:
    from hermes_cli.plugins import get_plugin_command_handler

    handler = get_plugin_command_handler("fence")
    assert handler is not None
    return str(handler(raw))


def test_fence_in_a_gateway_shows_no_ones_policy(hermes: Harness, monkeypatch: pytest.MonkeyPatch) -> None:
    from hermes_cli.plugins import invoke_hook

    store = hermes.fence.store
    monkeypatch.setattr(store, "platforms_seen", set())
    alice = sid()
    message = "Email the Q3 numbers to alice-x@example.com"
    invoke_hook(
        "pre_llm_call", session_id=alice, task_id=f"t-{alice}", user_message=message,
        conversation_history=[], is_first_turn=True, model="m", platform="cli", sender_id="alice",
    )  # fmt: skip
    hermes.call("read_file", {"path": "/etc/hostname"}, alice, "c1")
    # One person's CLI (a sub-agent's turn does not make it shared): the policy shows.
    store.platforms_seen.add("subagent")
    assert "alice-x@example.com" in fence_command()
    # A gateway: marked at load, before any message; or a messaging platform seen in a turn.
    for marked, platform in ((True, "cli"), (False, "telegram")):
        with monkeypatch.context() as m:
            if marked:
                m.setenv("_HERMES_GATEWAY", "1")
            m.setattr(store, "platforms_seen", {platform})
            for raw in ("", "audit 50", "budget"):
                out = fence_command(raw)
                assert "alice-x@example.com" not in out and alice not in out and "read_file" not in out, out
                assert "granted" not in out and "this task" not in out
            assert "shared gateway" in fence_command()


def test_fence_never_raises(hermes: Harness, monkeypatch: pytest.MonkeyPatch) -> None:
    from opafence.hermes import command

    def broken(*a: Any) -> str:
        raise RuntimeError("boom")

    monkeypatch.setattr(command, "run", broken)
    assert "failed (RuntimeError)" in fence_command("audit 3")
