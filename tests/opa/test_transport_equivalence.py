"""The two local transports decide alike: every input of the corpora (tests/data/corpus and
tests/data/guards, through the real facts, compiler and replay) goes to opafence-pdp and to the
stock opa server, and the raw results must be identical (verdict, reasons, classes, monitor,
grants, ingests), as must the budget rule's. Run directly to print the counts:

    .venv/bin/python -m tests.opa.test_transport_equivalence
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from opafence.decision import Decision
from opafence.errors import BridgeError
from opafence.inputs import decision_input
from opafence.judge import Judge
from opafence.opa.bridge import Bridge
from opafence.replay import replay_line
from opafence.session import SessionFacts

from . import test_corpus_policies as corpus
from . import test_guard_corpora as guards
from .transports import config_for, needs_pdp

pytestmark = needs_pdp

TRANSCRIPTS = Path(__file__).resolve().parents[1] / "data" / "corpus" / "replay_transcripts.jsonl"


# A slow answer on a loaded machine (or none while a hung engine is replaced) says nothing about
# the transports: it is asked again, and one that stays missing is reported apart (never counted
# as equal, nor as a difference), and fails the test under its own name.
SLOW = frozenset({"OPA_TIMEOUT", "OPA_UNAVAILABLE"})
TRIES = 3


class Slow(Exception):
    """No answer, TRIES times over."""


def answer(bridge: Bridge, doc: dict[str, Any]) -> Any:
    for _ in range(TRIES):
        try:
            return bridge.query(doc)["result"]
        except BridgeError as e:
            if e.code not in SLOW:
                return {"error": e.code}
            bridge.wait_ready(20.0)  # a hung engine is replaced; wait for it before asking again
    raise Slow(bridge.transport)


class Mirror:
    """A bridge for the Judge that sends every write to both transports and every decision to
    both, keeping what differs; the PDP's answer is the one used."""

    def __init__(self, pdp: Bridge, server: Bridge) -> None:
        self.pdp, self.server = pdp, server
        self.compared = 0
        self.differ: list[tuple[dict[str, Any], Any, Any]] = []
        self.slow: list[tuple[dict[str, Any], str]] = []  # not compared: no answer in time

    def put_task(self, key: str, data: dict[str, Any]) -> None:
        self.pdp.put_task(key, data)
        self.server.put_task(key, data)

    def delete_task(self, key: str) -> None:
        self.pdp.delete_task(key)
        self.server.delete_task(key)

    def decide(self, doc: dict[str, Any]) -> Decision:
        try:
            a, b = answer(self.pdp, doc), answer(self.server, doc)
        except Slow as e:
            self.slow.append((doc, str(e)))
        else:
            self.compared += 1
            if a != b:
                self.differ.append((doc, a, b))
        return self.pdp.decide(doc)

    def budget_query(self, rule: str, doc: dict[str, Any]) -> Any:
        a, b = self.pdp.budget_query(rule, doc), self.server.budget_query(rule, doc)
        self.compared += 1
        if a != b:
            self.differ.append((doc, a, b))
        return a

    def __getattr__(self, name: str) -> Any:
        return getattr(self.pdp, name)


@pytest.fixture(scope="module")
def pairs(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Mirror]]:
    started: list[Bridge] = []
    out: dict[str, Mirror] = {}
    try:
        for mode in ("enforce", "monitor", "strict"):
            both = []
            for transport in ("pdp", "server"):
                # A slow answer on a loaded machine is not a difference between transports.
                raw: dict[str, Any] = {"mode": mode, "opa": {"timeout_ms": 20_000}}
                if transport == "pdp":
                    raw["opa"]["pdp_standby"] = False  # one engine each is enough here
                b = Bridge(config_for(transport, **raw), tmp_path_factory.mktemp(f"eq-{transport}-{mode}"))
                b.start()
                started.append(b)
                both.append(b)
            assert (both[0].transport, both[1].transport) == ("pdp", "server")
            out[mode] = Mirror(both[0], both[1])
        yield out
    finally:
        for b in started:
            b.close()


def report(m: Mirror) -> str:
    rows = [f"{len(m.differ)} of {m.compared} decisions differ"]
    for doc, a, b in m.differ[:5]:
        rows.append(f"  {doc.get('call', {})}: pdp {json.dumps(a)[:300]} / server {json.dumps(b)[:300]}")
    return "\n".join(rows)


def slow_report(m: Mirror) -> str:
    why = f"no answer (a timeout, or the engine restarting), {TRIES} tries each"
    rows = [f"{len(m.slow)} decisions could not be compared: {why}"]
    for doc, transport in m.slow[:5]:
        rows.append(f"  {transport}: {json.dumps(doc.get('call', {}))[:300]}")
    return "\n".join(rows)


def test_corpus_calls_decide_alike(pairs: dict[str, Mirror]) -> None:
    for line in corpus.LINES:
        m = pairs[line.get("mode", "enforce")]
        key = line["id"]
        m.put_task(key, {**corpus.POLICIES[line["policy"]], "task": key})
        session = SessionFacts()
        session.counters.update(line.get("counters", {}))
        host = corpus.UNATTENDED if line.get("host") == "unattended" else corpus.ATTENDED
        try:
            m.decide(decision_input(key, line["tool"], line["args"], "call-1", session, host))
        finally:
            m.delete_task(key)
    total = sum(m.compared for m in pairs.values())
    print(f"\ncorpus: {total} decisions compared on both transports")
    for mode, m in pairs.items():
        assert not m.differ, f"{mode}: {report(m)}"
        assert not m.slow, f"{mode}: {slow_report(m)}"
    assert total >= len(corpus.LINES) >= 200


def test_guard_corpora_and_transcripts_decide_alike(pairs: dict[str, Mirror]) -> None:
    m = pairs["enforce"]
    before = m.compared
    judge = Judge(m, guards.HOST, m.pdp.config)  # type: ignore[arg-type]
    lines = [json.dumps(line) for line in guards.ALLOWED + guards.ATTACKS]
    lines += [raw for raw in TRANSCRIPTS.read_text(encoding="utf-8").splitlines() if raw.strip()]
    for raw in lines:
        out = replay_line(judge, raw)
        assert "error" not in out, out
    calls = sum(len(json.loads(raw)["calls"]) for raw in lines)
    print(f"\nguards and transcripts: {m.compared - before} decisions compared ({len(lines)} lines)")
    assert not m.differ, report(m)
    assert not m.slow, slow_report(m)
    assert m.compared - before >= calls >= 400


if __name__ == "__main__":
    import subprocess
    import sys

    sys.exit(subprocess.call([sys.executable, "-m", "pytest", "-q", "-s", __file__]))
