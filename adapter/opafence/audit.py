"""The audit trail: one hash-chained JSON-lines log, `$HERMES_HOME/opafence/audit.jsonl` (0600).

One line per decision with argument hashes and lengths, never contents. Every line carries
`seq`, `prev` (the previous line's hash) and `hash` (SHA-256 of the line without `hash`),
from the very first line. Rotation starts a new segment whose first line links to the
previous segment's last line. Appends are serialized across threads (a lock) and across
processes (an exclusive file lock), so CLI, gateway and cron workers share one chain."""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import os
import threading
import time
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

GENESIS = "0" * 64
DEFAULT_MAX_BYTES = 16 * 1024 * 1024
CONTENT_PREVIEW = 0  # never store argument contents


def canonical(obj: Any) -> bytes:
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str).encode()


def line_hash(entry: Mapping[str, Any]) -> str:
    body = {k: v for k, v in entry.items() if k != "hash"}
    return hashlib.sha256(canonical(body)).hexdigest()


def arg_digests(args: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    """Per-argument SHA-256 and length: enough to match a call, never its contents."""
    out: dict[str, dict[str, Any]] = {}
    for key, value in args.items():
        raw = value.encode() if isinstance(value, str) else canonical(value)
        out[str(key)] = {"sha256": hashlib.sha256(raw).hexdigest(), "len": len(raw)}
    return out


class AuditLog:
    def __init__(self, path: Path, max_bytes: int = DEFAULT_MAX_BYTES) -> None:
        self.path = path
        self.max_bytes = max_bytes
        self._lock = threading.Lock()

    @contextlib.contextmanager
    def _locked(self) -> Iterator[None]:
        lock_path = self.path.with_name(self.path.name + ".lock")
        fd = os.open(lock_path, os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            yield
        finally:
            fcntl.flock(fd, fcntl.LOCK_UN)
            os.close(fd)

    def _tail(self) -> tuple[int, str]:
        """(seq, hash) of the last line of the current segment, or of the rotated one."""
        for candidate in (self.path, self.path.with_name(self.path.name + ".1")):
            last = _last_line(candidate)
            if last is not None:
                entry = json.loads(last)
                return int(entry["seq"]), str(entry["hash"])
        return 0, GENESIS

    def _rotate_if_needed(self) -> None:
        try:
            size = self.path.stat().st_size
        except FileNotFoundError:
            return
        if size < self.max_bytes:
            return
        # Keep a few segments; the chain continues from the last line of the one rotated out.
        for i in range(4, 0, -1):
            older = self.path.with_name(f"{self.path.name}.{i}")
            if older.exists():
                older.replace(self.path.with_name(f"{self.path.name}.{i + 1}"))
        self.path.replace(self.path.with_name(self.path.name + ".1"))

    def append(self, record: Mapping[str, Any]) -> dict[str, Any]:
        """Append one record; returns the full chained entry."""
        with self._lock, self._locked():
            self._rotate_if_needed()
            seq, prev = self._tail()
            entry: dict[str, Any] = {"seq": seq + 1, "time": round(time.time(), 3), "prev": prev, **record}
            entry["hash"] = line_hash(entry)
            fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
            try:
                os.write(fd, canonical(entry) + b"\n")
            finally:
                os.close(fd)
            return entry

    def tail(self, n: int, where: Mapping[str, Any] | None = None) -> list[dict[str, Any]]:
        """The last n entries (of the current segment) matching every key in `where`."""
        try:
            lines = self.path.read_text(encoding="utf-8").splitlines()
        except FileNotFoundError:
            return []
        out: list[dict[str, Any]] = []
        for raw in reversed(lines):
            try:
                entry = json.loads(raw)
            except ValueError:
                continue
            if where and any(entry.get(k) != v for k, v in where.items()):
                continue
            out.append(entry)
            if len(out) >= n:
                break
        return list(reversed(out))


def _last_line(path: Path) -> str | None:
    try:
        with path.open("rb") as f:
            f.seek(0, os.SEEK_END)
            size = f.tell()
            if size == 0:
                return None
            block = min(size, 65536)
            f.seek(size - block)
            data = f.read(block)
    except FileNotFoundError:
        return None
    lines = [ln for ln in data.split(b"\n") if ln.strip()]
    return lines[-1].decode("utf-8") if lines else None


def verify_chain(paths: list[Path]) -> list[str]:
    """Problems found walking the segments oldest first (empty when the chain holds)."""
    problems: list[str] = []
    prev = GENESIS
    expected_seq = None
    for path in paths:
        try:
            lines = path.read_text(encoding="utf-8").splitlines()
        except FileNotFoundError:
            continue
        for n, raw in enumerate(lines, 1):
            try:
                entry = json.loads(raw)
            except ValueError:
                problems.append(f"{path.name}:{n}: not JSON")
                continue
            if entry.get("hash") != line_hash(entry):
                problems.append(f"{path.name}:{n} (seq {entry.get('seq')}): content does not match its hash")
            if entry.get("prev") != prev and not (expected_seq is None and n == 1):
                problems.append(
                    f"{path.name}:{n} (seq {entry.get('seq')}): does not link to the previous entry"
                )
            if expected_seq is not None and entry.get("seq") != expected_seq:
                problems.append(
                    f"{path.name}:{n}: sequence {entry.get('seq')} where {expected_seq} was expected"
                )
            prev = str(entry.get("hash"))
            expected_seq = int(entry.get("seq", 0)) + 1
    return problems
