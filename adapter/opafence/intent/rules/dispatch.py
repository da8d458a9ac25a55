"""The grants one request asks for, by its verb: the rules compiler's dispatch."""

from __future__ import annotations

import re

from opafence.intent import lexicon as lx
from opafence.intent import services
from opafence.intent.draft import DraftGrant
from opafence.intent.lexicon import words
from opafence.intent.rules.clause import MONEY, VerbClause
from opafence.intent.rules.family import family_grants, folders_named
from opafence.intent.rules.grant import (
    access_of,
    edit_grants,
    make_grant,
    packages_in,
    publish_grant,
    run_grants,
)
from opafence.intent.rules.objects import (
    after_preposition,
    domains_in,
    objects_of,
    paths_in,
    permission_object,
    recipients_of,
    services_of,
)

# "send an invoice for $800": a paper about money is a message, not a payment
_MONEY_PAPERS = frozenset(
    words("invoice invoices bill bills quote quotes receipt receipts estimate estimates")
)
_OPEN_OBJECTS = frozenset(words("issue pr pull mr ticket request"))
# What a booking books: time or a room of one's own (an external write), unless it is paid for.
_FREE_BOOKINGS = frozenset(
    words("meeting meetings call room rooms slot slots appointment appointments 1:1 sync desk interview demo")
)
_PAID_BOOKINGS = frozenset(
    words("hotel hotels flight flights ticket tickets train car rental trip tour table seat seats cruise")
)


_PERMISSION_SETTERS = frozenset(words("make set change fix correct reset restore update adjust tighten"))


_PRONOUNS = frozenset(words("it one them that this those these"))
REFUND_VERBS = frozenset(words("refund reimburse"))


_SOURCE_WORDS = frozenset(words("from using out"))


