"""Read prohibitions, read-only requests and "ask me first" from the whole message.

This reader only ever narrows, so it reads everything: the instruction and the quoted,
pasted and attached material too (an owner's "don't send anything" typed after a forwarded
mail must hold even though the splitter counts the rest of the message as data), and it
runs whatever compiler made the grants, also when an LLM saw only a cut of the message.
It is deliberately eager: a false prohibition makes a call ask or block, a missed one lets
it run."""

from __future__ import annotations

import re

from opafence.intent import lexicon as lx
from opafence.intent import text as tx
from opafence.intent.draft import DraftProhibition, Note, Reading
from opafence.intent.lexicon import words

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
_POSITIVE_IDIOMS = re.compile(
    r"\b(?:do ?n[o']?t|never)\s+(?:forget|hesitate|fail)\b|\bnot only\b|\bwhy (?:don'?t|not)\b|"
    r"\bno (?:problem|worries|rush|hurry|idea|doubt|matter)\b|\bdon'?t worry\b|\bnot sure\b|"
    r"\b(?:please )?do not reply to this (?:e-?mail|message|notification)\b|"
    r"\bno-?reply\b|\bdo not hesitate\b|\bcan'?t wait\b"
)
# "Remember that the billing replica is read-only": a fact to keep, not how the task may act.
_DICTATED = re.compile(
    r"^\W*(?:please\s+)?(?:remember|note|keep\s+in\s+mind|do\s*n[o']?t\s+forget|never\s+forget|fyi|"
    r"for\s+the\s+record|save\s+(?:this|that)\s+to\s+(?:your\s+)?memory)\b[^.!?]*?\bthat\b"
)
# (Files as the object of a change ("don't modify any files", "without touching the file system"):
# a prohibition of file changes (LOCAL_WRITE, DELETE), read from the negated verb, not read-only.)
_READ_ONLY = re.compile(
    r"(?:^|\b(?:be|stay|keep(?: it| this| everything)?|work|operate|remain|strictly|just|only|"
    r"purely|mode|in|go|this|task|please)[\s:]+)read[- ]?only\b|"
    # "this is read-only", "everything's read only"; not "the prod database is read-only for me",
    # which says what a thing is (a note to remember), not what the task may do
    r"\b(?:this|it|everything|that|all of (?:it|this)|the task|this task|the session|this session|"
    r"the job|this job|you)(?:'s|'re| is| are| should be| must be| will be)\s+read[- ]?only\b|"
    r"\bread[- ]?only(?:\s+(?:mode|access|task|please|session|for now|from now on|this time))?"
    r"\s*(?:[.!,;)]|$)|"
    r"\bonly (?:read|reading|look|looking)\b(?!\s+(?:the|a|an|at|it|this|that|my)\b[^.]*\b(?:and|then)\b)|"
    r"\blook,? but (?:do ?n[o']?t|never) touch\b|"
    r"\b(?:do ?n[o']?t|do not|never|without|not) (?:change|modify|touch|edit|alter|write|changing|modifying|"
    r"touching|editing|altering|writing) (?:anything|any ?thing|a thing|nothing)\b"
    r"(?!\s+(?:outside|beyond|except|other|but|else|besides|in|under|inside))|"
    r"\b(?:make|making) no (?:changes|modifications|edits)\b|\bno (?:changes|modifications|edits|writes)\b"
    r"(?!\s+(?:to|in|on|of)\b)|\bhands[- ]off\b|\bnur lesen\b|\blecture seule\b|"
    r"\bs[oó]lo lectura\b|\bsolo lettura\b|\bnichts (?:ändern|anfassen)\b"
)
# "Do a dry run of the migration", "dry-run only": the task is to look at what would change. Not
# a dry run that comes before the real thing ("renew it, doing a dry run first", "dry-run it
# before you apply"): that orders two steps and forbids neither.
_DRY_RUN = re.compile(r"\bdry[- ]?run(?:s|ning)?\b")
_DRY_RUN_FIRST = re.compile(
    r"\bdry[- ]?run(?:s|ning)?\b(?:\s+(?:it|them|this|that|everything|the\s+\w+|of\s+(?:it|the\s+\w+)))?"
    r"\s+(?:first|beforehand|before(?:\s+(?:you|we|i|the|doing|running|applying|actually))?\b)|"
    r"\b(?:after|following|start\s+with|starting\s+with|begin\s+with|beginning\s+with|once)\s+"
    r"(?:an?\s+|the\s+)?(?:quick\s+|successful\s+|clean\s+)?dry[- ]?run"
)
_EGRESS = re.compile(
    r"\bnothing (?:\w+ ){0,2}(?:leaves?|leaving|left|goes out|gets out|exits?|escapes?)\b|"
    r"\b(?:do ?n[o']?t|do not|never) (?:let )?(?:anything|any data|data|it|nothing|any of (?:it|this))? ?"
    r"(?:leave|go out|get out|exit|escape)\b|"
    r"\bkeep (?:everything|it|all|all data|the data|data|things|this|all of (?:it|this))? ?"
    r"(?:local|on this (?:machine|computer|laptop|box)|offline|on-device|in-house|internal)\b|"
    r"\b(?:stay|work|remain|operate|run) offline\b|\b(?:offline|local)[- ]only\b|"
    r"\bno (?:network|internet|external|outbound|outgoing|egress|online)\b|"
    r"\b(?:do ?n[o']?t|do not|never) (?:send|upload|transmit|exfiltrate|share|post|leak) "
    r"(?:anything|any data|data|it|files?|this|any files?)? ?(?:out|outside|externally|off(?:[- ]site| this "
    r"machine)?|to the internet|online|anywhere|off the machine)\b|"
    r"\bair[- ]?gapped\b|\bnichts verlässt\b|\bnichts (?:\w+ )?nach au(?:ß|ss)en\b|\brien ne (?:doit )?"
    r"(?:sort|quitte)\w*|\bnada (?:debe )?sal(?:e|ir)\b|\bniente (?:deve )?(?:uscire|esce)\b"
)
# "don't @-mention anyone", "no @here", "without pinging the channel", "don't tag anybody": no call
# may mention people (facts.mentions), whatever it is. "Don't mention the outage" is about what
# to say, not a mention: without "@", the object must be people or a channel.
_MENTION = re.compile(
    r"\b(?:do ?n[o']?t|do not|never|without|avoid|no need to|please don't)\s+(?:\w+\s+){0,2}?"
    r"(?:@-?\s?mention\w*|at-mention\w*|(?:mention|ping|tag|notify|alert|highlight)(?:s|ing|ed)?\s+"
    r"(?:anyone|anybody|everyone|everybody|people|any(?:one| users?| people| members?)|the (?:whole )?"
    r"(?:channel|team|group|room|members)|@?(?:here|channel|everyone|all)|them|him|her)\b)|"
    r"\bno\s+(?:@-?\s?mentions?|at-mentions?|mentions|pings|@(?:here|channel|everyone|all))\b|"
    r"(?:^|\s)@-?mention\w*\s+(?:no ?one|nobody)\b",
    re.IGNORECASE,
)
_BARE_STOP = re.compile(
    r"^(?:(?:ok|okay|hey|please|no|wait|hermes)[,!.]?\s+)*(?:stop|halt|abort|freeze|hold on|hold it|cancel "
    r"(?:that|it|everything)|stop everything|stop it|stop now|stop right now|stop immediately|"
    r"stop what you(?:'re| are) doing|halt everything|wait|pause)(?:\s+(?:now|please|immediately|right now|"
    r"everything|it|all|that))*[\s.!]*$"
)
_CONFIRM = re.compile(
    r"\b(?:ask|check with|confirm with|ping|consult) (?:me|us)(?: first)? (?:before|prior to) "
    r"(?:you )?(?P<verb>[\w-]+)|\b(?:get|wait for) (?:my|our) (?:ok|okay|approval|go-ahead|confirmation|"
    r"sign-off|permission) (?:before|prior to) (?:you )?(?P<verb2>[\w-]+)"
)
_WAIT_BEFORE = re.compile(
    r"\bwait(?: for (?:me|my \w+|us))?(?: until [^.]{0,60})? before (?:you )?(?P<verb>[\w-]+)"
)
_FORBIDDEN = re.compile(
    r"\b(?:is|are|'s|'re|stays?|remains?)?\s*(?:strictly |absolutely |completely )?(?:forbidden|prohibited|"
    r"banned|off[- ]limits|not allowed|not permitted|verboten|interdit|prohibido|vietato|out of bounds|"
    r"a no-go|no-go|not ok|not okay|untouchable)\b"
)
_EXCEPT_RECIPIENTS = re.compile(r"\b(?:but not|except(?: for)?|excluding|other than|not)\s+$")
_MULTIPLEXERS = frozenset(
    words("git npm npx yarn pnpm make python python3 cargo go docker kubectl sudo uv poetry bash sh node")
)
_CONNECTIVES = frozenset(
    words("and then but also so plus & und dann aber et puis mais y luego pero e poi ma")
)
_STOP_OBJECT = frozenset(
    words(
        "until till before yet unless without because since so when while after for now right at this "
        "moment point then and but or if"
    )
)


