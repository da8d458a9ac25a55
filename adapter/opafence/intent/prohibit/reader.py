"""The reader: every clause of the whole message, its negated verbs and sentence patterns -> the
prohibitions, read-only and confirmation requests it holds."""

from __future__ import annotations

import re

from opafence.intent import lexicon as lx
from opafence.intent import text as tx
from opafence.intent.draft import DraftProhibition, Note, Reading
from opafence.intent.lexicon import words
from opafence.intent.prohibit.keywords import (
    is_temporary,
    keywords_of,
    lowered,
    make_prohibition,
    object_tokens,
    verb_classes,
)
from opafence.intent.prohibit.patterns import (
    BARE_STOP,
    CONFIRM,
    CUE,
    DICTATED,
    DRY_RUN,
    DRY_RUN_FIRST,
    EGRESS,
    EXCEPT_RECIPIENTS,
    FORBIDDEN,
    MENTION,
    POSITIVE_IDIOMS,
    READ_ONLY,
    WAIT_BEFORE,
)

# Longest message we read token by token (a 5 MB attachment is read up to here).
MAX_CHARS = 1_000_000

_SKIP_AFTER_NEGATION = frozenset(
    words(
        "ever you to be been being at all any anything yet just please actually even go ahead and try "
        "attempt want need i we allowed permitted supposed do does did from should shall must may can "
        "could would will let anyone anybody agent hermes the a an circumstances case point way time "
        "under in on ok okay going gonna wanna dare bother further more again get gets got accidentally "
        "automatically really else also them it is are was were cases me us have has had of for "
        "yourself myself one one's without permission asking there's there need needs necessary "
        "required one single thing"
    )
)
_AUX = frozenset(words("do does did let want need try go have has had is are"))
_NOT_CUES = frozenset(words("didn't wasn't weren't hadn't hasn't haven't couldn't wouldn't ain't mightn't"))
_CONNECTIVES = frozenset(
    words("and then but also so plus & und dann aber et puis mais y luego pero e poi ma")
)


def _negated_verbs(clause: tx.Clause) -> list[tuple[str, int, bool]]:
    """(lemma, index, passive) for each verb a negation cue governs in this clause."""
    toks = clause.tokens
    out: list[tuple[str, int, bool]] = []
    n = len(toks)
    for i, t in enumerate(toks):
        if t.literal:
            continue
        w = t.norm
        if w in _NOT_CUES:
            continue
        foreign = w in lx.FOREIGN_NEGATIONS and w not in ("no", "non", "ne")
        if foreign:
            # "schick das nicht", "ne supprime rien": the verb may come before the cue.
            for j in range(n):
                lem = tx.verb_at(toks, j)
                if lem and lem in lx.PROHIBIT_VERBS:
                    out.append((lem, j, False))
                    break
            continue
        if not tx.is_negation(w) or (w == "no" and t.trail.startswith(",")):
            continue
        if w in ("nothing", "none", "no") and i > 0:
            # "send nothing", "delete none of them", "send no emails": the verb comes first
            before = tx.verb_at(toks, i - 1)
            if before and before in lx.PROHIBIT_VERBS:
                out.append((before, i - 1, False))
                continue
        if w in ("stop", "quit", "cease"):
            # "stop sending" forbids; "stop the server" does not.
            nxt = toks[i + 1].norm if i + 1 < n else ""
            if nxt.endswith("ing") and tx.verb_at(toks, i + 1):
                out.append((tx.verb_at(toks, i + 1), i + 1, False))
            continue
        passive = False
        for j in range(i + 1, min(i + 9, n)):
            tj = toks[j]
            if tj.norm in ("be", "been", "being", "get", "gets", "got"):
                passive = True  # "must not be deleted": the object is the subject before the cue
                continue
            lem = tx.verb_at(toks, j)
            if lem == "leave":
                out.append((lem, j, False))
                break
            if lem and tj.norm not in _AUX:
                out.append((lem, j, passive))
                # "don't delete or modify anything": the negation covers the coordinated verbs too
                k = j + 1
                while k + 1 < n and toks[k].norm in ("or", "and", "nor", "/") and tx.verb_at(toks, k + 1):
                    out.append((tx.verb_at(toks, k + 1), k + 1, passive))
                    k += 2
                break
            if tj.norm not in _SKIP_AFTER_NEGATION:
                break
    return out


