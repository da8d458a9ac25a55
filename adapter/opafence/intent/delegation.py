"""Delegations and asked-for kinds of action, read from the owner's instruction (issue 15).

- A delegation is the owner handing the choice of a target to a source: "her address is on
  her website", "the IBAN in bill.txt", "the people in the meeting notes", "reply to Ann's
  email". Rego lets a target from that source ask (showing it) instead of blocking it as
  injected (rego/opafence/provenance).
- A request is a kind of action the owner asked for without binding its target: "delete the
  largest file", "pay the bill in bill.txt", "invite the people in the notes". It asks rather
  than blocks (DELETE, FINANCIAL and PERMISSION_CHANGE included).

Only the owner's instruction counts (quoted, pasted and attached text was split off before);
a negated verb ("don't delete") asks for nothing. Pure functions; the compiler calls `apply`."""

from __future__ import annotations

import re
from collections.abc import Iterable

from opafence.intent.draft import Note
from opafence.policy import Delegation, DroppedGrant, Request, TaskPolicy

# What the owner calls the target, and the provenance kinds that covers.
_KINDS: tuple[tuple[str, tuple[str, ...]], ...] = (
    (
        r"e-?mail address(?:es)?|e-?mails?|addresse?s?|contact details|contact info",
        ("email", "domain", "host"),
    ),
    (r"phone(?: numbers?)?|mobile(?: numbers?)?|cell(?: numbers?)?|numbers?", ("number",)),
    (
        r"ibans?|bank details|payment details|account(?: numbers?| details)?|sort codes?|routing numbers?",
        ("iban", "number"),
    ),
    (r"links?|urls?|(?:web)?sites?|websites?|pages?|endpoints?|webhooks?", ("host", "domain")),
    (r"channels?|handles?|usernames?|user names?", ("handle",)),
    (
        r"people|persons|attendees|participants|everyone|everybody|recipients|guests|invitees|contacts"
        r"|names|team|members|speakers|customers|clients|authors?|senders?|organi[sz]ers?",
        ("email", "handle", "number", "domain", "host"),
    ),
    (r"folders?|director(?:y|ies)|paths?|locations?", ("path",)),
    (
        r"payees?|beneficiar(?:y|ies)|vendors?|suppliers?|landlord|merchants?",
        ("iban", "number", "email", "handle"),
    ),
)
_KIND_RX = "|".join(f"(?:{rx})" for rx, _ in _KINDS)
_SRC = r"(?P<src>(?:[^.;!?\n]|\.(?=\w)){1,80})"
_OWNER = r"(?:the|his|her|their|its|my|our|your|[a-z][\w-]*'s)"

_A = re.compile(
    rf"(?i)\b(?P<kind>{_KIND_RX})\s+(?:is|are|'s|should be|can be found|is listed|are listed|is written"
    rf"|are named)\s+(?:listed\s+|mentioned\s+|given\s+|written\s+)?(?:on|in|at|inside|from)\s+{_SRC}"
)
_EVERYONE = re.compile(
    r"(?i)\b(?P<kind>everyone|everybody|all\s+(?:the\s+)?(?:people|attendees|participants|members|guests))\s+"
    r"(?:listed\s+|mentioned\s+|named\s+)?(?:in|on|from|at)\s+" + _SRC
)
_B = re.compile(
    rf"(?i)\b{_OWNER}\s+(?:[\w-]+\s+){{0,2}}?(?P<kind>{_KIND_RX})\s+(?:listed\s+|mentioned\s+|named\s+|given\s+"
    rf"|written\s+|found\s+|shown\s+|that\s+(?:are|is)\s+)?(?:in|on|from|at|inside|of)\s+{_SRC}"
)
_REPLY = re.compile(
    r"(?i)\b(?:reply|respond|answer|write\s+back|get\s+back)\s+(?:to\s+)?(?P<src>(?:[\w'-]+\s+){0,5}?"
    r"(?:e-?mails?|mails?|messages?|threads?|dms?|notes?|invites?|invitations?|comments?|posts?|texts?|requests?))\b"
)
# "read Ann's latest email and reply to her": a reply goes to whoever wrote what the sentence names.
_REPLY_ANY = re.compile(r"(?i)\b(?:reply|respond|answer|write\s+back|get\s+back)\b")
_WHOEVER = re.compile(
    r"(?i)\b(?:whoever|the\s+person\s+who|the\s+people\s+who|everyone\s+who|anyone\s+who|the\s+sender|the\s+senders)\b"
    r"(?P<src>[^.;!?\n]{0,80})"
)
# "pay the bill in bill.txt", "settle the invoice from the email": the payee is the source's.
_PAY = re.compile(
    r"(?i)\b(?:pay|settle|cover)\s+(?:the\s+|my\s+|this\s+|that\s+|our\s+)?(?:[\w-]+\s+){0,2}?"
    r"(?:bills?|invoices?|amounts?|balances?|fees?|rent|dues|charges?|statements?)\s+"
    r"(?:in|from|on|at|attached\s+to|listed\s+in|that\s+came\s+in)\s+" + _SRC
)
_LOOKUP = re.compile(
    r"(?i)\b(?:look\s+up|find|get|use)\s+(?:[\w'-]+\s+){0,3}?(?P<kind>"
    + _KIND_RX
    + r")\s+(?:in|on|from)\s+"
    + _SRC
)

