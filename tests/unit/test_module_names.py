"""No two modules under adapter/opafence share a name unless they hold the same kind of thing:
a reader who meets `ledger` or `paths` in an import should not have to look at the package to
know which one it is.

SAME_KIND lists the names that may repeat, with the kind they all hold; SHARED lists the
repeats of today that still have to be renamed, and can only shrink (an entry that no longer
repeats fails)."""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

ADAPTER = Path(__file__).resolve().parents[2] / "adapter"

SAME_KIND = {
    "__init__.py": "a package",
}

# name -> the modules that share it today. Shrink-only.
SHARED = {
    # facts/code/values.py: statically known values of code expressions;
    # provenance/values.py: target-like values in untrusted text.
    "values.py": {"opafence/facts/code/values.py", "opafence/provenance/values.py"},
}


def repeats() -> dict[str, set[str]]:
    by_name: dict[str, set[str]] = defaultdict(set)
    for path in (ADAPTER / "opafence").rglob("*.py"):
        by_name[path.name].add(path.relative_to(ADAPTER).as_posix())
    return {n: ps for n, ps in by_name.items() if len(ps) > 1 and n not in SAME_KIND}


def test_no_two_modules_share_a_name() -> None:
    found = repeats()
    new = {n: sorted(ps) for n, ps in found.items() if not ps <= SHARED.get(n, set())}
    assert new == {}, "modules that share a name: rename them for what each holds"
    gone = sorted(n for n in SHARED if n not in found)
    assert gone == [], "no longer shared: take it off SHARED"
