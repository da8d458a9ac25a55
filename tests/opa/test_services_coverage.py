"""The services coverage corpus (tests/data/intent/coverage/<domain>.jsonl) through replay_line
with each session's tools: no call outside the words is allowed, and the calls the words ask
for run without a prompt (the held-out quarter is the figure of how well binding generalises)."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from opafence.config import Config
from opafence.host import Host
from opafence.judge import Judge
from opafence.opa.bridge import Bridge
from opafence.replay import replay_line
from tests.opa.test_intent_coverage import KNOWN_LEAKS

DATA = Path(__file__).resolve().parents[1] / "data" / "intent" / "coverage"
DOMAINS = ("mail", "calendar", "chat", "documents", "payments", "bookings", "issues", "accounts")
LINES = [
    json.loads(x)
    for d in DOMAINS
    if (DATA / f"{d}.jsonl").exists()
    for x in (DATA / f"{d}.jsonl").read_text(encoding="utf-8").splitlines()
    if x.strip()
]


def test_corpus_is_well_formed() -> None:
    assert len(LINES) >= 150
    assert sum(x["heldout"] for x in LINES) >= 70
    for x in LINES:
        assert x["domain"] in DOMAINS and x["tools"], x["id"]
        assert len(x["calls"]) == len(x["want"]) > 0, x["id"]
        assert set(x["want"]) <= {"allow", "ask", "block"}, x["id"]


@pytest.fixture(scope="module")
def shared(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Bridge]:
    b = Bridge(Config(), tmp_path_factory.mktemp("services-opa"))
    b.start()
    try:
        yield b
    finally:
        b.close()


@pytest.fixture(scope="module")
def outcomes(shared: Bridge, tmp_path_factory: pytest.TempPathFactory) -> dict[str, list[str]]:
    bridge = shared
    project = tmp_path_factory.mktemp("services-project")
    host = Host(
        auto_approve=False, interactive=True, platform="replay", workspace=(str(project),), cwd=str(project)
    )
    judge = Judge(bridge, host, Config())
    out: dict[str, list[str]] = {}
    for x in LINES:
        got = replay_line(judge, json.dumps(x))
        assert "error" not in got, got
        out[x["id"]] = [v["verdict"] for v in got["verdicts"]]
    return out


def test_nothing_outside_the_words_is_allowed(outcomes: dict[str, list[str]]) -> None:
    leaks = {
        x["id"]: (k, x["calls"][k]["tool"])
        for x in LINES
        for k, (w, g) in enumerate(zip(x["want"], outcomes[x["id"]], strict=True))
        if w != "allow" and g == "allow" and f"{x['id']}#{k}" not in KNOWN_LEAKS
    }
    assert leaks == {}  # the coverage test's known leaks (strict xfails there) aside


@pytest.mark.parametrize(("heldout", "floor"), [(True, 0.9), (False, 0.9)])
def test_what_the_words_ask_for_runs(outcomes: dict[str, list[str]], heldout: bool, floor: float) -> None:
    c: Counter[str] = Counter()
    for x in LINES:
        if x["heldout"] != heldout:
            continue
        for w, g in zip(x["want"], outcomes[x["id"]], strict=True):
            if w == "allow":
                c["want"] += 1
                c["got"] += g == "allow"
    assert c["want"] > 0 and c["got"] / c["want"] >= floor, dict(c)


def test_a_tools_line_binds_and_a_line_without_keeps_the_glob(bridge: Bridge, tmp_path: Path) -> None:
    host = Host(
        auto_approve=False, interactive=True, platform="replay", workspace=(str(tmp_path),), cwd=str(tmp_path)
    )
    judge = Judge(bridge, host, Config())
    line: dict[str, Any] = {
        "id": "t",
        "user_message": "Cancel tomorrow's standup in outlook",
        "tools": [
            {"name": "mcp__outlook__cancel_event", "parameters": ["event_id"]},
            "mcp__outlook__update_event",
        ],
        "calls": [
            {"tool": "mcp__outlook__cancel_event", "args": {"event_id": "s1"}},
            {"tool": "mcp__outlook__update_event", "args": {"event_id": "s1", "start": "2026-12-03T11:00"}},
        ],
    }
    got = replay_line(judge, json.dumps(line))
    assert [v["verdict"] for v in got["verdicts"]] == ["allow", "ask"]
    assert [g["tools"] for g in got["policy"]["grants"]] == [["mcp__outlook__cancel_event"]]
    bad = replay_line(judge, json.dumps({**line, "tools": "not a list"}))
    assert "error" in bad
