"""The plugin's session store: the only mutable state opafence keeps, behind one lock
(callers go through `transaction`, never the lock itself).

A task is a Hermes session. Sub-agents and execute_code calls map to their parent's task.
Policy, session facts and grants persist in the state directory (0600), so a resumed session
keeps its restrictions; a task idle longer than the configured time expires: `expire()` takes
it out of memory and removes its file (and the plugin out of OPA), so a gateway that sees
thousands of abandoned sessions does not keep them forever."""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import json
import logging
import os
import threading
import time
from collections import OrderedDict
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from opafence.errors import OpafenceError
from opafence.policy import SCHEMA_VERSION as POLICY_SCHEMA_VERSION
from opafence.policy import Prohibition, TaskPolicy, fallback_policy
from opafence.provenance import journal
from opafence.provenance.ledger import DEFAULT_MAX_VALUES, ValueLedger
from opafence.session import SessionFacts
from opafence.state_files import ensure_private_dir, write_private_file

log = logging.getLogger("opafence.store")

# The shape of a persisted task record. 0: records written before it was stored (the same
# shape as 1). A newer opafence migrates older records up in migrate(); a record from a newer
# version than this one, or one that does not parse, is salvaged (salvage()): read-only, with
# every prohibition it holds kept and the session counted as having read untrusted content.
RECORD_VERSION = 1
DECIDED_LIMIT = 4096
DECIDED_TTL_S = 3600.0
TMP_SUFFIX = ".tmp"  # write_private_file's temporary files (left behind by a crash)


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
    # The session's MCP tools the grants were bound against (name -> parameter names).
    tools: dict[str, list[str]] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        f = self.facts
        return {
            "record_version": RECORD_VERSION,
            "key": self.key,
            "session_id": self.session_id,
            "policy": self.policy.model_dump(by_alias=True),
            "owner": self.owner,
            "platform": self.platform,
            "messages": self.messages,
            "last_active": self.last_active,
            "tools": self.tools,
            "facts": {
                "history": f.history,
                "counters": f.counters,
                "files": sorted(f.files),
                "untrusted_sources": sorted(f.untrusted_sources),
                "secret_read": f.secret_read,
                "browser_page": f.browser_page,
                "values": f.values.to_json(),
            },
        }

    @staticmethod
    def from_json(
        data: dict[str, Any], key: bytes | None = None, max_values: int = DEFAULT_MAX_VALUES
    ) -> TaskRecord:
        raw = data["facts"]
        facts = SessionFacts(
            history=list(raw["history"]),
            counters=dict(raw["counters"]),
            files=set(raw["files"]),
            untrusted_sources=set(raw["untrusted_sources"]),
            secret_read=bool(raw["secret_read"]),
            browser_page=str(raw.get("browser_page", "")),
        )
        if key is not None:
            # A record from before values were kept has none: its unbound targets count as
            # untrusted if it had seen untrusted content (lossy), never as trusted.
            facts.values = ValueLedger.from_json(raw.get("values"), key, max_values)
            if "values" not in raw and facts.untrusted_sources:
                facts.values.mark_lossy("the task was recorded before values were kept")
        return TaskRecord(
            key=str(data["key"]),
            session_id=str(data["session_id"]),
            policy=TaskPolicy.model_validate(data["policy"]),
            owner=str(data["owner"]),
            platform=str(data["platform"]),
            messages=int(data["messages"]),
            facts=facts,
            last_active=float(data["last_active"]),
            tools={str(k): [str(p) for p in v] for k, v in dict(data.get("tools") or {}).items()},
        )


class NewerRecordError(OpafenceError, ValueError):
    """A task record written by a newer opafence than this one."""


def migrate(data: dict[str, Any]) -> dict[str, Any]:
    """A persisted record brought up to RECORD_VERSION; raises NewerRecordError for a newer one."""
    version = data.get("record_version", 0)
    if not isinstance(version, int) or version < 0:
        raise ValueError(f"record_version {version!r} is not a version")
    if version > RECORD_VERSION:
        raise NewerRecordError(
            f"written by a newer opafence (record version {version}, this one reads {RECORD_VERSION})"
        )
    policy = data.get("policy")
    if isinstance(policy, dict) and int(policy.get("schema_version", 1)) > POLICY_SCHEMA_VERSION:
        raise NewerRecordError(f"its policy has schema version {policy.get('schema_version')}")
    if version == 0:
        # Records of 0.1.0 before the version was stored: the shape of version 1.
        data = {**data, "record_version": 1}
    return data


