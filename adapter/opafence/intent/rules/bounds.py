"""The task's bounds from the instruction's words: where writes may go ("only touch src/"), the
most calls ("at most 3 emails")."""

from __future__ import annotations

import re

from opafence.intent import lexicon as lx
from opafence.intent import text as tx
from opafence.intent.draft import DraftBounds, Note
from opafence.intent.lexicon import words
from opafence.intent.rules.objects import paths_in

_ONLY = re.compile(
    r"\b(?:only|exclusively|solely|nothing but|stick to|limit yourself to|restrict yourself to|limited to|"
    r"restricted to|other than|except(?: for)?|besides|stay (?:in|inside|within|under)|"
    r"(?:do ?n[o']?t|never) (?:go|wander|step) (?:outside|beyond)|(?:anything|everything|files?|nothing) "
    r"(?:outside|beyond)(?: of)?|nur|seulement|uniquement|solo|"
    r"solamente|soltanto)\b"
)
_PATH_BOUND_VERBS = frozenset(words("work stay operate remain keep stick limit restrict go wander step"))


# Verbs that change files: an "only ..." with one of them bounds where writes go, not what may
# be read ("only touch src/parser.py", "don't edit anything outside docs/").
_WRITE_BOUND_VERBS = frozenset(
    words(
        "touch edit change modify write alter update fix rewrite overwrite save create delete remove "
        "mess refactor patch"
    )
)
_NOTHING_ELSE = re.compile(
    r"\b(?:(?:and |but )?nothing (?:else|more)|no other (?:files?|paths?|places?)|not anything else)\b"
)
_LEAVE_ALONE = re.compile(
    r"\bleave (?:everything|all|anything|every ?thing|all (?:the )?(?:other )?files)(?: else)? "
    r"(?:except(?: for)?|but|other than|besides|apart from) (?P<keep>.+?) alone\b"
)


def bounds_of(cls: list[tx.Clause], notes: list[Note]) -> DraftBounds:
    bounds = DraftBounds()
    for clause in cls:
        low = clause.text.lower()
        lemmas = {tx.verb_at(clause.tokens, k) for k in range(len(clause.tokens))}
        norms = {t.norm for t in clause.tokens if not t.literal}
        writes = bool(lemmas & _WRITE_BOUND_VERBS) and not norms & _PATH_BOUND_VERBS
        leave = _LEAVE_ALONE.search(low)
        if leave:
            start = clause.start + leave.start("keep")
            end = clause.start + leave.end("keep")
            kept = [t for t in clause.tokens if t.start >= start and t.end <= end]
            inside = [p for p in paths_in(tuple(kept)) if p not in bounds.write_paths]
            bounds.write_paths.extend(inside)
            if inside:
                notes.append(Note(clause.text, "bound", "writes only in " + ", ".join(inside)))
            continue
        m = _ONLY.search(low)
        rest = _NOTHING_ELSE.search(low)
        if not m and not (rest and writes):
            continue
        if m:
            cue = m.group(0)
            negated = bool(re.search(r"\b(?:do ?n[o']?t|never|no|nothing|any)\b", low[: m.start()]))
            if cue.startswith(("other than", "except", "besides")) and not negated:
                continue  # "email bob but not alice" is an exclusion, not a bound
            after = [t for t in clause.tokens if t.start >= clause.start + m.start()]
        else:
            cue = "nothing else"
            assert rest is not None
            after = [t for t in clause.tokens if t.end <= clause.start + rest.start()]
        found: list[str] = []
        for t in after:
            if tx.is_url(t.core):
                host = tx.url_host(t.core)
                if host and host not in bounds.domains:
                    bounds.domains.append(host)
                    found.append(host)
            elif tx.is_domain(t.core) and t.core.lower() not in bounds.domains:
                bounds.domains.append(t.core.lower())
                found.append(t.core.lower())
        sendy = bool(lemmas & lx.SEND_VERBS) or bool(re.search(r"\bonly (?:to|an|à|a)\b", low))
        for t in after:
            if tx.is_recipient(t.core) and sendy and not t.possessive:
                r = t.core.lower() if tx.is_email(t.core) else t.core
                if r not in bounds.recipients:
                    bounds.recipients.append(r)
                    found.append(r)
        if writes and not sendy:
            for p in paths_in(tuple(after)):
                if p not in bounds.write_paths:
                    bounds.write_paths.append(p)
                    found.append(p)
            if found:
                notes.append(Note(clause.text, "bound", "writes only in " + ", ".join(found)))
            continue
        if norms & _PATH_BOUND_VERBS or cue.startswith(
            ("stay", "do", "don", "never", "anything", "every", "file", "nothing")
        ):
            for p in paths_in(tuple(after)):
                if p not in bounds.paths:
                    bounds.paths.append(p)
                    found.append(p)
        if found:
            notes.append(Note(clause.text, "bound", "only " + ", ".join(found)))
    return bounds
