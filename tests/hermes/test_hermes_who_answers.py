"""Who can answer an ask: Hermes' own approval state, read through host_flags.detect()."""

from __future__ import annotations

import io
import os
import sys
from collections.abc import Iterator

import pytest

from opafence.hermes import host_flags

from .conftest import Harness


@pytest.fixture
def cli(hermes: Harness) -> Iterator[None]:
    """A Hermes CLI process (HERMES_INTERACTIVE, as cli.py sets it), no gateway, no callback."""
    from tools import approval
    from tools.terminal_tool import set_approval_callback

    token = approval.set_hermes_interactive_context(True)
    set_approval_callback(None)
    try:
        yield
    finally:
        set_approval_callback(None)
        approval.reset_hermes_interactive_context(token)


def test_cli_from_a_script_without_a_callback_is_nobody_to_answer(
    cli: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sys, "stdin", io.StringIO("piped input\n"))
    flags = host_flags.detect()
    assert flags.auto_approve is True and flags.interactive is False


def test_cli_on_a_terminal_can_answer(cli: None, monkeypatch: pytest.MonkeyPatch) -> None:
    leader, follower = os.openpty()
    try:
        with os.fdopen(follower, "r", closefd=False) as tty:
            monkeypatch.setattr(sys, "stdin", tty)
            flags = host_flags.detect()
    finally:
        os.close(leader)
        os.close(follower)
    assert flags.auto_approve is False and flags.interactive is True


def test_cli_with_an_approval_callback_can_answer_whatever_stdin_is(
    cli: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The TUI and ACP talk over pipes but install a callback: a person answers there."""
    from tools.terminal_tool import set_approval_callback

    monkeypatch.setattr(sys, "stdin", io.StringIO(""))
    set_approval_callback(lambda command, description, **kw: "deny")
    flags = host_flags.detect()
    assert flags.auto_approve is False and flags.interactive is True


def test_the_classic_cli_prompt_without_a_terminal_is_nobody_to_answer(
    cli: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`hermes chat -q` installs the CLI's own approval callback, which needs the terminal."""
    import cli as hermes_cli_module
    from tools.terminal_tool import set_approval_callback

    hermes_cli = object.__new__(hermes_cli_module.HermesCLI)  # its bound callback, as cli.py installs it
    set_approval_callback(hermes_cli._approval_callback)
    monkeypatch.setattr(sys, "stdin", io.StringIO(""))
    assert host_flags.detect().auto_approve is True
    leader, follower = os.openpty()
    try:
        with os.fdopen(follower, "r", closefd=False) as tty:
            monkeypatch.setattr(sys, "stdin", tty)
            assert host_flags.detect().auto_approve is False
    finally:
        os.close(leader)
        os.close(follower)


def test_closed_stdin_is_nobody_to_answer(cli: None, monkeypatch: pytest.MonkeyPatch) -> None:
    closed = io.StringIO()
    closed.close()
    monkeypatch.setattr(sys, "stdin", closed)
    assert host_flags.detect().auto_approve is True


def test_a_scripted_cli_ask_blocks_at_once(
    hermes: Harness, cli: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Through real dispatch: the send asks in an attended CLI, and blocks here without waiting."""
    monkeypatch.setattr(sys, "stdin", io.StringIO(""))
    out = hermes.call("mcp__gmail__send_email", {"to": ["ann@acme.example"], "body": "hi"}, "who-1", "c1")
    assert "NOBODY_TO_ASK" in out, out
    assert hermes.ran_tools() == []