def _kept_prohibition(raw: Any, n: int) -> Prohibition:
    """A stored prohibition as this version can hold it: its known fields, else (a shape it
    cannot read) a prohibition of everything but reading, so nothing forbidden becomes allowed."""
    if isinstance(raw, dict):
        known = {k: v for k, v in raw.items() if k in Prohibition.model_fields}
        try:
            return Prohibition.model_validate(known)
        except ValidationError:
            pass
    evidence = str(raw.get("evidence", "")) if isinstance(raw, dict) else ""
    return Prohibition(
        id=f"kept-{n}", classes=["*"], evidence=evidence or "a stored prohibition opafence could not read"
    )


def salvage(data: Any, key: str, values_key: bytes | None, max_values: int, why: str) -> TaskRecord:
    """The record opafence falls back to when it cannot read a stored one: the read-only policy
    with every prohibition the stored one had, and taint (what the session read is unknown)."""
    data = data if isinstance(data, dict) else {}
    policy = data.get("policy") if isinstance(data.get("policy"), dict) else {}
    owner = data.get("owner") if isinstance(data.get("owner"), str) else ""
    stored = policy.get("prohibitions")
    raw_prohibitions: list[Any] = stored if isinstance(stored, list) else []
    fallback = fallback_policy(key, owner)
    fallback.prohibitions = [_kept_prohibition(p, n) for n, p in enumerate(raw_prohibitions, 1)]
    rec = TaskRecord(key=key, session_id=str(data.get("session_id") or ""), policy=fallback, owner=owner)
    rec.facts.untrusted_sources = {f"opafence state that could not be read ({why})"}
    if values_key is not None:
        rec.facts.values = ValueLedger(key=values_key, max_values=max_values)
        rec.facts.values.mark_lossy("the stored task could not be read")
    return rec


def _values_key(state: Path) -> bytes:
    path = state / "values.key"
    try:
        data = path.read_bytes()
        if len(data) == 32:
            return data
    except FileNotFoundError:
        pass
    key = os.urandom(32)
    write_private_file(path, key, durable=True)
    return key


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
    call_no: int = 0  # the task's call number (the "call N" a value's provenance names)
    executed: bool = False  # the execution re-check let it run (each decision runs once)


