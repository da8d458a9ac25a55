"""The offline rules compiler: imperative clauses of the owner's instruction -> a draft.

An imperative clause (after "please", "then", "can you", ...) whose main verb asks for an
action grants that action on the literal objects it names: "email the summary to
john@example.com" -> COMMUNICATION/send to john@example.com. Questions, conditionals,
hypotheticals, reported speech and negated clauses grant nothing; reads need no grant.
Pure, deterministic, no network. Its draft goes through the same hardening as an LLM's."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from opafence.intent import lexicon as lx
from opafence.intent import services
from opafence.intent import text as tx
from opafence.intent.draft import Draft, DraftBounds, DraftGrant, Note
from opafence.intent.lexicon import words
from opafence.intent.split import Split

_RECIPIENT_RESET = frozenset(words("to cc bcc with an à para and"))
_PACKAGE_NOISE = frozenset(
    words(
        "package packages library libraries lib libs dependency dependencies deps module modules tool "
        "tools the a an latest newest new version versions using with via from pip npm yarn it them "
        "also plus python node crate crates gem gems please first again globally locally into in for to "
        "and or requirements requirement dev editable mode extras project project's its this everything "
        "what's whats pyproject gemfile manifest lockfile uv poetry pipenv composer bundler nuget all "
        "missing needed required up installed this repo needs go extra group groups optional"
    )
)
_COMMAND_STOP = frozenset(words("and then but please for now again first so because to after before"))
_MAX_CALLS = re.compile(
    r"\b(?:at most|no more than|up to|maximum of|max(?:imum)?|not more than)\s+(\d{1,4})\b"
)
_ONLY = re.compile(
    r"\b(?:only|exclusively|solely|nothing but|stick to|limit yourself to|restrict yourself to|limited to|"
    r"restricted to|other than|except(?: for)?|besides|stay (?:in|inside|within|under)|"
    r"(?:do ?n[o']?t|never) (?:go|wander|step) (?:outside|beyond)|(?:anything|everything|files?|nothing) "
    r"(?:outside|beyond)(?: of)?|nur|seulement|uniquement|solo|"
    r"solamente|soltanto)\b"
)
_MONEY = re.compile(r"[$€£¥]\s?\d|\b\d+(?:[.,]\d+)?\s?(?:usd|eur|gbp|dollars?|euros?|pounds?|bucks)\b", re.I)
# "send an invoice for $800": a paper about money is a message, not a payment
_MONEY_PAPERS = frozenset(
    words("invoice invoices bill bills quote quotes receipt receipts estimate estimates")
)
_PATH_BOUND_VERBS = frozenset(words("work stay operate remain keep stick limit restrict go wander step"))
_LEADING_CONNECTIVES = frozenset(
    words("and then but also so plus & und dann aber et puis mais y luego pero e poi ma")
)
_OPEN_OBJECTS = frozenset(words("issue pr pull mr ticket request"))
# What a booking books: time or a room of one's own (an external write), unless it is paid for.
_FREE_BOOKINGS = frozenset(
    words("meeting meetings call room rooms slot slots appointment appointments 1:1 sync desk interview demo")
)
_PAID_BOOKINGS = frozenset(
    words("hotel hotels flight flights ticket tickets train car rental trip tour table seat seats cruise")
)
_ARTICLES = frozenset(words("den der die das dem le la les el los las il lo gli un une ein eine einen"))
# Sentence openers that make the whole sentence a question, with or without "?".
_QUESTION_OPENERS = frozenset(
    words(
        "what how why where who which whose whom what's how's where's who's why's is are was were does "
        "did isn't aren't doesn't didn't"
    )
)


@dataclass
class _Clause:
    clause: tx.Clause
    i: int  # index of the main verb
    lemma: str
    tool: str = ""  # "git", "pip", ... when the verb came after one ("git push", "pip install")
    services: frozenset[str] = frozenset()  # words naming a server of the session's tools
    # The condition of a conditional's action ("if ann@x.com replies, forward it to her"): its
    # people are whom a pronoun of the action names.
    condition: tuple[tx.Token, ...] = ()
    # The clause before it in the same sentence: what a pronoun object ("find a free room and
    # reserve it") stands for.
    before: tuple[tx.Token, ...] = ()
    # The sentence after the colon that ends this clause ("update my profile: my new email is x").
    after: tuple[tx.Token, ...] = ()

    @property
    def toks(self) -> tuple[tx.Token, ...]:
        return self.clause.tokens

    @property
    def obj(self) -> tuple[tx.Token, ...]:
        return self.clause.tokens[self.i + 1 :]

    @property
    def words(self) -> set[str]:
        return {t.norm for t in self.obj if not t.literal}

    @property
    def context_words(self) -> set[str]:
        """The object's words, and those of the clause before when the object points back to it
        ("I need the Vite dev server up; start it please")."""
        if not refers_back(self):
            return self.words
        return self.words | {t.norm for t in self.before if not t.literal}


_POINTERS = frozenset(["it", "them", "that", "this", "those", "these", "one"])


def refers_back(c: _Clause) -> bool:
    """Does the object point back to the clause before ("it", "that branch", "the same one")?"""
    toks = [t for t in c.obj if not t.literal]
    # "read me the title of the page (use the console)": a parenthesis says how to do the one before
    aside = bool(c.toks) and c.toks[0].raw.startswith("(")
    return bool(c.before) and (aside or any(t.norm in _POINTERS for t in toks[:3]))


def _is_question(sent: list[tx.Token]) -> bool:
    if not sent or "?" not in sent[-1].trail:
        return False
    norms = [t.norm for t in sent[:4]]
    polite = (
        len(norms) > 1 and norms[0] in ("can", "could", "would", "will", "may") and norms[1] in ("you", "u")
    )
    return not (polite or "please" in (t.norm for t in sent))


def _conditional_sentence(sent: list[tx.Token]) -> bool:
    i = tx.skip_fillers(sent, 0)
    if i >= len(sent):
        return False
    head = " ".join(t.norm for t in sent[i : i + 3])
    return (
        sent[i].norm in lx.CONDITIONAL_CUES
        or sent[i].norm in ("wenn", "falls", "si", "se")
        or any(head.startswith(p) for p in lx.CONDITIONAL_PHRASES)
    )


# Conditions that start inside a clause with more than one word ("pay it as long as it is under 50").
_MID_CONDITIONS = (("as", "long", "as"), ("on", "condition", "that"), ("in", "case"), ("so", "long", "as"))


def _condition_phrase_at(toks: tuple[tx.Token, ...] | list[tx.Token], k: int) -> bool:
    return any(
        k + len(p) <= len(toks)
        and all(not toks[k + j].literal and toks[k + j].norm == w for j, w in enumerate(p))
        for p in _MID_CONDITIONS
    )


def mode_of(sent: list[tx.Token], clause: tx.Clause, consequent: bool = False) -> tuple[str, int]:
    """("request", verb index) for an imperative clause, else (why it grants nothing, -1).
    `consequent`: the clause is the action of a conditional ("if X, do Y"), judged on its own."""
    if not consequent and _conditional_sentence(sent):
        return "conditional", -1
    if any(t.norm in lx.HYPOTHETICAL_CUES and not t.literal for t in sent):
        return "hypothetical", -1
    if _is_question(sent):
        return "question", -1
    s0 = tx.skip_fillers(sent, 0)
    if s0 < len(sent) and (
        sent[s0].norm in _QUESTION_OPENERS
        or (
            s0 + 1 < len(sent)
            and sent[s0].norm in ("do", "can", "could", "should", "may", "shall", "would", "will")
            and sent[s0 + 1].norm in ("i", "we", "you", "it", "they", "he", "she", "this", "that")
            and not (sent[s0].norm in ("can", "could", "would", "will") and sent[s0 + 1].norm == "you")
        )
    ):
        return "question", -1
    toks = clause.tokens
    i = tx.skip_fillers(toks, 0)
    if i >= len(toks):
        return "no verb", -1
    if (
        i + 2 < len(toks)
        and tx.is_negation(toks[i].norm)
        and toks[i + 1].norm == "forget"
        and (toks[i + 2].norm == "that" or toks[i + 1].trail.startswith(":"))
    ):
        return "request", i + 1  # "don't forget that I'm allergic to peanuts": a note to keep
    first = toks[i].norm
    if first in lx.QUESTION_STARTS:
        return "question", -1
    if first in ("git", "gh") and tx.verb_at(toks, i + 1):
        i += 1
    # "would you mind running x", "try running x": the gerund is the request
    after_mind = i > 0 and toks[i - 1].norm in ("mind", "try")
    if first == "try" and i + 1 < len(toks) and toks[i + 1].norm.endswith("ing") and tx.verb_at(toks, i + 1):
        i, first, after_mind = i + 1, toks[i + 1].norm, True
    if (
        first.endswith("ing")
        and not after_mind
        and first not in ("bring", "ping", "ring", "string")
        and tx.verb_at(toks, i)
    ):
        return "not imperative", -1  # "Deleting files is not allowed": a gerund subject
    if not tx.verb_at(toks, i) and not (i + 1 < len(toks) and (first, toks[i + 1].norm) in lx.INSTALL_TOOLS):
        return "no verb", -1
    for k in range(i + 1, len(toks)):
        t = toks[k]
        if t.literal:
            continue
        if _condition_phrase_at(toks, k) and not consequent:
            return "conditional", -1  # "delete the cache as long as nothing uses it"
        if t.norm in lx.CONDITIONAL_CUES and toks[k - 1].norm not in lx.EMBEDDED_IF_VERBS and not consequent:
            if (
                t.norm == "whether"
                and k + 2 < len(toks)
                and toks[k + 1].norm == "or"
                and toks[k + 2].norm == "not"
            ):
                continue  # "whether or not it is empty": no condition on the request
            return "conditional", -1
        if t.norm in lx.FOREIGN_NEGATIONS and t.norm not in ("no", "non", "ne"):
            return "negated", -1
    if i + 1 < len(toks) and toks[i + 1].norm in ("not", "nothing", "none", "no", "nobody"):
        return "negated", -1  # "send nothing", "delete none of them"
    return "request", i


def _governor(toks: tuple[tx.Token, ...], k: int, floor: int) -> int:
    """The index of the word that governs the recipient at k, or -1 (the verb governs it).

    Walks back over a list ("from a@x.com, b@x.com and c@x.com") to the word that governs it."""
    j = k - 1
    while j > floor:
        w = toks[j].norm
        if w in ("and", "or", "nor", "the", "a", "an") or (
            tx.is_recipient(toks[j].core) and toks[j].trail.startswith(",")
        ):
            j -= 1
            continue
        if tx.is_recipient(toks[j].core) and toks[j + 1].norm in ("and", "or", "nor"):
            j -= 1
            continue
        return j
    return -1


def _excluded(toks: tuple[tx.Token, ...], k: int, floor: int) -> bool:
    """Is the recipient at k a sender or an exclusion ("from x", "but not (to) x", "except x")?"""
    j = _governor(toks, k, floor)
    if j < 0:
        return False
    w = toks[j].norm
    if w == "to" and j - 1 > floor:
        before = toks[j - 1].norm
        return before in lx.RECIPIENT_BLOCKERS or tx.is_negation(before)
    return w in lx.RECIPIENT_BLOCKERS or tx.is_negation(w)


def _replied_to(c: _Clause, k: int) -> bool:
    """ "Reply to the email from bob@x.com", "answer bob@x.com's message": a reply goes to the
    sender the owner named, so the owner's words hold its recipient (issue 14)."""
    t = c.toks[k]
    if t.possessive:
        return True
    j = _governor(c.toks, k, c.i)
    if j < 0 or c.toks[j].norm != "from":
        return False
    # "answer the questions but not the one from eve@x.com": an exclusion, not the sender replied to
    near = [c.toks[x].norm for x in range(max(c.i + 1, j - 4), j)]
    return not any(w in lx.RECIPIENT_BLOCKERS or tx.is_negation(w) or w == "but" for w in near)


