"""OPA's verdict as a Hermes pre_tool_call directive: nothing, `approve` with a rule key, `block`.

Everything here ends up in front of the person (Hermes prints the message in its approval
prompt or gives it to the model as the tool's result), so it is made printable."""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from typing import Any

from opafence.decision import Decision, Reason
from opafence.hermes.call import canonical_args
from opafence.printable import printable

# Arguments that carry content rather than choose the action; left out of approval keys so
# "approve for this session" means "this action", not "these exact bytes".
CONTENT_ARGS = frozenset(
    {"content", "body", "text", "html", "message", "file_content", "new_string", "old_string", "caption"}
)


def action_hash(tool: str, args: Mapping[str, Any], decision: Decision, facts: Mapping[str, Any]) -> str:
    """The exact action an approval covers: tool, risk, targets and non-content arguments."""
    action = {
        "tool": tool,
        "classes": sorted(decision.classes),
        "recipients": sorted(str(r.get("address", "")) for r in facts.get("recipients", [])),
        "paths": sorted(str(p.get("path", "")) for p in facts.get("paths", [])),
        "domains": sorted(str(u.get("host", "")) for u in facts.get("urls", [])),
        "args": {k: v for k, v in args.items() if k not in CONTENT_ARGS},
    }
    return hashlib.sha256(canonical_args(action).encode()).hexdigest()[:24]


def explain(tool: str, reasons: list[Reason], limit: int = 3) -> str:
    shown = "; ".join(f"{r.message} [{r.code}]" for r in reasons[:limit]) or "no rule allowed it"
    more = f" (+{len(reasons) - limit} more)" if len(reasons) > limit else ""
    fix = next((r.fix for r in reasons if r.fix), "")
    # Reasons quote the call's own values (addresses, paths, commands): Hermes prints this in
    # its approval prompt, so nothing in it may steer the person's terminal.
    return printable(f"{shown}{more}." + (f" {fix}" if fix else ""))


def block(tool: str, reasons: list[Reason], targets: str = "") -> dict[str, str]:
    message = f"opafence blocked {tool}: {explain(tool, reasons)}"
    return {"action": "block", "message": message + (f" {printable(targets)}" if targets else "")}


def approve(tool: str, decision: Decision, rule_key: str, targets: str = "") -> dict[str, str]:
    message = f"opafence: {printable(tool)} needs your approval: " + explain(tool, decision.reasons)
    return {
        "action": "approve",
        "message": message + (f" {printable(targets)}" if targets else ""),
        "rule_key": rule_key,
    }
