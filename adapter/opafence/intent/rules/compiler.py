"""The offline rules compiler: imperative clauses of the owner's instruction -> a draft.

An imperative clause whose main verb asks for an action grants that action on the literal
objects it names: "email the summary to john@example.com" -> COMMUNICATION/send to
john@example.com. Questions, conditionals, hypotheticals, reported speech and negated clauses
grant nothing; reads need no grant. Pure, deterministic, no network. Its draft goes through the
same hardening as an LLM's."""

from __future__ import annotations

from opafence.intent import lexicon as lx
from opafence.intent import text as tx
from opafence.intent.draft import Draft, DraftGrant, Note
from opafence.intent.lexicon import words
from opafence.intent.rules.analysis import Analysis, analyze, implied, scheduled, wished
from opafence.intent.rules.bounds import bounds_of
from opafence.intent.rules.clause import VerbClause
from opafence.intent.rules.dispatch import grants_for
from opafence.intent.rules.family import after_pull
from opafence.intent.rules.grant import instrument_grants, make_grant
from opafence.intent.rules.objects import domains_in, paths_in
from opafence.intent.split import Split

# A consequential action whose condition the agent decides (maybe from what it read) asks.
CONSEQUENTIAL = frozenset(words("DELETE FINANCIAL PERMISSION_CHANGE"))
_CONDITIONAL_ASKS = "under a condition the agent decides, a consequential action asks"


def _copy_to(
    g: DraftGrant,
    lem: str,
    grants: list[DraftGrant],
    cls: list[tx.Clause],
    clause: tx.Clause,
    instruction: str,
) -> tuple[DraftGrant, DraftGrant] | None:
    """ "Email the report to john@x.com and cc ann@y.com": one message with both, so the cc joins
    the send of the clause before it in the same sentence (the quote spans both clauses)."""
    if lem not in ("cc", "bcc") or g.class_ != "COMMUNICATION" or not grants:
        return None
    k = cls.index(clause)
    prev = cls[k - 1] if k > 0 else None
    last = grants[-1]
    if prev is None or prev.sentence != clause.sentence or last.class_ != "COMMUNICATION":
        return None
    if not instruction[prev.start : prev.end].endswith(last.evidence):
        return None
    start = prev.end - len(last.evidence)
    merged = last.model_copy(
        update={
            "evidence": instruction[start : clause.end],
            "recipients": [*last.recipients, *(r for r in g.recipients if r not in last.recipients)],
        }
    )
    return last, merged


def _copies_someone(toks: tuple[tx.Token, ...], verb: int) -> bool:
    """ "copy in anouk@x.com", "copy ann@x.com on it": the object is a person, not a file."""
    k = verb + 1
    if k < len(toks) and toks[k].norm == "in":
        k += 1
    return k < len(toks) and not toks[k].literal and tx.is_recipient(toks[k].core)


def following(a: Analysis, n: int) -> tuple[tx.Token, ...]:
    """The sentence after the colon that ends clause n, or ()."""
    c = a.clauses[n]
    if not a.text[c.end :].lstrip().startswith(":"):
        return ()
    return tuple(t for x in a.clauses if x.sentence == c.sentence + 1 for t in x.tokens)


def antecedent(a: Analysis, n: int) -> tuple[tx.Token, ...]:
    """The clause before clause n (in its sentence or the one before): what a pronoun object of
    clause n ("start it", "reserve it", "remove that branch") stands for."""
    return a.clauses[n - 1].tokens if n > 0 else ()


def _page_of(g: DraftGrant, cls: list[tx.Clause], clause: tx.Clause, instruction: str) -> None:
    """ "Open https://x.com/signup and click 'Create account'": the page is the one the owner named
    before, in the same sentence or the nearest earlier one; the quote then spans from there."""
    k = cls.index(clause)
    for prev in reversed(cls[:k]):
        hosts = domains_in(prev.tokens)
        if hosts:
            g.domains = hosts
            g.evidence = instruction[prev.start : clause.end]
            return


