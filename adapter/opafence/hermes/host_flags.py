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
    """An interactive CLI can put a prompt in front of a person: through the approval callback
    Hermes installs on the agent thread (the CLI's prompt, the TUI, ACP), else through input()
    on a terminal. `hermes chat -q` from a script has neither: an ask there waits for the
    approval timeout and is denied, so it counts as nobody-to-answer."""
    terminal_tool = importlib.import_module("tools.terminal_tool")
    if terminal_tool._get_approval_callback() is not None:
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
