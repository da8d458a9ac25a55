"""Hardening: the deterministic checks every draft grant must pass, whoever wrote the draft.

A grant survives only if:
- its class and capability are in the contract's vocabulary (docs/contract.md) and the class
  can be granted by words at all (never READ, which needs no grant, or SELF_MODIFICATION);
- its evidence is a verbatim quote of the cleaned instruction, overlapping a clause that is a
  request (not a question, conditional, hypothetical or negation) and holding an affirmative
  verb of *that* capability's own list: a request to send does not authorize a CRM update;
- every recipient is the object of a send verb in that clause (not a sender, not excluded,
  not a bare name, not an address seen only in quoted material);
- every domain, path, command and package is a whole token (or literal) of the instruction;
  paths are made canonical and `/`, `~`, home directories, top-level directories and
  wildcards are refused as path bounds;
- the targets its capability needs are there (a send needs a recipient, a delete a path, ...).
Targets that fail are stripped one by one; a grant left without the targets it needs is
dropped. Every strip and drop is recorded with its reason. Prohibitions, read-only and bounds
are applied afterwards over the whole task (`apply_narrowing`), so they beat every grant,
earlier messages' grants included."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from opafence.host import Host
from opafence.intent import catalogue as cat
from opafence.intent import lexicon as lx
from opafence.intent import named as said_names
from opafence.intent import rules, services
from opafence.intent import text as tx
from opafence.intent.commands import parse_literal
from opafence.intent.draft import Draft, DraftBounds, DraftGrant, DraftProhibition, Note, Reading
from opafence.intent.owner_paths import canonical, refused
from opafence.policy import Bounds, DroppedGrant, Grant, Prohibition

_TOOL_GLOB = re.compile(r"^mcp__([a-z0-9][a-z0-9_-]*?)__(\*|[a-z0-9][a-z0-9_-]*)$")
_NEEDS: dict[str, tuple[str, str]] = {
    # capability -> (target list it needs, why)
    "send": ("recipients", "a send needs a literal recipient the owner asked to send to"),
    "delete": ("paths", "a delete needs a literal path (or names emails, events, records: no files)"),
    "chmod": ("paths", "a permission change needs a literal path"),
    "run_command": ("commands", "running a command needs the literal command"),
    "delete_branch": ("commands", "deleting a branch needs the branch's name"),
    "browse": ("domains", "clicking or typing needs the page the owner named"),
    "share": ("recipients", "sharing needs a literal recipient the owner asked to share with"),
}
# Classes whose grants may name the people a call reaches (attendees, payees, grantees).
_PEOPLE_CLASSES = frozenset({"COMMUNICATION", "EXTERNAL_WRITE", "FINANCIAL", "PERMISSION_CHANGE"})
_ACCESS_LEVELS = ("read", "comment", "write")
_TARGETS = ("recipients", "domains", "paths", "commands", "packages", "tools")
# Deletes of what a directory holds, not of the directory ("empty the build directory").
_CONTENTS_VERBS = frozenset({"empty"})
# Capabilities whose verbs are generic ("run", "make", "save"): the quote must also name the
# thing (the tests, the linter, a branch, memory) unless the verb alone says it ("test", "chmod").
_REQUIRED: dict[str, tuple[frozenset[str], frozenset[str]]] = {
    "run_tests": (frozenset({"test"}), lx.TEST_WORDS),
    "run_build": (frozenset({"build", "compile", "rebuild"}), lx.BUILD_WORDS),
    "run_lint": (frozenset({"lint", "typecheck", "type-check"}), lx.LINT_WORDS),
    "run_format": (frozenset({"format", "reformat", "prettify", "autoformat"}), lx.FORMAT_WORDS),
    "chmod": (lx.PERMISSION_VERBS, frozenset({"executable", "permissions", "permission", "mode"})),
    "commit": (
        lx.COMMIT_VERBS
        | {"branch", "checkout", "switch", "merge", "stage", "pull", "revert", "cherry", "mv", "bisect"},
        frozenset({"branch", "commit", "tag", "git", "stash", "out", "remote", "upstream", "origin"}),
    ),
    "remember": (lx.MEMORY_VERBS | {"note", "forget"}, frozenset({"memory", "memories", "mind", "that"})),
    "run_server": (frozenset({"serve"}), lx.SERVER_WORDS | {"dev"}),
    "run_migrations": (frozenset({"migrate"}), lx.MIGRATION_WORDS),
    "create_venv": (frozenset(), lx.VENV_WORDS | {"virtual", "env"}),
    "run_code": (lx.CODE_VERBS, lx.CODE_TOOLS | {"out"}),
    "delete_branch": (frozenset(), lx.REF_WORDS),
    "skill": (frozenset(), frozenset({"skill", "skills"})),
    "browse": (lx.BROWSE_VERBS, lx.BROWSE_WORDS),
    "page_title": (frozenset(), frozenset({"title", "document.title"})),
    "schedule": (lx.SCHEDULE_VERBS, lx.SCHEDULE_WORDS),
}
# A known verb form after one of these is a noun or an adjective ("my booking", "the open PR"),
# after a subject someone else's verb ("the room I reserved"), not the request's.
_DETERMINERS = frozenset(
    ["my", "the", "a", "an", "this", "that", "these", "those", "our", "your", "his", "her", "their", "its"]
)
_SUBJECTS = frozenset(["i", "we", "he", "she", "they"])
_JOINING = frozenset(["and", "then", "or", "also", "plus", "&", "but"])
# What falls on a day: a conditional's weekday bounds these (rules.day_bound).
_DATED_OBJECTS = frozenset(["event", "booking", "room", "seat", "flight", "hotel"])
# What is named by a number or key ("issue 77", "PR #482", "ENG-311"): refs bound these.
_NUMBERED_OBJECTS = frozenset(["issue", "pull_request", "comment", "review", "note", "label"])


def _not_the_request(toks: tuple[tx.Token, ...], k: int) -> bool:
    before, word = toks[k - 1].norm, toks[k].norm
    if before in _SUBJECTS or (before in _DETERMINERS and (word.endswith("ing") or word == "open")):
        return True
    # "with a note that it was fixed by the config change": the head of a noun phrase
    for j in range(k - 1, max(-1, k - 4), -1):
        t = toks[j]
        if t.literal or t.trail or tx.verb_at(toks, j) or t.norm in _JOINING:
            return False
        if t.norm in _DETERMINERS:
            return j < k - 1
    return False


_NEVER_GRANTED = {
    "READ": "reads need no grant",
    "SELF_MODIFICATION": "changing opafence or Hermes itself is never granted by words",
}


@dataclass
class Hardened:
    grants: list[DraftGrant] = field(default_factory=list)  # targets canonical, evidence checked
    prohibitions: list[DraftProhibition] = field(default_factory=list)
    bounds: DraftBounds = field(default_factory=DraftBounds)  # canonical
    read_only: bool = False
    read_only_evidence: str = ""
    confirm: dict[str, str] = field(default_factory=dict)
    dropped: list[DroppedGrant] = field(default_factory=list)
    notes: list[Note] = field(default_factory=list)


def _norm(s: str) -> str:
    return " ".join(s.replace("\u2019", "'").replace("\u2018", "'").split()).lower()


class _Instruction:
    """The cleaned instruction, indexed for the token checks."""

    def __init__(self, analysis: rules.Analysis, host: Host, catalogue: cat.Catalogue | None = None) -> None:
        self.analysis = analysis
        self.catalogue = catalogue
        self.service_words = cat.service_words(catalogue)
        self.text = analysis.text
        self.norm = _norm(analysis.text)
        self.cores = {t.core for t in analysis.tokens}
        self.domains = set()
        for t in analysis.tokens:
            if tx.is_url(t.core):
                self.domains.add(tx.url_host(t.core))
            elif tx.is_domain(t.core):
                self.domains.add(t.core.lower().rstrip("."))
        self.recipients = {t.core.lower() for t in analysis.tokens if tx.is_recipient(t.core)}
        self.host = host
        self.whole = analysis.text  # the owner's message as sent (harden sets it)
        self._path_tokens: dict[str, str] | None = None

    @property
    def path_tokens(self) -> dict[str, str]:
        """Canonical path -> token, for every token that could name a path (computed on first use)."""
        if self._path_tokens is None:
            self._path_tokens = {}
            for t in self.analysis.tokens:
                if tx.is_path_like(t.core) or re.match(r"^[\w.-]+/?$", t.core):
                    c = canonical(t.core, self.host)
                    if c:
                        self._path_tokens.setdefault(c, t.core)
        return self._path_tokens

    def span(self, evidence: str) -> tuple[int, int] | None:
        """Where the evidence sits in the instruction (whitespace- and case-insensitive)."""
        ev = _norm(evidence).strip(" .,;:!?")
        if not ev:
            return None
        pattern = r"\s+".join(re.escape(w) for w in ev.split())
        m = re.search(pattern, self.text.replace("\u2019", "'").replace("\u2018", "'"), re.IGNORECASE)
        return (m.start(), m.end()) if m else None


class _Tokens:
    """The tokens of the request clauses a grant quotes: its targets must be among them."""

    def __init__(self, tokens: list[tx.Token]) -> None:
        self.tokens = tokens
        self.cores = {t.core.rstrip("/") for t in tokens}
        self.lower_words = {t.core.lower() for t in tokens} | {
            w.lower() for t in tokens if t.literal for w in t.core.split()
        }
        self.domains = {tx.url_host(t.core) for t in tokens if tx.is_url(t.core)} | {
            t.core.lower().rstrip(".") for t in tokens if tx.is_domain(t.core)
        }
        self.command_text = " " + " ".join(" ".join(t.core.split()) for t in tokens) + " "

    def path_tokens(self, host: Host) -> set[str]:
        out = set()
        for t in self.tokens:
            if tx.is_path_like(t.core) or re.match(r"^[\w.-]+/?$", t.core):
                c = canonical(t.core, host)
                if c:
                    out.add(c)
        return out


def _affirmative_clauses(
    ins: _Instruction, span: tuple[int, int], verbs: frozenset[str]
) -> list[rules._Clause]:
    """Request clauses overlapping the span, each with the index of a verb of `verbs` in the span."""
    a, b = span
    out: list[rules._Clause] = []
    for n, (clause, (mode, i)) in enumerate(zip(ins.analysis.clauses, ins.analysis.modes, strict=True)):
        if mode != "request" or clause.end <= a or clause.start >= b:
            continue
        toks = clause.tokens
        condition = ins.analysis.conditions.get(n, ())
        for k in range(i, len(toks)):
            t = toks[k]
            if t.start < a or t.end > b:
                continue
            lem = tx.verb_at(toks, k)
            if not lem or (lem not in verbs and t.norm not in verbs):
                continue
            if k > i and _not_the_request(toks, k):
                continue  # "my booking", "my open PR", "I reserved": a noun or someone else's verb
            if any(tx.is_negation(toks[j].norm) for j in range(max(i, k - 4), k)):
                continue
            if k > 0 and toks[k - 1].norm == "to" and k - 2 >= 0 and toks[k - 2].norm == "how":
                continue
            out.append(
                rules._Clause(
                    clause,
                    k,
                    lem,
                    services=ins.service_words,
                    condition=condition,
                    before=rules.antecedent(ins.analysis, n),
                    after=rules.following(ins.analysis, n),
                )
            )
    return out


def _instrument_clauses(ins: _Instruction, span: tuple[int, int], commands: list[str]) -> list[rules._Clause]:
    """Request clauses in the span that ask for an action (not a read) and name every one of
    the commands as the way to do it ("clear the cache with `rm -rf .cache`")."""
    a, b = span
    wanted = {" ".join(c.split()) for c in commands}
    out: list[rules._Clause] = []
    for clause, (mode, i) in zip(ins.analysis.clauses, ins.analysis.modes, strict=True):
        if mode != "request" or clause.end <= a or clause.start >= b:
            continue
        toks = clause.tokens
        verb = i + 1 if toks[i].norm in ("git", "gh") and tx.verb_at(toks, i + 1) else i
        lem = tx.verb_at(toks, verb)
        if not lem or lem in lx.READ_VERBS or lem not in lx.ACTION_VERBS:
            continue
        if wanted and wanted <= set(rules.instrument_literals(toks, verb)):
            out.append(rules._Clause(clause, verb, lem))
    return out


def _drop(h: Hardened, g: DraftGrant, reason: str, message: int, part: str = "grant") -> None:
    h.dropped.append(DroppedGrant(grant=g.summary(), reason=reason, message=message, part=part))
    h.notes.append(
        Note(
            g.evidence,
            "dropped" if part == "grant" else "stripped",
            f"{g.class_}/{g.capability}{'' if part == 'grant' else ' ' + part}: {reason}",
        )
    )


def _check_targets(
    g: DraftGrant, clauses: list[rules._Clause], ins: _Instruction, host: Host, h: Hardened, message: int
) -> DraftGrant:
    out = g.model_copy(deep=True)
    # A move out of the place the clause before names ("move every PDF in it into ...") writes it.
    local = _Tokens(
        [t for c in clauses for t in (*c.clause.tokens, *(c.before if rules.moves_from_before(c) else ()))]
    )
    # What the object points back to ("upgrade it", "remove that branch") names a package or a
    # branch; never a path, host or person (the "it" of "read x, then save it to y" is content).
    pointed = _Tokens(
        [t for c in clauses for t in (*c.clause.tokens, *(c.before if rules.refers_back(c) else ()))]
    )
    # recipients: the object of a send verb in the quoted clause
    allowed: set[str] = set()
    if g.class_ in _PEOPLE_CLASSES:
        for c in clauses:
            allowed |= {r.lower() for r in rules._recipients(c)}
    keep: list[str] = []
    for r in g.recipients:
        low = r.strip().lower()
        if low in allowed and low not in keep:
            keep.append(low)
        elif low not in ins.recipients:
            _drop(h, g, "the address is not in the owner's own words", message, f"recipient {r}")
        else:
            _drop(
                h, g, "not the object of a send request in the quoted instruction", message, f"recipient {r}"
            )
    out.recipients = keep

    keep = []
    page_domains: set[str] = set()
    span = ins.span(g.evidence)
    if g.capability == "browse" and span is not None:
        # "Open https://x.com and click ...": the page is named in the quote, by the open before it
        page_domains = _Tokens(
            [t for t in ins.analysis.tokens if t.start >= span[0] and t.end <= span[1]]
        ).domains
    for d in g.domains:
        low = d.strip().lower().rstrip(".")
        if "*" in low or "." not in low:
            _drop(h, g, "a domain bound must be a literal host name", message, f"domain {d}")
        elif low not in local.domains and low not in page_domains:
            _drop(h, g, "not a whole token of the quoted request", message, f"domain {d}")
        elif low not in keep:
            keep.append(low)
    out.domains = keep

    keep = []
    # "README.txt in ~/shared/handover": the file in the directory the quote names
    placed = {v[0] for c in clauses for v in rules.placed_files(c.obj).values()}
    for p in g.paths:
        cpath = canonical(p, host)
        if cpath is None:
            _drop(h, g, "the path has no single meaning", message, f"path {p}")
            continue
        why = refused(p, cpath, host)
        if why:
            _drop(h, g, why, message, f"path {p}")
        elif (
            p.strip().rstrip("/") not in local.cores
            and cpath not in local.path_tokens(host)
            and p.strip() not in placed
        ):
            _drop(h, g, "not a whole token of the quoted request", message, f"path {p}")
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
                for t in (c.before if rules.refers_back(c) else ())
                if t.start in starts and t.core[:1].isupper()
            }
            if m is None or (m.group(1) not in pointed.cores and m.group(1) not in opening):
                _drop(h, g, "not a branch named in the owner's instruction", message, f"command {cmd}")
            elif norm not in keep:
                keep.append(norm)
            continue
        head, _, tail = norm.partition(" ")
        placed_cmd = head in placed and (not tail or f" {tail} " in local.command_text)
        if not norm or (f" {norm} " not in local.command_text and not placed_cmd):
            _drop(h, g, "not a literal command in the owner's instruction", message, f"command {cmd}")
        elif norm not in keep:
            keep.append(norm)
    out.commands = keep

    keep = []
    for pkg in g.packages:
        if pkg.strip().lower() not in pointed.lower_words:
            _drop(h, g, "not a whole token of the quoted request", message, f"package {pkg}")
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
            _drop(
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


def _objects(g: DraftGrant, clauses: list[rules._Clause], h: Hardened, message: int) -> list[str]:
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
        for o in rules.objects_of(c.obj, c.lemma):
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
            _drop(h, g, "not a thing the quoted request names", message, f"object {o}")
    return keep


def _operations(clauses: list[rules._Clause]) -> list[str]:
    """The kinds of action the quoted verbs ask for (lx.OPERATION_OF), never a draft's."""
    out: list[str] = []
    for c in clauses:
        lead = tx.skip_fillers(c.toks, 0)
        before = c.toks[c.i - 1] if c.i > 0 else None
        joined = before is not None and (before.norm in _JOINING or before.trail.startswith((",", ";")))
        if c.i != lead and not joined:
            continue  # "cancel my cal.com booking": only the request's own verbs say what it does
        r = services.reading(c)
        kinds = r.operations if r is not None and r.kind == "publish" else [lx.OPERATION_OF.get(c.lemma, "")]
        out.extend(k for k in kinds if k and k not in out)
    return out


