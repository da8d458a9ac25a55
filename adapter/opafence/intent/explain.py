"""`opafence compile --explain`: which sentence produced which grant, bound or prohibition,
what was kept out as data, and what hardening dropped and why."""

from __future__ import annotations

from opafence.intent.compile import Compiled
from opafence.intent.rules.analysis import analyze
from opafence.policy import Grant

# The tools a grant's capability binds to when it names none (Rego: lib/grants.rego, classify/).
_BINDING: dict[str, str] = {
    "edit": "write_file, patch, execute_code writes, shell writes",
    "commit": "terminal: git add, commit, branch, checkout, switch, stash, tag, merge, rebase, pull, "
    "revert, cherry-pick, mv",
    "delete": "rm and file deletes in terminal/execute_code/patch; MCP deletes of the named objects",
    "delete_branch": "terminal: git branch -d of the named branches",
    "run_tests": "terminal: the test runners (runner table)",
    "run_build": "terminal: the build runners (runner table)",
    "run_lint": "terminal: the linters (runner table)",
    "run_format": "terminal: the formatters (runner table)",
    "run_server": "terminal: the dev-server runners (npm run dev, manage.py runserver, flask run, ...)",
    "run_migrations": "terminal: forward migrations (manage.py migrate, alembic upgrade, db:migrate, ...)",
    "create_venv": "terminal: python -m venv / virtualenv / uv venv in the workspace",
    "run_command": "terminal: exactly the commands listed",
    "install": "terminal: package installs (the named packages, else the project's manifest)",
    "run_code": "execute_code with no command, network, eval, tool call or write outside the workspace",
    "schedule": "cronjob create/update (prompt in the quote's words), pause/resume; no script or toolsets",
    "page_title": "browser_console reading document.title",
    "browse": "browser_click, browser_type (text in the quote's words), browser_press on the named page",
    "remember": "memory: the note in the quote's words",
    "skill": "skill_manage create, name in the quote's words",
    "send": "any messaging or mail tool, to the named recipients",
    "share": "MCP share/invite tools, the named recipients at the granted access",
    "push": "terminal: git push to the remote as configured",
    "publish": "MCP writes of the named objects and kinds, bounded by domains/tools",
    "pay": "payments of the named objects to the named payees (still asks)",
    "chmod": "chmod/chown of the named paths",
}


def binding(g: Grant) -> str:
    """Which tools the grant can cover: its own tool bound, else what its capability means."""
    if g.tools:
        return "tools " + ", ".join(g.tools)
    return _BINDING.get(g.capability, "any tool, within the grant's bounds")


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
    if g.max_amount is not None:
        parts.append(f"max_amount={g.max_amount:g}")
    if g.days:
        parts.append(f"days={','.join(g.days)}")
    if g.refs:
        parts.append(f"refs={','.join(g.refs)}")
    if g.scopes:
        parts.append(f"scopes={','.join(g.scopes)}")
    if g.capability == "operate" and g.operations:
        parts.append(f"operations={','.join(g.operations)}")
    for key in ("repos", "states", "cells"):
        if getattr(g, key):
            parts.append(f"{key}={','.join(getattr(g, key))}")
    if g.conditional:
        parts.append("conditional (asks)")
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
            what = (
                ",".join(q.classes) + (" +egress" if q.egress else "") + (" mentions" if q.mentions else "")
            )
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
    out += _by_sentence(c)
    if c.events:
        out.append("llm:")
        out += [f"  {e}" for e in c.events]
    return "\n".join(out)


def _by_sentence(c: Compiled) -> list[str]:
    """Per sentence of the instruction: its grants with their tool binding, and what it was refused."""
    p = c.policy
    text = c.split.instruction if c.split is not None else p.instruction
    if not text:
        return []
    a = analyze(text)
    spans: dict[int, tuple[int, int]] = {}
    for cl in a.clauses:
        lo, hi = spans.get(cl.sentence, (cl.start, cl.end))
        spans[cl.sentence] = (min(lo, cl.start), max(hi, cl.end))

    def where(quote: str) -> int | None:
        at = text.find(" ".join(quote.split())) if quote else -1
        if at < 0:
            at = text.find(quote) if quote else -1
        return next((n for n, (lo, hi) in sorted(spans.items()) if lo <= at < hi), None) if at >= 0 else None

    out = ["by sentence (grant -> tool binding; refused and why):"]
    mine = [d for d in p.dropped if d.message == p.messages]
    for n, (lo, hi) in sorted(spans.items()):
        sentence = text[lo:hi]
        lines = [
            f"    grant {_grant_line(g)} -> {binding(g)}"
            for g in p.grants
            if g.message == p.messages and where(g.evidence) == n
        ]
        lines += [
            f"    refused {d.grant.get('class', '?')}/{d.grant.get('capability', '?')} {d.part}: {d.reason}"
            for d in mine
            if where(str(d.grant.get("evidence", ""))) == n
        ]
        lines += [
            f"    nothing from {_short(x.sentence, 60)!r}: {x.detail}"
            for x in c.notes
            if x.kind == "ignored" and x.sentence and where(x.sentence) == n
        ]
        lines += [
            f"    under a condition {_short(x.sentence, 60)!r}: {x.detail}"
            for x in c.notes
            if x.kind == "conditional" and x.sentence and where(x.sentence) == n
        ]
        out.append(f"  {_short(sentence, 120)!r}")
        out += lines or ["    no grant (a read, or nothing to do)"]
    return out
