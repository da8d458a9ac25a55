"""The plugin's session store: parents, persistence, expiry, damaged records."""

from __future__ import annotations

import json
import os
import stat
import time
from pathlib import Path

from opafence.hermes.store import Decided, SessionStore
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
    assert SessionStore(tmp_path, 12).get("sess") is None


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