class SessionStore:
    def __init__(
        self,
        state: Path,
        idle_hours: float,
        host_id: str | None = None,
        max_values: int = DEFAULT_MAX_VALUES,
    ) -> None:
        self.dir = ensure_private_dir(state / "tasks")
        # The key of the value hashes (provenance/ledger.py): one per state directory, 0600.
        self.values_key = _values_key(state)
        self.max_values = max_values
        self.idle_s = idle_hours * 3600.0
        self.host_id = host_id
        self._lock = threading.RLock()
        self._tasks: dict[str, TaskRecord] = {}
        self._parent: dict[str, str] = {}  # child session id -> parent session id
        self._linked_at: dict[str, float] = {}  # child session id -> when it was linked
        # Hermes task_id (a fresh one per turn) -> (session id, when last seen)
        self._task_ids: dict[str, tuple[str, float]] = {}
        self._decided: OrderedDict[str, Decided] = OrderedDict()
        self._expired: list[str] = []  # keys get() found expired, for the next expire() to report
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
            self._linked_at[child_session] = time.time()
            if child_task_id:
                self._task_ids[child_task_id] = (child_session, time.time())

    def is_child(self, session_id: str) -> bool:
        with self._lock:
            return session_id in self._parent

    def note_task_id(self, task_id: str, session_id: str) -> None:
        if task_id and session_id:
            with self._lock:
                self._task_ids[task_id] = (session_id, time.time())

    def root_session(self, session_id: str, task_id: str = "") -> str:
        """The session whose task governs a call (parents for sub-agents and execute_code)."""
        with self._lock:
            sid = session_id or self._task_ids.get(task_id, ("", 0.0))[0]
            return self._parent.get(sid, sid)

    # --- tasks -----------------------------------------------------------------------------

    def get(self, session_id: str) -> TaskRecord | None:
        """The live task of a root session, loading a persisted one if it has not expired.

        Getting a task marks it active, so expire() never takes a task a hook is working on."""
        with self._lock:
            key = self.task_key(session_id)
            rec = self._tasks.get(key)
            if rec is None:
                rec = self._load(key)
                if rec is not None:
                    # OPA does not hold a task read from disk: the next decision pushes it first.
                    rec.unsynced = True
                    self._tasks[key] = rec
            now = time.time()
            if rec is not None and now - rec.last_active > self.idle_s:
                self._drop(key)
                self._expired.append(key)
                return None
            if rec is not None:
                rec.last_active = now
            return rec

    def create(self, session_id: str, owner: str, platform: str) -> TaskRecord:
        with self._lock:
            key = self.task_key(session_id)
            rec = TaskRecord(key=key, session_id=session_id, policy=fallback_policy(key, owner), owner=owner)
            rec.facts.values = ValueLedger(key=self.values_key, max_values=self.max_values, journaled=True)
            rec.platform = platform
            self._tasks[key] = rec
            return rec

    def get_or_create(self, session_id: str, owner: str, platform: str) -> TaskRecord:
        """The live task of a root session, or a new one (read-only until a message compiles)."""
        with self._lock:
            rec = self.get(session_id)
            return rec if rec is not None else self.create(session_id, owner=owner, platform=platform)

    @contextlib.contextmanager
    def transaction(
        self, rec: TaskRecord, *, save: bool = True, durable: bool = False
    ) -> Iterator[TaskRecord]:
        """Read or change a task with no other thread in it (Hermes calls hooks from several
        threads); with `save`, persist it once the block is done (not when the block raised)."""
        with self._lock:
            yield rec
            if save:
                self.save(rec, durable=durable)

    def live(self) -> list[TaskRecord]:
        with self._lock:
            return list(self._tasks.values())

    def save(self, rec: TaskRecord, durable: bool = False) -> None:
        """Persist a task. Policy changes are fsync'd; per-call counters need not be. The
        values recorded since the last save go first, appended to the task's value journal
        (always fsync'd): the task record that counts them is written after them."""
        with self._lock:
            rec.last_active = time.time()
            self._save_values(rec)
            write_private_file(self._file(rec.key), json.dumps(rec.to_json()), durable=durable)

    def _journal(self, key: str) -> tuple[Path, str]:
        path = self._file(key)
        return journal.file_for(path), path.stem

    def _save_values(self, rec: TaskRecord) -> None:
        led = rec.facts.values
        if not led.journaled:
            # A ledger this store did not create (a test's, a salvaged record's): from now on
            # in the journal, written whole by the first save.
            led.journaled, led.journal = True, journal.JournalState(broken=True)
        path, fid = self._journal(rec.key)
        try:
            journal.save(led, path, fid)
        except OSError as e:
            # Values that cannot be written are lost to a later process: fail closed now (the
            # task record says so), and rewrite the journal whole at the next save.
            led.journal.broken = True
            led.mark_lossy(f"the task's values could not be written ({e.strerror or type(e).__name__})")
            led.journal.pending.clear()
            log.warning("opafence: writing the value journal %s failed: %s", path.name, e)

    def _load(self, key: str) -> TaskRecord | None:
        path = self._file(key)
        if not path.exists():
            return None
        raw: Any = None
        try:
            raw = json.loads(path.read_text(encoding="utf-8"))
            rec = TaskRecord.from_json(migrate(raw), self.values_key, self.max_values)
        except (OSError, ValueError, KeyError, TypeError, AttributeError, ValidationError) as e:
            # A record this version cannot read must not widen anything, nor lose what the
            # owner forbade: read-only, its prohibitions kept.
            log.warning(
                "opafence: task record %s is unreadable (%s); read-only, prohibitions kept", path.name, e
            )
            rec = salvage(raw, key, self.values_key, self.max_values, str(e)[:200])
            rec.facts.values.journaled, rec.facts.values.journal = True, journal.JournalState(broken=True)
            return rec
        if rec.key != key:
            return None
        self._restore_values(rec, raw)
        return rec

    def _restore_values(self, rec: TaskRecord, raw: dict[str, Any]) -> None:
        led = rec.facts.values
        stored = raw.get("facts", {}).get("values")
        want = stored.get("journal") if isinstance(stored, dict) else None
        led.journaled = True
        jpath, fid = self._journal(rec.key)
        if isinstance(want, dict):
            journal.restore(led, jpath, fid, want)
        else:
            # A record of an earlier version (its values inline, or none): the first save
            # writes them into a journal; a journal beside it is not its own.
            led.journal = journal.JournalState(broken=not led.empty() or jpath.exists())

    def _drop(self, key: str) -> None:
        self._tasks.pop(key, None)
        for path in (self._file(key), self._journal(key)[0]):
            with contextlib.suppress(FileNotFoundError):
                path.unlink()

    def unload(self, session_id: str) -> None:
        """Forget a finished session in memory; its file stays so a resume keeps its limits."""
        with self._lock:
            self._tasks.pop(self.task_key(session_id), None)

    def expire(self, files: bool = True, now: float | None = None) -> list[str]:
        """Drop every task idle longer than the idle time: from memory, with its file, its
        sub-agent links and turn ids. Returns their keys (the plugin removes them from OPA).

        With `files`, also removes expired files of tasks this process never loaded (earlier
        processes, finished sessions): one directory scan, judged by modification time, which
        every save() renews. Other Hermes processes of the same home share the directory; a
        task idle that long has expired for them too."""
        now = time.time() if now is None else now
        with self._lock:
            gone = [key for key, rec in self._tasks.items() if now - rec.last_active > self.idle_s]
            for key in gone:
                self._drop(key)
            gone += self._expired
            self._expired = []
            live_roots = {rec.session_id for rec in self._tasks.values()}
            # Sub-agent links whose root is no longer live (and has not been for the idle time:
            # a finished session may still be resumed); turn ids not seen for the idle time.
            self._parent = {
                c: p
                for c, p in self._parent.items()
                if p in live_roots or now - self._linked_at.get(c, 0.0) <= self.idle_s
            }
            self._linked_at = {c: t for c, t in self._linked_at.items() if c in self._parent}
            self._task_ids = {t: v for t, v in self._task_ids.items() if now - v[1] <= self.idle_s}
            if files:
                self._expire_files(now, {self._file(key).name for key in self._tasks})
        return gone

    def _expire_files(self, now: float, keep: set[str]) -> None:
        try:
            entries = list(os.scandir(self.dir))
        except OSError as e:
            log.warning("opafence: cannot scan %s: %s", self.dir, e)
            return
        journals = []
        for entry in entries:
            name = entry.name
            if name.endswith(journal.SUFFIX):
                journals.append(entry)
            if name in keep or not (name.endswith(".json") or name.endswith(TMP_SUFFIX)):
                continue
            self._unlink_if_idle(entry, now, "task file")
        # A value journal is written only when values come in (and before its task record):
        # it lives as long as its task record, which every save renews, and goes with it.
        for entry in journals:
            record = entry.name[: -len(journal.SUFFIX)] + ".json"
            if record in keep or (self.dir / record).exists():
                continue
            self._unlink_if_idle(entry, now, "value journal")

    def _unlink_if_idle(self, entry: os.DirEntry[str], now: float, what: str) -> None:
        try:
            if now - entry.stat(follow_symlinks=False).st_mtime > self.idle_s:
                os.unlink(entry.path)
        except FileNotFoundError:
            pass
        except OSError as e:
            log.warning("opafence: cannot remove the expired %s %s: %s", what, entry.name, e)

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

    def take_for_execution(self, key: str) -> Decided | None:
        """The decided call as it was, marking it executed (post_tool_call still finds it)."""
        with self._lock:
            d = self.decision_for(key)
            if d is not None and not d.executed:
                self._decided[key] = dataclasses.replace(d, executed=True)
            return d

    def decision_for(self, key: str) -> Decided | None:
        with self._lock:
            d = self._decided.get(key)
            if d is not None and time.time() - d.at > DECIDED_TTL_S:
                del self._decided[key]
                return None
            return d
