"""Compiled policies against the real OPA: every corpus policy is accepted as data.tasks and
decided on; `replay` compiles the transcript's message with the intent compiler."""

from __future__ import annotations

import json

from tests.unit.test_intent_corpus import FOLLOWUPS, HOST, load

from opafence.config import Config
from opafence.host import Host
from opafence.inputs import decision_input
from opafence.intent import compile_message
from opafence.judge import Judge
from opafence.opa.bridge import Bridge
from opafence.replay import replay_line
from opafence.session import SessionFacts


def test_every_corpus_policy_is_accepted_by_opa(bridge: Bridge) -> None:
    policies = [compile_message(c["m"], task=f"t{i}", host=HOST) for i, c in enumerate(load())]
    for case in FOLLOWUPS:
        policy = None
        for i, (sender, m) in enumerate(case["msgs"], start=1):
            policy = compile_message(m, task="fu", host=HOST, owner=sender, previous=policy, message_index=i)
        assert policy is not None
        policies.append(policy)
    for policy in policies:
        bridge.put_task(policy.task, policy.to_opa_data())
        d = bridge.decide(
            decision_input(policy.task, "read_file", {"path": "/x"}, "c1", SessionFacts(), HOST)
        )
        assert d.verdict in ("allow", "ask", "block")
        assert not any(r.code.startswith("OPA_") for r in d.reasons), d.reasons


def test_replay_compiles_with_the_intent_compiler(bridge: Bridge) -> None:
    host = Host(
        auto_approve=False,
        interactive=True,
        platform="replay",
        cwd="/home/u/proj",
        home="/home/u",
        workspace=("/home/u/proj",),
    )
    judge = Judge(bridge, host, Config())
    line = {
        "id": 7,
        "user_message": "email the summary to john@example.com but never push",
        "calls": [{"tool": "read_file", "args": {"path": "/home/u/proj/a.txt"}}],
    }
    out = replay_line(judge, json.dumps(line))
    assert out["id"] == 7
    policy = out["policy"]
    assert policy["compiled_by"] == "rules"
    assert [(g["class"], g["recipients"]) for g in policy["grants"]] == [
        ("COMMUNICATION", ["john@example.com"])
    ]
    assert [p["classes"] for p in policy["prohibitions"]] == [["EXTERNAL_WRITE"]]
    assert out["verdicts"][0]["verdict"] == "allow"
