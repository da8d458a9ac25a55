"""`opafence demo` (what `make demo` prints) against the real OPA: a table a person can read,
and the verdicts it claims."""

from __future__ import annotations

import contextlib
import io
import re

import pytest

from opafence.demo import SCENARIOS, run_demo


@pytest.fixture(scope="module")
def printed() -> str:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert run_demo() == 0
    return out.getvalue()


def row(text: str, note: str) -> list[str]:
    """The cells of the step whose note is `note` (two or more spaces separate cells)."""
    line = next(ln for ln in text.splitlines() if re.match(rf"\s+\d+\. {re.escape(note)}\s", ln))
    return re.split(r"\s{2,}", line.strip())


def test_every_step_is_shown_whole_and_lines_fit(printed: str) -> None:
    for sc in SCENARIOS:
        assert f'The user says: "{sc.message}"' in printed
        for step in sc.steps:
            assert row(printed, step.note)[0].endswith(step.note)  # never cut off
    assert max(len(ln) for ln in printed.splitlines()) <= 140
    assert "attended    someone at the Hermes CLI" in printed and "unattended  nobody can" in printed
    assert "\\n" not in printed  # the injected email is shown as text, not a Python repr


@pytest.mark.parametrize(
    ("note", "attended", "unattended"),
    [
        ("search the inbox", "allow", "allow"),
        ("the injected forward", "block", "block"),
        ("the injected trash", "block", "block"),
        ("the summary the user asked for", "allow", "allow"),
        ("the injected send (its address came from the email)", "block", "block"),
        ("send before anything was read", "ask", "block"),
        ("the send the user asked for", "allow", "allow"),
        ("another recipient", "ask", "block"),
        ("look-alike address (Cyrillic o)", "block", "block"),
        ("asks; the user approves once", "ask, approved once", "block"),
        ("the same send again: asks again", "ask", "block"),
    ],
)
def test_the_verdicts_it_shows(printed: str, note: str, attended: str, unattended: str) -> None:
    cells = row(printed, note)
    assert cells[2:] == [attended, unattended], cells


def test_each_verdict_says_why_with_its_code(printed: str) -> None:
    lines = printed.splitlines()
    i = next(n for n, ln in enumerate(lines) if "the injected forward" in ln)
    # The injected address is blocked by its provenance: the message names it and its source.
    assert (
        lines[i + 1]
        .lstrip()
        .startswith(
            "- billing@attacker.example first appeared in the result of mcp__gmail__read_email, call 2"
        )
    )
    assert "[PROVENANCE_UNTRUSTED]" in " ".join(lines[i + 1 : i + 4])
