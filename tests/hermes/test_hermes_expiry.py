"""Abandoned tasks leave a long-running Hermes: memory, OPA's data.tasks and the state directory.

Real run_conversation loops (only the model stubbed): a task idle past task_idle_hours is swept
when the next session starts (Hermes' on_session_start)."""

from __future__ import annotations

import os
import time
import uuid

import pytest

from opafence.host import Host
from opafence.inputs import decision_input
from opafence.session import SessionFacts

from .conftest import Harness
from .test_hermes_conversation import Model, agent, say


@pytest.fixture
def quiet_model(monkeypatch: pytest.MonkeyPatch) -> Model:
    """A model that answers every turn with text (no tool calls)."""
    import run_agent

    m = Model(lambda messages: say("ok"))
    monkeypatch.setattr(run_agent.AIAgent, "_interruptible_api_call", m)
    monkeypatch.setattr(
        run_agent.AIAgent, "_interruptible_streaming_api_call", lambda self, kw, *a, **k: m(self, kw)
    )
    return m


HOST = Host(auto_approve=False, interactive=True, platform="cli", workspace=("/ws",), cwd="/ws")


def opa_holds_read_only(hermes: Harness, key: str) -> bool:
    """Does OPA hold the read-only task `key`? (A write in it is blocked as READ_ONLY_TASK; an
    unknown task gets the default policy, under which the write only asks.)"""
    doc = decision_input(key, "write_file", {"path": "/ws/a.txt", "content": "x"}, "", SessionFacts(), HOST)
    d = hermes.fence.bridge.decide(doc)
    return d.verdict == "block" and "READ_ONLY_TASK" in [r.code for r in d.reasons]


def test_an_abandoned_task_is_swept_when_a_new_session_starts(
    hermes: Harness, quiet_model: Model, monkeypatch: pytest.MonkeyPatch
) -> None:
    fence = hermes.fence
    store, bridge = fence.store, fence.bridge
    abandoned = f"s-{uuid.uuid4().hex[:8]}"
    agent([], abandoned).run_conversation("Look at the docs, read only: don't change anything.")
    rec = store.get(abandoned)
    assert rec is not None and rec.policy.read_only
    path = store._file(rec.key)
    assert path.exists() and rec.key in bridge.task_keys() and opa_holds_read_only(hermes, rec.key)

    # Nobody comes back for longer than task_idle_hours.
    idle = store.idle_s + 60
    rec.last_active -= idle
    os.utime(path, (time.time() - idle, time.time() - idle))
    monkeypatch.setattr(fence, "_last_sweep", time.monotonic() - 3600)  # no sweep lately

    before = len(fence.audit.tail(10_000))
    newcomer = f"s-{uuid.uuid4().hex[:8]}"
    agent([], newcomer).run_conversation("What is in the README?")
    assert rec.key not in [r.key for r in store.live()]
    assert rec.key not in bridge.task_keys()  # a restarted OPA will not get it back either
    assert not opa_holds_read_only(hermes, rec.key)
    assert not path.exists()
    assert newcomer in [r.key for r in store.live()]
    records = fence.audit.tail(10_000)[before:]
    assert {"event": "task_expired", "task": rec.key} in [
        {k: e.get(k) for k in ("event", "task")} for e in records
    ]
    # The old session coming back starts over from the read-only fallback, not its old policy.
    assert store.get(abandoned) is None


def test_sessions_in_use_survive_the_sweep(hermes: Harness, quiet_model: Model) -> None:
    sessions = [f"s-{uuid.uuid4().hex[:8]}" for _ in range(3)]
    for s in sessions:
        agent([], s).run_conversation("Read only please: summarize the notes.")
    gone = hermes.fence.sweep()
    assert not set(gone) & set(sessions)
    for s in sessions:
        assert hermes.fence.store.get(s) is not None and opa_holds_read_only(hermes, s)
