"""No two modules under adapter/opafence share a name unless they hold the same kind of thing:
a reader who meets `ledger` or `paths` in an import should not have to look at the package to
know which one it is.

SAME_KIND lists the names that repeat on purpose, with the kind of thing they all hold;
SHARED lists the repeats of today that still have to be renamed, and can only shrink (an entry
that no longer repeats fails)."""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

ADAPTER = Path(__file__).resolve().parents[2] / "adapter"

# Names that repeat on purpose: name -> (the kind of thing each holds, the modules).
SAME_KIND: dict[str, tuple[str, set[str]]] = {
    "model.py": (
        "the values an analyzer of the facts passes around",
        {"opafence/facts/code/model.py", "opafence/facts/shell/model.py"},
    ),
    "tables.py": (
        "an analyzer's tables, loaded from its data/ files",
        {"opafence/facts/code/tables.py", "opafence/facts/shell/tables.py"},
    ),
    "dispatch.py": (
        "a walker's dispatch: from what it meets to the handler that reads it",
        {"opafence/facts/shell/dispatch.py", "opafence/intent/rules/dispatch.py"},
    ),
    "commands.py": (
        "simple commands as the facts show them (the call's, and the owner's literal ones)",
        {"opafence/facts/shell/commands.py", "opafence/intent/commands.py"},
    ),
}

# name -> the modules that share it today and hold different things: to be renamed. Shrink-only.
SHARED = {
    # facts/code/values.py: statically known values of code expressions;
    # provenance/values.py: target-like values in untrusted text.
    "values.py": {"opafence/facts/code/values.py", "opafence/provenance/values.py"},
    # facts/shell/programs/text.py: text tools that run commands (awk, sed);
    # intent/text.py: tokens, sentences and clauses of a message.
    "text.py": {"opafence/facts/shell/programs/text.py", "opafence/intent/text.py"},
}


def repeats() -> dict[str, set[str]]:
    by_name: dict[str, set[str]] = defaultdict(set)
    for path in (ADAPTER / "opafence").rglob("*.py"):
        by_name[path.name].add(path.relative_to(ADAPTER).as_posix())
    return {n: ps for n, ps in by_name.items() if len(ps) > 1 and n != "__init__.py"}


def test_no_two_modules_share_a_name() -> None:
    found = repeats()
    known = {n: SAME_KIND.get(n, ("", set()))[1] | SHARED.get(n, set()) for n in found}
    new = {n: sorted(ps - known[n]) for n, ps in found.items() if not ps <= known[n]}
    assert new == {}, "modules that share a name: rename them for what each holds"
    gone = sorted(n for n in SHARED if n not in found)
    assert gone == [], "no longer shared: take it off SHARED"
