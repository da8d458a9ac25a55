"""What a request's words name as its targets: recipients, paths, domains, the services of the
session's tools, channels, and the kinds of object it acts on."""

from __future__ import annotations

import re

from opafence.intent import lexicon as lx
from opafence.intent import text as tx
from opafence.intent.lexicon import words
from opafence.intent.rules.clause import POINTERS, VerbClause, refers_back

_ARTICLES = frozenset(words("den der die das dem le la les el los las il lo gli un une ein eine einen"))


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


def _replied_to(c: VerbClause, k: int) -> bool:
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


def recipients_of(c: VerbClause) -> list[str]:
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
            or (bool(c.words & _REACTION_WORDS) and any(t.norm in POINTERS for t in c.obj))
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
        t.norm in DETERMINERS
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


def _pronoun_object(c: VerbClause) -> bool:
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


_PERMISSION_NOUNS = frozenset(words("permissions permission mode modes chmod"))
_PERMISSION_LINKS = frozenset(words("on of for to in"))


def permission_object(obj: tuple[tx.Token, ...]) -> bool:
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


def ref_name(obj: tuple[tx.Token, ...], k: int) -> bool:
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


def paths_in(obj: tuple[tx.Token, ...]) -> list[str]:
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
        elif tx.is_path_like(core) and not ref_name(obj, k) and not _extension(obj, k):
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


def domains_in(obj: tuple[tx.Token, ...]) -> list[str]:
    out: list[str] = []
    for t in obj:
        host = tx.url_host(t.core) if tx.is_url(t.core) else (t.core.lower() if tx.is_domain(t.core) else "")
        if host and host not in out:
            out.append(host)
    return out


def after_preposition(obj: tuple[tx.Token, ...], domain: str) -> bool:
    for k, t in enumerate(obj):
        host = tx.url_host(t.core) if tx.is_url(t.core) else t.core.lower()
        if host == domain:
            return k > 0 and obj[k - 1].norm in ("on", "at", "from", "via", "through", "using")
    return False


DETERMINERS = frozenset(words("the a an my our your their his her its this that"))
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
    while j >= 0 and not obj[j].literal and obj[j].norm in DETERMINERS:
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


def _place(c: VerbClause) -> tuple[tx.Token, ...]:
    """The place phrase that leads the request ("On GitLab, comment ..."), or ()."""
    for k in range(c.i):
        n = tx.place_phrase(c.toks, k)
        if n and k + n <= c.i:
            return c.toks[k : k + n]
    return ()


def services_of(c: VerbClause) -> list[str]:
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