def _operate(
    out: DraftGrant, clauses: list[rules._Clause], ins: _Instruction, h: Hardened, message: int
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
        op = rules.operation(c)
        if not op:
            continue
        n = ins.analysis.clauses.index(c.clause)
        previous = ins.analysis.clauses[n - 1].tokens if n > 0 else ()
        found = rules.operated(c, previous)
        ops.append(op)
        names += found.names
        kinds += found.kinds
        scopes += found.scopes
        counts += found.counts
        stack = stack or found.stack
    if not ops:
        _drop(h, out, "no operation (restart, start, stop, scale, roll back ...) on a named object", message)
        return False
    if not names and not stack:
        _drop(h, out, "an operation needs the name of the service, deployment or container", message)
        return False
    out.operations = list(dict.fromkeys(ops))
    out.refs = list(dict.fromkeys(names))
    out.objects = list(dict.fromkeys(kinds))
    out.scopes = list(dict.fromkeys(scopes))
    out.words = list(dict.fromkeys(counts))
    return True


def _access(clauses: list[rules._Clause]) -> str:
    found = {rules._access(c) for c in clauses}
    return next((a for a in reversed(_ACCESS_LEVELS) if a in found), "read")


def _bind(g: DraftGrant, clauses: list[rules._Clause], catalogue: cat.Catalogue) -> cat.Binding:
    """The session's tools the grant covers (intent/catalogue.py): the servers named are those
    the quote's words or the grant's service bounds name."""
    words = [t.norm.split(".")[0] for c in clauses for t in c.clause.tokens if not t.literal]
    words += [m.group(1) for tool in g.tools if (m := _TOOL_GLOB.match(tool))]
    named = cat.named_servers(words, catalogue)
    said = frozenset(c.lemma for c in clauses)
    return cat.bind(g.class_, g.capability, g.objects, g.operations, named, catalogue, said)


def harden_grant(
    g: DraftGrant, ins: _Instruction, host: Host, h: Hardened, message: int
) -> DraftGrant | None:
    """The grant with its targets checked and canonical, or None (the drop is recorded in h)."""
    cls, cap = g.class_.upper(), g.capability.lower()
    g = g.model_copy(update={"class_": cls, "capability": cap})
    if cls in _NEVER_GRANTED:
        _drop(h, g, _NEVER_GRANTED[cls], message)
        return None
    if cls not in lx.CAPABILITIES:
        _drop(h, g, f"unknown risk class {g.class_!r}", message)
        return None
    if cap not in lx.CAPABILITIES[cls]:
        _drop(
            h,
            g,
            f"capability {g.capability!r} is not one of {sorted(lx.CAPABILITIES[cls])} for {cls}",
            message,
        )
        return None
    span = ins.span(g.evidence)
    if span is None:
        _drop(h, g, "the evidence is not a verbatim quote of the owner's instruction", message)
        return None
    clauses = _affirmative_clauses(ins, span, lx.CAPABILITY_VERBS[(cls, cap)])
    if not clauses and cap == "run_command":
        clauses = _instrument_clauses(ins, span, g.commands)
    step = False
    if not clauses and (cls, cap) == ("EXECUTION", "schedule"):
        # "Every Monday at 8, summarize my open issues": a job, its verb the one after the time
        for n, k, (lo, hi) in rules.scheduled(ins.analysis):
            if span[0] <= lo and hi <= span[1]:
                clause = ins.analysis.clauses[n]
                clauses = [rules._Clause(clause, k, tx.verb_at(clause.tokens, k))]
                break
    if not clauses:
        # "I'd like a new skill, 'pr-review', ...": a wish for what the agent makes
        for c_, p_, n, (lo, hi) in rules.wished(ins.analysis):
            if (c_, p_) == (cls, cap) and span[0] <= lo and hi <= span[1]:
                clause = ins.analysis.clauses[n]
                clauses = [rules._Clause(clause, 0, "create")]
                break
    # "Once the deps are in, run the migrations": the step the request waits for
    for c_, p_, n, (lo, hi) in rules.implied(ins.analysis):
        if (c_, p_) == (cls, cap) and span[0] <= lo and hi <= span[1]:
            step = True
            if not clauses:
                clause = ins.analysis.clauses[n]
                i = ins.analysis.modes[n][1]
                clauses = [rules._Clause(clause, i, tx.verb_at(clause.tokens, i) or clause.tokens[i].norm)]
            break
    if not clauses:
        _drop(
            h,
            g,
            f"the quote does not ask for {cls}/{cap}: no affirmative request with a verb for it",
            message,
        )
        return None
    # The action of a conditional: a consequential one asks (Rego, CONDITIONAL_CONFIRM); the
    # condition's measurable part bounds it (amount, weekday). Never taken from a draft.
    indexes = [ins.analysis.clauses.index(c.clause) for c in clauses]
    under = all(n in ins.analysis.conditional for n in indexes)
    conditions = [ins.analysis.conditions.get(n, ()) for n in indexes] if under else []
    if cap == "pay" and all(c.lemma == "send" for c in clauses):
        span_text = ins.text[span[0] : span[1]]
        if not rules._MONEY.search(span_text):
            _drop(h, g, "'send' is a payment only when the quote names an amount of money", message)
            return None
    required = None if step else _REQUIRED.get(cap)
    if required is not None:
        verbs, words = required
        span_words = {t.norm for t in ins.analysis.tokens if t.start >= span[0] and t.end <= span[1]}
        span_words |= {t.norm for c in clauses if rules.refers_back(c) for t in c.before}
        data = cap == "run_code" and any(rules.data_files(c.obj) for c in clauses)
        named_test = cap == "run_tests" and any(rules.names_test(w) for w in span_words)
        if (
            not any(c.lemma in verbs for c in clauses)
            and not span_words & words
            and not data
            and not named_test
        ):
            _drop(h, g, f"the quote does not name what {cls}/{cap} covers", message)
            return None
    out = _check_targets(g, clauses, ins, host, h, message)
    out.literals = []
    out.conditional = under and cls in rules._CONSEQUENTIAL
    out.max_amount = None
    out.days = []
    out.refs = []
    refunds = [c for c in clauses if c.lemma in rules._REFUND_VERBS]
    if cls == "FINANCIAL" and refunds:
        # a refund covers the charges, payments or orders the owner named, when they name any
        out.refs = list(dict.fromkeys(r for c in refunds for r in rules.named_refs(c.obj)))
    if under and cls == "FINANCIAL":
        amounts = [x for x in (rules.amount_bound(cond) for cond in conditions) if x is not None]
        out.max_amount = max(amounts) if amounts and len(amounts) == len(conditions) else None
    # A note, a skill, a job: what it writes may use only the words of the owner's quote.
    out.words = quote_words(_sentence_text(ins, clauses)) if cap in WORDED_CAPS else []
    if cap == "run_command":
        _expand_commands(out, host)
    if cls != "LOCAL_WRITE":
        out.workspace = False
    elif cap == "commit":
        out.workspace = True
    # A draft's tools that all failed ("mcp__gmail__*" when the owner named no Gmail) are bound
    # again from the owner's words and the session's tools, as the rules compiler's are; without
    # the session's tools, or when that binding finds none, the grant goes.
    rebind = bool(g.tools) and not out.tools and bool(ins.catalogue)
    for attr in _TARGETS:
        # Named targets that all failed never widen into "no bound" (or into the workspace).
        if getattr(g, attr) and not getattr(out, attr) and not (attr == "tools" and rebind):
            _drop(h, out, f"none of its {attr} passed the checks", message)
            return None
    need = _NEEDS.get(cap)
    # A delete of no file in particular (emails, events, records) is what Rego's pathless grant
    # covers; it needs the quote to name such things.
    pathless_delete = cap == "delete" and bool(
        {t.norm for c in clauses for t in c.clause.tokens[c.i :]} & lx.PATHLESS_OBJECTS
    )
    if need and not getattr(out, need[0]) and not pathless_delete:
        _drop(h, out, need[1], message)
        return None
    # What it acts on and how: an MCP tool must name one of the objects and only verbs of the
    # kinds asked for (rego/opafence/lib/grants.rego). Never taken wider than the quote.
    out.objects, out.operations, out.access = [], [], ""
    if cap in {"publish", "pay"} or (cap == "delete" and not out.paths):
        out.objects = _objects(g, clauses, h, message)
    if cap == "publish":
        out.operations = _operations(clauses)
        if not out.operations:
            _drop(h, out, "no kind of action (create, update, close ...) in the quoted verbs", message)
            return None
    elif cap == "delete" and not out.paths:
        out.operations = ["delete"]
    if cap == "share":
        out.access = _access(clauses)
    if cap == "operate" and not _operate(out, clauses, ins, h, message):
        return None
    if (
        cap == "commit"
        and any(rules.backs_out(c) for c in clauses)
        and all(c.lemma in ("back", "commit", "revert") for c in clauses)
    ):
        # "back out commit c0ffee1": a revert, not every kind of git bookkeeping
        out.operations = ["revert"]
    opens = set(out.operations) <= {"create"} and set(out.objects) <= {"issue", "pull_request"}
    if cap == "publish" and set(out.objects) & _NUMBERED_OBJECTS and not opens:
        # "comment on issue 77 ..., then close it": the issues and pull requests named (or those
        # of what "it" points back to, or of the condition), when the words name any
        named: list[str] = []
        for c in clauses:
            around = (*c.obj, *(c.before if rules.refers_back(c) else ()), *c.condition)
            found = rules.issue_refs(around)
            n = ins.analysis.clauses.index(c.clause)
            if not found and n > 0 and ins.analysis.clauses[n - 1].sentence == c.clause.sentence:
                # "reopen issue 215 and add the comment ...": the issue of the clause before
                found = rules.issue_refs(ins.analysis.clauses[n - 1].tokens)
            named.extend(r for r in found if r not in named)
        out.refs = named
    # What the words name in the call's arguments: repositories, states, cells (intent/named.py).
    said = {c.clause.sentence for c in clauses}
    sentence = [t for cl in ins.analysis.clauses if cl.sentence in said for t in cl.tokens]
    out.repos, out.states, out.cells = said_names.bounds(out, clauses, sentence)
    if under and cap == "publish" and (not out.objects or set(out.objects) & _DATED_OBJECTS):
        # "if I'm free Thursday afternoon, block 2-4pm": the event falls on the day named
        per = [rules.day_bound(cond, c.obj) for c, cond in zip(clauses, conditions, strict=True)]
        if per and all(per):
            out.days = sorted({d for ds in per for d in ds}, key=rules._WEEKDAYS.index)
    if ins.catalogue:
        # "my cal.com booking": the domain of a server of the session names that server
        out.domains = [d for d in out.domains if d.split(".")[0] not in ins.service_words]
    if ins.catalogue and not out.domains and not (cap == "delete" and out.paths):
        bound = _bind(out, clauses, ins.catalogue)
        if bound.tools is not None:
            if not bound.tools:
                _drop(h, out, bound.note, message)
                return None
            out.tools = bound.tools
            h.notes.append(Note(out.evidence, "binding", f"{cls}/{cap}: {bound.note}"))
        elif cap == "publish" and not out.domains:
            # The session's tools are known and none fits: a service glob would cover only a
            # tool that appears later, which a grant never does.
            _drop(h, out, f"{bound.note} (the session's tools are known)", message)
            return None
    if rebind and not out.tools:
        _drop(h, out, "none of its tools passed the checks", message)
        return None
    if cap == "publish" and not (out.domains or out.tools):
        _drop(h, out, "an external write needs a domain or a named service to bound it", message)
        return None
    if cap == "edit" and not (out.paths or out.workspace):
        _drop(h, out, "an edit needs the workspace or literal paths", message)
        return None
    # The evidence kept is the quote as it stands in the instruction, verbatim.
    out.evidence = ins.text[span[0] : span[1]].strip() or clauses[0].clause.text
    return out


# A script named by its path runs through its interpreter as well as directly: the same script,
# the same arguments, nothing else ("run scripts/seed.py" covers python3 scripts/seed.py).
_INTERPRETERS: dict[str, tuple[str, ...]] = {
    "py": ("python", "python3"),
    "sh": ("bash", "sh"),
    "bash": ("bash",),
    "rb": ("ruby", "bundle exec ruby"),
    "js": ("node",),
    "mjs": ("node",),
    "cjs": ("node",),
    "ts": ("npx tsx", "npx ts-node", "deno run", "bun"),
    "pl": ("perl",),
    "php": ("php",),
    "go": ("go run",),
}
_SCRIPT = re.compile(r"^(?:\./)?[A-Za-z0-9_][A-Za-z0-9_./-]*\.([a-z]+)$")


def _script_forms(cmd: str) -> list[str]:
    """The other spellings of a command that runs one script by its path, or []."""
    head, _, rest = cmd.partition(" ")
    m = _SCRIPT.match(head)
    if m is None or ".." in head:
        return []
    bare = head[2:] if head.startswith("./") else head
    tail = f" {rest}" if rest else ""
    forms = [f"{i} {bare}{tail}" for i in _INTERPRETERS.get(m.group(1), ())]
    forms += [f"{i} ./{bare}{tail}" for i in _INTERPRETERS.get(m.group(1), ())]
    if not head.startswith("./"):
        forms.append(f"./{bare}{tail}")
    elif "/" in bare:  # tools/x.sh is a path to the shell too; a bare x.sh would be looked up in PATH
        forms.append(f"{bare}{tail}")
    return forms


WORDED_CAPS = frozenset({"remember", "skill", "schedule", "browse", "commit"})


_NAMES_IT = re.compile(r"^\W*(?:please\s+)?(?:call|name)\s+(?:it|the\s+(?:skill|job|reminder))\b", re.I)


def _sentence_text(ins: _Instruction, clauses: list[rules._Clause]) -> str:
    """The owner's whole sentences the quoted clauses stand in ("set a reminder for 3pm: call the
    dentist": the prompt is the clause after the colon)."""
    sents = {c.clause.sentence for c in clauses}
    parts = [c for c in ins.analysis.clauses if c.sentence in sents]
    if not parts:
        return ""
    end = max(c.end for c in parts)
    nxt = [c for c in ins.analysis.clauses if c.sentence == max(sents) + 1]
    if ins.text[end:].lstrip().startswith(":") or (nxt and _NAMES_IT.match(nxt[0].text)):
        # "Remember this: ...", "remind me at 9: ...": what follows the colon is what to write;
        # "I want a skill for x. Call it sql-review.": the name given next
        parts += nxt
        end = max(c.end for c in parts)
    tail = re.match(r"[^\n.!?]*(?:[.!?](?=\S)[^\n.!?]*)*", ins.text[end:])
    text = ins.text[min(c.start for c in parts) : end + (tail.end() if tail else 0)]
    # A phrase the owner quoted inline ("with the words 'stand up and stretch'") was set aside as
    # data (grants nothing), but it is what the owner dictated: read it back from the message.
    if "\u2026" in text:
        quote = "[\"'\u201c\u201d\u2018\u2019]"
        pieces = [re.escape(p).replace('"', quote) for p in text.split("\u2026")]
        m = re.search(".{0,600}?".join(pieces), ins.whole, re.DOTALL)
        if m is not None:
            return m.group(0)
    return text


def quote_words(text: str) -> list[str]:
    """The words of a quote as Rego compares them (lower-case runs of letters and digits)."""
    return sorted(set(re.findall(r"[a-z0-9]+", text.lower())))


def _expand_commands(g: DraftGrant, host: Host) -> None:
    """Each literal the owner typed -> the simple commands the facts will show for it, and the
    literals Rego compares a call's commands with (intent/commands.py)."""
    commands: list[str] = []
    for cmd in g.commands:
        parsed = parse_literal(cmd, host)
        commands.extend(c for c in parsed.commands if c not in commands)
        g.literals.extend(x for x in parsed.literals if x not in g.literals)
        if len(parsed.commands) == 1:
            commands.extend(f for f in _script_forms(parsed.commands[0]) if f not in commands)
    g.commands = commands


def _check_prohibitions(draft: Draft, whole: str, h: Hardened) -> list[DraftProhibition]:
    """An LLM's prohibitions only narrow; keep the well-formed ones that quote the message."""
    out: list[DraftProhibition] = []
    whole_norm = _norm(whole)
    for p in draft.prohibitions:
        classes = [c.upper() for c in p.classes if c.upper() in lx.CLASSES - {"READ"} or c == "*"]
        if p.egress:
            classes = sorted(set(classes) | set(lx.EGRESS_CLASSES))
        if not (classes or p.mentions) or not p.evidence or _norm(p.evidence) not in whole_norm:
            h.notes.append(
                Note(p.evidence, "ignored", "a prohibition in the draft that does not quote the message")
            )
            continue
        kws = sorted({k.strip().lower() for k in p.keywords if 0 < len(k.strip()) <= 64})
        out.append(
            DraftProhibition(
                classes=classes,
                egress=p.egress,
                mentions=p.mentions,
                keywords=kws,
                evidence=p.evidence,
                temporary=p.temporary,
            )
        )
    return out


def _check_bounds(bounds: DraftBounds, ins: _Instruction, host: Host, h: Hardened) -> DraftBounds:
    out = DraftBounds()
    for d in bounds.domains:
        low = d.strip().lower().rstrip(".")
        if low in ins.domains and "*" not in low and low not in out.domains:
            out.domains.append(low)
        else:
            h.notes.append(Note(d, "stripped", "domain bound: not a whole token of the instruction"))
    for r in bounds.recipients:
        low = r.strip().lower()
        if low in ins.recipients and low not in out.recipients:
            out.recipients.append(low)
        else:
            h.notes.append(Note(r, "stripped", "recipient bound: not in the owner's own words"))
    for kind in ("paths", "write_paths"):
        kept: list[str] = getattr(out, kind)
        for p in getattr(bounds, kind):
            c = canonical(p, host)
            why = refused(p, c, host) if c else "the path has no single meaning"
            if (
                c
                and not why
                and (p.strip().rstrip("/") in {x.rstrip("/") for x in ins.cores} or c in ins.path_tokens)
            ):
                if c not in kept:
                    kept.append(c)
            else:
                h.notes.append(
                    Note(p, "stripped", f"path bound: {why or 'not a whole token of the instruction'}")
                )
    return out


def harden(
    draft: Draft,
    analysis: rules.Analysis,
    whole: str,
    reading: Reading,
    host: Host,
    message: int,
    catalogue: cat.Catalogue | None = None,
) -> Hardened:
    """Check a draft (from rules or an LLM) against the owner's instruction, and bind its grants
    to the session's tools when the catalogue is known. Never raises."""
    h = Hardened(
        read_only=reading.read_only or draft.read_only,
        read_only_evidence=reading.read_only_evidence,
        confirm=dict(reading.confirm),
    )
    ins = _Instruction(analysis, host, catalogue)
    ins.whole = whole
    h.prohibitions = list(reading.prohibitions)
    for p in _check_prohibitions(draft, whole, h):
        if not any(_same_prohibition(p, q) for q in h.prohibitions):
            h.prohibitions.append(p)
    if draft.read_only and not reading.read_only:
        h.read_only_evidence = "read-only (from the draft)"
    for g in draft.grants:
        try:
            out = harden_grant(g, ins, host, h, message)
        except Exception as e:  # a bug here must drop the grant, never keep it
            _drop(h, g, f"hardening error: {type(e).__name__}", message)
            continue
        if out is not None and not any(_same_grant(out, x) for x in h.grants):
            h.grants.append(out)
    h.bounds = _check_bounds(draft.bounds, ins, host, h)
    m = _WORKSPACE_BOUND.search(_norm(whole))
    if m and not h.bounds.paths:
        # "only look at files in this repo": every call's paths stay in the workspace (a bound
        # only narrows, so it is read from the whole message, like a prohibition)
        for root in (*host.workspace, host.cwd):
            if root and root not in h.bounds.paths:
                h.bounds.paths.append(root)
        h.notes.append(Note(m.group(0), "bound", "only " + ", ".join(h.bounds.paths)))
    return h


_PLACE = (
    r"(?:this|the|my|our|current)\s+(?:repo|repository|project|workspace|codebase|checkout|folder|directory)"
)
_WORKSPACE_BOUND = re.compile(
    rf"\b(?:only|just|solely|exclusively)\s+(?:look\s+at|read|touch|use|open|access|search|inspect|"
    rf"work\s+(?:on|with|in))\s+(?:the\s+)?(?:files?|code|things?|stuff)\s+(?:in|inside|within|of|from|under)\s+"
    rf"{_PLACE}\b"
    rf"|\b(?:stay|remain|keep|work)\s+(?:only\s+)?(?:inside|in|within)\s+{_PLACE}\b"
    rf"|\b(?:do ?n[o']?t|never|without)\s+(?:(?:go|going|look|looking|read|reading|wander|step|reach)\s+"
    rf"(?:outside|beyond)\s+(?:of\s+)?|leave\s+|leaving\s+){_PLACE}\b"
    rf"|\bnothing\s+(?:outside|beyond)\s+(?:of\s+)?{_PLACE}\b"
)


def _same_grant(a: DraftGrant, b: DraftGrant) -> bool:
    return a.model_dump(exclude={"evidence"}) == b.model_dump(exclude={"evidence"})


def _same_prohibition(a: DraftProhibition, b: DraftProhibition) -> bool:
    return (sorted(a.classes), a.egress, a.mentions, sorted(a.keywords)) == (
        sorted(b.classes),
        b.egress,
        b.mentions,
        sorted(b.keywords),
    )


# --- narrowing over the whole task --------------------------------------------------------


def _covers(p: Prohibition, cls: str) -> bool:
    classes = set(p.classes) | (set(lx.EGRESS_CLASSES) if p.egress else set())
    return "*" in classes or cls in classes


def _matches_keyword(value: str, keywords: Iterable[str]) -> bool:
    """Rego's rule for a grant target: every word of a keyword is a word, segment or label of it."""
    low = value.lower()
    parts = {p for p in re.split(r"[/\s]+", low) if p} | {low}
    parts |= {w for w in re.split(r"[^0-9a-z]+", low) if len(w) >= 2}
    return any(all(w in parts for w in k.split()) for k in keywords if k.split())


def apply_narrowing(
    grants: list[Grant],
    prohibitions: list[Prohibition],
    read_only: bool,
    read_only_evidence: str,
    confirm: dict[str, str],
    bounds: Bounds,
    message: int,
    workspace: tuple[str, ...] = (),
) -> tuple[list[Grant], list[DroppedGrant], list[Note]]:
    """Prohibitions, read-only, "ask me first" and bounds beat every grant: drop or strip it."""
    kept: list[Grant] = []
    dropped: list[DroppedGrant] = []
    notes: list[Note] = []

    def drop(g: Grant, reason: str, part: str = "grant") -> None:
        dropped.append(DroppedGrant(grant=_grant_summary(g), reason=reason, message=message, part=part))
        notes.append(
            Note(
                g.evidence,
                "dropped" if part == "grant" else "stripped",
                f"{g.class_}/{g.capability}{'' if part == 'grant' else ' ' + part}: {reason}",
            )
        )

    for g in grants:
        if read_only:
            drop(g, f"the task is read-only ({read_only_evidence!r})")
            continue
        if g.class_ in confirm:
            drop(g, f"the owner asked to be asked first ({confirm[g.class_]!r})")
            continue
        g = g.model_copy(deep=True)  # noqa: PLW2901 - stripped targets must not touch the caller's grant
        blocked = False
        for p in prohibitions:
            if not _covers(p, g.class_):
                continue
            if not p.keywords:
                drop(g, f"overridden by prohibition {p.id} ({p.evidence!r})")
                blocked = True
                break
            for attr in ("recipients", "paths", "domains", "packages", "commands"):
                values: list[str] = getattr(g, attr)
                hit = [v for v in values if _matches_keyword(v, p.keywords)]
                if hit:
                    for v in hit:
                        drop(g, f"forbidden by prohibition {p.id} ({p.evidence!r})", f"{attr[:-1]} {v}")
                    setattr(g, attr, [v for v in values if v not in hit])
                    if not getattr(g, attr):
                        drop(g, f"nothing left after prohibition {p.id} ({p.evidence!r})")
                        blocked = True
                        break
            if blocked:
                break
        if blocked:
            continue
        # A literal whose command a prohibition struck goes with it.
        g.literals = [x for x in g.literals if " ".join(" ".join(x.argv).split()) in g.commands]
        if not _within_bounds(g, bounds, drop):
            continue
        if not _within_write_bounds(g, bounds.write_paths, workspace, drop):
            continue
        if any(_same_targets(g, k) for k in kept):
            continue  # the same authority twice (a repeated request, or one narrowed onto another)
        kept.append(g)
    return kept, dropped, notes


def _same_targets(a: Grant, b: Grant) -> bool:
    skip = {"id", "evidence", "message"}
    return a.model_dump(exclude=skip) == b.model_dump(exclude=skip)


def _inside_recipient(v: str, b: str) -> bool:
    return v.lower() == b.lower()


def _inside_domain(v: str, b: str) -> bool:
    return v == b or v.endswith("." + b)


def _inside_path(v: str, b: str) -> bool:
    return v == b or v.startswith(b.rstrip("/") + "/")


def _within_bounds(g: Grant, bounds: Bounds, drop: Callable[..., None]) -> bool:
    checks: tuple[tuple[str, list[str], Callable[[str, str], bool]], ...] = (
        ("recipients", bounds.recipients, _inside_recipient),
        ("domains", bounds.domains, _inside_domain),
        ("paths", bounds.paths, _inside_path),
    )
    for attr, allowed, inside in checks:
        if not allowed:
            continue
        values: list[str] = getattr(g, attr)
        outside = [v for v in values if not any(inside(v, b) for b in allowed)]
        if not outside:
            continue
        for v in outside:
            drop(g, f"outside the task's bounds ({', '.join(allowed)})", f"{attr[:-1]} {v}")
        setattr(g, attr, [v for v in values if v not in outside])
        if not getattr(g, attr):
            drop(g, "nothing left inside the task's bounds")
            return False
    return True


# Grants whose targets are files a write bound narrows (git bookkeeping records, it edits nothing).
_WRITE_BOUND_CLASSES = frozenset({"LOCAL_WRITE", "DELETE", "PERMISSION_CHANGE"})


def _within_write_bounds(
    g: Grant, write_paths: list[str], workspace: tuple[str, ...], drop: Callable[..., None]
) -> bool:
    """Narrow a grant of files to the write bound ("only touch src/parser.py"): its paths inside
    the bound stay, a bound path inside one of its paths (or its workspace) replaces it."""
    if not write_paths or g.class_ not in _WRITE_BOUND_CLASSES or g.capability == "commit":
        return True
    if not g.paths and not g.workspace:
        return True  # a pathless grant (a delete of emails) acts on no file
    area = g.paths or list(workspace)
    narrowed = [p for p in g.paths if any(_inside_path(p, b) for b in write_paths)]
    narrowed += [b for b in write_paths if b not in narrowed and any(_inside_path(b, p) for p in area)]
    if narrowed == g.paths:
        return True
    for v in g.paths or ["the workspace"]:
        if v not in narrowed:
            drop(g, f"outside the task's write bounds ({', '.join(write_paths)})", f"path {v}")
    if not narrowed:
        drop(g, "nothing left inside the task's write bounds")
        return False
    g.paths = narrowed
    return True


def _grant_summary(g: Grant) -> dict[str, Any]:
    data = g.model_dump(by_alias=True)
    return {k: v for k, v in data.items() if v not in ([], None, False) or k in ("class", "capability")}