_REPLIES = frozenset(words("reply respond answer"))


def _recipients(c: _Clause) -> list[str]:
    """Recipient tokens that are the object of the send verb: not a sender, not excluded. A review
    is asked of someone ("request a review from @ann"): there "from" names the reviewer; a reply
    that names no one else goes to the sender named ("reply to the email from bob@x.com")."""
    out: list[str] = [
        t.norm for t in _place(c) if not t.literal and (tx.CHANNEL.match(t.norm) or tx.HANDLE.match(t.norm))
    ]  # "In #release-train, reply to the thread ..."
    senders: list[str] = []
    asks = c.lemma == "request"
    replies = c.lemma in _REPLIES or (
        c.i + 1 < len(c.toks) and c.lemma in ("write", "get") and c.toks[c.i + 1].norm == "back"
    )
    for k in range(c.i + 1, len(c.toks)):
        t = c.toks[k]
        core = t.core[:-2] if t.possessive else t.core
        if t.literal or not tx.is_recipient(core):
            continue
        r = core.lower() if tx.is_email(core) else core
        if t.possessive or (_excluded(c.toks, k, c.i) and not (asks and c.toks[k - 1].norm == "from")):
            if replies and _replied_to(c, k) and r not in senders:
                senders.append(r)
            continue
        if r not in out:
            out.append(r)
    if c.lemma in _SELF_SENDS and _to_the_owner(c.obj):
        # "send me a Telegram message", "DM me on Discord", "send it to my own Telegram chat":
        # the owner themself (Rego: "@me")
        out.append("@me")
    if c.lemma not in _MAKES_CHANNELS:
        for k in range(c.i + 1, len(c.toks)):
            name = _channel_name(c.toks, k, c.i)
            if name and name not in out and not _excluded(c.toks, k, c.i):
                out.append(name)
    if not out and c.lemma in _UPDATES_WITH_VALUES:
        # "Update my United profile: my new email for notifications is mo@fastmail.com"
        out = [t.core.lower() for t in c.after if not t.literal and not t.possessive and tx.is_email(t.core)]
    if not out and not senders and c.condition and _pronoun_object(c):
        # "if ann@x.com replies, forward it to her": the person the condition names
        senders = [r for r in _condition_people(c.condition) if r not in senders]
    if (
        not out
        and not senders
        and c.lemma in _IN_PLACE
        and c.before
        and (
            any(t.norm == "there" for t in c.obj)
            or refers_back(c)
            # "post it in #deploys and add a :lock: reaction to it", "... and put a wave reaction on
            # her intro post": a reaction goes where the clause before posted
            or (bool(c.words & _REACTION_WORDS) and bool(c.toks) and c.toks[0].norm in ("and", "then"))
            or (bool(c.words & _REACTION_WORDS) and any(t.norm in _POINTERS for t in c.obj))
        )
    ):
        # "post the link in #oncall and pin it there": the channel of the clause before
        senders = [t.norm for t in c.before if not t.literal and tx.CHANNEL.match(t.norm)]
    if c.lemma in _REPOSTS:
        # "repost what Lukas wrote in #infra into #backend": where it goes, not where it came from
        into = [
            t.norm
            for k, t in enumerate(c.toks)
            if k > c.i and t.norm in out and c.toks[k - 1].norm in ("into", "to", "onto")
        ]
        out = into or out
    return out or senders


_REPOSTS = frozenset(words("repost crosspost cross-post"))
_REACTION_WORDS = frozenset(words("reaction reactions emoji emojis thumbs thumbs-up thumbsup"))
_IN_PLACE = frozenset(words("pin unpin react post put leave drop add"))
_UPDATES_WITH_VALUES = frozenset(words("update change set switch edit modify"))


_PERSON_PRONOUNS = frozenset(words("him her them"))
_SELF_SENDS = frozenset(words("send message dm ping text notify drop shoot post write forward"))
_OWN_CHATS = frozenset(words("chat chats dm dms inbox saved"))


def _to_the_owner(obj: tuple[tx.Token, ...]) -> bool:
    """ "me ..." first, "to me" / "to myself", "to my own (Telegram) chat": a message to the owner."""
    toks = [t for t in obj if not t.literal]
    if toks and toks[0].norm in ("me", "myself"):
        return True
    for k, t in enumerate(toks):
        if t.norm in ("me", "myself") and k > 0 and toks[k - 1].norm == "to":
            return True
        if (
            t.norm == "own"
            and k > 0
            and toks[k - 1].norm == "my"
            and any(x.norm in _OWN_CHATS for x in toks[k + 1 : k + 4])
        ):
            return True
    return False


_MAKES_CHANNELS = frozenset(words("create make open start set rename"))
_NOT_CHANNEL_NAMES = frozenset(
    words(
        "team teams private public shared same new other main right wrong whole company usual right "
        "dedicated relevant appropriate right own"
    )
)


def _channel_name(toks: tuple[tx.Token, ...], k: int, floor: int) -> str:
    """ "the ops channel", "channel 'Launch'", "the channel called launch" -> "#ops", "#launch":
    a chat channel the owner names without its "#" (Rego reads a channel argument the same way)."""
    t = toks[k]
    if (
        t.literal
        or t.possessive
        or t.core.startswith(("#", "@"))
        or not re.match(r"^[a-z0-9][a-z0-9_.-]{0,79}$", t.norm)
    ):
        return ""
    if (
        t.norm in _DETERMINERS
        or t.norm in lx.GENERIC_OBJECTS
        or t.norm in lx.SERVICES
        or t.norm in lx.OBJECT_STOPS
        or t.norm in _NOT_CHANNEL_NAMES
        or t.norm.isdigit()
    ):
        return ""
    nxt = toks[k + 1] if k + 1 < len(toks) else None
    before = [x.norm for x in toks[max(floor + 1, k - 2) : k] if not x.literal]
    if before and before[-1] in ("called", "named"):
        before = before[:-1]
    after_channel = bool(before) and before[-1] == "channel"
    before_channel = nxt is not None and not nxt.literal and nxt.norm == "channel" and not t.trail
    return f"#{t.norm}" if after_channel or before_channel else ""


