"""`opafence compile --explain`: which sentence produced which grant, bound or prohibition,
what was kept out as data, and what hardening dropped and why."""

from __future__ import annotations

from opafence.intent.compile import Compiled
from opafence.policy import Grant


def _short(s: str, n: int = 100) -> str:
    s = " ".join(s.split())
    return s if len(s) <= n else s[: n - 1] + "…"


def _grant_line(g: Grant) -> str:
    parts = [f"{g.id} {g.class_}/{g.capability}"]
    for key in ("recipients", "domains", "paths", "commands", "packages", "tools"):
        values = getattr(g, key)
        if values:
            parts.append(f"{key}={','.join(values)}")
    if g.workspace:
        parts.append("workspace")
    if g.max_calls is not None:
        parts.append(f"max_calls={g.max_calls}")
    return " ".join(parts)


def render(c: Compiled) -> str:
    p = c.policy
    out = [f"task {p.task!r}  revision {p.revision}  compiled by {p.compiled_by}  message {p.messages}"]
    if c.error:
        out.append(f"compile failed: {c.error} -> read-only fallback, prohibitions kept")
    out.append(f"instruction: {_short(p.instruction, 300)!r}" if p.instruction else "instruction: (empty)")
    data = [n for n in c.notes if n.kind == "data"]
    if data:
        out.append("kept as data (grants nothing):")
        out += [f"  - {n.detail.split(':')[0]}: {_short(n.sentence, 80)!r}" for n in data]
    out.append("grants:" if p.grants else "grants: none (reads need no grant)")
    out += [f"  {_grant_line(g)}  (message {g.message})\n      <- {_short(g.evidence)!r}" for g in p.grants]
    if p.read_only:
        out.append("read only: yes")
    if p.prohibitions:
        out.append("prohibitions (beat every grant):")
        for q in p.prohibitions:
            what = ",".join(q.classes) + (" +egress" if q.egress else "")
            kw = f" keywords={','.join(q.keywords)}" if q.keywords else ""
            tmp = " (until the owner asks again)" if q.id in p.temporary else ""
            out.append(f"  {q.id} {what}{kw}{tmp}  (message {q.message})\n      <- {_short(q.evidence)!r}")
    b = p.bounds
    if b.domains or b.recipients or b.paths:
        out.append("bounds (every call, reads included):")
        for key in ("domains", "recipients", "paths"):
            if getattr(b, key):
                out.append(f"  {key}: {', '.join(getattr(b, key))}")
    bound_notes = [n for n in c.notes if n.kind == "bound"]
    out += [f"      <- {_short(n.sentence)!r}" for n in bound_notes]
    binding = [n for n in c.notes if n.kind == "binding"]
    if binding:
        out.append("tool binding (the session's tools):")
        out += [f"  {n.detail}\n      <- {_short(n.sentence)!r}" for n in binding]
    ignored = [n for n in c.notes if n.kind in ("ignored", "confirm", "lifted", "draft", "error")]
    if ignored:
        out.append("other sentences:")
        out += [f"  {_short(n.sentence)!r}: {n.kind}: {n.detail}" for n in ignored]
    mine = [d for d in p.dropped if d.message == p.messages]
    if mine:
        out.append("dropped (hardening, prohibitions, bounds):")
        for d in mine:
            g = d.grant
            what = f"{g.get('class', '?')}/{g.get('capability', '?')}"
            ev = g.get("evidence", "")
            out.append(f"  {what} {d.part}: {d.reason}" + (f"\n      <- {_short(str(ev))!r}" if ev else ""))
    if c.events:
        out.append("llm:")
        out += [f"  {e}" for e in c.events]
    return "\n".join(out)