# Every rule below needs one of these words: a line without any cannot hold a prohibition.
_CUE = re.compile(
    r"n[o'\u2019]?t\b|\b(?:never|no|nothing|none|nobody|without|avoid|refrain|stop|quit|cease|forbidden|"
    r"prohibited|banned|off[- ]?limits|allowed|permitted|read[- ]?only|only|offline|local|leave|leaves|left|"
    r"halt|abort|freeze|hold|cancel|wait|pause|ask|check|confirm|consult|get|dry|hands|air[- ]?gapped|"
    r"except|excluding|verboten|interdit|prohibido|vietato|untouchable|no-go|out|keep|stay|work|"
    r"nicht|nichts|kein\w*|nie|niemals|ne|pas|jamais|rien|aucun\w*|nunca|nada|ning\w+|jam\w+|non|mai|"
    r"niente|nessuno|nur|lecture|lectura|lettura|sal\w*|uscire|esce|raus|au\w+en)\b",
    re.IGNORECASE,
)
_STRAIGHTEN = str.maketrans("\u2019\u2018", "''")


def _lower(s: str) -> str:
    return s.translate(_STRAIGHTEN).lower()


def _keywords(tokens: list[tx.Token], mode: str, lemma_: str) -> list[str]:
    """The words that narrow a prohibition to one object, or [] for the whole class."""
    if mode in {"none", "egress"}:
        return []
    if mode == "fixed":
        return [lemma_]
    if mode == "recipients":
        return sorted({keyword(t.norm) for t in tokens if tx.is_recipient(t.core) and not t.possessive})
    if mode == "command":
        lits = [t for t in tokens if t.literal]
        out: list[str] = []
        for lit in lits:
            words = [w for w in lit.norm.split() if not w.startswith("-")]
            pick = next((w for w in words if w not in _MULTIPLEXERS), words[0] if words else "")
            if pick:
                out.append(pick)
        return sorted(set(out))
    if mode == "packages":
        names = [
            t.norm
            for t in tokens
            if re.match(r"^[a-z0-9][a-z0-9._\-\[\]]*$", t.norm)
            and t.norm not in lx.GENERIC_OBJECTS
            and t.norm
            not in (
                "package",
                "packages",
                "library",
                "libraries",
                "dependency",
                "dependencies",
                "deps",
                "new",
                "more",
                "extra",
                "additional",
                "modules",
                "module",
                "pip",
                "npm",
            )
        ]
        return sorted(set(names)) or ["install"]
    # "words": the distinctive words of the object ("the prod database" -> ["prod"]).
    out_words: list[str] = []
    for t in tokens:
        w = t.norm
        if tx.is_path_like(t.core) and not t.literal:
            out_words.append(keyword(_path_keyword(w)))
            continue
        if tx.is_recipient(t.core) or tx.is_domain(t.core):
            out_words.append(keyword(w))
            continue
        if t.literal:
            out_words.append(w.rstrip("/") or w)
            continue
        w = w.strip("'")
        if (
            len(w) < 2
            or w in lx.GENERIC_OBJECTS
            or w in _STOP_OBJECT
            or w in lx.FOLDER_WORDS
            or tx.is_negation(w)
            or not re.match(r"^[a-z0-9][a-z0-9_.-]*$", w)
        ):
            continue
        out_words.append(w)
    return sorted(set(out_words))[:5]


