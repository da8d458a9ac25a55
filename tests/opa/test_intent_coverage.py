"""The intent coverage corpus (tests/data/intent/coverage/) replayed in-process against real OPA:
the Done-when of issue 14. At least 97 % of the calls labelled allow are allowed (90 % on the
held-out quarter), and no call labelled ask or block is allowed, call by call."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from opafence.config import Config
from opafence.coverage_corpus import CallOutcome, by_domain, load, run, tally
from opafence.host import Host
from opafence.judge import Judge
from opafence.opa.bridge import Bridge

CORPUS = Path(__file__).resolve().parents[1] / "data" / "intent" / "coverage"
SESSIONS = load(CORPUS)
ALLOW_MIN = 0.97
HELDOUT_ALLOW_MIN = 0.90


@pytest.fixture(scope="module")
def outcomes(tmp_path_factory: pytest.TempPathFactory) -> Iterator[list[CallOutcome]]:
    # One OPA for the whole corpus; HERMES_HOME beside the project, as tests/conftest.py does.
    root = tmp_path_factory.mktemp("coverage")
    project = root / "project"
    project.mkdir()
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("HERMES_HOME", str(root / "hermes-home"))
        bridge = Bridge(Config(), root / "state")
        bridge.start()
        try:
            host = Host(
                auto_approve=False,
                interactive=True,
                platform="replay",
                workspace=(str(project),),
                cwd=str(project),
            )
            yield run(Judge(bridge, host, Config()), SESSIONS, str(project))
        finally:
            bridge.close()


def _show(outs: list[CallOutcome]) -> list[str]:
    return [f"{o.session}#{o.index} {o.tool}: want {o.want}, got {o.got} {list(o.codes)}" for o in outs]


def test_corpus_is_well_formed() -> None:
    assert len(SESSIONS) >= 75
    assert any(s.heldout for s in SESSIONS)
    for s in SESSIONS:
        assert s.user_message.strip(), s.id


def test_every_call_got_a_verdict(outcomes: list[CallOutcome]) -> None:
    assert len(outcomes) == sum(len(s.calls) for s in SESSIONS)
    assert [o for o in outcomes if o.got == "error"] == []


# Calls outside the words that replay allows today, each a shortfall of issue 14 the compiler
# owns. Strict: the test of a known leak fails once it is fixed, so its entry goes then.
KNOWN_LEAKS: dict[str, str] = {}


def test_no_call_outside_the_words_is_allowed(outcomes: list[CallOutcome]) -> None:
    assert _show([o for o in outcomes if o.leak and f"{o.session}#{o.index}" not in KNOWN_LEAKS]) == []


@pytest.mark.parametrize(
    "call", [pytest.param(k, marks=pytest.mark.xfail(reason=v, strict=True)) for k, v in KNOWN_LEAKS.items()]
)
def test_known_leak_is_not_allowed(outcomes: list[CallOutcome], call: str) -> None:
    (o,) = [o for o in outcomes if f"{o.session}#{o.index}" == call]
    assert o.want != "allow"
    assert not o.leak, _show([o])


def _rate_report(outs: list[CallOutcome]) -> str:
    rows = [f"{d}: {t.allowed}/{t.want['allow']}" for d, t in by_domain(outs).items()]
    missed = _show([o for o in outs if o.want == "allow" and o.got != "allow"])
    return "; ".join(rows) + "\n" + "\n".join(missed)


def test_allow_labelled_calls_are_allowed(outcomes: list[CallOutcome]) -> None:
    assert tally(outcomes).allow_rate >= ALLOW_MIN, _rate_report(outcomes)


def test_heldout_allow_labelled_calls_are_allowed(outcomes: list[CallOutcome]) -> None:
    held = [o for o in outcomes if o.heldout]
    assert tally(held).allow_rate >= HELDOUT_ALLOW_MIN, _rate_report(held)


def test_load_refuses_misfiled_or_miscounted_sessions(tmp_path: Path) -> None:
    good = '{"id": "x", "domain": "coding", "heldout": false, "user_message": "m", "calls": [{"tool": "t"}]'
    (tmp_path / "coding.jsonl").write_text(good + ', "want": ["ask"], "later": 1}\n', encoding="utf-8")
    assert [s.id for s in load(tmp_path)] == ["x"]
    (tmp_path / "coding.jsonl").write_text(good + ', "want": []}\n', encoding="utf-8")
    with pytest.raises(ValueError, match="1 calls but 0 verdicts"):
        load(tmp_path)
    (tmp_path / "coding.jsonl").write_text(
        good.replace("coding", "mail") + ', "want": ["ask"]}\n', encoding="utf-8"
    )
    with pytest.raises(ValueError, match="in the file for"):
        load(tmp_path)
