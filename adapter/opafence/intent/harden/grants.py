"""Hardening one draft grant and a whole draft: vocabulary, evidence, the verbs of the grant's own
capability, its targets; commands expanded to the forms a script runs in; prohibitions and bounds
checked against the instruction."""

from __future__ import annotations

import re

from opafence.host import Host
from opafence.intent import catalogue as cat
from opafence.intent import lexicon as lx
from opafence.intent import named as said_names
from opafence.intent import text as tx
from opafence.intent.commands import parse_literal
from opafence.intent.draft import Draft, DraftBounds, DraftGrant, DraftProhibition, Note, Reading
from opafence.intent.harden.instruction import (
    Hardened,
    Instruction,
    affirmative_clauses,
    instrument_clauses,
    normalized,
)
from opafence.intent.harden.target_checks import (
    bind_tools,
    check_targets,
    operate_bounds,
    quoted_access,
    quoted_objects,
    quoted_operations,
    record_drop,
)
from opafence.intent.owner_paths import canonical, refused
from opafence.intent.rules.analysis import (
    WEEKDAYS,
    Analysis,
    amount_bound,
    day_bound,
    implied,
    scheduled,
    wished,
)
from opafence.intent.rules.clause import MONEY, VerbClause, refers_back
from opafence.intent.rules.compiler import CONSEQUENTIAL
from opafence.intent.rules.dispatch import REFUND_VERBS
from opafence.intent.rules.family import (
    backs_out,
    data_files,
    issue_refs,
    named_refs,
    names_test,
)

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
_TARGETS = ("recipients", "domains", "paths", "commands", "packages", "tools")
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
# What falls on a day: a conditional's weekday bounds these (day_bound).
_DATED_OBJECTS = frozenset(["event", "booking", "room", "seat", "flight", "hotel"])
# What is named by a number or key ("issue 77", "PR #482", "ENG-311"): refs bound these.
_NUMBERED_OBJECTS = frozenset(["issue", "pull_request", "comment", "review", "note", "label"])


_NEVER_GRANTED = {
    "READ": "reads need no grant",
    "SELF_MODIFICATION": "changing opafence or Hermes itself is never granted by words",
}


