"""What the owner's words name that a call's arguments must keep to: the repositories ("file an
issue in acme/mobile"), the states an issue goes to ("move it to In Progress") and the
spreadsheet cells ("set cell B7 to 42000"). Hardening records them on the grant (never a
draft's); rego/opafence/lib/named decides which arguments they bound.

Each is read only where the grant's own words put it, and a grant that names none keeps the
bound it had: these only ever narrow a grant."""

from __future__ import annotations

import re
from collections.abc import Sequence

from opafence.intent import text as tx
from opafence.intent.draft import DraftGrant
from opafence.intent.lexicon import words
from opafence.intent.rules.clause import VerbClause

# Objects that live in a repository: a grant on them is bounded by the repositories it names.
REPO_OBJECTS = frozenset(
    words(
        "issue pull_request comment review branch release repository label milestone gist commit workflow tag"
    )
)
# Objects whose state a grant's words bound (lib/named data stateful_objects).
STATEFUL_OBJECTS = frozenset(words("issue pull_request task card item story"))

_REPO = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*/[A-Za-z0-9_.-]*[A-Za-z0-9_]$")
_REPO_URL = re.compile(r"^https?://(?:www\.)?(?:github|gitlab)\.com/([A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+)", re.I)
# Words before "owner/name" that make it a repository (not a branch, not a path).
_REPO_BEFORE = frozenset(words("in on at of for to repo repository project against within"))
_NOT_REPO_BEFORE = frozenset(words("branch branches from into onto file files folder directory dir path"))
_NOT_REPO_AFTER = frozenset(words("branch branches file files folder directory dir"))

_STATE_VERBS = frozenset(
    words("move moving moved transition transitioning set change put drag switch mark update")
)
_STATE_PREPS = frozenset(words("to as into"))
# Words that end a state's name ("move it to In Progress in Jira", "... and assign it to me").
_STATE_END = frozenset(
    words("in on for with and then so please once when if after before by at but or now too also")
)
_STATE_NOUNS = frozenset(words("column status state lane stage list"))
_STATE_SKIP = frozenset(words("the a an"))
_QUOTES = "\"'\u201c\u201d\u2018\u2019"
# "mark ENG-4 done": a state word right after the object, with no "as".
_MARK_STATES = frozenset(words("done resolved complete completed closed fixed open reopened duplicate"))

_CELL = re.compile(r"^\$?[A-Za-z]{1,3}\$?[0-9]{1,7}(?::\$?[A-Za-z]{1,3}\$?[0-9]{1,7})?$")
_CELL_NOUNS = frozenset(words("cell cells range ranges"))
_CELL_JOIN = frozenset(words("and , &"))
_CELL_SPAN = frozenset(words("to through thru until -"))


def bounds(
    g: DraftGrant, clauses: Sequence[VerbClause], sentence: Sequence[tx.Token]
) -> tuple[list[str], list[str], list[str]]:
    """The repos, states and cells grant g's words name (each empty when they name none).

    `sentence` is every token of the sentences the grant's clauses stand in: "In acme/web, open
    an issue ..." names the repository outside the verb's clause."""
    objects = set(g.objects)
    repos = repos_named(sentence) if objects & REPO_OBJECTS else []
    states = states_named(clauses) if objects & STATEFUL_OBJECTS else []
    cells = cells_named(clauses) if g.class_ == "EXTERNAL_WRITE" else []
    return repos, states, cells


def _core(t: tx.Token) -> str:
    return (t.core[:-2] if t.possessive else t.core).strip(",.;:()")


def repos_named(toks: Sequence[tx.Token]) -> list[str]:
    """Repositories as "owner/name" (lower-case): after "in", "on", "repo" ..., or in a GitHub or
    GitLab URL; never a branch ("from feature/x") or a path ("the file src/app")."""
    out: list[str] = []
    for k, t in enumerate(toks):
        if t.literal:
            continue
        core = _core(t)
        m = _REPO_URL.match(core)
        if m:
            repo = m.group(1)
        else:
            repo = core.split("#", 1)[0]  # "acme/web#42"
            prev = toks[k - 1].norm if k > 0 else ""
            nxt = toks[k + 1].norm.strip(",.;:") if k + 1 < len(toks) else ""
            if not _REPO.match(repo) or tx.is_url(core) or tx.is_email(core):
                continue
            if repo.rsplit(".", 1)[-1].lower() in tx.FILE_EXTENSIONS:
                continue
            if prev in _NOT_REPO_BEFORE or nxt in _NOT_REPO_AFTER:
                continue
            if prev not in _REPO_BEFORE and nxt not in ("repo", "repository", "project"):
                continue
        repo = repo.lower().removesuffix(".git")
        if repo not in out:
            out.append(repo)
    return out


def states_named(clauses: Sequence[VerbClause]) -> list[str]:
    """The states a state verb's clause sends an issue to: "move it to In Progress", "mark it as
    done", "transition PAY-90 in Jira to In Review", "move the card to the Done column"."""
    out: list[str] = []
    for c in clauses:
        if c.lemma not in _STATE_VERBS:
            continue
        obj = c.obj
        at = max((k for k, t in enumerate(obj) if t.norm in _STATE_PREPS and not t.literal), default=-1)
        name: list[str] = []
        if at < 0 and c.lemma == "mark" and obj and obj[-1].norm.strip(",.;:!") in _MARK_STATES:
            name = [obj[-1].norm.strip(",.;:!")]
        for t in obj[at + 1 :] if at >= 0 else ():
            if t.literal or (name and t.norm in _STATE_END) or tx.is_recipient(t.core):
                break
            if not name and t.norm in _STATE_SKIP:
                continue
            name.append(t.core.strip(_QUOTES))
            if t.trail.strip() or len(name) == 4:
                break
        while name and name[-1].lower() in _STATE_NOUNS:
            name.pop()
        if name and name[0].lower() not in ("me", "myself", "him", "her", "them", "us"):
            state = " ".join(name).lower()
            if state not in out:
                out.append(state)
    return out


def cells_named(clauses: Sequence[VerbClause]) -> list[str]:
    """Cells and ranges in A1 notation after "cell", "cells" or "range": "cell B7" -> B7,
    "cells B2 to B10" -> B2:B10, "range A1:C5" -> A1:C5, "cells B2 and C4" -> B2, C4."""
    out: list[str] = []
    for c in clauses:
        toks = c.clause.tokens
        k = 0
        while k < len(toks):
            if toks[k].norm not in _CELL_NOUNS:
                k += 1
                continue
            k += 1
            while k < len(toks) and toks[k].norm in ("the", "of"):
                k += 1
            last = ""
            while k < len(toks):
                core = _core(toks[k]).rsplit("!", 1)[-1].replace("$", "").upper()
                if _CELL.match(core):
                    out.append(core)
                    last = core
                    k += 1
                elif last and toks[k].norm in _CELL_SPAN and k + 1 < len(toks):
                    end = _core(toks[k + 1]).rsplit("!", 1)[-1].replace("$", "").upper()
                    if not _CELL.match(end) or ":" in end or ":" in last:
                        break
                    out[-1] = f"{last}:{end}"
                    last = ""
                    k += 2
                elif last and toks[k].norm in _CELL_JOIN:
                    k += 1
                else:
                    break
    return list(dict.fromkeys(out))