def _pronoun_object(c: _Clause) -> bool:
    return any(not t.literal and t.norm in _PERSON_PRONOUNS for t in c.obj)


def _condition_people(toks: tuple[tx.Token, ...]) -> list[str]:
    out: list[str] = []
    for t in toks:
        core = t.core[:-2] if t.possessive else t.core
        if not t.literal and tx.is_recipient(core):
            r = core.lower() if tx.is_email(core) else core
            if r not in out:
                out.append(r)
    return out


_PERMISSION_SETTERS = frozenset(words("make set change fix correct reset restore update adjust tighten"))
_PERMISSION_NOUNS = frozenset(words("permissions permission mode modes chmod"))
_PERMISSION_LINKS = frozenset(words("on of for to in"))


def _permission_object(obj: tuple[tx.Token, ...]) -> bool:
    """Does the object name a file's permissions ("the permissions on x", "executable"), not a
    thing about permissions ("the permission check in auth.py", "the permissions docs")?"""
    for k, t in enumerate(obj):
        if t.literal:
            continue
        if t.norm == "executable":
            return True
        if t.norm in _PERMISSION_NOUNS:
            nxt = obj[k + 1] if k + 1 < len(obj) else None
            if nxt is None or nxt.literal or nxt.norm in _PERMISSION_LINKS or tx.is_path_like(nxt.core):
                return True
    return False


def _extension(obj: tuple[tx.Token, ...], k: int) -> bool:
    """Is obj[k] a kind of file ("the .pyc files", "all .log files"), not a file named ".pyc"?"""
    t = obj[k]
    nxt = obj[k + 1].norm if k + 1 < len(obj) and not obj[k + 1].literal else ""
    return not t.literal and bool(re.match(r"^\.[A-Za-z0-9]{1,10}$", t.core)) and nxt == "files"


def _ref_name(obj: tuple[tx.Token, ...], k: int) -> bool:
    """Is obj[k] the name of a git branch or tag ("branch feature/old", "the feature/old
    branch", "the branch called release/1.2")? A ref name looks like a path but is none."""
    before = [t.norm for t in obj[max(0, k - 2) : k] if not t.literal]
    after = obj[k + 1].norm if k + 1 < len(obj) and not obj[k + 1].literal else ""
    if before and before[-1] in ("called", "named"):
        before = before[:-1]
    return bool((before and before[-1] in lx.REF_WORDS) or after in lx.REF_WORDS)


_IN_DIR = frozenset(words("in inside under within into"))


def placed_files(obj: tuple[tx.Token, ...]) -> dict[int, tuple[str, int]]:
    """ "README.txt in ~/shared/handover", "generate_fixtures.py in the tests folder": a file
    named by its bare name and the directory it is in -> {index of the file: (dir/file, index of
    the directory's token)}. The directory alone is no target then."""
    out: dict[int, tuple[str, int]] = {}
    for k, t in enumerate(obj):
        core = t.core.rstrip(".,;:")
        if t.literal or "/" in core or not tx.is_path_like(core) or core.startswith((".", "~")):
            continue
        j = k + 1
        if j >= len(obj) or obj[j].literal or obj[j].norm not in _IN_DIR or t.trail:
            continue
        j += 1
        while j < len(obj) and not obj[j].literal and obj[j].norm in ("the", "my", "our", "this", "that"):
            j += 1
        if j >= len(obj) or obj[j].literal:
            continue
        d = obj[j].core.rstrip(".,;:")
        nxt = obj[j + 1].norm if j + 1 < len(obj) and not obj[j + 1].literal else ""
        if ("/" in d or d.startswith("~")) and tx.is_path_like(d) and "*" not in d:
            out[k] = (f"{d.rstrip('/')}/{core}", j)
        elif re.match(r"^[\w.-]+$", d) and nxt in lx.FOLDER_WORDS and d.lower() not in lx.GENERIC_OBJECTS:
            out[k] = (f"{d}/{core}", j)
    return out


def _paths(obj: tuple[tx.Token, ...]) -> list[str]:
    placed = placed_files(obj)
    dirs = {j for _, j in placed.values()}
    out: list[str] = []
    blocked = False
    for k, t in enumerate(obj):
        if not t.literal and t.norm in ("except", "excluding", "not", "besides", "than"):
            blocked = True
            continue
        if blocked:
            continue
        core = t.core.rstrip(".,;:")
        if k in placed:
            out.append(placed[k][0])
        elif k in dirs or (k > 0 and k - 1 in dirs and t.norm in lx.FOLDER_WORDS):
            continue
        elif tx.is_path_like(core) and not _ref_name(obj, k) and not _extension(obj, k):
            out.append(core)
        elif not t.literal and t.norm in lx.FOLDER_WORDS:
            for nb in (obj[k - 1] if k > 0 else None, obj[k + 1] if k + 1 < len(obj) else None):
                if nb is None or nb.literal:
                    continue
                if nb.norm in ("called", "named") or nb.norm in _ARTICLES:
                    continue
                if re.match(r"^[\w.-]+$", nb.core) and nb.norm not in lx.GENERIC_OBJECTS:
                    out.append(nb.core)
                    break
            if (
                k + 2 < len(obj)
                and obj[k + 1].norm in ("called", "named")
                and re.match(r"^[\w.-]+$", obj[k + 2].core)
            ):
                out.append(obj[k + 2].core)
    seen: list[str] = []
    for p in out:
        if p not in seen and p.rstrip("/") not in (s.rstrip("/") for s in seen):
            seen.append(p)
    return seen


def _domains(obj: tuple[tx.Token, ...]) -> list[str]:
    out: list[str] = []
    for t in obj:
        host = tx.url_host(t.core) if tx.is_url(t.core) else (t.core.lower() if tx.is_domain(t.core) else "")
        if host and host not in out:
            out.append(host)
    return out


def _after_preposition(obj: tuple[tx.Token, ...], domain: str) -> bool:
    for k, t in enumerate(obj):
        host = tx.url_host(t.core) if tx.is_url(t.core) else t.core.lower()
        if host == domain:
            return k > 0 and obj[k - 1].norm in ("on", "at", "from", "via", "through", "using")
    return False


_DETERMINERS = frozenset(words("the a an my our your their his her its this that"))
_BRANDS = frozenset(words("microsoft ms google"))


def _service_at(obj: tuple[tx.Token, ...], k: int) -> str:
    """The service obj[k] names, or "" when it is an ordinary word there ("for Monday", "the notion
    of", "linear regression", "slack off"): ambiguous names need a place where a service goes."""
    t = obj[k]
    if t.literal:
        return ""
    norm = t.norm[:-2] if t.possessive else t.norm
    if tx.is_domain(t.core):
        labels = norm.split(".")
        return labels[0] if len(labels) == 2 and labels[0] in lx.SERVICES else ""
    if norm not in lx.SERVICES:
        return ""
    if norm not in lx.AMBIGUOUS_SERVICES:
        return norm
    j = k - 1
    while j >= 0 and not obj[j].literal and obj[j].norm in _DETERMINERS:
        j -= 1
    prev = obj[j].norm if j >= 0 and not obj[j].literal else ""
    nxt = obj[k + 1].norm if k + 1 < len(obj) and not obj[k + 1].literal and not t.trail else ""
    if norm in lx.DAY_SERVICES:
        # "for Monday", "on Monday", "by Monday's standup": a day; "the Monday board", "in Monday".
        if t.possessive:
            return ""
        if nxt in lx.SERVICE_NOUNS:
            return norm
        if prev in lx.DATE_CUES:
            return ""
        return norm if prev in lx.SERVICE_PREPOSITIONS - {"on", "to", "from"} else ""
    if prev in lx.SERVICE_PREPOSITIONS or prev in _BRANDS or nxt in lx.SERVICE_NOUNS:
        return norm
    return ""


def named_services(obj: tuple[tx.Token, ...]) -> list[str]:
    """The services the words name as services (see _service_at), in order."""
    out: list[str] = []
    for k in range(len(obj)):
        name = _service_at(obj, k)
        if name and name not in out:
            out.append(name)
    return out


def _place(c: _Clause) -> tuple[tx.Token, ...]:
    """The place phrase that leads the request ("On GitLab, comment ..."), or ()."""
    for k in range(c.i):
        n = tx.place_phrase(c.toks, k)
        if n and k + n <= c.i:
            return c.toks[k : k + n]
    return ()


def _services(c: _Clause) -> list[str]:
    return sorted({f"mcp__{w}__*" for w in named_services(c.obj) + named_services(_place(c))})


