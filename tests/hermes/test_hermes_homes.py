"""The HOME Hermes' tools really use (terminal.home_mode), through real Hermes 0.19.0.

With `terminal.home_mode: profile` (TERMINAL_HOME_MODE, what config.yaml's terminal section
bridges to) and `$HERMES_HOME/home` present, the terminal's commands run with that HOME: `~`
in a command is that directory, not the Hermes process's HOME. The facts and the decision
input follow it, and the user's own home stays protected as another home.

Destructive commands here are only decided (Hermes' directive resolution), never run."""

from __future__ import annotations

import json
import os
import shutil
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from opafence.facts import build_facts
from opafence.hermes import host_flags

from .conftest import Harness


@pytest.fixture
def profile_home(hermes: Harness, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    from hermes_cli.plugins import invoke_hook
    from tools.terminal_tool import cleanup_all_environments

    home = hermes.home / "home"
    home.mkdir()
    monkeypatch.setenv("TERMINAL_HOME_MODE", "profile")
    # Hermes' terminal keeps one shell per process, with the HOME it had when it started (the
    # mode is read from config.yaml at start): start a fresh one, as a new Hermes would.
    cleanup_all_environments()
    session = f"s-{uuid.uuid4().hex[:8]}"
    invoke_hook(
        "pre_llm_call",
        session_id=session,
        task_id=f"t-{session}",
        user_message="Show me what is in my home.",
        conversation_history=[],
        is_first_turn=True,
        model="m",
        platform="cli",
        sender_id="",
    )  # fmt: skip  (a turn starts: opafence asks Hermes where its tools' HOME is)
    try:
        yield home
    finally:
        shutil.rmtree(home)
        monkeypatch.delenv("TERMINAL_HOME_MODE")
        cleanup_all_environments()
        invoke_hook(
            "pre_llm_call", session_id=session, task_id=f"t-{session}", user_message="thanks", platform="cli"
        )


def verdict(tool: str, args: dict[str, object], session: str) -> str:
    from hermes_cli.plugins import _get_pre_tool_call_directive_details

    d = _get_pre_tool_call_directive_details(tool, dict(args), task_id=f"t-{session}", session_id=session)
    return {"block": "block", "approve": "ask"}.get(d.action or "", "allow")


def test_the_terminal_home_is_the_home_the_facts_use(hermes: Harness, profile_home: Path) -> None:
    real_home = os.path.expanduser("~")
    session = f"s-{uuid.uuid4().hex[:8]}"
    out = json.loads(hermes.call("terminal", {"command": "echo $HOME"}, session, "c1"))
    assert out.get("output", "").strip() == str(profile_home), out  # what the terminal really uses
    fence = hermes.fence
    assert fence.view.facts_context().home == str(profile_home)
    assert fence.view.homes.others == (real_home,)
    facts = build_facts("terminal", {"command": "cat ~/.ssh/id_rsa"}, fence.view.facts_context())
    assert facts["shell"]["commands"][0]["operand_paths"] == [f"{profile_home}/.ssh/id_rsa"]
    assert fence.view.host(host_flags.detect(), "cli", fence.bridge).to_input()["other_homes"] == [real_home]


def test_both_homes_are_protected(hermes: Harness, profile_home: Path) -> None:
    real_home = os.path.expanduser("~")
    s = f"s-{uuid.uuid4().hex[:8]}"
    for command in ("rm -rf ~", f"rm -rf {real_home}", f"rm -rf {profile_home}", "rm -rf ~/Documents"):
        assert verdict("terminal", {"command": command}, s) == "block", command
    for command in ("cat ~/.ssh/id_rsa", f"cat {real_home}/.ssh/id_rsa"):
        assert verdict("terminal", {"command": command}, s) != "allow", command
    for path in ("~/.ssh/id_rsa", f"{real_home}/.ssh/id_rsa", f"{profile_home}/.ssh/id_rsa"):
        assert verdict("read_file", {"path": path}, s) != "allow", path
    # Ordinary work in the profile home is still ordinary.
    assert verdict("terminal", {"command": "ls ~"}, s) == "allow"