def compile_rules(
    split: Split, analysis: Analysis | None = None, service_words: frozenset[str] = frozenset()
) -> tuple[Draft, list[Note]]:
    """The draft the owner's instruction asks for, and a note per clause for --explain.
    service_words: the words that name a server of the session's tools (intent/catalogue.py)."""
    instruction = split.instruction
    a = analysis if analysis is not None and analysis.text == instruction else analyze(instruction)
    cls = a.clauses
    notes: list[Note] = []
    grants: list[DraftGrant] = []
    purpose = ""
    for n, (clause, (mode, i)) in enumerate(zip(cls, a.modes, strict=True)):
        if mode != "request":
            if any(tx.verb_at(clause.tokens, k) for k in range(len(clause.tokens))) and mode != "no verb":
                notes.append(Note(clause.text, "ignored", f"{mode}: grants nothing"))
            continue
        tool = ""
        toks_c = clause.tokens
        verb = i
        if verb + 1 < len(toks_c) and (toks_c[verb].norm, toks_c[verb + 1].norm) in lx.INSTALL_TOOLS:
            tool = toks_c[verb].norm  # "pip install x": the verb is "install"
            verb += 1
        elif verb > 0 and toks_c[verb - 1].norm in ("git", "gh"):
            tool = toks_c[verb - 1].norm
        lem = tx.verb_at(toks_c, verb) or toks_c[verb].norm
        if lem == "copy" and _copies_someone(toks_c, verb):
            lem = "cc"  # "... and copy in anouk@vandam.nl": a cc of the send before it
        before = antecedent(a, n)
        request = VerbClause(
            clause, verb, lem, tool, service_words, a.conditions.get(n, ()), before, following(a, n)
        )
        found = grants_for(request)
        if not isinstance(found, str) and n in a.conditional:
            lo, hi = a.condition_spans.get(n, (clause.start, clause.end))
            for g in found:
                # hardening marks it and reads the condition's bounds (for an LLM's draft too)
                if g.class_ in CONSEQUENTIAL:
                    notes.append(
                        Note(
                            instruction[lo:hi],
                            "conditional",
                            f"{g.class_}/{g.capability}: {_CONDITIONAL_ASKS}",
                        )
                    )
        if not isinstance(found, str) and not any(g.capability == "run_command" for g in found):
            found = [*found, *instrument_grants(request)]
        if (
            not isinstance(found, str)
            and after_pull(toks_c)
            and not any(g.capability == "commit" for g in found)
        ):
            # "run the build after you pull": the pull is asked for as well
            found = [*found, make_grant(request, "LOCAL_WRITE", "commit", workspace=True)]
        if isinstance(found, str):
            if lx.lemma(lem) not in lx.READ_VERBS:
                notes.append(Note(clause.text, "ignored", found))
            if not purpose:
                purpose = clause.text
            continue
        for g in found:
            if g.capability == "browse" and not g.domains:
                _page_of(g, cls, clause, instruction)
            joined = _copy_to(g, lem, grants, cls, clause, instruction)
            if joined is not None:
                grants[grants.index(joined[0])] = joined[1]
                notes.append(
                    Note(clause.text, "grant", f"{g.class_}/{g.capability}: joins the send before it")
                )
                continue
            grants.append(g)
            notes.append(Note(clause.text, "grant", f"{g.class_}/{g.capability}"))
        if not purpose:
            purpose = clause.text
    for _n, _k, (lo, hi) in scheduled(a):
        if any(g.capability == "schedule" for g in grants):
            continue
        g = DraftGrant.model_validate(
            {"class": "EXECUTION", "capability": "schedule", "evidence": instruction[lo:hi]}
        )
        grants.append(g)
        notes.append(
            Note(
                instruction[lo:hi], "grant", "EXECUTION/schedule: a job at the time the sentence starts with"
            )
        )
    for cls_, cap, req_n, (lo, hi) in [*wished(a), *implied(a)]:
        if any(g.class_ == cls_ and g.capability == cap for g in grants):
            continue
        fields: dict[str, object] = {"class": cls_, "capability": cap, "evidence": instruction[lo:hi]}
        if cap == "commit":
            # "move x to y, keeping git history": the git step acts on the request's own paths
            req = a.clauses[req_n]
            fields["paths"] = paths_in(req.tokens[a.modes[req_n][1] + 1 :])
        grants.append(DraftGrant.model_validate(fields))
        notes.append(Note(instruction[lo:hi], "grant", f"{cls_}/{cap}: the step the request waits for"))
    bounds = bounds_of(cls, notes)
    purpose = tx.normalize_space(purpose or (instruction.split("\n", 1)[0] if instruction else ""))[:160]
    return Draft(purpose=purpose, grants=grants, bounds=bounds), notes