def _file_object(t: tx.Token) -> str:
    """A file named by its path or its well-known name ("README.md", "the README") is a file."""
    return "file" if tx.is_path_like(t.core) or t.norm in tx.KNOWN_FILES else ""


def objects_of(obj: tuple[tx.Token, ...], lemma: str = "") -> list[str]:
    """The objects (lx.OBJECT_NOUNS) of the noun phrase a verb governs: "a GitHub issue about the
    login bug" -> ["issue"], "the pull request and the issue" -> ["pull_request", "issue"]. Each
    conjunct gives its head noun when the vocabulary knows it, else the known nouns in it."""
    phrase: list[tx.Token] = []
    for t in obj:
        if t.literal or (t.norm in lx.OBJECT_STOPS and not (phrase == [] and t.norm == "re")):
            break
        phrase.append(t)
        if any(ch in t.trail for ch in ";:!?."):
            break
    conjuncts: list[list[tx.Token]] = [[]]
    for t in phrase:
        if t.norm in ("and", "or", "&", "plus"):
            conjuncts.append([])
            continue
        conjuncts[-1].append(t)
        if t.trail.startswith(","):
            conjuncts.append([])
    out: list[str] = []
    for part in conjuncts:
        nouns = [
            t
            for t in part
            if t.norm not in lx.OBJECT_SKIP and not re.match(r"^#?[0-9][\w.-]*$|^[a-z]+-[0-9]+$", t.norm)
        ]
        found: list[str] = []
        for k, t in enumerate(nouns):
            base = t.norm[:-2] if t.possessive else t.norm
            prev = nouns[k - 1].norm if k > 0 else ""
            obj_name = lx.OBJECT_COMPOUNDS.get((prev, base)) or lx.OBJECT_NOUNS.get(base) or _file_object(t)
            if obj_name:
                found.append(obj_name)
        if not found:
            continue
        head = nouns[-1].norm if nouns else ""
        prev = nouns[-2].norm if len(nouns) > 1 else ""
        head_obj = (
            lx.OBJECT_COMPOUNDS.get((prev, head))
            or lx.OBJECT_NOUNS.get(head)
            or (_file_object(nouns[-1]) if nouns else "")
        )
        for o in [head_obj] if head_obj else found:
            if o not in out:
                out.append(o)
    if not out and lemma == "comment":
        out.append("comment")
    return out


def _max_calls(text: str) -> int | None:
    low = text.lower()
    m = _MAX_CALLS.search(low)
    if m:
        return max(1, int(m.group(1)))
    if re.search(r"\bonce\b", low) and not re.search(r"\bonce (?:you|it|the|that|this|i|we|done)\b", low):
        return 1
    if re.search(r"\btwice\b", low):
        return 2
    return None


def _evidence(c: _Clause) -> str:
    """The clause, verbatim, without the connective that joined it to the one before."""
    toks = c.toks
    k = 0
    while k < c.i and not toks[k].literal and toks[k].norm in _LEADING_CONNECTIVES:
        k += 1
    return c.clause.text[toks[k].start - c.clause.start :] if k < len(toks) else c.clause.text


def _grant(c: _Clause, cls: str, cap: str, **kw: object) -> DraftGrant:
    g = DraftGrant.model_validate({"class": cls, "capability": cap, "evidence": _evidence(c), **kw})
    if cls in ("COMMUNICATION", "EXTERNAL_WRITE", "FINANCIAL") and g.max_calls is None:
        g.max_calls = _max_calls(c.clause.text)
    return g


def _publish(c: _Clause) -> DraftGrant:
    """An external write bounded by the domains and services named, the things it acts on
    (hardening adds the kinds of action its verbs ask for) and the people it reaches."""
    services = _services(c)
    return _grant(
        c,
        "EXTERNAL_WRITE",
        "publish",
        # "the Monday.com board": the service's own domain names the service, not a site
        domains=[d for d in _domains(c.obj) if f"mcp__{d.split('.')[0]}__*" not in services],
        tools=services,
        recipients=_recipients(c),
        objects=objects_of(c.obj, c.lemma),
        max_calls=_max_calls(c.clause.text) or _one(c),
    )


def _one(c: _Clause) -> int | None:
    """ "create an issue", "open one PR", "schedule a meeting": one new thing, so one call."""
    if lx.OPERATION_OF.get(c.lemma) != "create":
        return None
    obj = [t for t in c.obj if not t.literal]
    if not obj or obj[0].norm not in ("a", "an", "one", "single"):
        return None
    if re.search(r"\b(?:every|each|daily|weekly|monthly|recurring)\b", c.clause.text, re.I):
        return None  # "a focus block every morning": one a day
    for t in obj[1:]:
        if t.norm in lx.OBJECT_STOPS or t.norm in ("and", "or", "&", "plus") or t.trail.startswith(","):
            break
        if t.norm in ("few", "couple", "bunch", "list", "set", "number", "series", "lot", "batch", "pair"):
            return None
        base = t.norm[:-1] if t.norm.endswith("s") else ""
        if base and lx.OBJECT_NOUNS.get(base) and lx.OBJECT_NOUNS.get(base) == lx.OBJECT_NOUNS.get(t.norm):
            return None  # "a dozen issues": more than one
    return 1


def _access(c: _Clause) -> str:
    """The access a share gives: "write" for "with edit access", "comment", else "read"."""
    found = {lx.ACCESS_WORDS[w] for w in c.words if w in lx.ACCESS_WORDS}
    return "write" if "write" in found else "comment" if "comment" in found else "read"


def _packages(tokens: tuple[tx.Token, ...]) -> list[str]:
    out: list[str] = []
    for t in tokens:
        if not t.literal and t.norm in _COMMAND_STOP - {"and"}:
            break
        name = t.core.strip(",")
        if t.literal:
            out.extend(w for w in name.split() if not w.startswith("-"))
            continue
        if t.norm in _PACKAGE_NOISE or t.norm in lx.GENERIC_OBJECTS or name.startswith("-"):
            continue
        if re.match(
            r"^@?[A-Za-z0-9][A-Za-z0-9._\-/\[\],]*(?:[=<>~!]=?[A-Za-z0-9.*]+)?$", name
        ) and not tx.is_path_like(name):
            out.append(name)
        else:
            break
    return list(dict.fromkeys(out))


_INSTRUMENT_WORDS = frozenset(words("with using via through"))
_INSTRUMENT_NOISE = frozenset(words("the a an this that command commands script cli tool one-liner"))


def instrument_literals(toks: tuple[tx.Token, ...], verb: int) -> list[str]:
    """Literal commands a request names as the way to do it: "clear the cache with `rm -rf
    .cache`", "… using the command `x`", "… by running `x`". Whitespace-normalized."""
    out: list[str] = []
    for k in range(verb + 1, len(toks)):
        if not toks[k].literal:
            continue
        j = k - 1
        while j > verb and not toks[j].literal and toks[j].norm in _INSTRUMENT_NOISE:
            j -= 1
        if j <= verb or toks[j].literal:
            continue
        w = toks[j].norm
        by_running = lx.lemma(w) in lx.RUN_VERBS and j - 1 > verb and toks[j - 1].norm == "by"
        if w in _INSTRUMENT_WORDS or by_running:
            cmd = " ".join(toks[k].core.split())
            if cmd and cmd not in out:
                out.append(cmd)
    return out


def instrument_grants(c: _Clause) -> list[DraftGrant]:
    """A request to act that names the literal command to do it with asks to run that command:
    Rego then covers that command's own actions, exactly as named (lib/grants.rego)."""
    if c.lemma in lx.READ_VERBS:
        return []
    found = instrument_literals(c.toks, c.i)
    return [_grant(c, "EXECUTION", "run_command", commands=found)] if found else []


def _command_head(t: tx.Token) -> bool:
    """Does the token start a command: a known program, ./x, or a path to a script?"""
    return (
        t.norm in lx.COMMAND_STARTS
        or t.core.startswith("./")
        or (tx.is_path_like(t.core) and t.core.rsplit(".", 1)[-1] in _SCRIPT_EXTS)
    )


_RUN_NOISE = frozenset(words("the a an command script program binary file off in at called named"))
_RUN_PREPOSITIONS = frozenset(words("on for against in with over from across"))
# Runners named by their program ("run mypy over the package"): what follows a preposition is prose.
_RUNNER_HEADS = frozenset(words("mypy pytest ruff flake8 pylint eslint tsc jest vitest tox black prettier"))
_RUN_POINTERS = frozenset(words("it them me us that this those these everything"))
_SCRIPT_EXTS = ("sh", "py", "js", "rb", "pl", "bash", "go", "ts", "mjs", "php")


