"""docs/reasons.md is what tools/reason_catalogue.py makes of the Rego METADATA today."""

from __future__ import annotations

from tests.tool import load_tool

rc = load_tool("reason_catalogue")
FOUND = rc.annotations()


def test_the_catalogue_is_fresh() -> None:
    current = rc.CATALOGUE.read_text(encoding="utf-8")
    assert current == rc.render(FOUND), (
        "docs/reasons.md is stale: run .venv/bin/python tools/reason_catalogue.py"
    )


def test_every_reason_rule_is_in_it() -> None:
    rows = rc.reason_rows(FOUND)
    codes = {r[0] for r in rows}
    # Reasons of the decision itself, of a guard, the task policy and the budget, by code.
    assert {"NOT_PROVEN", "NOBODY_TO_ASK", "USER_PROHIBITION", "DECODE_AND_RUN", "BUDGET_CALLS"} <= codes
    assert all(code and msg for code, _, _, msg, _ in rows)
    text = rc.CATALOGUE.read_text(encoding="utf-8")
    assert all(f"| `{code}` |" in text for code in codes)


def test_a_changed_annotation_makes_it_stale() -> None:
    changed = [dict(a, annotations=dict(a["annotations"])) for a in FOUND]
    first = next(a for a in changed if a["annotations"].get("custom", {}).get("code"))
    first["annotations"]["description"] = "A message nobody wrote."
    assert rc.render(changed) != rc.render(FOUND)
