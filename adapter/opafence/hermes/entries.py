"""The audit-trail entries the plugin writes for its hooks: a decision, a lockdown block, a
compiled policy. Argument contents never go in (hashes and lengths, and the target summary
`audit.targets` asks for)."""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

from opafence.audit import redaction as audit_targets
from opafence.audit.redaction import TargetsMode
from opafence.audit.trail import arg_digests
from opafence.decision import Decision
from opafence.hermes.call import ToolCall, Turn
from opafence.hermes.host_flags import HostFlags
from opafence.policy import TaskPolicy

log = logging.getLogger("opafence.plugin")


def target(facts: Mapping[str, Any], args: Mapping[str, Any], mode: TargetsMode) -> dict[str, Any]:
    """{"target": …} for a decision entry, as `audit.targets` says; {} when there is none."""
    try:
        summary = audit_targets.summarize(facts, args, mode)
    except Exception:
        log.exception("opafence: target summary failed")
        return {"target": {"error": ["the target summary failed"]}}
    return {"target": summary} if summary else {}


def notice_target(facts: Mapping[str, Any], args: Mapping[str, Any]) -> str:
    """The person's own terminal gets the redacted summary, whatever the trail keeps."""
    try:
        return audit_targets.one_line(audit_targets.summarize(facts, args, "redacted"))
    except Exception:
        return ""


def decision(
    call: ToolCall,
    task: str,
    d: Decision,
    facts: Mapping[str, Any],
    flags: HostFlags,
    subagent: bool,
    mode: TargetsMode,
) -> dict[str, Any]:
    return {
        "event": "decision",
        "session": call.session_id,
        "task": task,
        "call": call.call_id,
        "tool": call.tool,
        "classes": d.classes,
        "verdict": d.verdict,
        "reasons": [r.code for r in d.reasons],
        "monitor": d.monitor.would if d.monitor else None,
        "args": arg_digests(call.args),
        "host": {"auto_approve": flags.auto_approve, "yolo": flags.yolo, "subagent": subagent},
        **target(facts, call.args, mode),
    }


def lockdown(call: ToolCall, digests: Mapping[str, Any], where: dict[str, Any]) -> dict[str, Any]:
    """A call the lockdown blocked (`where`: its target, as far as it could be read)."""
    return {
        "event": "decision",
        "session": call.session_id,
        "call": call.call_id,
        "tool": call.tool,
        "classes": [],
        "verdict": "block",
        "reasons": ["LOCKDOWN"],
        "args": digests,
        **where,
    }


def policy(turn: Turn, task: str, p: TaskPolicy) -> dict[str, Any]:
    return {
        "event": "policy",
        "session": turn.session_id,
        "task": task,
        "revision": p.revision,
        "compiled_by": p.compiled_by,
        "grants": [f"{g.class_}:{g.capability}" for g in p.grants],
        "prohibitions": [",".join(x.classes) for x in p.prohibitions],
        "read_only": p.read_only,
    }