def _run(c: _Clause) -> list[DraftGrant] | str:
    obj = c.obj
    lits = [t.core for t in obj if t.literal]
    if lits:
        return [_grant(c, "EXECUTION", "run_command", commands=[" ".join(x.split()) for x in lits])]
    words = c.words
    start = next((k for k, t in enumerate(obj) if t.norm not in _RUN_NOISE), None)
    if start is not None and words & {"script", "program", "binary"} and not _command_head(obj[start]):
        # "run the notebook export script at scripts/export_nb.py": the script is named further on
        start = next((k for k, t in enumerate(obj) if _command_head(t) and not t.literal), start)
    if start is not None:
        head = obj[start]
        if (
            head.norm in lx.COMMAND_STARTS
            or head.core.startswith("./")
            or (tx.is_path_like(head.core) and head.core.rsplit(".", 1)[-1] in _SCRIPT_EXTS)
        ):
            parts: list[str] = []
            script_head = head.norm not in lx.COMMAND_STARTS
            rest = obj[start:]
            for k, t in enumerate(rest):
                if not t.literal and t.norm in _COMMAND_STOP:
                    break
                nxt = rest[k + 1] if k + 1 < len(rest) else None
                if (
                    k > 0
                    and not t.literal
                    and t.norm in _RUN_PREPOSITIONS
                    and nxt is not None
                    and not nxt.literal
                    and (
                        nxt.norm in _RUN_POINTERS
                        or (nxt.norm in _DETERMINERS and head.norm in lx.COMMAND_STARTS | _RUNNER_HEADS)
                    )
                ):
                    # "run node scripts/check-links.js on it", "run mypy over the package": words
                    # about what it runs on, not arguments
                    break
                # "run scripts/x.py for me", "run ./x.sh on it": a script's words after it are
                # arguments only when they look like ones (an option, a path, a literal)
                if (
                    script_head
                    and k > 0
                    and not (t.literal or t.core.startswith("-") or tx.is_path_like(t.core))
                ):
                    break
                parts.append(t.core)
                if t.trail and t.trail[0] in ",;":
                    break
            placed = placed_files(obj)
            if parts and script_head and start in placed:
                parts[0] = placed[start][0]  # "run generate_fixtures.py in the tests folder"
            runner = _runner_capability({p.lower() for p in parts})
            if runner and head.norm in lx.COMMAND_STARTS and len(parts) <= 2:
                return [_grant(c, "EXECUTION", runner)]
            return [_grant(c, "EXECUTION", "run_command", commands=[" ".join(parts)])]
    caps = _all_runner_capabilities(words)
    if caps:
        return [_grant(c, "EXECUTION", cap) for cap in caps]
    return [_grant(c, "EXECUTION", "run_command")]


def _all_runner_capabilities(words: set[str]) -> list[str]:
    out = []
    if words & lx.TEST_WORDS:
        out.append("run_tests")
    if words & lx.BUILD_WORDS:
        out.append("run_build")
    if words & lx.LINT_WORDS:
        out.append("run_lint")
    if words & lx.FORMAT_WORDS:
        out.append("run_format")
    return out


def _runner_capability(words: set[str]) -> str:
    caps = _all_runner_capabilities(words)
    return caps[0] if caps else ""


_MOVES = frozenset(words("move copy mv cp"))


def moves_from_before(c: _Clause) -> bool:
    """ "tidy up ~/Downloads: move every PDF in it into ~/Documents/PDFs": a move or copy out of
    the place the clause before names ("in it", "from there"), which it writes too."""
    norms = [t.norm for t in c.obj if not t.literal]
    return (
        c.lemma in _MOVES
        and bool(c.before)
        and any(
            (w in _POINTERS and k > 0 and norms[k - 1] in ("in", "from", "of")) or w == "there"
            for k, w in enumerate(norms)
        )
    )


def _edit(c: _Clause, workspace: bool = True) -> list[DraftGrant]:
    paths = _paths(c.obj)
    if moves_from_before(c):
        paths = [*_paths(c.before), *(p for p in paths if p not in _paths(c.before))]
    return [_grant(c, "LOCAL_WRITE", "edit", paths=paths, workspace=workspace or not paths)]


_GOING = frozenset(words("running going up sure started"))
# "schedule a meeting with Ann" is a calendar event (an external write), not a job for the agent.
_CALENDAR_WORDS = frozenset(
    words("meeting meetings call event events appointment invite calendar standup sync")
)
_PIP_FRESH = frozenset(words("latest outdated up-to-date date newest"))
_PIP_COMPANIONS = ("wheel", "setuptools")
_GIT_VERBS = frozenset(words("pull revert undo pop apply cherry cherry-pick mv rename move"))


_NOT_REF_NAMES = frozenset(words("locally remotely too also now again first please everywhere here there"))


def _ref_names(obj: tuple[tx.Token, ...]) -> list[str]:
    """Branch or tag names the object names ("the merged branch feature/auth", "hotfix-12")."""
    out = []
    for k, t in enumerate(obj):
        if t.literal or t.norm in lx.REF_WORDS or t.norm in _DETERMINERS or t.norm in _NOT_REF_NAMES:
            continue
        name = t.core.strip(",.;:()")
        before = obj[k - 1].norm if k > 0 else ""
        if before in ("called", "named") and k > 1:
            before = obj[k - 2].norm
        # "the branch feature/auth", "hotfix-12 branch"; not "the merged branch", "local branch"
        looks = before in lx.REF_WORDS or bool(re.search(r"[/\d-]", name))
        if looks and _ref_name(obj, k) and re.match(r"^[A-Za-z0-9][A-Za-z0-9._/-]*$", name):
            out.append(name)
    return list(dict.fromkeys(out))


_FOLDER_PLURALS = frozenset(words("folders directories dirs"))


def _folders_named(obj: tuple[tx.Token, ...]) -> list[str]:
    """ "the dist and build directories": plain names before a closing folder word are folders."""
    toks = [t for t in obj if not t.literal]
    while toks and toks[0].norm in ("out", "up", "away", "off"):
        toks = toks[1:]  # "clean out the dist and build directories"
    if not toks or toks[-1].norm.strip(".,") not in lx.FOLDER_WORDS | _FOLDER_PLURALS:
        return []
    names = [t.core.strip(",") for t in toks[:-1] if t.norm not in _DETERMINERS | {"and", ",", "both"}]
    ok = all(re.match(r"^[A-Za-z0-9_.-]+$", n) and n.lower() not in lx.GENERIC_OBJECTS for n in names)
    return names if ok and names else []


def _after_pull(toks: tuple[tx.Token, ...]) -> bool:
    n = [t.norm for t in toks if not t.literal] + ["", ""]
    return any(
        n[k] in ("after", "once")
        and (n[k + 1] in ("pull", "pulling") or (n[k + 1] in ("you", "we") and n[k + 2] == "pull"))
        for k in range(len(n) - 2)
    )


# "load sales.csv and tell me ...", "summarise survey.xlsx": a data file read takes code.
_DATA_VERBS = frozenset(words("load summarize summarise analyze analyse aggregate crunch"))
_DATA_FILE = re.compile(r"^[\w./~-]+\.(?:csv|tsv|xlsx|xls|parquet|feather|jsonl|ndjson|sqlite|db|ods)$", re.I)


def data_files(toks: tuple[tx.Token, ...]) -> list[str]:
    return [t.core for t in toks if not t.literal and _DATA_FILE.match(t.core)]


def _code_grants(c: _Clause) -> list[DraftGrant]:
    """A computation, parse or plot in execute_code: its code and the files it writes in the
    workspace (Rego covers only code that runs no command, opens no connection, evaluates no
    text and writes nothing outside the workspace)."""
    return [_grant(c, "EXECUTION", "run_code"), _grant(c, "LOCAL_WRITE", "run_code", workspace=True)]


_OPERATE_STOPS = frozenset(
    words("in on to at for with from there here so because via using through by after before then now please")
)
_OPERATE_PARTICLES = frozenset(words("back up down"))
_OPERATE_NAME = re.compile(r"^[a-z0-9][a-z0-9._/:-]*$")


def operation(c: _Clause) -> str:
    """The operation a clause asks for on a named object ("restart the nginx service", "roll back
    the web deployment", "bring the dev containers up"), or "" (rego/opafence/classify/ops)."""
    near = [t.norm for t in c.obj[:8] if not t.literal]
    op = next((o for (v, p), o in lx.PARTICLE_OPERATIONS.items() if v == c.lemma and p in near), "")
    op = op or lx.OPERATIONS.get(c.lemma, "")
    if not op or not c.context_words & (lx.OPERATE_KINDS | lx.OPERATE_PROGRAMS):
        return ""
    return op


@dataclass(frozen=True)
class Operated:
    """What an operation names: the objects, their kinds, where they live, the counts it sets."""

    names: list[str]
    kinds: list[str]
    scopes: list[str]
    counts: list[str]
    stack: bool  # a whole compose project ("the dev containers", "the local stack")


