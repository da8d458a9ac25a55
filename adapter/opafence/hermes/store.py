"""The plugin's session store: the only mutable state opafence keeps, behind one lock.

A task is a Hermes session. Sub-agents and execute_code calls map to their parent's task.
Policy, session facts and grants persist in the state directory (0600), so a resumed session
keeps its restrictions; a task idle longer than the configured time expires."""

from __future__ import annotations

import contextlib
import hashlib
import json
import logging
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from opafence.paths import ensure_private_dir, write_private_file
from opafence.policy import TaskPolicy, fallback_policy
from opafence.session import SessionFacts

log = logging.getLogger("opafence.store")

DECIDED_LIMIT = 4096
DECIDED_TTL_S = 3600.0


@dataclass
class TaskRecord:
    key: str
    session_id: str
    policy: TaskPolicy
    owner: str = ""
    platform: str = ""
    messages: int = 0
    facts: SessionFacts = field(default_factory=SessionFacts)
    last_active: float = field(default_factory=time.time)
    unsynced: bool = False  # OPA did not take the current policy: decisions block until it does

    def to_json(self) -> dict[str, Any]:
        f = self.facts
        return {
            "key": self.key,
            "session_id": self.session_id,
            "policy": self.policy.model_dump(by_alias=True),
            "owner": self.owner,
            "platform": self.platform,
            "messages": self.messages,
            "last_active": self.last_active,
            "facts": {
                "history": f.history,
                "counters": f.counters,
                "files": sorted(f.files),
                "untrusted_sources": sorted(f.untrusted_sources),
                "secret_read": f.secret_read,
            },
        }

    @staticmethod
    def from_json(data: dict[str, Any]) -> TaskRecord:
        raw = data["facts"]
        facts = SessionFacts(
            history=list(raw["history"]),
            counters=dict(raw["counters"]),
            files=set(raw["files"]),
            untrusted_sources=set(raw["untrusted_sources"]),
            secret_read=bool(raw["secret_read"]),
        )
        return TaskRecord(
            key=str(data["key"]),
            session_id=str(data["session_id"]),
            policy=TaskPolicy.model_validate(data["policy"]),
            owner=str(data["owner"]),
            platform=str(data["platform"]),
            messages=int(data["messages"]),
            facts=facts,
            last_active=float(data["last_active"]),
        )


@dataclass(frozen=True)
class Decided:
    """A decided call, so the execution middleware can check it runs as decided."""

    task: str
    tool: str
    args_hash: str
    verdict: str
    at: float
    classes: tuple[str, ...] = ()
    grants: tuple[str, ...] = ()
    secret_read: bool = False
    ingests: tuple[str, ...] = ()  # untrusted content the call brings in once it has run


class SessionStore:
    def __init__(self, state: Path, idle_hours: float, host_id: str | None = None) -> None:
        self.dir = ensure_private_dir(state / "tasks")
        self.idle_s = idle_hours * 3600.0
        self.host_id = host_id
        self._lock = threading.RLock()
        self._tasks: dict[str, TaskRecord] = {}
        self._parent: dict[str, str] = {}  # child session id -> parent session id
        self._task_ids: dict[str, str] = {}  # Hermes task_id (per turn) -> session id
        self._decided: OrderedDict[str, Decided] = OrderedDict()
        self.platforms_seen: set[str] = set()

    # --- keys ------------------------------------------------------------------------------

    def task_key(self, session_id: str) -> str:
        return f"{self.host_id}:{session_id}" if self.host_id else session_id

    def _file(self, key: str) -> Path:
        return self.dir / (hashlib.sha256(key.encode()).hexdigest()[:32] + ".json")

    def link_child(self, child_session: str, parent_session: str, child_task_id: str = "") -> None:
        with self._lock:
            root = self._parent.get(parent_session, parent_session)
            self._parent[child_session] = root
            if child_task_id:
                self._task_ids[child_task_id] = child_session

    def is_child(self, session_id: str) -> bool:
        with self._lock:
            return session_id in self._parent

    def note_task_id(self, task_id: str, session_id: str) -> None:
        if task_id and session_id:
            with self._lock:
                self._task_ids[task_id] = session_id

    def root_session(self, session_id: str, task_id: str = "") -> str:
        """The session whose task governs a call (parents for sub-agents and execute_code)."""
        with self._lock:
            sid = session_id or self._task_ids.get(task_id, "")
            return self._parent.get(sid, sid)

    # --- tasks -----------------------------------------------------------------------------

    def get(self, session_id: str) -> TaskRecord | None:
        """The live task of a root session, loading a persisted one if it has not expired."""
        with self._lock:
            key = self.task_key(session_id)
            rec = self._tasks.get(key)
            if rec is None:
                rec = self._load(key)
                if rec is not None:
                    self._tasks[key] = rec
            if rec is not None and time.time() - rec.last_active > self.idle_s:
                self._drop(key)
                return None
            return rec

    def create(self, session_id: str, owner: str, platform: str) -> TaskRecord:
        with self._lock:
            key = self.task_key(session_id)
            rec = TaskRecord(key=key, session_id=session_id, policy=fallback_policy(key, owner), owner=owner)
            rec.platform = platform
            self._tasks[key] = rec
            return rec

    def live(self) -> list[TaskRecord]:
        with self._lock:
            return list(self._tasks.values())

    def save(self, rec: TaskRecord, durable: bool = False) -> None:
        """Persist a task. Policy changes are fsync'd; per-call counters need not be."""
        with self._lock:
            rec.last_active = time.time()
            write_private_file(self._file(rec.key), json.dumps(rec.to_json()), durable=durable)

    def _load(self, key: str) -> TaskRecord | None:
        path = self._file(key)
        if not path.exists():
            return None
        try:
            rec = TaskRecord.from_json(json.loads(path.read_text(encoding="utf-8")))
        except (OSError, ValueError, KeyError, TypeError, ValidationError) as e:
            # A damaged record must not widen anything: start over from the fallback.
            log.warning("opafence: task record %s is unreadable (%s); starting read-only", path.name, e)
            return None
        return rec if rec.key == key else None

    def _drop(self, key: str) -> None:
        self._tasks.pop(key, None)
        with contextlib.suppress(FileNotFoundError):
            self._file(key).unlink()

    def unload(self, session_id: str) -> None:
        """Forget a finished session in memory; its file stays so a resume keeps its limits."""
        with self._lock:
            self._tasks.pop(self.task_key(session_id), None)

    # --- decided calls (for the execution middleware) ---------------------------------------

    @staticmethod
    def call_key(task: str, tool: str, call_id: str, args_hash: str) -> str:
        return f"id:{task}:{call_id}" if call_id else f"h:{task}:{tool}:{args_hash}"

    def remember_decision(self, key: str, decided: Decided) -> None:
        with self._lock:
            self._decided[key] = decided
            self._decided.move_to_end(key)
            while len(self._decided) > DECIDED_LIMIT:
                self._decided.popitem(last=False)

    def decision_for(self, key: str) -> Decided | None:
        with self._lock:
            d = self._decided.get(key)
            if d is not None and time.time() - d.at > DECIDED_TTL_S:
                del self._decided[key]
                return None
            return d