def keyword(value: str) -> str:
    """A keyword in the contract's form: words that must all appear in the call (facts.words, path
    segments, domain labels), space-separated. "build/cache" -> "build cache", "alice@example.com"
    -> "alice example com"; a file name keeps its dot ("main.py" is one path segment)."""
    low = value.lower().strip()
    if "/" in low:
        return " ".join(seg for seg in low.split("/") if seg)
    if "@" in low:
        local = re.split(r"[^0-9a-z]+", low.split("@", 1)[0])
        if all(len(w) >= 2 for w in local if w):
            return " ".join(w for w in re.split(r"[^0-9a-z]+", low) if len(w) >= 2)
    # A word too short to be one of facts.words ("a@x.com") stays whole: Python still strips it
    # from grants exactly; Rego's word match cannot express it.
    return low


def _path_keyword(w: str) -> str:
    """'./build/', '/data', '~/secrets' -> 'build', 'data', 'secrets': how a path reads as words."""
    for prefix in ("~/", "./", "/"):
        if w.startswith(prefix):
            w = w[len(prefix) :]
    return w.rstrip("/") or w


def _object(tokens: tuple[tx.Token, ...], start: int) -> list[tx.Token]:
    """The words a verb governs: up to a stop word, a closing quote or a clause mark."""
    out: list[tx.Token] = []
    for t in tokens[start:]:
        if not t.literal and (t.norm in _STOP_OBJECT or not t.core.strip("\u2014\u2013-")):
            break
        out.append(t)
        if any(ch in t.trail for ch in '"\u201d\u00bb),;:'):
            break
    return out


