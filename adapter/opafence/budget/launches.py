"""Sub-agent launches per task tree, counted in windows of the task's *active* time.

A task tree is a root session and every sub-agent under it (they share the task key). Its
clock advances only while the task works: between two events of the tree (a model call
starting or ending, a delegation being decided) the gap counts in full up to five minutes,
longer gaps count as five minutes, and the gap after a turn ended (Hermes' `on_session_end`
for the root session) counts as nothing, so a task left waiting for its person overnight
does not find its windows emptied. A launch is counted when the call that launches it is
decided (a batch counts each child), since the calls of a batch are all decided before any
runs; it is given back when that call does not run (blocked, denied, cancelled).

Python counts; Rego decides (`data.opafence.budget.delegation`). The counts persist in
`<state dir>/budget/delegations.json`, so a resumed session keeps them; a file that cannot be
read makes every launch block with DELEGATION_STATE (never a silent reset)."""

from __future__ import annotations

import contextlib
import json
import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from opafence.config import DelegationConfig
from opafence.state_files import file_lock, write_private_file

MAX_GAP_S = 300.0
FORGET_AFTER_S = 7 * 24 * 3600.0


def launches_of(args: Mapping[str, Any]) -> int:
    """How many sub-agents one delegate_task call starts: each task of a batch, else one."""
    tasks = args.get("tasks")
    if isinstance(tasks, list) and tasks:
        return len(tasks)
    return 1


@dataclass
class Tree:
    active: float = 0.0  # seconds of active time so far
    last: float = 0.0  # wall time of the last event; 0 while paused between turns
    seen: float = 0.0  # wall time of the last event, kept while paused (for forgetting)
    launches: list[tuple[float, int, str]] = field(default_factory=list)  # (active time, count, call key)

    def touch(self, now: float) -> None:
        if self.last > 0:
            self.active += min(max(0.0, now - self.last), MAX_GAP_S)
        self.last = self.seen = now

    def count(self, window_s: float) -> int:
        return sum(n for at, n, _ in self.launches if self.active - at < window_s)

    def to_json(self) -> dict[str, Any]:
        return {
            "active": self.active,
            "last": self.last,
            "seen": self.seen,
            "launches": [list(x) for x in self.launches],
        }

    @staticmethod
    def from_json(data: Any) -> Tree:
        if not isinstance(data, dict):
            raise ValueError("a task entry is not an object")
        launches = [(float(a), int(n), str(k)) for a, n, k in data["launches"]]
        return Tree(float(data["active"]), float(data["last"]), float(data["seen"]), launches)


class DelegationWindows:
    def __init__(self, path: Path, config: DelegationConfig) -> None:
        self.path = path
        self.config = config
        self._lock = threading.RLock()
        self._trees: dict[str, Tree] = {}
        self._loaded = False
        self.error = ""

    @property
    def _longest_s(self) -> float:
        return 60.0 * max(self.config.short_window_minutes, self.config.long_window_minutes)

    def _file_lock(self) -> contextlib.AbstractContextManager[None]:
        return file_lock(self.path.with_name(self.path.name + ".lock"))

    def _read_file(self) -> dict[str, Tree]:
        try:
            raw = json.loads(self.path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return {}
        except (OSError, ValueError) as e:
            raise ValueError(f"{self.path} cannot be read: {e}") from None
        if not isinstance(raw, dict):
            raise ValueError(f"{self.path} is not a JSON object")
        try:
            return {str(k): Tree.from_json(v) for k, v in raw.items()}
        except (KeyError, TypeError, ValueError) as e:
            raise ValueError(f"{self.path} holds a damaged entry ({e})") from None

    def _ensure_loaded(self) -> None:
        if self._loaded:
            return
        try:
            with self._file_lock():
                stored = self._read_file()
        except (ValueError, OSError) as e:
            self.error = str(e)
            return
        for key, tree in stored.items():
            self._trees.setdefault(key, tree)
        self._loaded = True
        self.error = ""

    def _persist(self, key: str) -> None:
        """Write this tree back, keeping other processes' trees (read-modify-write under flock)."""
        now = time.time()
        with self._file_lock():
            stored = self._read_file()
            stored[key] = self._trees[key]
            fresh = {k: t for k, t in stored.items() if now - max(t.seen, t.last) < FORGET_AFTER_S}
            write_private_file(self.path, json.dumps({k: t.to_json() for k, t in fresh.items()}))

    def _tree(self, key: str) -> Tree:
        tree = self._trees.get(key)
        if tree is None:
            tree = self._trees[key] = Tree()
        return tree

    # --- events ----------------------------------------------------------------------------------

    def touch(self, key: str, now: float | None = None) -> None:
        with self._lock:
            self._ensure_loaded()
            self._tree(key).touch(time.time() if now is None else now)

    def pause(self, key: str, now: float | None = None) -> None:
        """The turn ended: the time until the next event is not active time."""
        with self._lock:
            self._ensure_loaded()
            tree = self._trees.get(key)
            if tree is None:
                return
            tree.touch(time.time() if now is None else now)
            tree.last = 0.0
            with contextlib.suppress(OSError, ValueError):
                self._persist(key)

    def reserve(self, key: str, call_key: str, launching: int, now: float | None = None) -> dict[str, Any]:
        """Count a launch at decision time; returns the counts *before* it, for Rego."""
        with self._lock:
            self._ensure_loaded()
            if self.error:
                return {"launching": launching, "short": 0, "long": 0, "error": self.error}
            tree = self._tree(key)
            tree.touch(time.time() if now is None else now)
            tree.launches = [x for x in tree.launches if tree.active - x[0] < self._longest_s]
            counts = {
                "launching": launching,
                "short": tree.count(60.0 * self.config.short_window_minutes),
                "long": tree.count(60.0 * self.config.long_window_minutes),
            }
            tree.launches.append((tree.active, launching, call_key))
            try:
                self._persist(key)
            except (OSError, ValueError) as e:
                tree.launches.pop()
                self.error = str(e)
                return {**counts, "error": self.error}
            return counts

    def release(self, key: str, call_key: str) -> bool:
        """The launching call did not run: give its launches back."""
        with self._lock:
            tree = self._trees.get(key)
            if tree is None:
                return False
            kept = [x for x in tree.launches if x[2] != call_key]
            if len(kept) == len(tree.launches):
                return False
            tree.launches = kept
            with contextlib.suppress(OSError, ValueError):
                self._persist(key)
            return True

    def forget_idle(self, now: float | None = None) -> None:
        """Drop trees from memory that the file forgets too (unseen for FORGET_AFTER_S)."""
        now = time.time() if now is None else now
        with self._lock:
            self._trees = {k: t for k, t in self._trees.items() if now - max(t.seen, t.last) < FORGET_AFTER_S}

    def counts(self, key: str) -> tuple[int, int]:
        with self._lock:
            self._ensure_loaded()
            tree = self._trees.get(key)
            if tree is None:
                return (0, 0)
            return (
                tree.count(60.0 * self.config.short_window_minutes),
                tree.count(60.0 * self.config.long_window_minutes),
            )
