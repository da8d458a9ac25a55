"""The approval gate through real Hermes: once / session / deny, keyed to the exact action."""

from __future__ import annotations

import json

from .conftest import Harness, Script


def test_once_runs_exactly_one_call(hermes: Harness, person: tuple[Script, str]) -> None:
    script, session = person
    script.answers = ["once"]
    first = hermes.call("mock_deploy", {"target": "prod"}, session, "c1")
    assert "error" not in json.loads(first)
    second = hermes.call("mock_deploy", {"target": "prod"}, session, "c2")
    assert "error" in json.loads(second)  # asked again, scripted deny
    assert len(script.prompts) == 2
    assert hermes.ran_tools() == ["mock_deploy"]
    assert "opafence: mock_deploy needs your approval" in script.prompts[0][1]


def test_session_approval_covers_only_the_same_action(hermes: Harness, person: tuple[Script, str]) -> None:
    script, session = person
    script.answers = ["session"]
    assert "error" not in json.loads(hermes.call("mock_deploy", {"target": "prod"}, session, "c1"))
    assert "error" not in json.loads(hermes.call("mock_deploy", {"target": "prod"}, session, "c2"))
    assert len(script.prompts) == 1  # the same action is remembered for the session
    other = hermes.call("mock_deploy", {"target": "staging"}, session, "c3")
    assert "error" in json.loads(other)  # a different action asks again (scripted deny)
    assert len(script.prompts) == 2
    assert hermes.ran_tools() == ["mock_deploy", "mock_deploy"]


def test_deny_blocks(hermes: Harness, person: tuple[Script, str]) -> None:
    script, session = person
    script.answers = ["deny"]
    out = json.loads(hermes.call("mock_deploy", {"target": "prod"}, session, "c1"))
    assert "error" in out
    assert hermes.ran_tools() == []


def test_rule_key_names_task_revision_and_action(hermes: Harness, person: tuple[Script, str]) -> None:
    from tools import approval

    script, session = person
    script.answers = ["session"]
    hermes.call("mock_deploy", {"target": "prod"}, session, "c1")
    keys = [k for k in approval._session_approved.get(session, set()) if "opafence" in k]
    assert len(keys) == 1
    assert keys[0].startswith(f"plugin_rule:opafence:{session}:r1:")
    assert keys[0] != "plugin_rule:mock_deploy"
