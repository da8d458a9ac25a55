"""Expired tasks leave the real OPA: Bridge.expire_tasks and the plugin's sweep (Fence.sweep),
which takes idle tasks out of memory, OPA's data.tasks and the state directory.

Whether OPA still holds a task is seen the only way the API allows: a read-only task blocks a
write; once OPA has forgotten it, the same call gets the default policy (it asks)."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from opafence.hermes.fence import Fence
from opafence.host import Host
from opafence.inputs import decision_input
from opafence.opa.bridge import Bridge
from opafence.policy import fallback_policy
from opafence.session import SessionFacts

HOST = Host(auto_approve=False, interactive=True, platform="cli", workspace=("/ws",), cwd="/ws")
WRITE = {"path": "/ws/a.txt", "content": "x"}


def read_only(key: str) -> dict[str, object]:
    p = fallback_policy(key)
    p.read_only = True
    return p.to_opa_data()


def held(bridge: Bridge, key: str) -> bool:
    """Does OPA still hold the read-only task `key`?"""
    d = bridge.decide(decision_input(key, "write_file", WRITE, "", SessionFacts(), HOST))
    assert d.verdict in ("ask", "block"), d
    return d.verdict == "block" and [r.code for r in d.reasons] == ["READ_ONLY_TASK"]


def test_expired_tasks_leave_opa_and_are_not_pushed_again_after_a_restart(bridge: Bridge) -> None:
    bridge.put_task("old", read_only("old"))
    bridge.put_task("live", read_only("live"))
    assert held(bridge, "old") and held(bridge, "live")
    assert bridge.expire_tasks(["old"], time.monotonic()) == ["old"]
    assert not held(bridge, "old") and held(bridge, "live")
    assert bridge.task_keys() == ["live"]  # what a restarted OPA is given


def test_a_task_pushed_again_after_it_expired_is_kept(bridge: Bridge) -> None:
    since = time.monotonic()
    bridge.put_task("sess", read_only("sess"))  # a new task under the same key, after expiry
    assert bridge.expire_tasks(["sess"], since) == []
    assert held(bridge, "sess") and bridge.task_keys() == ["sess"]


def test_a_failed_delete_is_retried_on_the_next_sweep(bridge: Bridge) -> None:
    bridge.put_task("old", read_only("old"))
    bridge._ready.clear()  # OPA unreachable for a moment
    assert bridge.expire_tasks(["old"], time.monotonic()) == []
    bridge._ready.set()
    assert held(bridge, "old")
    assert bridge.expire_tasks([], time.monotonic()) == ["old"]
    assert not held(bridge, "old")
    assert bridge.expire_tasks([], time.monotonic()) == []  # and only once


@pytest.fixture
def fence(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Fence]:
    monkeypatch.setenv("HERMES_HOME", str(tmp_path / "home"))
    f = Fence()
    f.setup(start_in_background=False)
    assert f.error is None, f.error
    try:
        yield f
    finally:
        f.close()


def test_the_sweep_takes_abandoned_tasks_out_of_memory_opa_and_disk(fence: Fence) -> None:
    store, bridge = fence.store, fence.bridge
    assert store is not None and bridge is not None
    keys = [f"chat-{i}" for i in range(50)]
    for key in [*keys, "active"]:
        rec = store.create(key, owner="u", platform="telegram")
        rec.policy.read_only = True
        fence._push(rec)
        store.save(rec)
    idle = store.idle_s + 60
    for key in keys:
        store._tasks[key].last_active -= idle
    assert all(held(bridge, k) for k in keys)
    assert sorted(fence.sweep()) == sorted(keys)
    assert [r.key for r in store.live()] == ["active"]
    assert bridge.task_keys() == ["active"]
    assert not any(held(bridge, k) for k in keys) and held(bridge, "active")
    assert [p.name for p in store.dir.iterdir()] == [store._file("active").name]
    assert fence.audit is not None
    expired = fence.audit.tail(100, where={"event": "task_expired"})
    assert sorted(e["task"] for e in expired) == sorted(keys)
    # A new session throttles its sweep; a later one does sweep.
    store._tasks["active"].last_active -= idle
    fence.session_start(session_id="new", platform="telegram")
    assert bridge.task_keys() == ["active"]
    fence._last_sweep -= 3600
    fence.session_start(session_id="new", platform="telegram")
    assert bridge.task_keys() == [] and store.live() == []


def test_the_background_sweeper_expires_tasks_nobody_touches(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = tmp_path / "home"
    (home / "opafence").mkdir(parents=True)
    (home / "opafence" / "config.yaml").write_text("task_idle_hours: 0.0004\n")  # 1.44 s
    monkeypatch.setenv("HERMES_HOME", str(home))
    fence = Fence()
    fence.setup(start_in_background=False)
    try:
        assert fence.error is None and fence.store is not None and fence.bridge is not None
        rec = fence.store.create("lonely", owner="u", platform="slack")
        rec.policy.read_only = True
        fence._push(rec)
        fence.store.save(rec)
        assert held(fence.bridge, "lonely")
        deadline = time.monotonic() + 10
        while fence.store.live() and time.monotonic() < deadline:
            time.sleep(0.1)
        assert fence.store.live() == [] and fence.bridge.task_keys() == []
        assert not held(fence.bridge, "lonely") and list(fence.store.dir.iterdir()) == []
    finally:
        fence.close()