def grants_for(c: VerbClause) -> list[DraftGrant] | str:
    """The grants one imperative clause asks for, or why it asks for none."""
    lem, words, obj = c.lemma, c.words, c.obj
    first = obj[0].norm if obj else ""
    family = family_grants(c)
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
        return [make_grant(c, "EXECUTION", "install", packages=packages_in(obj))]
    if lem == "tell" and first in ("me", "us", "mir", "moi", "me"):
        return "an answer to the owner, not a message"
    service = services.service_request(c)
    if service is not None:
        return service
    if lem in ("let",):
        return "not an action"
    if lem == "get" and first == "rid" and len(obj) > 1 and obj[1].norm == "of":
        return grants_for(VerbClause(c.clause, c.i + 2, "rid", c.tool))

    # memory
    if (
        lem in lx.MEMORY_VERBS
        or (lem == "note" and not paths_in(obj) and first not in ("the", "down", "it", "this"))
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
        return [make_grant(c, "MEMORY_WRITE", "remember")]

    # permissions
    if lem in lx.PERMISSION_VERBS or (lem in _PERMISSION_SETTERS and permission_object(obj)):
        return [
            make_grant(
                c,
                "PERMISSION_CHANGE",
                "chmod",
                paths=[p for p in paths_in(obj) if not re.match(r"^[0-7]{3,4}$", p)],
            )
        ]

    recipients = recipients_of(c)
    if lem == "drop" and (first == "me" or any(t.core.startswith("#") for t in obj)):
        # "drop me a note in #ops", "drop the numbers in #dana-notes": a message, not a delete
        return [make_grant(c, "COMMUNICATION", "send", recipients=recipients)]
    if lem in ("send", "transfer", "wire") and MONEY.search(c.clause.text) and not words & _MONEY_PAPERS:
        # "send $50 to alice@x.com": money, not a message; the payee's address bounds it
        return [make_grant(c, "FINANCIAL", "pay", recipients=recipients)]

    # communication
    if lem in lx.SEND_VERBS or (lem in ("write", "post", "share", "answer") and recipients):
        if lem == "share" and not recipients and (domains_in(obj) or services_of(c)):
            return [publish_grant(c)]
        send = [make_grant(c, "COMMUNICATION", "send", recipients=recipients)]
        if lem in ("share", "invite") and recipients:
            # sharing gives the people named access: read unless the words say more
            return [
                *send,
                make_grant(c, "PERMISSION_CHANGE", "share", recipients=recipients, access=access_of(c)),
            ]
        return send

    if lem == "push":
        return [make_grant(c, "EXTERNAL_WRITE", "push")]

    if lem in lx.PUBLISH_VERBS or lem in ("comment", "deploy"):
        return [publish_grant(c)]

    # payments
    if lem in REFUND_VERBS:
        # "refund charge ch_3Nq8": hardening bounds it to the charges, payments or orders named
        return [make_grant(c, "FINANCIAL", "pay", tools=services_of(c), objects=objects_of(obj))]
    if lem in lx.PAY_VERBS or lem in ("order", "book", "reserve", "checkout", "rent", "spend"):
        if lem == "order" and first in ("by", "alphabetically", "chronologically", "them", "these"):
            return "ordering a list, not a purchase"
        booked = words
        if first in _PRONOUNS and c.before:
            # "find a free room for 6 and reserve it": the room of the clause before
            booked = words | {t.norm for t in c.before if not t.literal}
        if lem in ("book", "reserve") and booked & _FREE_BOOKINGS and not booked & _PAID_BOOKINGS:
            return [publish_grant(c)]
        if lem == "checkout":
            return [make_grant(c, "LOCAL_WRITE", "commit", workspace=True)]
        # "buy it on shop.example.com" bounds the purchase to a site; "buy example.dev" names the thing.
        sites = [d for d in domains_in(obj) if after_preposition(obj, d)]
        return [
            make_grant(c, "FINANCIAL", "pay", domains=sites, recipients=recipients, objects=objects_of(obj))
        ]

    # git bookkeeping
    if (
        lem in lx.COMMIT_VERBS
        or lem in ("branch", "switch")
        or (
            lem in ("create", "make", "open", "start", "rename", "delete")
            and words & {"branch", "commit", "tag"}
            and not words & (_OPEN_OBJECTS - {"request"})
            and not paths_in(obj)
        )
        or (lem == "check" and first == "out")
        or (lem == "merge" and not words & {"pr", "prs", "pull", "mr"})
        or (lem == "add" and c.tool == "git")
    ):
        return [make_grant(c, "LOCAL_WRITE", "commit", workspace=True)]

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
        services_of(c)
        # "add 'renew passport' to my Todoist": a server of the session's tools named
        or (bool(c.services) and any(t.norm.split(".")[0] in c.services for t in obj if not t.literal))
        or (
            words & lx.EXTERNAL_OBJECTS
            and (lem != "open" or words & _OPEN_OBJECTS)
            # "add a note for the meeting to notes.md": a file, no service or site
            and not (paths_in(obj) and not domains_in(obj))
        )
    ):
        return [publish_grant(c)]

    # deletion
    if lem in lx.DELETE_VERBS or lem in ("clear", "drop", "clean", "discard", "rid"):
        if lem == "clean" and paths_in(obj):
            # "clean out the dist/ folder": the named build output goes
            return [make_grant(c, "DELETE", "delete", paths=paths_in(obj))]
        named = folders_named(obj)
        if named and not paths_in(obj):
            # "clean the dist and build directories"
            return [make_grant(c, "DELETE", "delete", paths=named)]
        if lem in ("clean", "discard") or (lem == "clear" and first == "up"):
            return edit_grants(c)
        if lem == "rid" and first == "of":
            obj = obj[1:]
        norms = [t.norm for t in obj]
        if "from" in norms:
            k = norms.index("from")
            before, after = paths_in(obj[:k]), paths_in(obj[k + 1 :])
            if after and not before:
                return [make_grant(c, "LOCAL_WRITE", "edit", paths=after, workspace=True)]
        paths = paths_in(obj)
        if lem in ("rm", "unlink"):
            # a typed command: every operand is a path ("rm -rf node_modules")
            paths = [t.core for t in obj if not t.literal and not t.core.startswith("-")] or paths
        if not paths and words & lx.CODE_OBJECTS:
            return edit_grants(c)
        if not paths and words & lx.PATHLESS_OBJECTS:
            # "delete the spam emails": no file; bounded to the service when one is named
            return [make_grant(c, "DELETE", "delete", tools=services_of(c), objects=objects_of(obj))]
        return [make_grant(c, "DELETE", "delete", paths=paths)]

    # runners and commands
    if lem in lx.RUN_VERBS or (lem == "start" and any(t.literal for t in obj)):
        return run_grants(c)
    if lem == "test":
        return [make_grant(c, "EXECUTION", "run_tests")]
    if lem in ("lint", "typecheck", "type-check"):
        return [make_grant(c, "EXECUTION", "run_lint")]
    if lem in ("format", "reformat", "prettify", "autoformat"):
        return [make_grant(c, "EXECUTION", "run_format")]
    if lem in ("build", "compile", "rebuild"):
        if first in ("a", "an", "me", "us") or words & lx.CODE_OBJECTS - {"project", "code"}:
            return edit_grants(c)
        return [make_grant(c, "EXECUTION", "run_build")]

    # "back up ~/thesis to /media/usb/backup": the copy is written where it goes; the source is read
    if lem == "backup" or (lem == "back" and first == "up"):
        norms = [t.norm for t in obj]
        at = next((k for k, w in enumerate(norms) if w in ("to", "into", "onto", "at", "on")), None)
        dest = paths_in(obj[at + 1 :]) if at is not None else []
        if dest:
            return [make_grant(c, "LOCAL_WRITE", "edit", paths=dest)]
        return "a backup names no place it is written to"
    # writing files
    if lem in lx.WRITE_VERBS:
        paths = paths_in(obj)
        if paths:
            return [make_grant(c, "LOCAL_WRITE", "edit", paths=paths)]
        if words & lx.CODE_OBJECTS:
            return edit_grants(c)
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
        paths = paths_in(obj)
        return [make_grant(c, "LOCAL_WRITE", "edit", paths=paths, workspace=not paths)]
    if lem == "make":
        # "make a chart from mau.csv": what it is made from is read, not written
        made = paths_in(obj[: next((k for k, t in enumerate(obj) if t.norm in _SOURCE_WORDS), len(obj))])
        if made:
            return [make_grant(c, "LOCAL_WRITE", "edit", paths=made)]
        if paths_in(obj):
            return "'make' from a file writes none it names"
        if words & (lx.CODE_OBJECTS | {"pass", "passes", "work", "works", "changes", "change", "green"}):
            return edit_grants(c)
        return "'make' without a file or code object"
    if lem in lx.EDIT_VERBS:
        return edit_grants(c)
    into = written_into(c)
    if into:
        return [make_grant(c, "LOCAL_WRITE", "edit", paths=into)]
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


def written_into(c: VerbClause) -> list[str]:
    preps = _WRITES_INTO.get(c.lemma)
    if not preps:
        return []
    norms = [t.norm for t in c.obj]
    at = next((k for k, w in enumerate(norms) if w in preps), None)
    if at is None:
        return []
    found = paths_in(c.obj[at + 1 : at + 4])
    return [p for p in found if re.search(r"\.[A-Za-z0-9]{1,8}$", p)]
