"""`opafence approvals` lists and revokes the "always" approvals real Hermes wrote for opafence."""

from __future__ import annotations

import json

import pytest
import yaml

from opafence.cli import main

from .conftest import Harness, Script


def allowlist(hermes: Harness) -> list[str]:
    config = yaml.safe_load((hermes.home / "config.yaml").read_text()) or {}
    return list(config.get("command_allowlist") or [])


def test_list_and_revoke_an_always_approval(
    hermes: Harness, person: tuple[Script, str], capsys: pytest.CaptureFixture[str]
) -> None:
    script, session = person
    script.answers = ["always"]
    assert "error" not in json.loads(hermes.call("mock_deploy", {"target": "prod"}, session, "c1"))
    mine = [e for e in allowlist(hermes) if e.startswith(f"plugin_rule:opafence:{session}:")]
    assert len(mine) == 1, allowlist(hermes)

    assert main(["approvals"]) == 0
    listed = capsys.readouterr().out
    assert mine[0] in listed
    assert f"task {session}, policy revision 1, action " in listed

    assert main(["approvals", "revoke", "nothing-like-this"]) == 1
    assert mine[0] in allowlist(hermes)
    capsys.readouterr()

    assert main(["approvals", "revoke", session]) == 0
    assert f"revoked {mine[0]}" in capsys.readouterr().out
    assert not [e for e in allowlist(hermes) if e.startswith(f"plugin_rule:opafence:{session}:")]


def test_revoke_needs_a_key_or_all(hermes: Harness, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["approvals", "revoke"]) == 2
    assert "--all" in capsys.readouterr().err
