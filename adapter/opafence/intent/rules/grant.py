"""Making a grant from a request: its quote and call bound, and the grants of the simple entry
points (publish, share access, install packages, run a command or a runner, edit files, the
instrument a request names)."""

from __future__ import annotations

import re

from opafence.intent import lexicon as lx
from opafence.intent import text as tx
from opafence.intent.draft import DraftGrant
from opafence.intent.lexicon import words
from opafence.intent.rules.clause import POINTERS, VerbClause
from opafence.intent.rules.objects import (
    DETERMINERS,
    domains_in,
    objects_of,
    paths_in,
    placed_files,
    recipients_of,
    services_of,
)

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
_LEADING_CONNECTIVES = frozenset(
    words("and then but also so plus & und dann aber et puis mais y luego pero e poi ma")
)


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


def _evidence(c: VerbClause) -> str:
    """The clause, verbatim, without the connective that joined it to the one before."""
    toks = c.toks
    k = 0
    while k < c.i and not toks[k].literal and toks[k].norm in _LEADING_CONNECTIVES:
        k += 1
    return c.clause.text[toks[k].start - c.clause.start :] if k < len(toks) else c.clause.text


def make_grant(c: VerbClause, cls: str, cap: str, **kw: object) -> DraftGrant:
    g = DraftGrant.model_validate({"class": cls, "capability": cap, "evidence": _evidence(c), **kw})
    if cls in ("COMMUNICATION", "EXTERNAL_WRITE", "FINANCIAL") and g.max_calls is None:
        g.max_calls = _max_calls(c.clause.text)
    return g


def publish_grant(c: VerbClause) -> DraftGrant:
    """An external write bounded by the domains and services named, the things it acts on
    (hardening adds the kinds of action its verbs ask for) and the people it reaches."""
    services = services_of(c)
    return make_grant(
        c,
        "EXTERNAL_WRITE",
        "publish",
        # "the Monday.com board": the service's own domain names the service, not a site
        domains=[d for d in domains_in(c.obj) if f"mcp__{d.split('.')[0]}__*" not in services],
        tools=services,
        recipients=recipients_of(c),
        objects=objects_of(c.obj, c.lemma),
        max_calls=_max_calls(c.clause.text) or _one(c),
    )


def _one(c: VerbClause) -> int | None:
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


def access_of(c: VerbClause) -> str:
    """The access a share gives: "write" for "with edit access", "comment", else "read"."""
    found = {lx.ACCESS_WORDS[w] for w in c.words if w in lx.ACCESS_WORDS}
    return "write" if "write" in found else "comment" if "comment" in found else "read"


def packages_in(tokens: tuple[tx.Token, ...]) -> list[str]:
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


def instrument_grants(c: VerbClause) -> list[DraftGrant]:
    """A request to act that names the literal command to do it with asks to run that command:
    Rego then covers that command's own actions, exactly as named (lib/grants.rego)."""
    if c.lemma in lx.READ_VERBS:
        return []
    found = instrument_literals(c.toks, c.i)
    return [make_grant(c, "EXECUTION", "run_command", commands=found)] if found else []


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


def run_grants(c: VerbClause) -> list[DraftGrant] | str:
    obj = c.obj
    lits = [t.core for t in obj if t.literal]
    if lits:
        return [make_grant(c, "EXECUTION", "run_command", commands=[" ".join(x.split()) for x in lits])]
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
                        or (nxt.norm in DETERMINERS and head.norm in lx.COMMAND_STARTS | _RUNNER_HEADS)
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
                return [make_grant(c, "EXECUTION", runner)]
            return [make_grant(c, "EXECUTION", "run_command", commands=[" ".join(parts)])]
    caps = _all_runner_capabilities(words)
    if caps:
        return [make_grant(c, "EXECUTION", cap) for cap in caps]
    return [make_grant(c, "EXECUTION", "run_command")]


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


def moves_from_before(c: VerbClause) -> bool:
    """ "tidy up ~/Downloads: move every PDF in it into ~/Documents/PDFs": a move or copy out of
    the place the clause before names ("in it", "from there"), which it writes too."""
    norms = [t.norm for t in c.obj if not t.literal]
    return (
        c.lemma in _MOVES
        and bool(c.before)
        and any(
            (w in POINTERS and k > 0 and norms[k - 1] in ("in", "from", "of")) or w == "there"
            for k, w in enumerate(norms)
        )
    )


def edit_grants(c: VerbClause, workspace: bool = True) -> list[DraftGrant]:
    paths = paths_in(c.obj)
    if moves_from_before(c):
        paths = [*paths_in(c.before), *(p for p in paths if p not in paths_in(c.before))]
    return [make_grant(c, "LOCAL_WRITE", "edit", paths=paths, workspace=workspace or not paths)]