def read_prohibitions(message: str) -> Reading:
    """Prohibitions, read-only and confirm-first requests in the whole message. Never raises."""
    reading = Reading(prohibitions=[], read_only=False, read_only_evidence="", confirm={}, notes=[])
    text = message[:MAX_CHARS] if isinstance(message, str) else ""
    # Sentences never span lines, so each line is read on its own, and only the lines that hold a
    # cue word at all: a large attachment costs one regex scan, not a token walk.
    for line in text.split("\n"):
        if not CUE.search(line):
            continue
        tokens = tx.tokenize(line)
        sents = tx.sentences(line, tokens)
        sentence_text = [line[s[0].start : s[-1].end] for s in sents]
        for clause in tx.clauses(line, tokens):
            sentence = sentence_text[clause.sentence] if clause.sentence < len(sentence_text) else ""
            _read_clause(clause, sentence, reading)
    return reading


def _add(reading: Reading, p: DraftProhibition, why: str) -> None:
    key = (tuple(sorted(p.classes)), p.egress, p.mentions, tuple(p.keywords))
    for q in reading.prohibitions:
        if (tuple(sorted(q.classes)), q.egress, q.mentions, tuple(q.keywords)) == key:
            q.temporary = q.temporary and p.temporary
            return
    reading.prohibitions.append(p)
    reading.notes.append(Note(p.evidence, "prohibition", why))


def _trim(clause: tx.Clause) -> tx.Clause:
    """The clause without the connective that joined it ("and email ..." -> "email ...")."""
    toks = clause.tokens
    k = 0
    while k < len(toks) - 1 and not toks[k].literal and toks[k].norm in _CONNECTIVES:
        k += 1
    if k == 0:
        return clause
    start = toks[k].start
    return tx.Clause(clause.text[start - clause.start :], start, clause.end, toks[k:], clause.sentence)


