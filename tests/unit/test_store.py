"""The plugin's session store: parents, persistence, expiry, damaged records."""

from __future__ import annotations

import json
import os
import stat
import threading
import time
from pathlib import Path

import pytest

from opafence.hermes.store import RECORD_VERSION, Decided, NewerRecordError, SessionStore, migrate
from opafence.policy import Prohibition


def test_children_and_execute_code_map_to_the_root_session(tmp_path: Path) -> None:
    s = SessionStore(tmp_path, 12)
    s.note_task_id("turn-1", "parent")
    s.link_child("child", "parent", "sa-0-abc")
    s.link_child("grandchild", "child")
    assert s.root_session("child") == "parent"
    assert s.root_session("grandchild") == "parent"
    assert s.root_session("", "turn-1") == "parent"  # execute_code: empty session id
    assert s.root_session("", "sa-0-abc") == "parent"  # a child's per-turn task id
    assert s.root_session("", "unknown") == ""


def test_a_resumed_session_keeps_its_restrictions(tmp_path: Path) -> None:
    s = SessionStore(tmp_path, 12)
    rec = s.create("sess", owner="alice", platform="cli")
    rec.policy.prohibitions = [Prohibition(id="p1", classes=["COMMUNICATION"], evidence="don't send")]
    rec.facts.untrusted_sources.add("web")
    s.save(rec, durable=True)
    again = SessionStore(tmp_path, 12).get("sess")  # a new process
    assert again is not None
    assert again.policy.prohibitions[0].evidence == "don't send"
    assert again.owner == "alice" and again.facts.untrusted_sources == {"web"}
    files = list((tmp_path / "tasks").iterdir())
    assert len(files) == 1 and stat.S_IMODE(files[0].stat().st_mode) == 0o600
    assert stat.S_IMODE((tmp_path / "tasks").stat().st_mode) == 0o700


def test_an_idle_task_expires(tmp_path: Path) -> None:
    s = SessionStore(tmp_path, idle_hours=1)
    rec = s.create("sess", owner="", platform="cli")
    s.save(rec)
    rec.last_active = time.time() - 2 * 3600
    path = next((tmp_path / "tasks").iterdir())
    data = json.loads(path.read_text())
    data["last_active"] = rec.last_active
    path.write_text(json.dumps(data))
    s2 = SessionStore(tmp_path, idle_hours=1)
    assert s2.get("sess") is None
    assert not path.exists()


def test_a_damaged_record_is_not_trusted(tmp_path: Path) -> None:
    s = SessionStore(tmp_path, 12)
    s.save(s.create("sess", owner="", platform="cli"))
    path = next((tmp_path / "tasks").iterdir())
    path.write_text('{"key": "sess", "policy": {"grants": "everything"}}')
    rec = SessionStore(tmp_path, 12).get("sess")
    # Read-only, and counted as having read untrusted content: nothing of it is trusted.
    assert rec is not None and rec.policy.compiled_by == "fallback"
    assert rec.policy.grants == [] and rec.policy.prohibitions == []
    assert rec.facts.untrusted_sources


def _stored(tmp_path: Path) -> Path:
    s = SessionStore(tmp_path, 12)
    rec = s.create("sess", owner="alice", platform="cli")
    rec.policy.prohibitions = [
        Prohibition(id="p1", classes=["COMMUNICATION"], egress=True, evidence="don't send anything")
    ]
    s.save(rec, durable=True)
    return next((tmp_path / "tasks").iterdir())


def test_records_carry_a_version(tmp_path: Path) -> None:
    assert json.loads(_stored(tmp_path).read_text())["record_version"] == RECORD_VERSION


def test_a_record_written_before_versions_is_migrated(tmp_path: Path) -> None:
    """0.1.0 as on main before this change wrote no record_version: the same shape, read fully."""
    path = _stored(tmp_path)
    raw = json.loads(path.read_text())
    del raw["record_version"]
    path.write_text(json.dumps(raw))
    rec = SessionStore(tmp_path, 12).get("sess")
    assert rec is not None and rec.owner == "alice" and rec.facts.untrusted_sources == set()
    assert [p.evidence for p in rec.policy.prohibitions] == ["don't send anything"]
    assert migrate(raw)["record_version"] == 1