def _temporary(text: str) -> bool:
    low = _lower(text)
    return any(re.search(rf"\b{re.escape(c)}\b", low) for c in (*lx.TEMPORARY_CUES, *lx.FOREIGN_TEMPORARY))


def _verb_classes(lemma_: str, obj: list[tx.Token]) -> tuple[tuple[str, ...], str] | None:
    """Classes a negated verb forbids, refined by its object where the verb alone is ambiguous."""
    words = {t.norm for t in obj}
    if lemma_ in ("create", "open", "file", "make", "add") and words & (lx.EXTERNAL_OBJECTS | lx.SERVICES):
        return ("EXTERNAL_WRITE",), "none"
    if lemma_ == "merge" and words & {"pr", "prs", "pull", "mr"}:
        return ("EXTERNAL_WRITE",), "none"
    if lemma_ in ("save", "store", "add", "update") and "memory" in words:
        return ("MEMORY_WRITE",), "none"
    if lemma_ in ("make", "do") and words & {"changes", "change", "edits", "modifications"}:
        return ("LOCAL_WRITE", "DELETE"), "words"
    if lemma_ in ("make", "spend") and words & {"purchase", "purchases", "payment", "payments", "money"}:
        return ("FINANCIAL",), "none"
    if lemma_ in ("send", "forward", "share", "email", "mail", "post") and words & {
        "out",
        "outside",
        "externally",
    }:
        return lx.EGRESS_CLASSES, "egress"
    return lx.PROHIBIT_VERBS.get(lemma_)


