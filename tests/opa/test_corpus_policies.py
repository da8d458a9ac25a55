"""The corpus: realistic Hermes tool calls under task policies, each with the verdict a careful
security engineer expects, judged by the real facts builder and the real OPA through the bridge.

tests/data/corpus/policies.json holds named TaskPolicies (what the intent compiler would produce
for the message in `_message`); each *.jsonl line is one call:
{"id", "policy", "tool", "args", "want": allow|ask|block, "codes"?: [...], "host"?: "unattended",
 "counters"?: {...}, "mode"?: enforce|monitor|strict, "why"}. `codes`, when given, is the exact set
of reason codes of the decision."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from opafence.config import Config
from opafence.host import Host
from opafence.inputs import decision_input
from opafence.opa.bridge import Bridge
from opafence.policy import TaskPolicy
from opafence.session import SessionFacts

CORPUS = Path(__file__).resolve().parents[1] / "data" / "corpus"

WORKSPACE = "/srv/app"
ATTENDED = Host(
    auto_approve=False,
    interactive=True,
    platform="cli",
    home="/home/dev",
    hermes_home="/home/dev/.hermes",
    state_dir="/home/dev/.hermes/opafence",
    workspace=(WORKSPACE,),
    cwd=WORKSPACE,
)
UNATTENDED = dataclasses.replace(ATTENDED, auto_approve=True, interactive=False, platform="cron")


def load_policies() -> dict[str, dict[str, Any]]:
    raw = json.loads((CORPUS / "policies.json").read_text(encoding="utf-8"))
    out = {}
    for name, fields in raw.items():
        body = {k: v for k, v in fields.items() if not k.startswith("_")}
        out[name] = TaskPolicy(task=f"corpus-{name}", **body).to_opa_data()
    return out


def load_lines() -> list[dict[str, Any]]:
    lines = []
    for path in sorted(CORPUS.glob("*.jsonl")):
        if path.name.startswith("replay"):
            continue  # transcripts for `opafence replay` (test_corpus_replay.py)
        for n, raw in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if raw.strip():
                line = json.loads(raw)
                line["_where"] = f"{path.name}:{n}"
                lines.append(line)
    return lines


POLICIES = load_policies()
LINES = load_lines()


@pytest.fixture(scope="module")
def bridges(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Bridge]]:
    started: dict[str, Bridge] = {}
    try:
        for mode in ("enforce", "monitor", "strict"):
            b = Bridge(Config(mode=mode), tmp_path_factory.mktemp(f"corpus-{mode}"))
            b.start()
            started[mode] = b
        yield started
    finally:
        for b in started.values():
            b.close()


def test_corpus_is_well_formed() -> None:
    assert len(LINES) >= 200
    ids = [line["id"] for line in LINES]
    assert len(ids) == len(set(ids))
    for line in LINES:
        assert line["policy"] in POLICIES, line["_where"]
        assert line["want"] in {"allow", "ask", "block"}, line["_where"]
        assert line.get("why"), line["_where"]
        assert line.get("host", "attended") in {"attended", "unattended"}, line["_where"]
    # the corpus covers every verdict, unattended hosts and several policies
    assert {line["want"] for line in LINES} == {"allow", "ask", "block"}
    assert len({line["policy"] for line in LINES}) >= 10


@pytest.mark.parametrize("line", LINES, ids=[line["id"] for line in LINES])
def test_corpus_line(line: dict[str, Any], bridges: dict[str, Bridge]) -> None:
    bridge = bridges[line.get("mode", "enforce")]
    key = f"{line['id']}"
    bridge.put_task(key, {**POLICIES[line["policy"]], "task": key})
    session = SessionFacts()
    session.counters.update(line.get("counters", {}))
    host = UNATTENDED if line.get("host") == "unattended" else ATTENDED
    try:
        decision = bridge.decide(decision_input(key, line["tool"], line["args"], "call-1", session, host))
    finally:
        bridge.delete_task(key)
    got = (decision.verdict, sorted({r.code for r in decision.reasons}))
    want = (line["want"], sorted(line["codes"]) if "codes" in line else got[1])
    assert got == want, f"{line['_where']} ({line['why']}): {decision.summary()} classes={decision.classes}"