def test_a_record_from_a_newer_version_keeps_every_prohibition(tmp_path: Path) -> None:
    path = _stored(tmp_path)
    raw = json.loads(path.read_text())
    raw["record_version"] = RECORD_VERSION + 1
    raw["policy"]["grants"] = [{"id": "g9", "class": "COMMUNICATION", "future_field": 1}]
    raw["policy"]["prohibitions"].append(
        {"id": "p2", "classes": ["DELETE"], "evidence": "never delete", "scope": "x"}
    )
    raw["policy"]["prohibitions"].append("a shape nobody reads")
    path.write_text(json.dumps(raw))
    rec = SessionStore(tmp_path, 12).get("sess")
    assert rec is not None and rec.policy.compiled_by == "fallback" and rec.policy.grants == []
    kept = {(p.evidence, tuple(p.classes), p.egress) for p in rec.policy.prohibitions}
    assert kept == {
        ("don't send anything", ("COMMUNICATION",), True),
        ("never delete", ("DELETE",), False),
        ("a stored prohibition opafence could not read", ("*",), False),
    }
    assert rec.owner == "alice" and rec.facts.untrusted_sources
    with pytest.raises(NewerRecordError):
        migrate(raw)


def test_a_policy_of_a_newer_schema_is_not_read_as_this_one(tmp_path: Path) -> None:
    path = _stored(tmp_path)
    raw = json.loads(path.read_text())
    raw["policy"]["schema_version"] = 99
    path.write_text(json.dumps(raw))
    rec = SessionStore(tmp_path, 12).get("sess")
    assert rec is not None and rec.policy.schema_version != 99 and rec.policy.compiled_by == "fallback"
    assert [p.evidence for p in rec.policy.prohibitions] == ["don't send anything"]


def test_host_id_prefixes_task_keys(tmp_path: Path) -> None:
    s = SessionStore(tmp_path, 12, host_id="laptop-7")
    assert s.create("sess", owner="", platform="cli").key == "laptop-7:sess"


def test_decided_calls_are_per_task_and_expire(tmp_path: Path, monkeypatch: object) -> None:
    s = SessionStore(tmp_path, 12)
    k1 = SessionStore.call_key("task-a", "terminal", "c1", "h")
    k2 = SessionStore.call_key("task-b", "terminal", "c1", "h")
    assert k1 != k2
    s.remember_decision(
        k1, Decided(task="task-a", tool="terminal", args_hash="h", verdict="allow", at=time.time())
    )
    assert s.decision_for(k1) is not None and s.decision_for(k2) is None
    old = Decided(task="task-a", tool="t", args_hash="h", verdict="allow", at=time.time() - 7200)
    s.remember_decision(k2, old)
    assert s.decision_for(k2) is None
    assert os.path.isdir(tmp_path / "tasks")


# --- expiry of abandoned tasks -------------------------------------------------------------------


def _age(rec_path: Path, seconds: float) -> None:
    t = time.time() - seconds
    os.utime(rec_path, (t, t))


def test_expire_drops_idle_tasks_from_memory_and_disk_and_keeps_active_ones(tmp_path: Path) -> None:
    s = SessionStore(tmp_path, idle_hours=1)
    old = s.create("old", owner="", platform="telegram")
    s.save(old)
    fresh = s.create("fresh", owner="", platform="telegram")
    s.save(fresh)
    old.last_active = time.time() - 2 * 3600
    assert s.expire() == ["old"]
    assert [r.key for r in s.live()] == ["fresh"]
    assert [p.name for p in (tmp_path / "tasks").iterdir()] == [s._file("fresh").name]
    assert s.get("old") is None  # not resurrected from anywhere
    assert s.expire() == []  # nothing twice


def test_get_marks_a_task_active_so_a_sweep_never_takes_it_mid_call(tmp_path: Path) -> None:
    s = SessionStore(tmp_path, idle_hours=1)
    rec = s.create("sess", owner="", platform="cli")
    rec.last_active = time.time() - 3599
    assert s.get("sess") is rec
    assert s.expire(now=time.time() + 60) == []
    assert s.get("sess") is rec


def test_a_task_get_finds_expired_is_reported_by_the_next_sweep(tmp_path: Path) -> None:
    s = SessionStore(tmp_path, idle_hours=1)
    rec = s.create("sess", owner="", platform="cli")
    rec.last_active = time.time() - 7200
    assert s.get("sess") is None
    assert s.expire() == ["sess"]  # so the plugin takes it out of OPA too
    assert s.expire() == []


