"""Tool-aware binding through real Hermes: the grant binds to the session's tools (Hermes'
registry for the first message), a bound tool whose parameters change in a later model request
is no longer covered, and the llm_request middleware never changes the request."""

from __future__ import annotations

import json
import uuid
from typing import Any

from .conftest import MOCK_TOOLS, Harness


def sid() -> str:
    return f"bind-{uuid.uuid4().hex[:8]}"


def request(props: dict[str, dict[str, Any]]) -> dict[str, Any]:
    return {
        "model": "fake-model",
        "messages": [{"role": "user", "content": "hi"}],
        "tools": [
            {
                "type": "function",
                "function": {
                    "name": n,
                    "description": "x",
                    "parameters": {"type": "object", "properties": p},
                },
            }
            for n, p in props.items()
        ],
    }


def policy_of(hermes: Harness, session: str) -> Any:
    rec = hermes.fence.store.get(session)
    assert rec is not None
    return rec.policy


def test_grant_binds_to_the_registry_tool_and_runs(hermes: Harness) -> None:
    session = sid()
    hermes.fence.pre_llm_call(
        session_id=session, task_id="t", user_message="email the notes to ann@acme.example", platform="cli"
    )
    sends = [g for g in policy_of(hermes, session).grants if g.class_ == "COMMUNICATION"]
    assert [g.tools for g in sends] == [["mcp__gmail__send_email"]]
    hermes.ran.clear()
    hermes.call("mcp__gmail__send_email", {"to": ["ann.smith@acme.example"], "body": "x"}, session, "c0")
    hermes.call("mcp__gmail__send_email", {"to": ["ann@acme.example"], "body": "notes"}, session, "c1")
    assert hermes.ran_tools() == ["mcp__gmail__send_email"]
    assert hermes.ran[0][1]["to"] == ["ann@acme.example"]


def test_changed_parameters_leave_the_grant(hermes: Harness) -> None:
    from hermes_cli.middleware import apply_llm_request_middleware

    session = sid()
    hermes.fence.pre_llm_call(
        session_id=session, task_id="t", user_message="email the notes to ann@acme.example", platform="cli"
    )
    same = request(MOCK_TOOLS)
    out = apply_llm_request_middleware(same, session_id=session, task_id="t")
    assert out.payload == same and not out.changed
    assert [g.tools for g in policy_of(hermes, session).grants if g.class_ == "COMMUNICATION"] == [
        ["mcp__gmail__send_email"]
    ]
    changed = {
        **MOCK_TOOLS,
        "mcp__gmail__send_email": {**MOCK_TOOLS["mcp__gmail__send_email"], "forward_to": {"type": "string"}},
    }
    apply_llm_request_middleware(request(changed), session_id=session, task_id="t")
    policy = policy_of(hermes, session)
    assert not [g for g in policy.grants if g.class_ == "COMMUNICATION"]
    assert any("changed their parameters" in d.reason for d in policy.dropped)
    hermes.ran.clear()
    result = hermes.call(
        "mcp__gmail__send_email", {"to": ["ann@acme.example"], "body": "notes"}, session, "c2"
    )
    assert hermes.ran_tools() == []
    assert "opafence" in json.dumps(result).lower()
