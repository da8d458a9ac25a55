"""A grant's targets checked against the quote: recipients, domains, paths, commands, packages
and tools that are whole tokens of the instruction; objects, operations and access levels read
from the quote's own words; the session's tools the grant binds to."""

from __future__ import annotations

import re

from opafence.host import Host
from opafence.intent import catalogue as cat
from opafence.intent import lexicon as lx
from opafence.intent import services
from opafence.intent import text as tx
from opafence.intent.draft import DraftGrant, Note
from opafence.intent.harden.instruction import JOINING, Hardened, Instruction, Tokens
from opafence.intent.owner_paths import canonical, refused
from opafence.intent.rules.clause import VerbClause, refers_back
from opafence.intent.rules.family import (
    operated,
    operation_of,
)
from opafence.intent.rules.grant import access_of, moves_from_before
from opafence.intent.rules.objects import objects_of, placed_files, recipients_of
from opafence.policy import DroppedGrant

_TOOL_GLOB = re.compile(r"^mcp__([a-z0-9][a-z0-9_-]*?)__(\*|[a-z0-9][a-z0-9_-]*)$")
# Classes whose grants may name the people a call reaches (attendees, payees, grantees).
_PEOPLE_CLASSES = frozenset({"COMMUNICATION", "EXTERNAL_WRITE", "FINANCIAL", "PERMISSION_CHANGE"})
_ACCESS_LEVELS = ("read", "comment", "write")
# Deletes of what a directory holds, not of the directory ("empty the build directory").
_CONTENTS_VERBS = frozenset({"empty"})


def record_drop(h: Hardened, g: DraftGrant, reason: str, message: int, part: str = "grant") -> None:
    h.dropped.append(DroppedGrant(grant=g.summary(), reason=reason, message=message, part=part))
    h.notes.append(
        Note(
            g.evidence,
            "dropped" if part == "grant" else "stripped",
            f"{g.class_}/{g.capability}{'' if part == 'grant' else ' ' + part}: {reason}",
        )
    )