def _read_clause(clause: tx.Clause, sentence: str, reading: Reading) -> None:
    clause = _trim(clause)
    low = lowered(clause.text)
    positive = POSITIVE_IDIOMS.search(low)
    if positive and not re.search(
        r"\b(?:do ?n[o']?t|never|no)\b", low[: positive.start()] + low[positive.end() :]
    ):
        return

    if (READ_ONLY.search(low) and not DICTATED.match(low)) or (
        DRY_RUN.search(low) and not DRY_RUN_FIRST.search(low)
    ):
        if not reading.read_only:
            reading.read_only = True
            reading.read_only_evidence = clause.text
            reading.notes.append(
                Note(clause.text, "read_only", "read-only task: every class but READ is forbidden")
            )
        _add(reading, DraftProhibition(classes=["*"], evidence=clause.text), "read only")
        return

    if MENTION.search(low):
        _add(
            reading,
            DraftProhibition(classes=[], mentions=True, evidence=clause.text),
            "no mentions: no call may mention people (@name, @here, <!channel>)",
        )
        return

    if EGRESS.search(low):
        _add(
            reading,
            DraftProhibition(classes=list(lx.EGRESS_CLASSES), egress=True, evidence=clause.text),
            "nothing may leave the machine (communication, external writes, payments)",
        )
        return

    alone = lowered(sentence).strip(" .!") == low.strip(" .!")
    # "If the rebase onto main conflicts, abort it": "it" is the operation the condition names,
    # not everything the agent does
    aborts_named = bool(
        re.match(r"^\W*(?:if|when|whenever|once|unless|should)\b", lowered(sentence))
        and re.search(r"\b(?:it|that)\b", low)
    )
    if (
        BARE_STOP.match(low.strip())
        and (alone or not re.match(r"^(?:wait|pause|hold on|hold it)\b", low.strip()))
        and not aborts_named
    ):
        _add(
            reading,
            DraftProhibition(classes=["*"], evidence=clause.text, temporary=True),
            "stop: every consequential action is forbidden until the owner asks again",
        )
        return

    for pattern in (CONFIRM,):
        m = pattern.search(low)
        if m:
            verb = m.group("verb") or m.group("verb2") or ""
            found = verb_classes(lx.lemma(verb), [])
            if found:
                for c in found[0]:
                    reading.confirm[c] = clause.text
                reading.notes.append(
                    Note(clause.text, "confirm", f"ask the owner before any {'/'.join(found[0])}")
                )
            return

    m = WAIT_BEFORE.search(low)
    if m:
        found = verb_classes(lx.lemma(m.group("verb")), [])
        if found:
            _add(
                reading,
                DraftProhibition(classes=list(found[0]), evidence=clause.text, temporary=True),
                "wait before: forbidden until the owner says so",
            )
            return

    toks = clause.tokens
    matched = False
    for lemma_, j, passive in _negated_verbs(clause):
        if passive:
            start = tx.skip_fillers(toks, 0)
            obj = [
                t for t in toks[start:j] if not tx.is_negation(t.norm) and t.norm not in _SKIP_AFTER_NEGATION
            ]
        else:
            obj = object_tokens(toks, j + 1)
        p = make_prohibition(lemma_, obj, clause, sentence or clause.text)
        if p is not None:
            _add(reading, p, f"negated '{toks[j].core}'")
            matched = True
            if lemma_ in _BOOKING_VERBS and "FINANCIAL" in p.classes:
                _add(reading, _booking(p), "a booking of time or a room is an external write")
    if matched:
        return

    if _nominal(clause, reading):
        return
    if _forbidden(clause, low, reading):
        return
    if _leave_alone(clause, low, reading):
        return
    _excepted(clause, reading)


_LEAVE = re.compile(r"\bleave (?P<obj>.+?) alone\b")
_LEAVE_EXCEPT = re.compile(r"\b(?:except|but|other than|besides|apart from)\b")


def _leave_alone(clause: tx.Clause, low: str, reading: Reading) -> bool:
    """'leave the migrations alone' is 'don't touch the migrations'; 'leave everything except
    src/ alone' bounds where writes go (the rules compiler reads it as a bound)."""
    m = _LEAVE.search(low)
    if not m:
        return False
    if _LEAVE_EXCEPT.search(m.group("obj")):
        return True
    start, end = clause.start + m.start("obj"), clause.start + m.end("obj")
    obj = [t for t in clause.tokens if t.start >= start and t.end <= end]
    p = make_prohibition("touch", obj, clause, clause.text)
    if p is not None:
        _add(reading, p, "'leave ... alone'")
    return True


_BOOKING_VERBS = frozenset(words("book reserve"))


def _booking(p: DraftProhibition) -> DraftProhibition:
    """'don't book anything': bookings that cost nothing (a meeting room) are external writes
    whose tool names say book or reserve (rego/opafence/classify/verbs: booking_verbs)."""
    return DraftProhibition(
        classes=["EXTERNAL_WRITE"], keywords=["book", "reserve"], evidence=p.evidence, temporary=p.temporary
    )