_SOURCES: tuple[tuple[str, tuple[str, ...]], ...] = (
    (
        r"website|web ?site|site|web ?page|page|blog|online|homepage|profile|linkedin|internet|google",
        ("web",),
    ),
    (r"e-?mails?|mails?|inbox|newsletter|thread", ("mail",)),
    (r"messages?|dms?|texts?", ("mail", "chat")),
    (r"slack|chat|channel|teams|discord|telegram|whatsapp|signal", ("chat",)),
    (r"calendar|invites?|invitations?|meeting|event|agenda", ("calendar", "mail")),
    (
        r"notes?|docs?|documents?|files?|spreadsheets?|sheets?|pdfs?|readme|wiki|drive|notion|folder|report"
        r"|attachment|list|table|csv|minutes",
        ("file",),
    ),
    (r"contacts?|address book|crm|directory", ("contacts",)),
    (r"invoices?|bills?|statements?|receipts?|quotes?", ("file", "mail", "payments")),
    (r"bookings?|reservations?|confirmations?|itinerar(?:y|ies)|tickets?", ("mail", "booking", "file")),
    (r"comments?|posts?|issues?|tickets?|pull requests?|prs?", ("web", "chat", "file")),
    (r"results?|search", ("web",)),
)
_FILE = re.compile(r"(?i)\b([\w.-]{1,80}\.[a-z0-9]{1,5})\b")

# Kinds of action whose verbs the owner may use without naming a target.
_VERBS: tuple[tuple[str, str], ...] = (
    ("DELETE", r"delete|remove|trash|erase|wipe|purge|clean\s+up|get\s+rid\s+of|archive\s+and\s+delete"),
    ("FINANCIAL", r"pay|settle|transfer|wire|refund|reimburse|tip|donate|purchase|buy|order|book|reserve"),
    (
        "PERMISSION_CHANGE",
        r"share|grant\s+access|give\s+(?:\w+\s+)?access|invite\s+(?:\w+\s+)?to\s+(?:the\s+)?(?:doc|folder|drive|repo)",
    ),
    # "email" and "message" are nouns as often as verbs: a send the compiler could not bind
    # comes from its dropped grant instead.
    ("COMMUNICATION", r"send|reply|respond|forward|dm|invite|notify|tell|write\s+to|ping|post"),
)
_NEGATION = re.compile(r"(?i)\b(?:don'?t|do\s+not|never|no|not|without|nor|stop|avoid)\s+(?:\w+\s+){0,2}$")

# Drops that mean "the owner asked for this kind, but their words bind no target".
_UNBOUND_REASONS = (
    "a send needs a literal recipient",
    "a delete needs a literal path",
    "a permission change needs a literal path",
    "sharing needs a literal recipient",
    "an external write needs a domain",
)


def _kinds(word: str) -> list[str]:
    for rx, kinds in _KINDS:
        if re.fullmatch(rx, word, re.IGNORECASE):
            return list(kinds)
    return []


def _labels(src: str) -> tuple[list[str], str]:
    labels: set[str] = set()
    for rx, ls in _SOURCES:
        if re.search(rf"(?i)\b(?:{rx})\b", src):
            labels.update(ls)
    m = _FILE.search(src)
    path = m.group(1) if m and not m.group(1).lower().startswith(("www.", "http")) else ""
    if path:
        labels.add("file")
    return sorted(labels) or ["any"], path