def check_targets(
    g: DraftGrant, clauses: list[VerbClause], ins: Instruction, host: Host, h: Hardened, message: int
) -> DraftGrant:
    out = g.model_copy(deep=True)
    # A move out of the place the clause before names ("move every PDF in it into ...") writes it.
    local = Tokens(
        [t for c in clauses for t in (*c.clause.tokens, *(c.before if moves_from_before(c) else ()))]
    )
    # What the object points back to ("upgrade it", "remove that branch") names a package or a
    # branch; never a path, host or person (the "it" of "read x, then save it to y" is content).
    pointed = Tokens([t for c in clauses for t in (*c.clause.tokens, *(c.before if refers_back(c) else ()))])
    # recipients: the object of a send verb in the quoted clause
    allowed: set[str] = set()
    if g.class_ in _PEOPLE_CLASSES:
        for c in clauses:
            allowed |= {r.lower() for r in recipients_of(c)}
    keep: list[str] = []
    for r in g.recipients:
        low = r.strip().lower()
        if low in allowed and low not in keep:
            keep.append(low)
        elif low not in ins.recipients:
            record_drop(h, g, "the address is not in the owner's own words", message, f"recipient {r}")
        else:
            record_drop(
                h, g, "not the object of a send request in the quoted instruction", message, f"recipient {r}"
            )
    out.recipients = keep

    keep = []
    page_domains: set[str] = set()
    span = ins.span(g.evidence)
    if g.capability == "browse" and span is not None:
        # "Open https://x.com and click ...": the page is named in the quote, by the open before it
        page_domains = Tokens(
            [t for t in ins.analysis.tokens if t.start >= span[0] and t.end <= span[1]]
        ).domains
    for d in g.domains:
        low = d.strip().lower().rstrip(".")
        if "*" in low or "." not in low:
            record_drop(h, g, "a domain bound must be a literal host name", message, f"domain {d}")
        elif low not in local.domains and low not in page_domains:
            record_drop(h, g, "not a whole token of the quoted request", message, f"domain {d}")
        elif low not in keep:
            keep.append(low)
    out.domains = keep

    keep = []
    # "README.txt in ~/shared/handover": the file in the directory the quote names
    placed = {v[0] for c in clauses for v in placed_files(c.obj).values()}
    for p in g.paths:
        cpath = canonical(p, host)
        if cpath is None:
            record_drop(h, g, "the path has no single meaning", message, f"path {p}")
            continue
        why = refused(p, cpath, host)
        if why:
            record_drop(h, g, why, message, f"path {p}")
        elif (
            p.strip().rstrip("/") not in local.cores
            and cpath not in local.path_tokens(host)
            and p.strip() not in placed
        ):
            record_drop(h, g, "not a whole token of the quoted request", message, f"path {p}")
        elif cpath not in keep:
            keep.append(cpath)
    if g.class_ == "DELETE" and any(c.lemma in _CONTENTS_VERBS for c in clauses):
        # "empty the build directory": what is inside it goes, never the directory itself. A
        # bound ending in "/" covers only what is below it (lib/paths.under: canonical call
        # paths never end in "/"), so `rm -rf build` and `rmdir build` ask.
        keep = [p.rstrip("/") + "/" for p in keep]
    out.paths = keep

    keep = []
    for cmd in g.commands:
        norm = " ".join(cmd.split())
        if g.capability == "delete_branch":
            # git branch -d NAME for a branch the quote names: only the safe delete of a merged branch
            m = re.match(r"^git branch (?:-d|--delete) ([A-Za-z0-9][A-Za-z0-9._/-]*)$", norm)
            # "Feature/search was merged; ...": a name that starts a sentence carries a capital
            starts = {cl.start for cl in ins.analysis.clauses}
            opening = {
                t.core[0].lower() + t.core[1:]
                for c in clauses
                for t in (c.before if refers_back(c) else ())
                if t.start in starts and t.core[:1].isupper()
            }
            if m is None or (m.group(1) not in pointed.cores and m.group(1) not in opening):
                record_drop(h, g, "not a branch named in the owner's instruction", message, f"command {cmd}")
            elif norm not in keep:
                keep.append(norm)
            continue
        head, _, tail = norm.partition(" ")
        placed_cmd = head in placed and (not tail or f" {tail} " in local.command_text)
        if not norm or (f" {norm} " not in local.command_text and not placed_cmd):
            record_drop(h, g, "not a literal command in the owner's instruction", message, f"command {cmd}")
        elif norm not in keep:
            keep.append(norm)
    out.commands = keep

    keep = []
    for pkg in g.packages:
        if pkg.strip().lower() not in pointed.lower_words:
            record_drop(h, g, "not a whole token of the quoted request", message, f"package {pkg}")
        elif pkg.strip() not in keep:
            keep.append(pkg.strip())
    out.packages = keep

    evidence_words = {t.norm for c in clauses for t in c.clause.tokens} | {
        t.norm.split(".")[0] for c in clauses for t in c.clause.tokens if tx.is_domain(t.core)
    }
    keep = []
    for tool in g.tools:
        m = _TOOL_GLOB.match(tool.strip().lower())
        # "google_calendar" is named by "Google Calendar": every word of the server is in the quote
        if not m or not (m.group(1) in evidence_words or set(m.group(1).split("_")) <= evidence_words):
            record_drop(
                h,
                g,
                "a tool bound must be mcp__<service>__* for a service the owner named",
                message,
                f"tool {tool}",
            )
        elif tool.strip().lower() not in keep:
            keep.append(tool.strip().lower())
    out.tools = keep
    return out


