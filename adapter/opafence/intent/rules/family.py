"""Requests named by what they act on (issue 14): the dev server, migrations, a virtualenv, the
project's dependencies, pip itself, git bookkeeping, code over data files, operations on named
objects (restart, scale, roll back), and the references (ids, issue keys) a request names."""

from __future__ import annotations

import re
from dataclasses import dataclass

from opafence.intent import lexicon as lx
from opafence.intent import text as tx
from opafence.intent.draft import DraftGrant
from opafence.intent.lexicon import words
from opafence.intent.rules.clause import MONEY, VerbClause, refers_back
from opafence.intent.rules.grant import make_grant, packages_in
from opafence.intent.rules.objects import DETERMINERS, domains_in, paths_in, ref_name

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
        if t.literal or t.norm in lx.REF_WORDS or t.norm in DETERMINERS or t.norm in _NOT_REF_NAMES:
            continue
        name = t.core.strip(",.;:()")
        before = obj[k - 1].norm if k > 0 else ""
        if before in ("called", "named") and k > 1:
            before = obj[k - 2].norm
        # "the branch feature/auth", "hotfix-12 branch"; not "the merged branch", "local branch"
        looks = before in lx.REF_WORDS or bool(re.search(r"[/\d-]", name))
        if looks and ref_name(obj, k) and re.match(r"^[A-Za-z0-9][A-Za-z0-9._/-]*$", name):
            out.append(name)
    return list(dict.fromkeys(out))


_FOLDER_PLURALS = frozenset(words("folders directories dirs"))


def folders_named(obj: tuple[tx.Token, ...]) -> list[str]:
    """ "the dist and build directories": plain names before a closing folder word are folders."""
    toks = [t for t in obj if not t.literal]
    while toks and toks[0].norm in ("out", "up", "away", "off"):
        toks = toks[1:]  # "clean out the dist and build directories"
    if not toks or toks[-1].norm.strip(".,") not in lx.FOLDER_WORDS | _FOLDER_PLURALS:
        return []
    names = [t.core.strip(",") for t in toks[:-1] if t.norm not in DETERMINERS | {"and", ",", "both"}]
    ok = all(re.match(r"^[A-Za-z0-9_.-]+$", n) and n.lower() not in lx.GENERIC_OBJECTS for n in names)
    return names if ok and names else []


def after_pull(toks: tuple[tx.Token, ...]) -> bool:
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


def _code_grants(c: VerbClause) -> list[DraftGrant]:
    """A computation, parse or plot in execute_code: its code and the files it writes in the
    workspace (Rego covers only code that runs no command, opens no connection, evaluates no
    text and writes nothing outside the workspace)."""
    return [make_grant(c, "EXECUTION", "run_code"), make_grant(c, "LOCAL_WRITE", "run_code", workspace=True)]


_OPERATE_STOPS = frozenset(
    words("in on to at for with from there here so because via using through by after before then now please")
)
_OPERATE_PARTICLES = frozenset(words("back up down"))
_OPERATE_NAME = re.compile(r"^[a-z0-9][a-z0-9._/:-]*$")


def operation_of(c: VerbClause) -> str:
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
            if u.literal or w in DETERMINERS or w in lx.OPERATE_SCOPE_NOUNS:
                if u.trail:
                    break
                continue
            if w in _OPERATE_STOPS or not _OPERATE_NAME.match(w):
                break
            out.append(w)
            break
    return list(dict.fromkeys(out))


def operated(c: VerbClause, previous: tuple[tx.Token, ...] = ()) -> Operated:
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
        if not t.literal and (w in DETERMINERS or w in _OPERATE_PARTICLES or w in ("and", ",")):
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


def backs_out(c: VerbClause) -> bool:
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