def _sentence(text: str, start: int, end: int) -> str:
    a = max(text.rfind(c, 0, start) for c in ".!?\n") + 1
    ends = [i for i in (text.find(c, end) for c in ".!?\n") if i >= 0]
    return " ".join(text[a : min(ends) if ends else len(text)].split())[:300]


def read_delegations(instruction: str) -> list[tuple[list[str], list[str], str, str]]:
    """(target kinds, source labels, path, evidence) for each delegation in the instruction."""
    out: list[tuple[list[str], list[str], str, str]] = []
    for rx in (_A, _B, _LOOKUP, _EVERYONE):
        for m in rx.finditer(instruction):
            kinds = _kinds(re.sub(r"(?i)^all\s+(?:the\s+)?", "", m.group("kind")))
            labels, path = _labels(m.group("src"))
            if kinds and (labels != ["any"] or path):
                out.append((kinds, labels, path, _sentence(instruction, m.start(), m.end())))
    people = ["email", "handle", "number", "domain", "host"]
    for m in _PAY.finditer(instruction):
        labels, path = _labels(m.group("src"))
        out.append(
            (["iban", "number", "email", "handle"], labels, path, _sentence(instruction, m.start(), m.end()))
        )
    for m in _REPLY.finditer(instruction):
        labels, path = _labels(m.group("src"))
        out.append((people, labels, path, _sentence(instruction, m.start(), m.end())))
    for m in _REPLY_ANY.finditer(instruction):
        sentence = _sentence(instruction, m.start(), m.end())
        labels, path = _labels(sentence)
        if labels != ["any"] and not any(e == sentence for *_, e in out):
            out.append((people, labels, path, sentence))
    for m in _WHOEVER.finditer(instruction):
        labels, path = _labels(m.group("src"))
        out.append((people, labels, path, _sentence(instruction, m.start(), m.end())))
    return out


def read_requests(instruction: str) -> list[tuple[str, str]]:
    """(class, evidence) for each kind of action the instruction asks for, negations excluded."""
    out: list[tuple[str, str]] = []
    for cls, rx in _VERBS:
        for m in re.finditer(rf"(?i)\b(?:{rx})\b", instruction):
            if _NEGATION.search(instruction[max(0, m.start() - 40) : m.start()]):
                continue
            out.append((cls, _sentence(instruction, m.start(), m.end())))
            break
    return out


def _unbound(dropped: Iterable[DroppedGrant], message: int) -> list[tuple[str, str]]:
    out: list[tuple[str, str]] = []
    for d in dropped:
        if d.message == message and d.part == "grant" and d.reason.startswith(_UNBOUND_REASONS):
            cls = str(d.grant.get("class", ""))
            evidence = str(d.grant.get("evidence", "")).strip()
            if cls and evidence:
                out.append((cls, evidence))
    return out


def apply(policy: TaskPolicy, instruction: str, message: int, is_owner: bool, notes: list[Note]) -> None:
    """Add this message's delegations and requests to the policy (owner messages only)."""
    if not is_owner:
        return
    for kinds, labels, path, evidence in read_delegations(instruction):
        if not evidence or any(d.evidence == evidence and d.path == path for d in policy.delegations):
            continue
        did = f"d{len(policy.delegations) + 1}"
        policy.delegations.append(
            Delegation(id=did, targets=kinds, sources=labels, path=path, evidence=evidence, message=message)
        )
        notes.append(
            Note(evidence, "delegation", f"{did}: {', '.join(kinds)} from {', '.join(labels)} {path}".strip())
        )
    found = [*read_requests(instruction), *_unbound(policy.dropped, message)]
    # A kind the words did bind (a grant of this message) is not unbound: a call outside that
    # grant acts on another target than the one asked for, and stays the task's to judge.
    bound = {g.class_ for g in policy.grants if g.message == message}
    for cls, evidence in found:
        if cls in bound or any(r.class_ == cls for r in policy.requests):
            continue
        policy.requests.append(
            Request.model_validate({"class": cls, "evidence": evidence, "message": message})
        )
        notes.append(Note(evidence, "request", f"{cls} asked for without a bound target: asks, never blocks"))