def _nominal(clause: tx.Clause, reading: Reading) -> bool:
    """'no deletions', 'no emails', 'no pushing to main'."""
    toks = clause.tokens
    for i, t in enumerate(toks):
        if t.literal or t.norm not in ("no", "zero") or t.trail.startswith(","):
            continue
        for j in range(i + 1, min(i + 4, len(toks))):
            w = toks[j].norm
            base = w[:-1] if w.endswith("s") and w[:-1] in lx.NOUN_CLASSES else w
            if base in lx.NOUN_CLASSES:
                classes, keywords = lx.NOUN_CLASSES[base]
                p = DraftProhibition(
                    classes=list(classes),
                    keywords=list(keywords),
                    evidence=clause.text,
                    temporary=is_temporary(clause.text),
                )
                _add(reading, p, f"'no {w}'")
                if base in ("booking", "reservation"):
                    _add(reading, _booking(p), "a booking of time or a room is an external write")
                return True
            edit = w[:-1] if w.endswith("s") else w
            if edit in lx.EDIT_NOUNS or w in lx.EDIT_NOUNS:
                obj = object_tokens(toks, j + 1)
                kws = keywords_of([o for o in obj if o.norm not in ("to", "in", "on", "of")], "words", "")
                _add(
                    reading,
                    DraftProhibition(classes=["LOCAL_WRITE", "DELETE"], keywords=kws, evidence=clause.text),
                    f"'no {w}'",
                )
                return True
            if w not in (
                "more",
                "further",
                "additional",
                "other",
                "new",
                "unnecessary",
                "extra",
                "unrequested",
            ):
                break
    return False


def _forbidden(clause: tx.Clause, low: str, reading: Reading) -> bool:
    """'sending anything is forbidden', 'the prod database is off-limits'."""
    m = FORBIDDEN.search(low)
    if not m:
        return False
    toks = [t for t in clause.tokens if t.end - clause.start <= m.start() + 1]
    start = tx.skip_fillers(toks, 0)
    subject = [t for t in toks[start:] if t.norm not in ("is", "are", "'s", "stays", "remains", "strictly")]
    for k, t in enumerate(subject):
        lem = tx.verb_at(subject, k)
        if lem and (t.norm.endswith("ing") or k == 0):
            p = make_prohibition(lem, subject[k + 1 :], clause, clause.text)
            if p is not None:
                _add(reading, p, f"'{t.core} ... {m.group(0).strip()}'")
                return True
        base = t.norm[:-1] if t.norm.endswith("s") and t.norm[:-1] in lx.NOUN_CLASSES else t.norm
        if base in lx.NOUN_CLASSES:
            classes, keywords = lx.NOUN_CLASSES[base]
            _add(
                reading,
                DraftProhibition(classes=list(classes), keywords=list(keywords), evidence=clause.text),
                f"'{t.core} ... {m.group(0).strip()}'",
            )
            return True
    kws = keywords_of(subject, "words", "")
    if not kws:
        return False
    _add(reading, DraftProhibition(classes=["*"], keywords=kws, evidence=clause.text), "off-limits")
    return True


def _excepted(clause: tx.Clause, reading: Reading) -> None:
    """'email bob@x.com but not alice@x.com': the excluded targets are forbidden."""
    toks = clause.tokens
    i = tx.skip_fillers(toks, 0)
    lem = tx.verb_at(toks, i)
    found = lx.PROHIBIT_VERBS.get(lem) if lem else None
    if not found:
        return
    classes, mode = found
    if mode == "egress":
        return  # "leave everything except x alone" is no message: nothing is sent
    for j in range(i + 1, len(toks)):
        prefix = lowered(" ".join(t.norm for t in toks[max(i + 1, j - 2) : j]) + " ")
        if not EXCEPT_RECIPIENTS.search(prefix):
            continue
        excluded = []
        for t in toks[j:]:
            if t.norm in ("and", "or", "nor") or (not t.literal and t.norm in lx.GENERIC_OBJECTS):
                continue
            if tx.is_recipient(t.core) or tx.is_path_like(t.core) or t.literal:
                excluded.append(t)
            else:
                break
        if not excluded:
            continue
        kws = keywords_of(excluded, "recipients" if mode == "recipients" else "words", lem)
        if kws:
            _add(
                reading,
                DraftProhibition(classes=list(classes), keywords=kws, evidence=clause.text),
                f"excluded from '{toks[i].core}'",
            )
        return