def harden_grant(g: DraftGrant, ins: Instruction, host: Host, h: Hardened, message: int) -> DraftGrant | None:
    """The grant with its targets checked and canonical, or None (the drop is recorded in h)."""
    cls, cap = g.class_.upper(), g.capability.lower()
    g = g.model_copy(update={"class_": cls, "capability": cap})
    if cls in _NEVER_GRANTED:
        record_drop(h, g, _NEVER_GRANTED[cls], message)
        return None
    if cls not in lx.CAPABILITIES:
        record_drop(h, g, f"unknown risk class {g.class_!r}", message)
        return None
    if cap not in lx.CAPABILITIES[cls]:
        record_drop(
            h,
            g,
            f"capability {g.capability!r} is not one of {sorted(lx.CAPABILITIES[cls])} for {cls}",
            message,
        )
        return None
    span = ins.span(g.evidence)
    if span is None:
        record_drop(h, g, "the evidence is not a verbatim quote of the owner's instruction", message)
        return None
    clauses = affirmative_clauses(ins, span, lx.CAPABILITY_VERBS[(cls, cap)])
    if not clauses and cap == "run_command":
        clauses = instrument_clauses(ins, span, g.commands)
    step = False
    if not clauses and (cls, cap) == ("EXECUTION", "schedule"):
        # "Every Monday at 8, summarize my open issues": a job, its verb the one after the time
        for n, k, (lo, hi) in scheduled(ins.analysis):
            if span[0] <= lo and hi <= span[1]:
                clause = ins.analysis.clauses[n]
                clauses = [VerbClause(clause, k, tx.verb_at(clause.tokens, k))]
                break
    if not clauses:
        # "I'd like a new skill, 'pr-review', ...": a wish for what the agent makes
        for c_, p_, n, (lo, hi) in wished(ins.analysis):
            if (c_, p_) == (cls, cap) and span[0] <= lo and hi <= span[1]:
                clause = ins.analysis.clauses[n]
                clauses = [VerbClause(clause, 0, "create")]
                break
    # "Once the deps are in, run the migrations": the step the request waits for
    for c_, p_, n, (lo, hi) in implied(ins.analysis):
        if (c_, p_) == (cls, cap) and span[0] <= lo and hi <= span[1]:
            step = True
            if not clauses:
                clause = ins.analysis.clauses[n]
                i = ins.analysis.modes[n][1]
                clauses = [VerbClause(clause, i, tx.verb_at(clause.tokens, i) or clause.tokens[i].norm)]
            break
    if not clauses:
        record_drop(
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
        if not MONEY.search(span_text):
            record_drop(h, g, "'send' is a payment only when the quote names an amount of money", message)
            return None
    required = None if step else _REQUIRED.get(cap)
    if required is not None:
        verbs, words = required
        span_words = {t.norm for t in ins.analysis.tokens if t.start >= span[0] and t.end <= span[1]}
        span_words |= {t.norm for c in clauses if refers_back(c) for t in c.before}
        data = cap == "run_code" and any(data_files(c.obj) for c in clauses)
        named_test = cap == "run_tests" and any(names_test(w) for w in span_words)
        if (
            not any(c.lemma in verbs for c in clauses)
            and not span_words & words
            and not data
            and not named_test
        ):
            record_drop(h, g, f"the quote does not name what {cls}/{cap} covers", message)
            return None
    out = check_targets(g, clauses, ins, host, h, message)
    out.literals = []
    out.conditional = under and cls in CONSEQUENTIAL
    out.max_amount = None
    out.days = []
    out.refs = []
    refunds = [c for c in clauses if c.lemma in REFUND_VERBS]
    if cls == "FINANCIAL" and refunds:
        # a refund covers the charges, payments or orders the owner named, when they name any
        out.refs = list(dict.fromkeys(r for c in refunds for r in named_refs(c.obj)))
    if under and cls == "FINANCIAL":
        amounts = [x for x in (amount_bound(cond) for cond in conditions) if x is not None]
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
            record_drop(h, out, f"none of its {attr} passed the checks", message)
            return None
    need = _NEEDS.get(cap)
    # A delete of no file in particular (emails, events, records) is what Rego's pathless grant
    # covers; it needs the quote to name such things.
    pathless_delete = cap == "delete" and bool(
        {t.norm for c in clauses for t in c.clause.tokens[c.i :]} & lx.PATHLESS_OBJECTS
    )
    if need and not getattr(out, need[0]) and not pathless_delete:
        record_drop(h, out, need[1], message)
        return None
    # What it acts on and how: an MCP tool must name one of the objects and only verbs of the
    # kinds asked for (rego/opafence/lib/grants.rego). Never taken wider than the quote.
    out.objects, out.operations, out.access = [], [], ""
    if cap in {"publish", "pay"} or (cap == "delete" and not out.paths):
        out.objects = quoted_objects(g, clauses, h, message)
    if cap == "publish":
        out.operations = quoted_operations(clauses)
        if not out.operations:
            record_drop(h, out, "no kind of action (create, update, close ...) in the quoted verbs", message)
            return None
    elif cap == "delete" and not out.paths:
        out.operations = ["delete"]
    if cap == "share":
        out.access = quoted_access(clauses)
    if cap == "operate" and not operate_bounds(out, clauses, ins, h, message):
        return None
    if (
        cap == "commit"
        and any(backs_out(c) for c in clauses)
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
            around = (*c.obj, *(c.before if refers_back(c) else ()), *c.condition)
            found = issue_refs(around)
            n = ins.analysis.clauses.index(c.clause)
            if not found and n > 0 and ins.analysis.clauses[n - 1].sentence == c.clause.sentence:
                # "reopen issue 215 and add the comment ...": the issue of the clause before
                found = issue_refs(ins.analysis.clauses[n - 1].tokens)
            named.extend(r for r in found if r not in named)
        out.refs = named
    # What the words name in the call's arguments: repositories, states, cells (intent/named.py).
    said = {c.clause.sentence for c in clauses}
    sentence = [t for cl in ins.analysis.clauses if cl.sentence in said for t in cl.tokens]
    out.repos, out.states, out.cells = said_names.bounds(out, clauses, sentence)
    if under and cap == "publish" and (not out.objects or set(out.objects) & _DATED_OBJECTS):
        # "if I'm free Thursday afternoon, block 2-4pm": the event falls on the day named
        per = [day_bound(cond, c.obj) for c, cond in zip(clauses, conditions, strict=True)]
        if per and all(per):
            out.days = sorted({d for ds in per for d in ds}, key=WEEKDAYS.index)
    if ins.catalogue:
        # "my cal.com booking": the domain of a server of the session names that server
        out.domains = [d for d in out.domains if d.split(".")[0] not in ins.service_words]
    if ins.catalogue and not out.domains and not (cap == "delete" and out.paths):
        bound = bind_tools(out, clauses, ins.catalogue)
        if bound.tools is not None:
            if not bound.tools:
                record_drop(h, out, bound.note, message)
                return None
            out.tools = bound.tools
            h.notes.append(Note(out.evidence, "binding", f"{cls}/{cap}: {bound.note}"))
        elif cap == "publish" and not out.domains:
            # The session's tools are known and none fits: a service glob would cover only a
            # tool that appears later, which a grant never does.
            record_drop(h, out, f"{bound.note} (the session's tools are known)", message)
            return None
    if rebind and not out.tools:
        record_drop(h, out, "none of its tools passed the checks", message)
        return None
    if cap == "publish" and not (out.domains or out.tools):
        record_drop(h, out, "an external write needs a domain or a named service to bound it", message)
        return None
    if cap == "edit" and not (out.paths or out.workspace):
        record_drop(h, out, "an edit needs the workspace or literal paths", message)
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


def _sentence_text(ins: Instruction, clauses: list[VerbClause]) -> str:
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
    whole_norm = normalized(whole)
    for p in draft.prohibitions:
        classes = [c.upper() for c in p.classes if c.upper() in lx.CLASSES - {"READ"} or c == "*"]
        if p.egress:
            classes = sorted(set(classes) | set(lx.EGRESS_CLASSES))
        if not (classes or p.mentions) or not p.evidence or normalized(p.evidence) not in whole_norm:
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


def _check_bounds(bounds: DraftBounds, ins: Instruction, host: Host, h: Hardened) -> DraftBounds:
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
    analysis: Analysis,
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
    ins = Instruction(analysis, host, catalogue)
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
            record_drop(h, g, f"hardening error: {type(e).__name__}", message)
            continue
        if out is not None and not any(_same_grant(out, x) for x in h.grants):
            h.grants.append(out)
    h.bounds = _check_bounds(draft.bounds, ins, host, h)
    m = _WORKSPACE_BOUND.search(normalized(whole))
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