def test_expire_removes_old_files_of_tasks_never_loaded(tmp_path: Path) -> None:
    earlier = SessionStore(tmp_path, idle_hours=1)  # an earlier process
    for name in ("abandoned", "finished", "recent"):
        earlier.save(earlier.create(name, owner="", platform="cli"))
    _age(earlier._file("abandoned"), 2 * 3600)
    _age(earlier._file("finished"), 3601)
    crash_leftover = tmp_path / "tasks" / ".0123.json.4242.tmp"
    crash_leftover.write_text("{")
    _age(crash_leftover, 2 * 3600)
    unrelated = tmp_path / "tasks" / "README"
    unrelated.write_text("not ours")
    _age(unrelated, 2 * 3600)
    s = SessionStore(tmp_path, idle_hours=1)
    assert s.expire() == []  # none of them was live here
    left = sorted(p.name for p in (tmp_path / "tasks").iterdir())
    assert left == sorted([s._file("recent").name, "README"])
    assert s.expire(files=False) == []


def test_expire_forgets_turn_ids_and_subagent_links_of_expired_tasks(tmp_path: Path) -> None:
    s = SessionStore(tmp_path, idle_hours=1)
    parent = s.create("parent", owner="", platform="cli")
    s.create("other", owner="", platform="cli")
    s.note_task_id("turn-1", "parent")
    s.link_child("child", "parent", "sa-0-abc")
    s.note_task_id("turn-9", "other")
    assert s.root_session("", "sa-0-abc") == "parent"
    later = time.time() + 2 * 3600
    s.get("other").last_active = later  # "other" stays active, "parent" is abandoned
    assert parent.last_active < later - 3600
    assert s.expire(now=later) == ["parent"]
    assert not s.is_child("child")
    assert s.root_session("", "sa-0-abc") == ""
    assert s.root_session("", "turn-1") == ""
    assert s.root_session("", "turn-9") == ""  # a turn id unseen for the idle time goes too
    assert [r.key for r in s.live()] == ["other"]


def test_a_recent_child_link_survives_while_its_finished_root_may_be_resumed(tmp_path: Path) -> None:
    s = SessionStore(tmp_path, idle_hours=1)
    s.save(s.create("parent", owner="", platform="cli"))
    s.link_child("child", "parent")
    s.unload("parent")  # on_session_finalize: out of memory, file kept
    assert s.expire() == []
    assert s.root_session("child") == "parent"
    assert s.get("parent") is not None  # resumed from its file


def test_a_task_read_from_disk_is_pushed_before_it_decides(tmp_path: Path) -> None:
    SessionStore(tmp_path, 12).save(SessionStore(tmp_path, 12).create("sess", owner="", platform="cli"))
    rec = SessionStore(tmp_path, 12).get("sess")
    assert rec is not None and rec.unsynced  # OPA of this process does not hold it yet


def test_expiry_is_thread_safe_and_never_takes_a_task_in_use(tmp_path: Path) -> None:
    s = SessionStore(tmp_path, idle_hours=0.5 / 3600)  # half a second
    stop = threading.Event()
    errors: list[BaseException] = []
    lost: list[str] = []

    def busy(name: str) -> None:
        try:
            while not stop.is_set():
                rec = s.get(name) or s.create(name, owner="", platform="cli")
                rec.facts.counters["calls"] += 1
                s.save(rec)
                if s.get(name) is not rec:
                    lost.append(name)
        except BaseException as e:  # pragma: no cover - reported below
            errors.append(e)

    def sweeper() -> None:
        try:
            while not stop.is_set():
                s.expire()
        except BaseException as e:  # pragma: no cover - reported below
            errors.append(e)

    for i in range(20):  # abandoned tasks, all past the idle time
        s.save(s.create(f"abandoned-{i}", owner="", platform="telegram"))
        s._tasks[s.task_key(f"abandoned-{i}")].last_active = time.time() - 10
    threads = [threading.Thread(target=busy, args=(f"busy-{i}",)) for i in range(4)]
    threads += [threading.Thread(target=sweeper) for _ in range(2)]
    for t in threads:
        t.start()
    time.sleep(1.5)
    stop.set()
    for t in threads:
        t.join()
    assert errors == [] and lost == []
    assert {r.key for r in s.live()} == {f"busy-{i}" for i in range(4)}
    files = {p.name for p in (tmp_path / "tasks").iterdir()}
    assert files == {s._file(f"busy-{i}").name for i in range(4)}