def _scope_words(toks: tuple[tx.Token, ...] | list[tx.Token]) -> list[str]:
    """ "in the batch namespace", "in prod", "on eu-west-1": where an object lives."""
    out: list[str] = []
    for k, t in enumerate(toks):
        if t.literal or t.norm not in ("in", "on"):
            continue
        for u in toks[k + 1 : k + 4]:
            w = u.core.strip(",.;:()").lower()
            if u.literal or w in _DETERMINERS or w in lx.OPERATE_SCOPE_NOUNS:
                if u.trail:
                    break
                continue
            if w in _OPERATE_STOPS or not _OPERATE_NAME.match(w):
                break
            out.append(w)
            break
    return list(dict.fromkeys(out))


def operated(c: _Clause, previous: tuple[tx.Token, ...] = ()) -> Operated:
    """The objects, kinds, scopes and counts of an operation's clause; "there" takes the scope
    of the clause before (`previous`)."""
    names: list[str] = []
    kinds: list[str] = []
    qualified = False
    obj = c.obj
    end = len(obj)
    for k, t in enumerate(obj):
        w = t.core.strip(",.;:()").lower()
        if not t.literal and (w in _OPERATE_STOPS or (w == "and" and kinds)):
            end = k
            break
        if not t.literal and (w in _DETERMINERS or w in _OPERATE_PARTICLES or w in ("and", ",")):
            continue
        if not t.literal and w in lx.OPERATE_KINDS:
            kinds.append(w)
        elif not t.literal and w in lx.OPERATE_QUALIFIERS | lx.OPERATE_PROGRAMS:
            qualified = True
        elif _OPERATE_NAME.match(w) and not (not t.literal and w in lx.GENERIC_OBJECTS):
            names.append(w[:-2] if t.possessive else w)
        if t.trail and t.trail[0] in ",;" and kinds:
            end = k + 1
            break
    rest = obj[end:]
    scopes = _scope_words(rest)
    if not scopes and any(t.norm in ("there", "here") for t in rest) and previous:
        scopes = _scope_words(previous)
    counts = [
        t.core.strip(",.;:()")
        for k, t in enumerate(rest)
        if re.match(r"^[0-9]{1,6}$", t.core.strip(",.;:()"))
        and k > 0
        and rest[k - 1].norm in ("to", "revision", "replicas", "of", "at")
    ]
    stack = not names and (bool(set(kinds) & lx.OPERATE_STACKS) or qualified)
    return Operated(list(dict.fromkeys(names)), list(dict.fromkeys(kinds)), scopes, counts, stack)


def backs_out(c: _Clause) -> bool:
    """ "back out commit c0ffee1 with git revert": a revert of the commit named."""
    return (
        c.lemma == "back"
        and bool(c.obj)
        and c.obj[0].norm == "out"
        and bool(c.words & {"commit", "commits", "git", "revert"})
    )


def names_test(w: str) -> bool:
    """ "test_login", "login_test", "tests/test_api.py", "the tests": a word that names tests."""
    return w in lx.TEST_WORDS or bool(re.match(r"^(?:tests?/|test_\w+|\w+_test\b|\w+\.test\.)", w))


def _family(c: _Clause) -> list[DraftGrant] | None:
    """Everyday requests named by what they act on (issue 14): the dev server, migrations, a
    virtualenv, the project's dependencies, pip itself, a computation in code, a merged branch."""
    lem, ws, obj = c.lemma, c.words, c.obj
    cw = c.context_words
    if "document.title" in cw or ("title" in cw and "console" in ws):
        return [_grant(c, "EXECUTION", "page_title")]
    if lem in lx.BROWSE_VERBS or (
        lem in lx.CAPABILITY_VERBS[("EXTERNAL_WRITE", "browse")]
        and lem not in ("open", "go", "visit", "navigate")
        and ws & lx.BROWSE_WORDS
    ):
        # the page comes from the sentence that names it (compile_rules, _page_of)
        return [_grant(c, "EXTERNAL_WRITE", "browse", domains=_domains(c.toks))]
    if "skill" in ws and lem in lx.CAPABILITY_VERBS[("MEMORY_WRITE", "skill")]:
        return [_grant(c, "MEMORY_WRITE", "skill")]
    if (
        lem == "remind"
        or (lem == "schedule" and not ws & _CALENDAR_WORDS)
        or (lem == "wake" and c.obj and c.obj[0].norm == "me")
    ):
        # "wake me at 6:45 with a message saying ...": a reminder to the owner
        return [_grant(c, "EXECUTION", "schedule")]
    if lem in lx.CAPABILITY_VERBS[("EXECUTION", "schedule")] and (
        (ws if lem in ("pause", "resume") and not ws & {"called", "named"} else cw)
        & {"reminder", "reminders", "timer", "alarm", "cron", "cronjob", "job", "jobs"}
        or (lem in ("ping", "notify", "message") and obj and obj[0].norm == "me" and ws & lx.SCHEDULE_WORDS)
    ):
        return [_grant(c, "EXECUTION", "schedule")]
    if lem in lx.CAPABILITY_VERBS[("EXECUTION", "run_server")] and (
        lem == "serve"
        or (
            cw & lx.SERVER_WORDS
            and cw & lx.SERVER_QUALIFIERS
            and (lem not in ("make", "keep", "get") or ws & _GOING)
        )
        or ("dev" in cw and cw & {"mode", "app", "server"})
    ):
        return [_grant(c, "EXECUTION", "run_server")]
    if operation(c):
        # "restart the nginx service": hardening binds it to the objects, scopes and counts named
        return [_grant(c, "EXECUTION", "operate"), _grant(c, "EXTERNAL_WRITE", "operate")]
    if lem in lx.CAPABILITY_VERBS[("EXECUTION", "run_migrations")] and (
        ws & lx.MIGRATION_WORDS or (lem == "migrate" and (ws & lx.DATABASE_WORDS or not ws))
    ):
        return [_grant(c, "EXECUTION", "run_migrations")]
    if lem in lx.CAPABILITY_VERBS[("EXECUTION", "create_venv")] and (
        ws & lx.VENV_WORDS
        or ("virtual" in ws and ws & {"environment", "env"})
        or ("env" in ws and ws & {"python", "uv", "fresh", "conda-free"})
    ):
        return [_grant(c, "EXECUTION", "create_venv")]
    if "pip" in cw | {c.tool} and (lem in ("upgrade", "update", "bump") or ws & _PIP_FRESH):
        return [_grant(c, "EXECUTION", "install", packages=["pip", *(p for p in _PIP_COMPANIONS if p in ws)])]
    if (
        lem in lx.CAPABILITY_VERBS[("EXECUTION", "install")]
        and ws & lx.DEPENDENCY_WORDS
        and not _packages(obj)
    ):
        return [_grant(c, "EXECUTION", "install")]
    if (
        lem in lx.CODE_VERBS
        or (lem == "work" and "out" in ws)
        or (lem in ("use", "analyze", "analyse") and ws & lx.CODE_TOOLS)
    ):
        return _code_grants(c)
    if lem in lx.DELETE_VERBS | {"clean", "prune"} and ws & {"branch", "branches"}:
        refs = _ref_names(obj)
        if not refs and refers_back(c):
            # "feature/search was merged; please remove that branch locally"
            refs = [
                t.core.strip(",.;:()")
                for t in c.before
                if not t.literal
                and re.match(r"^[A-Za-z0-9][A-Za-z0-9._/-]*[/-][A-Za-z0-9._/-]+$", t.core.strip(",.;:()"))
            ]
            # a name that starts a sentence carries a capital the branch may not have
            refs += [r[0].lower() + r[1:] for r in refs if r[:1].isupper()]
        if refs:
            cmds = [f"git branch {flag} {r}" for r in refs for flag in ("-d", "--delete")]
            files = [p for p in _paths(obj) if p not in refs]
            also = [_grant(c, "DELETE", "delete", paths=files)] if files else []
            return [*also, _grant(c, "DELETE", "delete_branch", commands=cmds)]
    if backs_out(c):
        # "back out commit c0ffee1": a revert
        return [_grant(c, "LOCAL_WRITE", "commit", workspace=True)]
    if lem == "bisect":
        # "bisect which commit broke test_login": git bisect in the workspace, and the tests it
        # runs at each step when the words name a test
        found = [_grant(c, "LOCAL_WRITE", "commit", workspace=True)]
        if any(names_test(t.norm) for t in c.toks):
            found.append(_grant(c, "EXECUTION", "run_tests"))
        return found
    if (c.tool == "git" or "git" in ws) and lem in _GIT_VERBS | lx.COMMIT_VERBS | {"rename", "move"}:
        paths = _paths(obj)
        return [_grant(c, "LOCAL_WRITE", "commit", paths=paths, workspace=True)]
    if (
        lem in ("pull", "revert", "cherry", "cherry-pick")
        or (lem in ("pop", "apply") and "stash" in ws)
        or (lem == "undo" and ws & {"commit", "revert"})
        or (lem in ("update", "sync") and ws & {"remote", "upstream", "origin"})
    ):
        return [_grant(c, "LOCAL_WRITE", "commit", workspace=True)]
    return None