def quoted_objects(g: DraftGrant, clauses: list[VerbClause], h: Hardened, message: int) -> list[str]:
    """The objects of the quoted request: what its verbs' noun phrases name. A draft's own
    objects count only when the quote names none (then they can only narrow the grant), and
    only those a word of the quote names."""
    found: list[str] = []
    read = [r for c in clauses if (r := services.reading(c)) is not None and r.kind == "publish"]
    if read and all(r.objects is not None for r in read):
        # a service request names what it acts on by its verb ("reschedule the review": an event)
        for r in read:
            found.extend(o for o in r.objects or [] if o not in found)
        return found
    for c in clauses:
        for o in objects_of(c.obj, c.lemma):
            if o not in found:
                found.append(o)
    if found:
        return found
    named = {lx.OBJECT_NOUNS[t.norm] for c in clauses for t in c.clause.tokens if t.norm in lx.OBJECT_NOUNS}
    keep: list[str] = []
    for o in g.objects:
        low = o.strip().lower()
        if low in named and low not in keep:
            keep.append(low)
        elif low not in named:
            record_drop(h, g, "not a thing the quoted request names", message, f"object {o}")
    return keep


def quoted_operations(clauses: list[VerbClause]) -> list[str]:
    """The kinds of action the quoted verbs ask for (lx.OPERATION_OF), never a draft's."""
    out: list[str] = []
    for c in clauses:
        lead = tx.skip_fillers(c.toks, 0)
        before = c.toks[c.i - 1] if c.i > 0 else None
        joined = before is not None and (before.norm in JOINING or before.trail.startswith((",", ";")))
        if c.i != lead and not joined:
            continue  # "cancel my cal.com booking": only the request's own verbs say what it does
        r = services.reading(c)
        kinds = r.operations if r is not None and r.kind == "publish" else [lx.OPERATION_OF.get(c.lemma, "")]
        out.extend(k for k in kinds if k and k not in out)
    return out


def operate_bounds(
    out: DraftGrant, clauses: list[VerbClause], ins: Instruction, h: Hardened, message: int
) -> bool:
    """An operate grant's bounds, from the quote only (never a draft's): the operations its verbs
    ask for, the objects they name and their kinds, where they live and the counts said
    (rego/opafence/lib/grants.rego operate_ok). False (the drop recorded) when they name none."""
    ops: list[str] = []
    names: list[str] = []
    kinds: list[str] = []
    scopes: list[str] = []
    counts: list[str] = []
    stack = False
    for c in clauses:
        op = operation_of(c)
        if not op:
            continue
        n = ins.analysis.clauses.index(c.clause)
        previous = ins.analysis.clauses[n - 1].tokens if n > 0 else ()
        found = operated(c, previous)
        ops.append(op)
        names += found.names
        kinds += found.kinds
        scopes += found.scopes
        counts += found.counts
        stack = stack or found.stack
    if not ops:
        record_drop(
            h, out, "no operation (restart, start, stop, scale, roll back ...) on a named object", message
        )
        return False
    if not names and not stack:
        record_drop(h, out, "an operation needs the name of the service, deployment or container", message)
        return False
    out.operations = list(dict.fromkeys(ops))
    out.refs = list(dict.fromkeys(names))
    out.objects = list(dict.fromkeys(kinds))
    out.scopes = list(dict.fromkeys(scopes))
    out.words = list(dict.fromkeys(counts))
    return True


def quoted_access(clauses: list[VerbClause]) -> str:
    found = {access_of(c) for c in clauses}
    return next((a for a in reversed(_ACCESS_LEVELS) if a in found), "read")


def bind_tools(g: DraftGrant, clauses: list[VerbClause], catalogue: cat.Catalogue) -> cat.Binding:
    """The session's tools the grant covers (intent/catalogue.py): the servers named are those
    the quote's words or the grant's service bounds name."""
    words = [t.norm.split(".")[0] for c in clauses for t in c.clause.tokens if not t.literal]
    words += [m.group(1) for tool in g.tools if (m := _TOOL_GLOB.match(tool))]
    named = cat.named_servers(words, catalogue)
    said = frozenset(c.lemma for c in clauses)
    return cat.bind(g.class_, g.capability, g.objects, g.operations, named, catalogue, said)
