"""What kind of host a hook runs in: can a person answer an approval prompt here?

Read from Hermes' own approval module each call (yolo can be toggled per session). When
anything cannot be read, the answer is "nobody can answer" (auto_approve=True): DESIGN.md
says the bridge assumes auto-approve when it cannot tell."""

from __future__ import annotations

import importlib
import os
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


def detect(subagent: bool = False) -> HostFlags:
    try:
        approval = importlib.import_module("tools.approval")  # Hermes' own module

        yolo = bool(approval._YOLO_MODE_FROZEN) or bool(approval.is_current_session_yolo_enabled())
        gateway = bool(approval._is_gateway_approval_context())
        interactive_cli = bool(approval._is_interactive_cli())
    except Exception:
        return HostFlags(auto_approve=True, interactive=False, yolo=False, cron=False, gateway=False)
    cron = _truthy("HERMES_CRON_SESSION")
    interactive = (interactive_cli or gateway) and not cron
    # Sub-agents' approvals are answered automatically (deny, or "once" with
    # delegation.subagent_auto_approve): nobody reads the prompt.
    auto = yolo or cron or subagent or not interactive
    return HostFlags(auto_approve=auto, interactive=interactive, yolo=yolo, cron=cron, gateway=gateway)