_PRONOUNS = frozenset(words("it one them that this those these"))
_REFUND_VERBS = frozenset(words("refund reimburse"))
_REF_NOUNS = frozenset(
    words(
        "charge charges payment payments order orders invoice invoices transaction transactions receipt "
        "capture purchase booking"
    )
)
_REF_ID = re.compile(r"^[a-z]{2,5}_[A-Za-z0-9]{2,}$|^[A-Za-z]{1,6}-?[0-9][A-Za-z0-9-]*$|^#?[0-9]{3,}$")


def named_refs(obj: tuple[tx.Token, ...]) -> list[str]:
    """The charges, payments or orders a refund names: "charge ch_3Nq8", "order 8812's charge",
    "invoice INV-2041", "#4412". A bare number counts only after such a noun or with "#"."""
    out: list[str] = []
    for k, t in enumerate(obj):
        core = (t.core[:-2] if t.possessive else t.core).strip(",.;:()")
        if not _REF_ID.match(core) or tx.is_recipient(core) or _MONEY.search(core):
            continue
        prev = obj[k - 1].norm if k > 0 else ""
        if re.match(r"^[0-9]+$", core) and prev not in _REF_NOUNS and prev not in ("number", "no", "id"):
            continue
        ref = core.lstrip("#").lower()
        if len(ref) >= 3 and ref not in out:
            out.append(ref)
    return out


_ISSUE_NOUNS = frozenset(
    words("issue issues ticket tickets pr prs mr mrs bug bugs request requests number no story card")
)
_ISSUE_KEY = re.compile(r"^[A-Za-z][A-Za-z0-9]{1,9}-[0-9]+$")


def issue_refs(toks: tuple[tx.Token, ...]) -> list[str]:
    """The issues and pull requests the words name: "issue 77", "PR #482", "ENG-311"."""
    out: list[str] = []
    for k, t in enumerate(toks):
        if t.literal:
            continue
        core = (t.core[:-2] if t.possessive else t.core).strip(",.;:()")
        prev = toks[k - 1].norm if k > 0 else ""
        if _ISSUE_KEY.match(core) and not re.match(r"^(?:utf|iso|sha|md|rfc|pep|cve)-", core, re.I):
            ref = core.lower()
        elif re.match(r"^[#!][0-9]+$", core) or (re.match(r"^[0-9]+$", core) and prev in _ISSUE_NOUNS):
            ref = core.lstrip("#!")  # "#482", GitLab's "!58"
        else:
            continue
        if ref not in out:
            out.append(ref)
    return out


_SOURCE_WORDS = frozenset(words("from using out"))


def grants_for(c: _Clause) -> list[DraftGrant] | str:
    """The grants one imperative clause asks for, or why it asks for none."""
    lem, words, obj = c.lemma, c.words, c.obj
    first = obj[0].norm if obj else ""
    family = _family(c)
    if family is not None:
        return family

    if (c.tool and (c.tool, lem) in lx.INSTALL_TOOLS) or lem in (
        "upgrade",
        "install",
        "reinstall",
        "installiere",
        "installe",
        "instala",
    ):
        return [_grant(c, "EXECUTION", "install", packages=_packages(obj))]
    if lem == "tell" and first in ("me", "us", "mir", "moi", "me"):
        return "an answer to the owner, not a message"
    service = services.service_request(c)
    if service is not None:
        return service
    if lem in ("let",):
        return "not an action"
    if lem == "get" and first == "rid" and len(obj) > 1 and obj[1].norm == "of":
        return grants_for(_Clause(c.clause, c.i + 2, "rid", c.tool))

    # memory
    if (
        lem in lx.MEMORY_VERBS
        or (lem == "note" and not _paths(obj) and first not in ("the", "down", "it", "this"))
        or (lem == "note" and (first == "that" or words & {"memory", "memories"}))
        or (lem == "make" and "note" in words and words & {"memory", "memories"})
        or (lem == "forget" and first in ("that", "what", "everything"))
        or (lem == "keep" and "mind" in words)
        or (
            lem in ("save", "store", "add", "update", "write", "jot", "put")
            and words & {"memory", "memories"}
        )
    ):
        if lem == "remember" and first == "to":
            return "a reminder of what to do, not something to store"
        return [_grant(c, "MEMORY_WRITE", "remember")]

    # permissions
    if lem in lx.PERMISSION_VERBS or (lem in _PERMISSION_SETTERS and _permission_object(obj)):
        return [
            _grant(
                c,
                "PERMISSION_CHANGE",
                "chmod",
                paths=[p for p in _paths(obj) if not re.match(r"^[0-7]{3,4}$", p)],
            )
        ]

    recipients = _recipients(c)
    if lem == "drop" and (first == "me" or any(t.core.startswith("#") for t in obj)):
        # "drop me a note in #ops", "drop the numbers in #dana-notes": a message, not a delete
        return [_grant(c, "COMMUNICATION", "send", recipients=recipients)]
    if lem in ("send", "transfer", "wire") and _MONEY.search(c.clause.text) and not words & _MONEY_PAPERS:
        # "send $50 to alice@x.com": money, not a message; the payee's address bounds it
        return [_grant(c, "FINANCIAL", "pay", recipients=recipients)]

    # communication
    if lem in lx.SEND_VERBS or (lem in ("write", "post", "share", "answer") and recipients):
        if lem == "share" and not recipients and (_domains(obj) or _services(c)):
            return [_publish(c)]
        send = [_grant(c, "COMMUNICATION", "send", recipients=recipients)]
        if lem in ("share", "invite") and recipients:
            # sharing gives the people named access: read unless the words say more
            return [*send, _grant(c, "PERMISSION_CHANGE", "share", recipients=recipients, access=_access(c))]
        return send

    if lem == "push":
        return [_grant(c, "EXTERNAL_WRITE", "push")]

    if lem in lx.PUBLISH_VERBS or lem in ("comment", "deploy"):
        return [_publish(c)]

    # payments
    if lem in _REFUND_VERBS:
        # "refund charge ch_3Nq8": hardening bounds it to the charges, payments or orders named
        return [_grant(c, "FINANCIAL", "pay", tools=_services(c), objects=objects_of(obj))]
    if lem in lx.PAY_VERBS or lem in ("order", "book", "reserve", "checkout", "rent", "spend"):
        if lem == "order" and first in ("by", "alphabetically", "chronologically", "them", "these"):
            return "ordering a list, not a purchase"
        booked = words
        if first in _PRONOUNS and c.before:
            # "find a free room for 6 and reserve it": the room of the clause before
            booked = words | {t.norm for t in c.before if not t.literal}
        if lem in ("book", "reserve") and booked & _FREE_BOOKINGS and not booked & _PAID_BOOKINGS:
            return [_publish(c)]
        if lem == "checkout":
            return [_grant(c, "LOCAL_WRITE", "commit", workspace=True)]
        # "buy it on shop.example.com" bounds the purchase to a site; "buy example.dev" names the thing.
        sites = [d for d in _domains(obj) if _after_preposition(obj, d)]
        return [_grant(c, "FINANCIAL", "pay", domains=sites, recipients=recipients, objects=objects_of(obj))]

    # git bookkeeping
    if (
        lem in lx.COMMIT_VERBS
        or lem in ("branch", "switch")
        or (
            lem in ("create", "make", "open", "start", "rename", "delete")
            and words & {"branch", "commit", "tag"}
            and not words & (_OPEN_OBJECTS - {"request"})
            and not _paths(obj)
        )
        or (lem == "check" and first == "out")
        or (lem == "merge" and not words & {"pr", "prs", "pull", "mr"})
        or (lem == "add" and c.tool == "git")
    ):
        return [_grant(c, "LOCAL_WRITE", "commit", workspace=True)]

    # external records: issues, PRs, tickets, CRM entries, calendar events
    if lem in (
        "update",
        "create",
        "add",
        "open",
        "file",
        "make",
        "edit",
        "merge",
        "close",
        "schedule",
        "submit",
    ) and (
        _services(c)
        # "add 'renew passport' to my Todoist": a server of the session's tools named
        or (bool(c.services) and any(t.norm.split(".")[0] in c.services for t in obj if not t.literal))
        or (
            words & lx.EXTERNAL_OBJECTS
            and (lem != "open" or words & _OPEN_OBJECTS)
            # "add a note for the meeting to notes.md": a file, no service or site
            and not (_paths(obj) and not _domains(obj))
        )
    ):
        return [_publish(c)]

    # deletion
    if lem in lx.DELETE_VERBS or lem in ("clear", "drop", "clean", "discard", "rid"):
        if lem == "clean" and _paths(obj):
            # "clean out the dist/ folder": the named build output goes
            return [_grant(c, "DELETE", "delete", paths=_paths(obj))]
        named = _folders_named(obj)
        if named and not _paths(obj):
            # "clean the dist and build directories"
            return [_grant(c, "DELETE", "delete", paths=named)]
        if lem in ("clean", "discard") or (lem == "clear" and first == "up"):
            return _edit(c)
        if lem == "rid" and first == "of":
            obj = obj[1:]
        norms = [t.norm for t in obj]
        if "from" in norms:
            k = norms.index("from")
            before, after = _paths(obj[:k]), _paths(obj[k + 1 :])
            if after and not before:
                return [_grant(c, "LOCAL_WRITE", "edit", paths=after, workspace=True)]
        paths = _paths(obj)
        if lem in ("rm", "unlink"):
            # a typed command: every operand is a path ("rm -rf node_modules")
            paths = [t.core for t in obj if not t.literal and not t.core.startswith("-")] or paths
        if not paths and words & lx.CODE_OBJECTS:
            return _edit(c)
        if not paths and words & lx.PATHLESS_OBJECTS:
            # "delete the spam emails": no file; bounded to the service when one is named
            return [_grant(c, "DELETE", "delete", tools=_services(c), objects=objects_of(obj))]
        return [_grant(c, "DELETE", "delete", paths=paths)]

    # runners and commands
    if lem in lx.RUN_VERBS or (lem == "start" and any(t.literal for t in obj)):
        return _run(c)
    if lem == "test":
        return [_grant(c, "EXECUTION", "run_tests")]
    if lem in ("lint", "typecheck", "type-check"):
        return [_grant(c, "EXECUTION", "run_lint")]
    if lem in ("format", "reformat", "prettify", "autoformat"):
        return [_grant(c, "EXECUTION", "run_format")]
    if lem in ("build", "compile", "rebuild"):
        if first in ("a", "an", "me", "us") or words & lx.CODE_OBJECTS - {"project", "code"}:
            return _edit(c)
        return [_grant(c, "EXECUTION", "run_build")]

    # "back up ~/thesis to /media/usb/backup": the copy is written where it goes; the source is read
    if lem == "backup" or (lem == "back" and first == "up"):
        norms = [t.norm for t in obj]
        at = next((k for k, w in enumerate(norms) if w in ("to", "into", "onto", "at", "on")), None)
        dest = _paths(obj[at + 1 :]) if at is not None else []
        if dest:
            return [_grant(c, "LOCAL_WRITE", "edit", paths=dest)]
        return "a backup names no place it is written to"
    # writing files
    if lem in lx.WRITE_VERBS:
        paths = _paths(obj)
        if paths:
            return [_grant(c, "LOCAL_WRITE", "edit", paths=paths)]
        if words & lx.CODE_OBJECTS:
            return _edit(c)
        return "drafting text writes no file"
    if lem in (
        "save",
        "download",
        "generate",
        "export",
        # an archive of something, written where the user says ("package the source into x.tgz")
        "package",
        "compress",
        "zip",
        "tar",
        "bundle",
        "speichere",
        "speichern",
        "enregistre",
        "sauvegarde",
        "guarda",
        "guardar",
        "salva",
    ):
        paths = _paths(obj)
        return [_grant(c, "LOCAL_WRITE", "edit", paths=paths, workspace=not paths)]
    if lem == "make":
        # "make a chart from mau.csv": what it is made from is read, not written
        made = _paths(obj[: next((k for k, t in enumerate(obj) if t.norm in _SOURCE_WORDS), len(obj))])
        if made:
            return [_grant(c, "LOCAL_WRITE", "edit", paths=made)]
        if _paths(obj):
            return "'make' from a file writes none it names"
        if words & (lx.CODE_OBJECTS | {"pass", "passes", "work", "works", "changes", "change", "green"}):
            return _edit(c)
        return "'make' without a file or code object"
    if lem in lx.EDIT_VERBS:
        return _edit(c)
    into = _written_into(c)
    if into:
        return [_grant(c, "LOCAL_WRITE", "edit", paths=into)]
    return "reads need no grant"


