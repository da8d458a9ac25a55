"""No Python module under adapter/ is longer than 600 lines: a longer one holds more than one
thing, and is split into modules named for what each holds (docs/architecture.md).

LONG_FILES lists the modules that are longer today, with their length; the list can only
shrink: a listed module may not grow, and one that is short enough (or gone) must come off
the list. Data files (prices.json, plugin.yaml) are not counted."""

from __future__ import annotations

from pathlib import Path

ADAPTER = Path(__file__).resolve().parents[2] / "adapter"
MAX_LINES = 600

LONG_FILES = {}


def lengths() -> dict[str, int]:
    out = {}
    for path in sorted((ADAPTER / "opafence").rglob("*.py")):
        with path.open(encoding="utf-8") as f:
            out[path.relative_to(ADAPTER).as_posix()] = sum(1 for _ in f)
    return out


def test_no_module_passes_600_lines() -> None:
    found = {f: n for f, n in lengths().items() if n > MAX_LINES}
    new = {f: n for f, n in found.items() if f not in LONG_FILES}
    assert new == {}, f"over {MAX_LINES} lines: split them"
    grown = {f: (LONG_FILES[f], n) for f, n in found.items() if f in LONG_FILES and n > LONG_FILES[f]}
    assert grown == {}, "a listed module grew (listed, now)"
    short = sorted(set(LONG_FILES) - set(found))
    assert short == [], "short enough now (or gone): take it off LONG_FILES"
