"""`opafence facts --line` and `opafence explain --line`: a replay line's provenance.

A replay line ({"user_message", "calls": [{"tool", "args", "result"?}]}) is judged the way
`opafence replay` judges it (results recorded as post_tool_call records them); `facts` then
prints, per call, its targets with their provenance, and the session's recorded values: how
many from which source, never the values themselves (they are kept only as keyed hashes)."""

from __future__ import annotations

import json
import sys
import uuid
from pathlib import Path
from typing import Any

from opafence.judge import Judge
from opafence.provenance.record import describe_target


def read_line(raw: str) -> dict[str, Any] | None:
    """A replay line from a file, - (standard input) or the JSON itself; None (and a message) if bad."""
    text = (
        sys.stdin.read()
        if raw == "-"
        else (Path(raw).read_text(encoding="utf-8") if Path(raw).is_file() else raw)
    )
    first = next((ln for ln in text.splitlines() if ln.strip()), "")
    try:
        line = json.loads(first)
    except json.JSONDecodeError as e:
        print(f"opafence: --line is not a JSON replay line: {e.msg}", file=sys.stderr)
        return None
    if not isinstance(line, dict) or not isinstance(line.get("calls"), list):
        print("opafence: --line must be a replay line with user_message and calls", file=sys.stderr)
        return None
    return line


def line_facts(judge: Judge, line: dict[str, Any]) -> dict[str, Any]:
    state = judge.open_task(f"facts-{uuid.uuid4().hex[:12]}", str(line.get("user_message", "")))
    calls: list[dict[str, Any]] = []
    try:
        for c in line["calls"]:
            tool, args = str(c.get("tool", "")), dict(c.get("args", {}))
            j = judge.judge(state, tool, args, result=c.get("result"))
            prov = j.facts.get("provenance", {})
            calls.append(
                {
                    "tool": tool,
                    "call": j.call_no,
                    "verdict": j.decision.verdict,
                    "reasons": [r.code for r in j.decision.reasons],
                    "untrusted_result": bool(j.decision.ingests) and "result" in c,
                    "targets": prov.get("targets", []),
                }
            )
        return {"calls": calls, "values": state.session.values.summary()}
    finally:
        judge.close_task(state)


def render(out: dict[str, Any]) -> str:
    lines = []
    for c in out["calls"]:
        codes = ",".join(c["reasons"]) or "-"
        lines.append(f"call {c['call']}: {c['tool']} -> {c['verdict']} [{codes}]")
        lines.extend(f"    target {describe_target(t)}" for t in c["targets"])
    v = out["values"]
    lines.append(
        f"recorded values: {v['values']} from untrusted content, {v['user_values']} of the owner's own"
        + (f"; incomplete: {v['why']}" if v["lossy"] else "")
    )
    for s in v["sources"]:
        where = (
            f"message {s.get('message')}" if s.get("tool") == "attached context" else f"call {s.get('call')}"
        )
        lines.append(
            f"  {s.get('tool')} ({where}; {', '.join(s.get('labels', []))}): {s['values']} new value(s)"
        )
    return "\n".join(lines)
