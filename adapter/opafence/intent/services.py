"""Requests to act through a service: calendars, chat, documents, issues, payments, bookings,
accounts. One imperative clause -> the grants it asks for, or None when it is no such request
(the rules compiler then goes on with its other readings).

A service request is a verb of one of these families acting on a thing that lives in a service
(an event, a page, a channel, a reservation, a profile ...) or in a service the owner names,
and on no file. Its grants carry what the words bound: the people named (recipients), the
objects and the kinds of action. The hardening reads the same objects and kinds from the quote
(`reading`), for the rules' drafts and an LLM's alike, and binds the grants to the session's
tools (intent/catalogue.py, whose verb lexicon is data under rego/)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from opafence.intent.draft import DraftGrant

if TYPE_CHECKING:
    from opafence.intent.rules.clause import VerbClause


def words(s: str) -> list[str]:
    return s.split()


EVENT_WORDS = frozenset(
    words(
        "event events meeting meetings call calls appointment appointments standup stand-up sync syncs "
        "1:1 one-on-one retro retrospective demo lunch dinner breakfast interview interviews offsite "
        "session invite invites invitation catch-up catchup huddle webinar workshop booking bookings "
        "reservation reservations slot slots"
    )
)
DOC_WORDS = frozenset(
    words("doc docs document documents page pages spreadsheet spreadsheets sheet sheets wiki notebook")
)
CHAT_WORDS = frozenset(
    words("channel channels thread threads dm dms chat chats group groups workspace team server")
)
ISSUE_WORDS = frozenset(
    words("issue issues ticket tickets bug bugs pr prs mr mrs pull story epic card cards")
)
ACCOUNT_WORDS = frozenset(
    words(
        "profile account address phone number name display status timezone time-zone title avatar bio "
        "picture photo preferences settings language seat seats nickname"
    )
)
BOOKING_WORDS = frozenset(
    words("reservation reservations booking bookings table room seat ticket tickets slot slots stay trip")
)
MESSAGE_WORDS = frozenset(words("message messages note line word reminder shout-out shoutout dm"))
COMMENT_WORDS = frozenset(words("comment comments review"))

_MOVE = frozenset(words("reschedule postpone move push shift bump"))
_REACTIONS = frozenset(words("reaction reactions emoji emojis thumbs thumbs-up thumbsup"))
_CREATE = frozenset(words("schedule set put block add create arrange organize organise book make grab"))
_DOC_CREATE = frozenset(words("create start make write open draft set"))
_APPEND = frozenset(words("append add insert paste jot"))
_UPDATE = frozenset(words("rename retitle update edit change modify set switch"))
_ISSUE_UPDATE = frozenset(words("assign reassign label tag move transition prioritize triage"))
_SEND_LIKE = frozenset(words("nudge ping dm message text notify"))
REPLY_VERBS = frozenset(words("reply respond answer"))
_REPO = re.compile(r"^[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+$")
_PLACES = frozenset(
    words("repo repository project org organization workspace team drive folder board space group server")
)
_TIME = re.compile(r"^\d{1,2}(?::\d{2})?(?:am|pm)?(?:-\d{1,2}(?::\d{2})?(?:am|pm)?)?$|^(?:am|pm)$", re.I)
# When something happens: "to Thursday at 4", "tomorrow's", "next week" (a calendar's thing).
_WHEN = frozenset(
    words(
        "monday tuesday wednesday thursday friday saturday sunday monday's tuesday's wednesday's "
        "thursday's friday's saturday's sunday's tomorrow tomorrow's today today's tonight noon midnight "
        "morning afternoon evening week month hour hours minutes"
    )
)
_ACCOUNTS = frozenset(words("savings checking account brokerage isa pension"))
_ISSUE_KEY = re.compile(r"^[A-Za-z][A-Za-z0-9]{1,9}-[0-9]+$")
_ISSUE_NUMBER = re.compile(r"(?:\bPR|#)\s?[0-9]+\b|\b(?:issue|ticket|pr|mr|bug)\s+#?[0-9]+\b", re.I)

# Verbs of these families, per (class, capability) row of the lexicon: the hardening accepts a
# quote whose verb is one of them (lexicon.CAPABILITY_VERBS is widened with these).
VERBS: dict[tuple[str, str], frozenset[str]] = {
    ("EXTERNAL_WRITE", "publish"): _MOVE
    | _CREATE
    | _DOC_CREATE
    | _APPEND
    | _UPDATE
    | _ISSUE_UPDATE
    | frozenset(
        words(
            "cancel invite react leave request resolve drop post write close approve release comment "
            "reopen pin unpin"
        )
    ),
    ("COMMUNICATION", "send"): _SEND_LIKE
    | frozenset(words("let drop leave shoot nudge reply respond answer add give")),
    ("PERMISSION_CHANGE", "share"): frozenset(words("add invite give")),
    ("FINANCIAL", "pay"): frozenset(words("refund reimburse move put switch change upgrade downgrade")),
}


@dataclass
class Reading:
    """What a service request asks for: the kind of grant, its kinds of action and objects
    (None: the compiler's default reading of the noun phrase; []: no object bound)."""

    kind: str  # publish | send | share | pay
    operations: list[str] = field(default_factory=list)
    objects: list[str] | None = None
    also: tuple[str, ...] = ()  # further grants of the same clause ("invite" also sends)
    people: bool = True  # the people named are whom it reaches (not so for "move my call with x")


def _named(c: VerbClause) -> bool:
    """Does the clause name a service (the lexicon's, or a server of the session's tools)?"""
    from opafence.intent.rules.objects import services_of

    if services_of(c):
        return True
    return any(t.norm.split(".")[0] in c.services for t in c.toks if not t.literal)


def _issue_ref(c: VerbClause) -> bool:
    return any(_ISSUE_KEY.match(t.core) for t in c.obj if not t.literal) or bool(
        _ISSUE_NUMBER.search(c.clause.text)
    )


def reading(c: VerbClause) -> Reading | None:
    """The service request one clause makes, or None when it makes none."""
    from opafence.intent import text as tx
    from opafence.intent.rules.clause import refers_back
    from opafence.intent.rules.objects import objects_of, paths_in, recipients_of

    lem, ws, obj = c.lemma, c.words, c.obj
    first = obj[0].norm if obj else ""
    named = _named(c)
    # "comment on issue 77, then close it", "if ENG-502 is unassigned, assign it to @noor": what
    # the object points back to, or what the condition names
    around = {t.norm for t in c.condition if not t.literal}
    if refers_back(c) or (c.toks and c.toks[0].norm in ("and", "then") and c.i > 0):
        # "... PR 1204 in acme/web and leave a review": what the joined clause before names
        around |= {t.norm for t in c.before if not t.literal}
    issue = (
        bool((ws | around) & ISSUE_WORDS)
        or _issue_ref(c)
        or any(_ISSUE_KEY.match(w) for w in around)
        or bool(_ISSUE_NUMBER.search(" ".join(sorted(around))))
    )
    files = [p for p in paths_in(obj) if not (issue and _REPO.match(p) and "." not in p.split("/")[-1])]
    if files and not named:
        return None  # a file: the file rules decide ("acme/web" beside an issue is a repository)
    recipients = recipients_of(c)
    events = bool(ws & EVENT_WORDS)
    docs = bool(ws & DOC_WORDS)
    objects = objects_of(obj, lem)
    issue = issue or "pull_request" in objects
    docs_words = DOC_WORDS | CHAT_WORDS

    # a message by another name: "nudge him at x@y.com", "let the team know at ...", "drop a line to ..."
    if recipients and (
        lem in _SEND_LIKE
        or (lem == "let" and "know" in ws)
        or (lem in ("drop", "leave", "shoot", "post", "write", "send") and ws & MESSAGE_WORDS and not issue)
        or lem in REPLY_VERBS
    ):
        return Reading("send")
    # a draft is a write to the mail service, not a send: "draft an email to x@y.com"
    if lem in ("draft", "prepare", "compose") and ws & {
        "email",
        "emails",
        "mail",
        "message",
        "reply",
        "note",
    }:
        return Reading("publish", ["create"], ["message", "draft"])
    # people into a place: a channel, a team, a document
    if lem in ("add", "invite") and recipients and ws & (CHAT_WORDS | {"member", "members", "guest"}):
        # a member added is also a record written ("add_member"): the publish of `also`
        return Reading("share", ["create"], ["member"], also=("send", "publish"))
    if lem == "give" and recipients and ws & {"access", "permission", "permissions", "rights"}:
        return Reading("share", also=("send",))
    if not (named or c.services):
        return None  # no service named and no tools known: nothing to bind an external write to
    when = bool(ws & _WHEN) or any(_TIME.match(t.core) for t in obj if not t.literal)
    # calendars and bookings: "move my call with x" names the call, not whom it reaches
    if lem in _MOVE and (events or (named and lem != "push") or when) and not issue:
        return Reading("publish", ["update"], ["event", "booking"], people=False)
    if lem == "cancel" and (events or ws & BOOKING_WORDS or named or when):
        found = [o for o in objects if o not in ("event", "booking")]
        return Reading("publish", ["close"], ["event", "booking", *found], people=False)
    if lem == "release" and ws & BOOKING_WORDS:
        return Reading("publish", ["release"], None, people=False)
    only_people = all(t.literal or tx.is_recipient(t.core) or t.norm in ("and", "too", "also") for t in obj)
    if lem == "invite" and recipients and not ws & (docs_words | _PLACES) and (events or only_people or when):
        return Reading("publish", ["update", "create"], ["event"], also=("send",))
    if lem in _CREATE and events and not (lem == "set" and first != "up") and not issue:
        return Reading("publish", ["create"], None)
    if lem in ("put", "block", "add") and "calendar" in ws:
        return Reading("publish", ["create"], None)
    if lem == "block" and any(_TIME.match(t.core) for t in obj if not t.literal):
        return Reading("publish", ["create"], ["event"])
    if lem == "grab" and ws & BOOKING_WORDS:
        return Reading("publish", ["create"], ["event", "booking"])
    # chat
    if lem in ("pin", "unpin"):
        return Reading("publish", ["update"], ["message"])  # "pin it there"
    if lem == "react" or (lem in ("add", "leave", "put", "drop", "give", "send") and ws & _REACTIONS):
        # "add a :tada: reaction to the release announcement", "leave a thumbs up on it"
        return Reading("publish", ["create"], ["reaction"])
    # issues and pull requests
    if lem == "comment" and (issue or named) and c.services:
        return Reading("publish", ["create"], ["comment", "note"])  # a note is GitLab's comment
    if lem == "approve" and issue:
        # "approve": the review approves (lib/grants approval_ok), which no other review grant covers
        return Reading("publish", ["create", "approve"], ["review"])
    if lem == "reopen" and issue:
        return Reading("publish", ["reopen"], ["issue", "pull_request"])
    if lem == "merge" and issue:
        return Reading("publish", ["merge"], ["pull_request"])
    if (
        lem in ("leave", "add", "post", "write", "drop")
        and {"comment", "review"} & set(objects)
        and (issue or named)
    ):
        return Reading("publish", ["create"], ["comment", "review"] if "review" in ws else ["comment"])
    if (
        lem in ("leave", "add", "post", "write", "drop")
        and any(
            t.norm in ("comment", "review")
            and k > 0
            and obj[k - 1].norm in ("a", "an", "the", "my", "as", "this")
            for k, t in enumerate(obj)
        )
        and (issue or named)
        and not ws & _REACTIONS
    ):
        # "leave it as a comment on the PR", "leave a review requesting changes"
        return Reading("publish", ["create"], ["comment", "review"] if "review" in ws else ["comment"])
    if lem == "request" and ws & {"review", "reviews", "reviewer", "reviewers"}:
        return Reading("publish", ["request"], ["review"])
    if lem == "ask" and recipients and issue and ws & {"review", "reviews"}:
        # "ask @wen and @dmitri to review PR 933": a review request to the people named
        return Reading("publish", ["request"], ["review"])
    if lem == "add" and ws & {"label", "labels", "tag", "tags"} and issue:
        # "add the label needs-triage" to an issue: an update of the issue
        return Reading(
            "publish",
            ["update"],
            [o for o in objects if o in ("issue", "pull_request")] or ["issue", "pull_request"],
        )
    if lem in ("open", "create", "file", "make", "submit") and "pull_request" in objects:
        return Reading("publish", ["create"], None)
    if lem in _ISSUE_UPDATE and issue:
        return Reading(
            "publish", ["update"], [o for o in objects if o in ("issue", "pull_request")] or ["issue"]
        )
    if lem in ("close", "resolve") and issue and ws & {"note", "comment", "message"}:
        return Reading("publish", ["close", "create"], ["issue", "comment"])
    if lem in ("close", "resolve", "reopen") and issue and refers_back(c):
        # "comment on issue 77 ..., then close it"
        kinds = [o for o in objects_of(c.before, lem) if o in ("issue", "pull_request")] or ["issue"]
        return Reading("publish", ["reopen" if lem == "reopen" else "close"], kinds)
    # documents
    new_doc = {"document", "page", "spreadsheet"} & set(objects)
    appends = (lem in ("append", "paste", "jot") and (docs or named)) or (
        lem in _APPEND and docs and not new_doc
    )
    if appends and not recipients and not issue:
        return Reading("publish", ["append"], [])
    if lem in _DOC_CREATE and docs and (first in ("a", "an", "new", "up") or named):
        if lem == "set" and first != "up":
            return None
        return Reading(
            "publish", ["create"], [o for o in objects if o in ("document", "page", "spreadsheet")] or None
        )
    # money between one's own accounts, and a plan one pays for: payments (they always ask)
    amount = any(re.match(r"^[$€£]?\d[\d,.]*$", t.core) for t in obj if not t.literal)
    if lem in ("move", "transfer", "put", "wire") and amount and ws & _ACCOUNTS:
        return Reading("pay")
    if lem in _UPDATE and ws & {"plan", "subscription", "tier"}:
        return Reading("pay")
    # accounts and records: "update my phone number on my United profile"
    fields = bool(ws & ACCOUNT_WORDS)
    if lem in _UPDATE and not issue and (named or docs or fields):
        if lem == "set" and first == "up":
            return None
        # what an account update changes is a field of it, whatever the server calls the tool
        return Reading("publish", ["update"], [] if ws & ACCOUNT_WORDS else None)
    return None


def service_request(c: VerbClause) -> list[DraftGrant] | None:
    """The grants of a request to act through a service, or None when it is none."""
    from opafence.intent.rules.grant import access_of, make_grant, publish_grant
    from opafence.intent.rules.objects import recipients_of

    r = reading(c)
    if r is None:
        return None
    recipients = recipients_of(c)
    out: list[DraftGrant] = []
    for kind in (r.kind, *r.also):
        if kind == "send":
            out.append(make_grant(c, "COMMUNICATION", "send", recipients=recipients))
        elif kind == "pay":
            out.append(make_grant(c, "FINANCIAL", "pay", recipients=recipients))
        elif kind == "publish" and r.kind == "share":
            g = publish_grant(c)
            g.operations, g.objects = list(r.operations), list(r.objects or [])
            out.append(g)
        elif kind == "share":
            out.append(
                make_grant(c, "PERMISSION_CHANGE", "share", recipients=recipients, access=access_of(c))
            )
        elif kind == "publish":
            g = publish_grant(c)
            g.operations = list(r.operations)
            if r.objects is not None:
                g.objects = list(r.objects)
            if not r.people:
                g.recipients = []
            out.append(g)
    return out
