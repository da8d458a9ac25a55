"""The Rego layout rules that matter most here (Regal's, by hand: Regal cannot be had here), read
from `opa inspect -a` and `opa parse --format json`:

- every package has METADATA (a package- or subpackages-scoped annotation with a title and a
  description), and so does every entrypoint: each rule annotated `entrypoint: true` and each
  document the adapter asks for by path;
- a rule only its own package uses is private: its name starts with `_`;
- a .rego file that is not a test is at most 400 lines (data files aside).

Files other work is changing hold their exceptions in allow-lists with the reason; the lists can
only shrink (an entry that no longer applies fails the test). The reading is tools/rego_layout.py;
print what the checks find with `.venv/bin/python tools/rego_layout.py`.
"""

from __future__ import annotations

import json
from pathlib import Path

from tests.tool import load_tool

rl = load_tool("rego_layout")

# The documents the adapter and OPA's own configuration ask for by path (opa/bridge.py,
# budget/spend.py, opa/bundles.py), besides the rules annotated `entrypoint: true`.
QUERIED = {
    "opafence.decision",
    "opafence.remote.decision",
    "opafence.remote.spend",
    "opafence.budget.spend.decision",
    "opafence.log.mask",
    "opafence.log.drop",
}

# Non-test files over rl.MAX_LINES, with their length when they were listed: each may only get
# shorter (split it, then take it off the list).
LONG_FILES = {
    "opafence/guards/self_protection/self_protection.rego": 1019,
    "opafence/guards/secrets/secrets.rego": 971,
    "opafence/guards/common/common.rego": 714,
    "opafence/taint/taint.rego": 603,
    "opafence/guards/destruction/destruction.rego": 586,
    "opafence/task/task.rego": 573,
    "opafence/guards/reach/reach.rego": 526,
    "opafence/fast/fast.rego": 497,
    "opafence/classify/classify.rego": 417,
}

# Rules used only inside their package that are not `_`-prefixed yet, per package with why
# (tools/rego_private.py renames a package's; then its entry goes).
EXCEPTIONS = json.loads((Path(__file__).with_name("rego_layout_exceptions.json")).read_text(encoding="utf-8"))
UNPREFIXED: dict[str, set[str]] = {p: set(e["rules"]) for p, e in EXCEPTIONS["private_helpers"].items()}


# --- the checks -------------------------------------------------------------------------------


def test_every_package_has_metadata() -> None:
    anns = rl.package_annotations()
    assert sorted(p for p in rl.packages() if not rl.described(anns.get(p, []))) == []


def test_every_entrypoint_has_metadata() -> None:
    rules = rl.rule_annotations()
    marked = {p for p, anns in rules.items() if any(a.get("entrypoint") for a in anns)}
    assert QUERIED - set(rules) == set(), "a queried document without METADATA"
    assert sorted(p for p in marked | QUERIED if not rl.described(rules[p])) == []
    assert {"opafence.decision", "opafence.fast.decision"} <= marked


def test_private_helpers_start_with_an_underscore() -> None:
    found = {p: set(r) for p, r in rl.private_unprefixed().items()}
    new = {p: sorted(r - UNPREFIXED.get(p, set())) for p, r in found.items() if r - UNPREFIXED.get(p, set())}
    assert new == {}, "a rule only its package uses: name it with a leading _"
    gone = {p: sorted(r - found.get(p, set())) for p, r in UNPREFIXED.items() if r - found.get(p, set())}
    assert gone == {}, "renamed or used outside now: take it off rego_layout_exceptions.json"
    assert all(e["why"] for e in EXCEPTIONS["private_helpers"].values())


def test_policy_files_are_at_most_400_lines() -> None:
    found = rl.long_files()
    assert sorted(set(found) - set(LONG_FILES)) == [], {f: found[f] for f in set(found) - set(LONG_FILES)}
    grown = {f: (LONG_FILES[f], n) for f, n in found.items() if f in LONG_FILES and n > LONG_FILES[f]}
    assert grown == {}, "(listed, now): split the file instead of growing it"
    assert sorted(set(LONG_FILES) - set(found)) == [], "short enough now: take it off LONG_FILES"


def test_every_reference_into_opafence_names_something(tmp_path: Path) -> None:
    # A rule renamed or removed while another package still names it is undefined there, and
    # neither OPA nor `opa check --strict` says so (data may come at run time).
    assert rl.dangling_refs() == []
    probe = tmp_path / "probe.rego"
    probe.write_text(
        "package probe\n\nimport data.opafence.lib.action\n\n"
        "x := action.bases.READ\n\ny := action.no_such_rule\n\nz := data.opafence.lib.no_such_package.r\n",
        encoding="utf-8",
    )
    assert rl.dangling_refs([probe]) == [
        "probe.rego: data.opafence.lib.action.no_such_rule",
        "probe.rego: data.opafence.lib.no_such_package.r",
    ]


def test_the_checks_can_fail() -> None:
    """The reference matcher is what decides "private": it must see a use through a wildcard."""
    assert rl.matches(["opafence", "guards", None, "findings"], ["opafence", "guards", "secrets"], "findings")
    assert not rl.matches(["opafence", "guards", None, "deny"], ["opafence", "guards", "secrets"], "findings")
    assert rl.matches(["opafence", "task"], ["opafence", "task"], "authorized")
