"""What kind of host a hook runs in: can a person answer an approval prompt here?

Read from Hermes' own approval module each call (yolo can be toggled per session). When
anything cannot be read, the answer is "nobody can answer" (auto_approve=True): DESIGN.md
says the bridge assumes auto-approve when it cannot tell."""

from __future__ import annotations

import importlib
import os
import sys
from dataclasses import dataclass


def _truthy(name: str) -> bool:
    return os.environ.get(name, "").strip().lower() in {"1", "true", "yes", "on"}


@dataclass(frozen=True)
class HostFlags:
    auto_approve: bool
    interactive: bool
    yolo: bool
    cron: bool
    gateway: bool


def _stdin_is_terminal() -> bool:
    try:
        return sys.stdin is not None and sys.stdin.isatty()
    except (OSError, ValueError):  # closed or detached
        return False


def _cli_can_prompt() -> bool:
    """Can an interactive CLI put a prompt in front of a person? The TUI and ACP install their
    own approval callback on the agent thread and answer over their channel. The classic CLI's
    callback (HermesCLI._approval_callback) and the input() fallback need a terminal: with
    stdin a pipe (`hermes chat -q` from a script) an ask waits for the approval timeout and is
    denied, so that counts as nobody-to-answer."""
    terminal_tool = importlib.import_module("tools.terminal_tool")
    callback = terminal_tool._get_approval_callback()
    owner = type(getattr(callback, "__self__", None))
    classic_cli = owner.__name__ == "HermesCLI" and owner.__module__ == "cli"
    if callback is not None and not classic_cli:
        return True
    return _stdin_is_terminal()


def detect(subagent: bool = False) -> HostFlags:
    try:
        approval = importlib.import_module("tools.approval")  # Hermes' own module

        yolo = bool(approval._YOLO_MODE_FROZEN) or bool(approval.is_current_session_yolo_enabled())
        gateway = bool(approval._is_gateway_approval_context())
        interactive_cli = bool(approval._is_interactive_cli())
        if interactive_cli and not gateway:
            interactive_cli = _cli_can_prompt()
    except Exception:
        return HostFlags(auto_approve=True, interactive=False, yolo=False, cron=False, gateway=False)
    cron = _truthy("HERMES_CRON_SESSION")
    interactive = (interactive_cli or gateway) and not cron
    # Sub-agents' approvals are answered automatically (deny, or "once" with
    # delegation.subagent_auto_approve): nobody reads the prompt.
    auto = yolo or cron or subagent or not interactive
    return HostFlags(auto_approve=auto, interactive=interactive, yolo=yolo, cron=cron, gateway=gateway)