# Verbs that put what they find somewhere when the words say where: "collect them in TODO.md",
# "apply the renames it lists to src/app.py". Only a file (a name with an extension) after the
# preposition is written; "collect the logs in /var/log" reads.
_WRITES_INTO: dict[str, frozenset[str]] = {
    "collect": frozenset(words("in into to")),
    "gather": frozenset(words("in into to")),
    "dump": frozenset(words("in into to")),
    "record": frozenset(words("in into to")),
    "consolidate": frozenset(words("in into to")),
    "apply": frozenset(words("to")),
}


def _written_into(c: _Clause) -> list[str]:
    preps = _WRITES_INTO.get(c.lemma)
    if not preps:
        return []
    norms = [t.norm for t in c.obj]
    at = next((k for k, w in enumerate(norms) if w in preps), None)
    if at is None:
        return []
    found = _paths(c.obj[at + 1 : at + 4])
    return [p for p in found if re.search(r"\.[A-Za-z0-9]{1,8}$", p)]


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


def _bounds(cls: list[tx.Clause], notes: list[Note]) -> DraftBounds:
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
            inside = [p for p in _paths(tuple(kept)) if p not in bounds.write_paths]
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
            for p in _paths(tuple(after)):
                if p not in bounds.write_paths:
                    bounds.write_paths.append(p)
                    found.append(p)
            if found:
                notes.append(Note(clause.text, "bound", "writes only in " + ", ".join(found)))
            continue
        if norms & _PATH_BOUND_VERBS or cue.startswith(
            ("stay", "do", "don", "never", "anything", "every", "file", "nothing")
        ):
            for p in _paths(tuple(after)):
                if p not in bounds.paths:
                    bounds.paths.append(p)
                    found.append(p)
        if found:
            notes.append(Note(clause.text, "bound", "only " + ", ".join(found)))
    return bounds


@dataclass(frozen=True)
class Analysis:
    """The instruction cut into clauses, each with its mode: shared by the compiler and hardening."""

    text: str
    tokens: list[tx.Token]
    clauses: list[tx.Clause]
    modes: list[tuple[str, int]]  # per clause: ("request", verb index) or (why not, -1)
    # Clauses that are the action of a conditional ("if it builds, run it", "push it if CI is
    # green"): they grant their action; a consequential one (_CONSEQUENTIAL) asks.
    conditional: frozenset[int] = frozenset()
    # Per such clause: the tokens of its condition, and the span of condition and action together.
    conditions: dict[int, tuple[tx.Token, ...]] = field(default_factory=dict)
    condition_spans: dict[int, tuple[int, int]] = field(default_factory=dict)


# A consequential action whose condition the agent decides (maybe from what it read) asks.
_CONSEQUENTIAL = frozenset(words("DELETE FINANCIAL PERMISSION_CHANGE"))
_CONDITIONAL_ASKS = "under a condition the agent decides, a consequential action asks"


def _consequent(
    sent: list[tx.Token], clause: tx.Clause, first: tx.Clause | None = None
) -> tuple[tx.Clause, tuple[tx.Token, ...]] | None:
    """The action part of a conditional clause and the tokens of its condition: the clause after
    "If X," (the condition is the sentence's first clause, `first`) or the clause cut before its
    "if" ("push it if CI is green" -> "push it", "if CI is green"); None for the condition itself."""
    toks = clause.tokens
    if not toks:
        return None
    if _conditional_sentence(sent):
        if not sent or toks[0].start <= sent[0].start:
            return None
        return clause, first.tokens if first is not None else ()
    for k in range(1, len(toks)):
        t = toks[k]
        if _condition_phrase_at(toks, k) or (
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
_WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")


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
        found = [d for d in _WEEKDAYS if any(not t.literal and t.norm.removesuffix("'s") == d for t in part)]
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
        hosts = _domains(prev.tokens)
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
        request = _Clause(
            clause, verb, lem, tool, service_words, a.conditions.get(n, ()), before, following(a, n)
        )
        found = grants_for(request)
        if not isinstance(found, str) and n in a.conditional:
            lo, hi = a.condition_spans.get(n, (clause.start, clause.end))
            for g in found:
                # hardening marks it and reads the condition's bounds (for an LLM's draft too)
                if g.class_ in _CONSEQUENTIAL:
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
            and _after_pull(toks_c)
            and not any(g.capability == "commit" for g in found)
        ):
            # "run the build after you pull": the pull is asked for as well
            found = [*found, _grant(request, "LOCAL_WRITE", "commit", workspace=True)]
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
            fields["paths"] = _paths(req.tokens[a.modes[req_n][1] + 1 :])
        grants.append(DraftGrant.model_validate(fields))
        notes.append(Note(instruction[lo:hi], "grant", f"{cls_}/{cap}: the step the request waits for"))
    bounds = _bounds(cls, notes)
    purpose = tx.normalize_space(purpose or (instruction.split("\n", 1)[0] if instruction else ""))[:160]
    return Draft(purpose=purpose, grants=grants, bounds=bounds), notes