def family_grants(c: VerbClause) -> list[DraftGrant] | None:
    """Everyday requests named by what they act on (issue 14): the dev server, migrations, a
    virtualenv, the project's dependencies, pip itself, a computation in code, a merged branch."""
    lem, ws, obj = c.lemma, c.words, c.obj
    cw = c.context_words
    if "document.title" in cw or ("title" in cw and "console" in ws):
        return [make_grant(c, "EXECUTION", "page_title")]
    if lem in lx.BROWSE_VERBS or (
        lem in lx.CAPABILITY_VERBS[("EXTERNAL_WRITE", "browse")]
        and lem not in ("open", "go", "visit", "navigate")
        and ws & lx.BROWSE_WORDS
    ):
        # the page comes from the sentence that names it (compile_rules, _page_of)
        return [make_grant(c, "EXTERNAL_WRITE", "browse", domains=domains_in(c.toks))]
    if "skill" in ws and lem in lx.CAPABILITY_VERBS[("MEMORY_WRITE", "skill")]:
        return [make_grant(c, "MEMORY_WRITE", "skill")]
    if (
        lem == "remind"
        or (lem == "schedule" and not ws & _CALENDAR_WORDS)
        or (lem == "wake" and c.obj and c.obj[0].norm == "me")
    ):
        # "wake me at 6:45 with a message saying ...": a reminder to the owner
        return [make_grant(c, "EXECUTION", "schedule")]
    if lem in lx.CAPABILITY_VERBS[("EXECUTION", "schedule")] and (
        (ws if lem in ("pause", "resume") and not ws & {"called", "named"} else cw)
        & {"reminder", "reminders", "timer", "alarm", "cron", "cronjob", "job", "jobs"}
        or (lem in ("ping", "notify", "message") and obj and obj[0].norm == "me" and ws & lx.SCHEDULE_WORDS)
    ):
        return [make_grant(c, "EXECUTION", "schedule")]
    if lem in lx.CAPABILITY_VERBS[("EXECUTION", "run_server")] and (
        lem == "serve"
        or (
            cw & lx.SERVER_WORDS
            and cw & lx.SERVER_QUALIFIERS
            and (lem not in ("make", "keep", "get") or ws & _GOING)
        )
        or ("dev" in cw and cw & {"mode", "app", "server"})
    ):
        return [make_grant(c, "EXECUTION", "run_server")]
    if operation_of(c):
        # "restart the nginx service": hardening binds it to the objects, scopes and counts named
        return [make_grant(c, "EXECUTION", "operate"), make_grant(c, "EXTERNAL_WRITE", "operate")]
    if lem in lx.CAPABILITY_VERBS[("EXECUTION", "run_migrations")] and (
        ws & lx.MIGRATION_WORDS or (lem == "migrate" and (ws & lx.DATABASE_WORDS or not ws))
    ):
        return [make_grant(c, "EXECUTION", "run_migrations")]
    if lem in lx.CAPABILITY_VERBS[("EXECUTION", "create_venv")] and (
        ws & lx.VENV_WORDS
        or ("virtual" in ws and ws & {"environment", "env"})
        or ("env" in ws and ws & {"python", "uv", "fresh", "conda-free"})
    ):
        return [make_grant(c, "EXECUTION", "create_venv")]
    if "pip" in cw | {c.tool} and (lem in ("upgrade", "update", "bump") or ws & _PIP_FRESH):
        return [
            make_grant(c, "EXECUTION", "install", packages=["pip", *(p for p in _PIP_COMPANIONS if p in ws)])
        ]
    if (
        lem in lx.CAPABILITY_VERBS[("EXECUTION", "install")]
        and ws & lx.DEPENDENCY_WORDS
        and not packages_in(obj)
    ):
        return [make_grant(c, "EXECUTION", "install")]
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
            files = [p for p in paths_in(obj) if p not in refs]
            also = [make_grant(c, "DELETE", "delete", paths=files)] if files else []
            return [*also, make_grant(c, "DELETE", "delete_branch", commands=cmds)]
    if backs_out(c):
        # "back out commit c0ffee1": a revert
        return [make_grant(c, "LOCAL_WRITE", "commit", workspace=True)]
    if lem == "bisect":
        # "bisect which commit broke test_login": git bisect in the workspace, and the tests it
        # runs at each step when the words name a test
        found = [make_grant(c, "LOCAL_WRITE", "commit", workspace=True)]
        if any(names_test(t.norm) for t in c.toks):
            found.append(make_grant(c, "EXECUTION", "run_tests"))
        return found
    if (c.tool == "git" or "git" in ws) and lem in _GIT_VERBS | lx.COMMIT_VERBS | {"rename", "move"}:
        paths = paths_in(obj)
        return [make_grant(c, "LOCAL_WRITE", "commit", paths=paths, workspace=True)]
    if (
        lem in ("pull", "revert", "cherry", "cherry-pick")
        or (lem in ("pop", "apply") and "stash" in ws)
        or (lem == "undo" and ws & {"commit", "revert"})
        or (lem in ("update", "sync") and ws & {"remote", "upstream", "origin"})
    ):
        return [make_grant(c, "LOCAL_WRITE", "commit", workspace=True)]
    return None


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
        if not _REF_ID.match(core) or tx.is_recipient(core) or MONEY.search(core):
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
