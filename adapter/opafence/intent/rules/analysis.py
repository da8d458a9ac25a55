"""The instruction cut into clauses with their modes (shared by the compiler and hardening), and
the grants a sentence implies without a request verb: a step a request waits for, a schedule, a
wish for a thing the agent makes, a diagnosis or computation that takes code."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from opafence.intent import lexicon as lx
from opafence.intent import text as tx
from opafence.intent.lexicon import words
from opafence.intent.rules.clause import condition_phrase_at, conditional_sentence, mode_of


@dataclass(frozen=True)
class Analysis:
    """The instruction cut into clauses, each with its mode: shared by the compiler and hardening."""

    text: str
    tokens: list[tx.Token]
    clauses: list[tx.Clause]
    modes: list[tuple[str, int]]  # per clause: ("request", verb index) or (why not, -1)
    # Clauses that are the action of a conditional ("if it builds, run it", "push it if CI is
    # green"): they grant their action; a consequential one (CONSEQUENTIAL) asks.
    conditional: frozenset[int] = frozenset()
    # Per such clause: the tokens of its condition, and the span of condition and action together.
    conditions: dict[int, tuple[tx.Token, ...]] = field(default_factory=dict)
    condition_spans: dict[int, tuple[int, int]] = field(default_factory=dict)


def _consequent(
    sent: list[tx.Token], clause: tx.Clause, first: tx.Clause | None = None
) -> tuple[tx.Clause, tuple[tx.Token, ...]] | None:
    """The action part of a conditional clause and the tokens of its condition: the clause after
    "If X," (the condition is the sentence's first clause, `first`) or the clause cut before its
    "if" ("push it if CI is green" -> "push it", "if CI is green"); None for the condition itself."""
    toks = clause.tokens
    if not toks:
        return None
    if conditional_sentence(sent):
        if not sent or toks[0].start <= sent[0].start:
            return None
        return clause, first.tokens if first is not None else ()
    for k in range(1, len(toks)):
        t = toks[k]
        if condition_phrase_at(toks, k) or (
            not t.literal and t.norm in lx.CONDITIONAL_CUES and toks[k - 1].norm not in lx.EMBEDDED_IF_VERBS
        ):
            cut = k - 1 if toks[k - 1].norm in ("only", "just", "but", "and") else k
            if cut < 1:
                return None
            end = toks[cut - 1].end
            action = tx.Clause(
                clause.text[: end - clause.start], clause.start, end, toks[:cut], clause.sentence
            )
            return action, toks[k:]
    return None


# "if it is under $200", "as long as the total stays below 80 dollars": the most a payment may be.
_AMOUNT_BOUND = re.compile(
    r"\b(?:under|below|less than|at most|no more than|not more than|up to|max(?:imum)?(?: of)?|"
    r"cheaper than|lower than|within|not over|not above|no higher than)\s+"
    r"(?:[$€£¥]\s?)?(?P<n>\d[\d,]*(?:\.\d+)?)\s?(?:k\b)?"
    r"|(?:[$€£¥]\s?)?(?P<m>\d[\d,]*(?:\.\d+)?)\s?(?:usd|eur|gbp|dollars?|euros?|pounds?|bucks)?\s+or\s+"
    r"(?:less|under|below|lower|cheaper)\b",
    re.I,
)
# A condition about the owner's own money ("if my balance is under 500") bounds no payment.
_NOT_THE_PAYMENT = frozenset(words("balance balances savings account accounts budget"))
WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")


def amount_bound(condition: tuple[tx.Token, ...]) -> float | None:
    """The upper bound a conditional's condition puts on the amount of its payment, or None."""
    if not condition or any(t.norm in _NOT_THE_PAYMENT for t in condition if not t.literal):
        return None
    text = " ".join(t.raw for t in condition if not t.literal)
    m = _AMOUNT_BOUND.search(text)
    if m is None:
        return None
    raw = (m.group("n") or m.group("m") or "").replace(",", "")
    try:
        value = float(raw)
    except ValueError:
        return None
    if m.group("n") and re.match(r"\s?k\b", text[m.end("n") : m.end("n") + 2], re.I):
        value *= 1000
    return value


def day_bound(condition: tuple[tx.Token, ...], action: tuple[tx.Token, ...]) -> list[str]:
    """The weekdays a conditional's event may fall on: those its action names, else its condition's
    ("if I'm free Thursday afternoon, block 2-4pm" -> thursday)."""
    for part in (action, condition):
        found = [d for d in WEEKDAYS if any(not t.literal and t.norm.removesuffix("'s") == d for t in part)]
        if found:
            return found
    return []


_WHEN_DONE = r"\b(?:once|after|when|as soon as|whenever)\s+"
_STEP_OWNER = r"(?:the\s+|all\s+(?:the\s+)?|our\s+|its\s+|my\s+|the\s+project'?s\s+|project\s+)?"
# "Once the deps are in, run the migrations": the step a request waits for is asked for as well.
# (pattern, class, capability); each pattern names the step finished, not a condition about it.
_PREREQUISITES: tuple[tuple[re.Pattern[str], str, str], ...] = (
    (
        re.compile(
            _WHEN_DONE + _STEP_OWNER + r"(?:deps|dependencies|packages|requirements|node_modules|gems)\s+"
            r"(?:are|have\s+been|'re|get|got)\s+(?:all\s+)?(?:in|installed|there|ready|set\s+up|sorted)\b"
            r"|"
            + _WHEN_DONE
            + r"(?:you(?:'ve|\s+have)?\s+|we(?:'ve|\s+have)?\s+)?install(?:ed|ing)?\s+"
            + _STEP_OWNER
            + r"(?:deps|dependencies|packages|requirements)\b",
            re.I,
        ),
        "EXECUTION",
        "install",
    ),
    (
        re.compile(
            r"\b(?:once|after|when|as soon as|if)\s+(?:it|the\s+(?:project|app|code|build|crate|binary))\s+"
            r"(?:builds|compiles|is\s+built|has\s+built|has\s+compiled|is\s+compiled)\b",
            re.I,
        ),
        "EXECUTION",
        "run_build",
    ),
    (
        re.compile(
            _WHEN_DONE + r"(?:the\s+)?(?:venv|virtualenv|virtual\s+env(?:ironment)?)\s+(?:is|has\s+been)\s+"
            r"(?:created|set\s+up|ready|there|made)\b",
            re.I,
        ),
        "EXECUTION",
        "create_venv",
    ),
    (
        re.compile(
            _WHEN_DONE + r"(?:the\s+)?(?:tests|test\s+suite|specs)\s+(?:pass|are\s+green|go\s+green)\b", re.I
        ),
        "EXECUTION",
        "run_tests",
    ),
    (
        # "After pulling, migrate the db"; "if the rebase onto main conflicts, abort it"; "move x to
        # y, keeping git history": the git step the request goes with
        re.compile(
            r"\b(?:after|once)\s+(?:you(?:'ve|\s+have)?\s+)?(?:git\s+)?pull(?:ing|ed)?\b"
            r"|\b(?:if|once|when|after)\s+the\s+(?:rebase|merge|cherry-pick)\b"
            r"|\b(?:keep(?:ing)?|preserv(?:e|ing)|with)\s+(?:the\s+|its\s+)?git\s+history\b",
            re.I,
        ),
        "LOCAL_WRITE",
        "commit",
    ),
)


_DAYS_RX = r"(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday)s?"
# "Every Monday at 8, summarize my open issues", "Every 30 minutes check whether ...": a sentence
# led by a recurrence asks for a scheduled job that does what follows (EXECUTION/schedule).
_RECURRENCE = re.compile(
    r"^\W*(?:(?:every|each)\s+(?:other\s+|single\s+)?(?:\d+\s+|few\s+|couple\s+of\s+)?"
    r"(?:minutes?|mins?|hours?|days?|weeks?|months?|years?|weekdays?|weekends?|mornings?|evenings?|nights?|"
    r"afternoons?|workdays?|business\s+days?|quarters?|" + _DAYS_RX + r")"
    r"|(?:daily|weekly|hourly|nightly|monthly|fortnightly)\b|on\s+" + _DAYS_RX + r"\s+at\b"
    r"|(?:tonight|tomorrow|today|this\s+(?:morning|afternoon|evening))(?:\s+(?:morning|afternoon|evening|night))?"
    r"\s+at\s+[0-9]"
    r"|(?:in|within)\s+[0-9]+\s+(?:minutes?|mins?|hours?|days?)\b.*\bhave\s+an?\s+(?:cron\s*)?job\b)",
    re.I,
)


def scheduled(a: Analysis) -> list[tuple[int, int, tuple[int, int]]]:
    """(clause, verb index, span) for each sentence led by a recurrence with a verb after it: the
    job's grant quotes the whole sentence, its verb the first one after the recurrence."""
    out: list[tuple[int, int, tuple[int, int]]] = []
    seen: set[int] = set()
    for n, c in enumerate(a.clauses):
        if c.sentence in seen:
            continue
        seen.add(c.sentence)
        if not _RECURRENCE.match(c.text):
            continue
        parts = [(m, x) for m, x in enumerate(a.clauses) if x.sentence == c.sentence]
        for m, x in parts:
            k = next((j for j in range(len(x.tokens)) if tx.verb_at(x.tokens, j)), -1)
            if k < 0 or (m == n and x.tokens[k].norm in ("remind", "schedule")):
                continue
            if a.modes[m][0] not in ("request", "no verb") or any(
                tx.is_negation(x.tokens[j].norm) for j in range(k + 1)
            ):
                break  # "every day, don't ...", a question or a condition: no job
            lo, hi = parts[0][1].start, parts[-1][1].end
            out.append((m, k, (lo, hi)))
            break
    return out


# "I'd like a new skill, 'pr-review', that ...", "I want a reminder at 5": a wish for a thing the
# agent makes asks for it, like "create a skill".
_WISH = re.compile(
    r"^\W*(?:(?:so\s+)?i'?d\s+(?:like|love)|i\s+would\s+(?:like|love)|i\s+want|i\s+need|we\s+need|we\s+want|"
    r"(?:could|can)\s+i\s+(?:get|have))\s+(?:a|an|one)\s+(?:new\s+|little\s+|quick\s+|small\s+)?"
    r"(?P<what>skill|reminder|cron\s*job|timer|alarm)\b",
    re.I,
)
_WISHED = {"skill": ("MEMORY_WRITE", "skill")}


def wished(a: Analysis) -> list[tuple[str, str, int, tuple[int, int]]]:
    """(class, capability, clause, span) for each sentence that wishes for a skill or a reminder."""
    out: list[tuple[str, str, int, tuple[int, int]]] = []
    seen: set[int] = set()
    for n, c in enumerate(a.clauses):
        if c.sentence in seen:
            continue
        seen.add(c.sentence)
        m = _WISH.match(c.text)
        if m is None:
            continue
        cls_, cap = _WISHED.get(m.group("what").lower(), ("EXECUTION", "schedule"))
        parts = [x for x in a.clauses if x.sentence == c.sentence]
        out.append((cls_, cap, n, (parts[0].start, parts[-1].end)))
    return out


def implied(a: Analysis) -> list[tuple[str, str, int, tuple[int, int]]]:
    """(class, capability, request clause, span) for each step a request of the same sentence waits
    for ("once the deps are in, run the migrations" -> EXECUTION/install): the span runs from the
    step to the end of that request, so the quote holds both."""
    out: list[tuple[str, str, int, tuple[int, int]]] = []
    for rx, cls, cap in _PREREQUISITES:
        for m in rx.finditer(a.text):
            sent = next((c.sentence for c in a.clauses if c.start <= m.start() < c.end + 1), None)
            if sent is None:
                continue
            reqs = [n for n, c in enumerate(a.clauses) if c.sentence == sent and a.modes[n][0] == "request"]
            if not reqs or any(m.start() >= a.clauses[n].start and m.end() <= a.clauses[n].end for n in reqs):
                continue  # no request waits for it, or the step is inside the request's own words
            n = min(reqs, key=lambda r: abs(a.clauses[r].start - m.start()))
            c = a.clauses[n]
            out.append((cls, cap, n, (min(m.start(), c.start), max(m.end(), c.end))))
    return out + computed(a) + diagnosed(a)


_FILE_NOUNS = frozenset(words("file files photos images pictures documents rows records lines entries"))


def _file_token(t: tx.Token) -> bool:
    core = t.core.strip(",.;:()?!")
    return bool(lx.DATA_FILE.match(core) or re.match(r"^\*?\.[a-z0-9]{2,5}$", core, re.I))


def diagnosed(a: Analysis) -> list[tuple[str, str, int, tuple[int, int]]]:
    """(class, capability, clause, span) for each question why the tests, or a test the owner names,
    fail ("Why does tests/test_parser.py fail?", "why are the unit tests red?"): the answer takes
    running them, so the sentence grants EXECUTION/run_tests (the runners, never their options
    that write or run other things; a prohibition such as "don't modify any files" still binds)."""
    out: list[tuple[str, str, int, tuple[int, int]]] = []
    for sent in sorted({c.sentence for c in a.clauses}):
        ns = [n for n, c in enumerate(a.clauses) if c.sentence == sent]
        if not any(a.modes[n][0] == "question" for n in ns):
            continue
        toks = [t for n in ns for t in a.clauses[n].tokens]
        ws = {t.norm for t in toks if not t.literal}
        if not ws & {"why", "what", "how", "where", "which"} or not ws & lx.FAILING_WORDS:
            continue
        named = any(lx.TEST_FILE.match(t.core.strip(",.;:()?!")) for t in toks)
        if not (named or ws & lx.TEST_WORDS):
            continue
        span = (a.clauses[ns[0]].start, a.clauses[ns[-1]].end)
        out.append(("EXECUTION", "run_tests", ns[0], span))
    return out


def _ask_verb(a: Analysis, n: int) -> str:
    toks = a.clauses[n].tokens
    if a.modes[n][0] == "request":
        return tx.verb_at(toks, a.modes[n][1])
    k = tx.skip_fillers(toks, 0)
    return toks[k].norm if k < len(toks) and not toks[k].literal else ""


def computed(a: Analysis) -> list[tuple[str, str, int, tuple[int, int]]]:
    """(class, capability, clause, span) for each sentence that asks for an answer or a result only
    code gives (issue 14: a computation, a parse or a plot): a question or a request about a data
    file ("what's the correlation ... in marketing.csv?"), a quantity or ranking ("tell me how many
    fall on a Monday", "find duplicate photos"), a set of files handled one by one ("rename all the
    .jpeg files"), or code named for it ("run it in Python"). EXECUTION/run_code covers only code
    whose facts show no command, network, eval, tool call or write outside the workspace; what it
    writes needs a write grant of its own, but a plot's image goes in the workspace."""
    out: list[tuple[str, str, int, tuple[int, int]]] = []
    for sent in sorted({c.sentence for c in a.clauses}):
        ns = [n for n, c in enumerate(a.clauses) if c.sentence == sent]
        asks = [
            n
            for n in ns
            if a.modes[n][0] in ("request", "question")
            or (a.modes[n][0] == "no verb" and _ask_verb(a, n) in lx.COMPUTE_VERBS_RAW)
        ]
        if not asks:
            continue
        # the asking clauses' own words: not a condition's ("if the total is under $200, pay it")
        toks = [t for n in asks for t in a.clauses[n].tokens if not t.literal]
        ws = {t.norm for t in toks}
        verbs = {_ask_verb(a, n) for n in asks}
        if verbs <= lx.SEND_VERBS - {"tell", "show", "give"} and not any(_file_token(t) for t in toks):
            continue  # "send the chart to my own chat": a message about a result, not making one
        files = any(_file_token(t) for t in toks)
        # "rename all the .jpeg files", "convert every .json file": one by one, in code (not a
        # deletion: "delete every file in /tmp/cache" is the delete grant's)
        each = (
            bool(ws & lx.EACH_WORDS)
            and (files or bool(ws & _FILE_NOUNS))
            and bool(verbs & (lx.EDIT_VERBS | lx.DATA_VERBS | lx.COMPUTE_VERBS_RAW))
        )
        # a data file alone asks for code in a question or with a verb of analysis ("summarise
        # survey.xlsx", "convert every .json file"), not in "read notes.json"
        analysed = files and (
            any(a.modes[n][0] == "question" for n in asks)
            or bool(verbs & (lx.DATA_VERBS | lx.COMPUTE_VERBS_RAW))
        )
        quantity = bool(ws & lx.COMPUTE_WORDS) or any(
            (t.norm in lx.COMPUTE_RANKS and k > 0 and toks[k - 1].norm != "at")
            or (t.norm in lx.COMPUTE_SETS and k + 1 < len(toks) and toks[k + 1].norm.endswith("s"))
            for k, t in enumerate(toks)
        )
        runtime = any(
            t.norm in lx.CODE_RUNTIMES and k > 0 and toks[k - 1].norm in lx.RUNTIME_MEANS
            for k, t in enumerate(toks)
        )
        if verbs & lx.INSTALL_VERBS or not (quantity or runtime or each or analysed):
            continue
        span = (a.clauses[ns[0]].start, a.clauses[ns[-1]].end)
        out.append(("EXECUTION", "run_code", asks[0], span))
        if ws & lx.PLOT_WORDS:
            out.append(("LOCAL_WRITE", "run_code", asks[0], span))
    return out


def analyze(instruction: str) -> Analysis:
    toks = tx.tokenize(instruction)
    sents = tx.sentences(instruction, toks)
    cls = tx.clauses(instruction, toks)
    modes = []
    conditional = set()
    conditions: dict[int, tuple[tx.Token, ...]] = {}
    spans: dict[int, tuple[int, int]] = {}
    reminder = -1
    firsts: dict[int, tx.Clause] = {}
    for c in cls:
        firsts.setdefault(c.sentence, c)
    for n, c in enumerate(cls):
        sent = sents[c.sentence] if c.sentence < len(sents) else list(c.tokens)
        mode = mode_of(sent, c)
        if mode[0] == "conditional":
            found = _consequent(sent, c, firsts.get(c.sentence))
            if found is not None:
                action, condition = found
                again = mode_of(sent, action, consequent=True)
                if again[0] == "request":
                    cls[n], mode = action, again
                    conditional.add(n)
                    conditions[n] = condition
                    lo = min([action.start, *(t.start for t in condition)])
                    hi = max([action.end, *(t.end for t in condition)])
                    spans[n] = (lo, hi)
        if mode[0] == "request" and reminder == c.sentence:
            # "remind me to commit and push": what follows is the reminder's text, not a request
            mode = ("part of a reminder's text", -1)
        elif mode[0] == "request" and tx.verb_at(c.tokens, mode[1]) == "remind":
            reminder = c.sentence
        modes.append(mode)
    return Analysis(instruction, toks, cls, modes, frozenset(conditional), conditions, spans)
