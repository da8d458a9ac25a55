"""The /fence slash command: the active policy in plain words and the last decisions.

Hermes gives plugin commands no session or user context. In the CLI (one person) it shows
the current session; in a gateway, where one process serves many people, it shows only
process-wide status, never another person's policy or decisions."""

from __future__ import annotations

import logging
import os
from typing import TYPE_CHECKING, Any

from opafence.policy import TaskPolicy
from opafence.printable import lockdown_status, printable_lines

if TYPE_CHECKING:
    from opafence.hermes.fence import Fence

USAGE = "usage: /fence | /fence audit [N] | /fence budget"
# Platforms one person's own process reports; any other (telegram, slack, cron, ...) means a
# process that may serve several people.
SINGLE_USER_PLATFORMS = frozenset({"", "cli", "subagent"})

log = logging.getLogger("opafence.command")


def shared_process(fence: Fence) -> bool:
    """Could this process serve more than one person? Hermes' gateway marks itself with
    `_HERMES_GATEWAY=1` when it loads (before any message); a non-CLI platform seen in a turn
    says so too. When in doubt the answer is yes: /fence then shows no one's policy."""
    if os.environ.get("_HERMES_GATEWAY", "").strip() not in ("", "0"):
        return True
    store = fence.store
    return store is not None and bool(store.platforms_seen - SINGLE_USER_PLATFORMS)


def run_safely(fence: Fence, raw_args: Any) -> str:
    """The command handler: never raises (Hermes would print a bare error)."""
    try:
        # Tool names, paths and reasons can carry what the agent wrote: shown only as plain text.
        return printable_lines(run(fence, raw_args if isinstance(raw_args, str) else ""))
    except Exception as e:
        log.exception("opafence: /fence failed")
        return f"opafence: /fence failed ({type(e).__name__}); see the log"


def describe_policy(policy: TaskPolicy) -> list[str]:
    lines = [f"policy revision {policy.revision} (compiled by {policy.compiled_by})"]
    if policy.read_only:
        lines.append("read only: nothing may be changed, sent or run")
    if not policy.grants:
        lines.append("granted: reading only (anything else asks or is blocked)")
    for g in policy.grants:
        bounds = [
            *(f"to {r}" for r in g.recipients),
            *(f"on {d}" for d in g.domains),
            *(f"at {p}" for p in g.paths),
            *(f"`{c}`" for c in g.commands),
            *(f"package {p}" for p in g.packages),
        ]
        if g.workspace and not g.paths:
            bounds.append("inside the workspace")
        what = g.class_.lower().replace("_", " ") + (f" ({g.capability})" if g.capability else "")
        lines.append(f"granted: {what} {' '.join(bounds)}".rstrip() + f'  <- "{g.evidence}"')
    for p in policy.prohibitions:
        classes = "anything but reading" if "*" in p.classes else ", ".join(c.lower() for c in p.classes)
        extra = " (nothing may leave this machine)" if p.egress else ""
        scope = f" involving {', '.join(p.keywords)}" if p.keywords else ""
        lines.append(f'forbidden: {classes}{scope}{extra}  <- "{p.evidence}"')
    b = policy.bounds
    for label, values in (
        ("only domains", b.domains),
        ("only recipients", b.recipients),
        ("only paths", b.paths),
    ):
        if values:
            lines.append(f"{label}: {', '.join(values)}")
    return lines


def _decision_line(entry: dict[str, Any]) -> str:
    reasons = ",".join(entry.get("reasons", [])) or "-"
    return f"  #{entry.get('seq')} {entry.get('tool')}: {entry.get('verdict')} ({reasons})"


def run(fence: Fence, raw_args: str) -> str:
    words = (raw_args or "").split()
    if fence.error is None:
        status = "ready"
    elif not fence._ready.is_set():
        status = "starting (tool calls wait until OPA is ready)"
    else:
        status = lockdown_status(fence.error)
    head = [f"opafence: {status}; mode {fence.config.mode}"]
    store = fence.store
    gateway = shared_process(fence)
    if words == ["budget"]:
        from opafence.hermes.budget_status import budget_status

        live = sorted(store.live(), key=lambda r: r.last_active) if store is not None and not gateway else []
        return "\n".join([*head, *budget_status(fence, None if gateway or not live else live[-1].key)])
    if gateway:
        return "\n".join(
            [*head, "(this is a shared gateway: /fence shows no one's policy or decisions here)"]
        )
    rec = None
    if store is not None:
        live = sorted(store.live(), key=lambda r: r.last_active)
        rec = live[-1] if live else None
    if words[:1] == ["audit"]:
        try:
            n = int(words[1]) if len(words) > 1 else 10
        except ValueError:
            return USAGE
        if fence.audit is None or rec is None:
            return "\n".join([*head, "no decisions yet"])
        entries = fence.audit.tail(max(1, min(n, 200)), where={"task": rec.key, "event": "decision"})
        return "\n".join([*head, f"last {len(entries)} decisions:", *map(_decision_line, entries)])
    if words:
        return USAGE
    if rec is None:
        return "\n".join([*head, "no task yet in this session"])
    lines = [*head, *describe_policy(rec.policy)]
    if fence.audit is not None:
        recent = fence.audit.tail(5, where={"task": rec.key, "event": "decision"})
        if recent:
            lines.append("last decisions:")
            lines.extend(map(_decision_line, recent))
    return "\n".join(lines)