def _prohibition(
    lemma_: str, obj: list[tx.Token], clause: tx.Clause, sentence_text: str
) -> DraftProhibition | None:
    found = _verb_classes(lemma_, obj)
    if found is None:
        return None
    classes, mode = found
    if mode == "egress":
        return DraftProhibition(
            classes=list(lx.EGRESS_CLASSES),
            egress=True,
            evidence=clause.text,
            temporary=_temporary(clause.text),
        )
    # "Don't email anyone except bob@x.com": the exception is a bound, not a prohibition of bob.
    norms = [t.norm for t in obj]
    if any(w in ("outside", "beyond") for w in norms) and any(
        w in ("anything", "everything", "files", "file", "nothing") for w in norms
    ):
        return None
    if mode == "recipients" and any(w in ("except", "but", "other", "besides") for w in norms):
        head = norms[: next(i for i, w in enumerate(norms) if w in ("except", "but", "other", "besides"))]
        if any(w in ("anyone", "anybody", "everyone", "anything", "emails", "messages") for w in head):
            return None
    keywords = _keywords(obj, mode, lemma_)
    besides = bool({"else", "other", "others", "more"} & set(norms)) and not keywords
    return DraftProhibition(
        classes=list(classes),
        keywords=keywords,
        evidence=clause.text,
        temporary=_temporary(sentence_text),
        besides_granted=besides,
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
        if not _CUE.search(line):
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
    low = _lower(clause.text)
    positive = _POSITIVE_IDIOMS.search(low)
    if positive and not re.search(
        r"\b(?:do ?n[o']?t|never|no)\b", low[: positive.start()] + low[positive.end() :]
    ):
        return

    if (_READ_ONLY.search(low) and not _DICTATED.match(low)) or (
        _DRY_RUN.search(low) and not _DRY_RUN_FIRST.search(low)
    ):
        if not reading.read_only:
            reading.read_only = True
            reading.read_only_evidence = clause.text
            reading.notes.append(
                Note(clause.text, "read_only", "read-only task: every class but READ is forbidden")
            )
        _add(reading, DraftProhibition(classes=["*"], evidence=clause.text), "read only")
        return

    if _MENTION.search(low):
        _add(
            reading,
            DraftProhibition(classes=[], mentions=True, evidence=clause.text),
            "no mentions: no call may mention people (@name, @here, <!channel>)",
        )
        return

    if _EGRESS.search(low):
        _add(
            reading,
            DraftProhibition(classes=list(lx.EGRESS_CLASSES), egress=True, evidence=clause.text),
            "nothing may leave the machine (communication, external writes, payments)",
        )
        return

    alone = _lower(sentence).strip(" .!") == low.strip(" .!")
    # "If the rebase onto main conflicts, abort it": "it" is the operation the condition names,
    # not everything the agent does
    aborts_named = bool(
        re.match(r"^\W*(?:if|when|whenever|once|unless|should)\b", _lower(sentence))
        and re.search(r"\b(?:it|that)\b", low)
    )
    if (
        _BARE_STOP.match(low.strip())
        and (alone or not re.match(r"^(?:wait|pause|hold on|hold it)\b", low.strip()))
        and not aborts_named
    ):
        _add(
            reading,
            DraftProhibition(classes=["*"], evidence=clause.text, temporary=True),
            "stop: every consequential action is forbidden until the owner asks again",
        )
        return

    for pattern in (_CONFIRM,):
        m = pattern.search(low)
        if m:
            verb = m.group("verb") or m.group("verb2") or ""
            found = _verb_classes(lx.lemma(verb), [])
            if found:
                for c in found[0]:
                    reading.confirm[c] = clause.text
                reading.notes.append(
                    Note(clause.text, "confirm", f"ask the owner before any {'/'.join(found[0])}")
                )
            return

    m = _WAIT_BEFORE.search(low)
    if m:
        found = _verb_classes(lx.lemma(m.group("verb")), [])
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
            obj = _object(toks, j + 1)
        p = _prohibition(lemma_, obj, clause, sentence or clause.text)
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
    p = _prohibition("touch", obj, clause, clause.text)
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
                    temporary=_temporary(clause.text),
                )
                _add(reading, p, f"'no {w}'")
                if base in ("booking", "reservation"):
                    _add(reading, _booking(p), "a booking of time or a room is an external write")
                return True
            edit = w[:-1] if w.endswith("s") else w
            if edit in lx.EDIT_NOUNS or w in lx.EDIT_NOUNS:
                obj = _object(toks, j + 1)
                kws = _keywords([o for o in obj if o.norm not in ("to", "in", "on", "of")], "words", "")
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
    m = _FORBIDDEN.search(low)
    if not m:
        return False
    toks = [t for t in clause.tokens if t.end - clause.start <= m.start() + 1]
    start = tx.skip_fillers(toks, 0)
    subject = [t for t in toks[start:] if t.norm not in ("is", "are", "'s", "stays", "remains", "strictly")]
    for k, t in enumerate(subject):
        lem = tx.verb_at(subject, k)
        if lem and (t.norm.endswith("ing") or k == 0):
            p = _prohibition(lem, subject[k + 1 :], clause, clause.text)
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
    kws = _keywords(subject, "words", "")
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
        prefix = _lower(" ".join(t.norm for t in toks[max(i + 1, j - 2) : j]) + " ")
        if not _EXCEPT_RECIPIENTS.search(prefix):
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
        kws = _keywords(excluded, "recipients" if mode == "recipients" else "words", lem)
        if kws:
            _add(
                reading,
                DraftProhibition(classes=list(classes), keywords=kws, evidence=clause.text),
                f"excluded from '{toks[i].core}'",
            )
        return
