"""The audit trail: one hash-chained, signed JSON-lines log, `$HERMES_HOME/opafence/audit.jsonl` (0600).

One line per decision (tool calls, model calls, delegations, approvals) with keyed argument
digests and lengths, never contents. Every line carries `seq`, `prev` (the previous line's
hash), `hash` (SHA-256 of the line without `hash` and `sig`), `kid` (the signing key's id) and
`sig` (an Ed25519 signature of `hash`), from the very first line; the first line of a chain also
names the chain (`chain`). Rotation starts a new segment whose first line links to the previous
segment's last line; at most five rotated segments are kept.

A signed head record, kept apart from the log (`audit.jsonl.head`), names the chain, the last
entry (seq and hash) and the first retained seq, so a truncated tail, a removed segment or a
restarted chain shows even when every remaining line is intact. Appends are serialized across
threads (a lock) and across processes (an exclusive file lock), so CLI, gateway and cron
workers share one chain; before appending, the log's tail is checked against the head, and a
mismatch refuses the append (fail closed) until a person runs `opafence audit reseal`."""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import os
import secrets
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from opafence.audit.keys import AuditKeyError, AuditKeys, keys_for, signature_ok
from opafence.errors import OpafenceError
from opafence.state_files import write_all, write_private_file

GENESIS = "0" * 64
DEFAULT_MAX_BYTES = 16 * 1024 * 1024
ROTATED_SEGMENTS = 5
HEAD_SUFFIX = ".head"
HEAD_SIZE = 1024  # the head record is rewritten in place, padded to this size
CONTENT_PREVIEW = 0  # never store argument contents
# Fields the log owns; a record cannot set them.
RESERVED = frozenset({"seq", "time", "prev", "kid", "hash", "sig", "chain"})
RECOVER = (
    "Run `opafence audit verify` to see what is wrong; keep a copy of the audit files in the "
    "opafence state directory, then run `opafence audit reseal` to record the break and go on."
)


class AuditError(OpafenceError):
    """The trail cannot be appended to safely; the message says what is wrong and how to recover."""


def canonical(obj: Any) -> bytes:
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str).encode()


def line_hash(entry: Mapping[str, Any]) -> str:
    body = {k: v for k, v in entry.items() if k not in ("hash", "sig")}
    return hashlib.sha256(canonical(body)).hexdigest()


def _raw(value: Any) -> bytes:
    return value.encode() if isinstance(value, str) else canonical(value)


def arg_digests(args: Mapping[str, Any], keys: AuditKeys | None = None) -> dict[str, dict[str, Any]]:
    """Per-argument keyed digest (HMAC-SHA-256 with the home's audit key) and length.

    Enough to match a call against a value one holds, never its contents; keyed so that a
    reader of the log cannot confirm a guessed value. Without `keys`, the keys of the current
    HERMES_HOME's state directory are used (created on first use)."""
    if keys is None:
        from opafence.state_files import state_dir

        keys = keys_for(state_dir())
    out: dict[str, dict[str, Any]] = {}
    for key, value in args.items():
        raw = _raw(value)
        out[str(key)] = {"hmac": keys.digest(raw), "len": len(raw)}
    return out


# --- the head record ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Head:
    chain: str
    seq: int
    hash: str
    base: int  # the first seq still in the retained segments
    time: float
    kid: str
    sig: str = ""

    def body(self) -> dict[str, Any]:
        return {
            "v": 1,
            "chain": self.chain,
            "seq": self.seq,
            "hash": self.hash,
            "base": self.base,
            "time": self.time,
            "kid": self.kid,
        }

    def signed_bytes(self) -> bytes:
        return canonical(self.body())

    def to_json(self) -> dict[str, Any]:
        return {**self.body(), "sig": self.sig}

    @staticmethod
    def from_json(data: Any) -> Head:
        if not isinstance(data, dict):
            raise ValueError("not an object")
        return Head(
            chain=str(data["chain"]),
            seq=int(data["seq"]),
            hash=str(data["hash"]),
            base=int(data["base"]),
            time=float(data["time"]),
            kid=str(data["kid"]),
            sig=str(data["sig"]),
        )


def head_path(log: Path) -> Path:
    return log.with_name(log.name + HEAD_SUFFIX)


def read_head(log: Path) -> Head | None:
    """The head record as stored (signature not checked); None when there is none."""
    try:
        raw = head_path(log).read_bytes()
    except FileNotFoundError:
        return None
    return parse_head(raw, log)


def parse_head(raw: bytes, log: Path) -> Head:
    try:
        return Head.from_json(json.loads(raw))
    except (ValueError, KeyError, TypeError) as e:
        raise AuditError(f"the signed head record {head_path(log)} is damaged ({e}). {RECOVER}") from None


def chain_marker(log: Path) -> Path:
    """The id of the chain this home's key last began, kept with the keys: a log and head that
    both vanish cannot start a new chain unnoticed."""
    return log.parent / "keys" / "chain"


def read_chain_marker(log: Path) -> str | None:
    try:
        return chain_marker(log).read_text(encoding="utf-8").strip() or None
    except FileNotFoundError:
        return None


def segments(log: Path) -> list[Path]:
    """The log's segments that exist, oldest first (audit.jsonl.N … audit.jsonl.1, audit.jsonl)."""
    rotated = []
    for p in log.parent.glob(log.name + ".*"):
        suffix = p.name[len(log.name) + 1 :]
        if suffix.isdigit():
            rotated.append((int(suffix), p))
    out = [p for _, p in sorted(rotated, reverse=True)]
    if log.exists():
        out.append(log)
    return out


# --- the log -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Tip:
    """Where the chain ends, as this process last wrote or read it."""

    ino: int
    size: int
    seq: int
    hash: str
    chain: str
    base: int


def _parse_entry(raw: str, where: str) -> dict[str, Any]:
    try:
        entry = json.loads(raw)
        if not isinstance(entry, dict):
            raise ValueError("not an object")
        int(entry["seq"])
        str(entry["hash"])
    except (ValueError, KeyError, TypeError) as e:
        raise AuditError(f"the last entry of {where} is damaged ({e}). {RECOVER}") from None
    return entry


class AuditLog:
    def __init__(self, path: Path, max_bytes: int = DEFAULT_MAX_BYTES, keys: AuditKeys | None = None) -> None:
        self.path = path
        self.max_bytes = max_bytes
        self.head_path = head_path(path)
        self._keys = keys
        self._lock = threading.Lock()
        self._tip: _Tip | None = None
        # Descriptors kept open between appends (a receipt must stay well under a millisecond);
        # reopened after a fork, a rotation, or when the file at the path changed.
        self._pid = os.getpid()
        self._lock_fd: int | None = None
        self._log_fd: tuple[int, int] | None = None  # (fd, inode)
        self._head_fd: int | None = None
        # Called (outside the locks) after each append: the head forwarder wakes up.
        self.on_append: Callable[[], None] | None = None

    def close(self) -> None:
        for fd in (self._lock_fd, self._log_fd[0] if self._log_fd else None, self._head_fd):
            if fd is not None:
                with contextlib.suppress(OSError):
                    os.close(fd)
        self._lock_fd = self._head_fd = None
        self._log_fd = None

    def __del__(self) -> None:
        with contextlib.suppress(Exception):
            if self._pid == os.getpid():
                self.close()

    def _after_fork(self) -> None:
        if self._pid != os.getpid():
            # The parent's descriptors (and its flock) are not ours.
            self._lock_fd = self._head_fd = None
            self._log_fd = None
            self._tip = None
            self._pid = os.getpid()

    @property
    def keys(self) -> AuditKeys:
        if self._keys is None:
            try:
                self._keys = keys_for(self.path.parent)
            except (AuditKeyError, OSError) as e:
                raise AuditError(f"the audit keys cannot be used: {e}") from None
        return self._keys

    def arg_digests(self, args: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
        return arg_digests(args, self.keys)

    @contextlib.contextmanager
    def _locked(self) -> Iterator[None]:
        self._after_fork()
        if self._lock_fd is None:
            lock_path = self.path.with_name(self.path.name + ".lock")
            self._lock_fd = os.open(lock_path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
        fd = self._lock_fd
        fcntl.flock(fd, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fd, fcntl.LOCK_UN)

    # --- reading the tip ---------------------------------------------------------------------

    def _last_entry(self) -> dict[str, Any] | None:
        """The last entry of the current segment, or of the newest rotated one."""
        for candidate in (self.path, self.path.with_name(self.path.name + ".1")):
            last = _last_line(candidate)
            if last is not None:
                return _parse_entry(last, candidate.name)
        return None

    def _verified_head(self) -> Head | None:
        head = read_head(self.path)
        if head is not None and not signature_ok(self.keys.public, head.signed_bytes(), head.sig):
            raise AuditError(
                f"the signature of the head record {self.head_path} does not verify with this home's "
                f"audit key: the record, or the key, was replaced. {RECOVER}"
            )
        return head

    def _stat(self) -> tuple[int, int]:
        try:
            st = os.stat(self.path)
        except FileNotFoundError:
            return (0, -1)
        return (st.st_ino, st.st_size)

    def _current_tip(self) -> _Tip:
        tip = self._tip
        ino, size = self._stat()
        if tip is not None and (tip.ino, tip.size) == (ino, size) and size >= 0:
            return tip
        return self._read_tip(ino, size)

    def _read_tip(self, ino: int, size: int) -> _Tip:
        head = self._verified_head()
        last = self._last_entry()
        if last is None:
            if head is not None and head.seq > 0:
                raise AuditError(
                    f"the audit log {self.path} is gone, but its signed head says {head.seq} entries were "
                    f"written: it was removed or replaced. {RECOVER}"
                )
            began = read_chain_marker(self.path)
            if began is not None:
                raise AuditError(
                    f"the audit log {self.path} and its head are gone, but this home's key already "
                    f"began chain {began}: the trail was removed. {RECOVER}"
                )
            return _Tip(ino, size, 0, GENESIS, secrets.token_hex(8), 1)
        seq, digest = int(last["seq"]), str(last["hash"])
        if head is None:
            raise AuditError(
                f"the audit log {self.path} has entries but no signed head record ({self.head_path}): "
                f"the record was removed. {RECOVER}"
            )
        if (seq, digest) == (head.seq, head.hash):
            return _Tip(ino, size, seq, digest, head.chain, head.base)
        # A crash between writing a line and writing the head leaves the head one entry behind.
        if seq == head.seq + 1 and last.get("prev") == head.hash and self._entry_sound(last):
            return _Tip(ino, size, seq, digest, head.chain, head.base)
        raise AuditError(
            f"the audit log ends at seq {seq} but its signed head says seq {head.seq}: the log was "
            f"{'truncated' if seq < head.seq else 'changed'} or replaced. {RECOVER}"
        )

    def _entry_sound(self, entry: Mapping[str, Any]) -> bool:
        digest = str(entry.get("hash", ""))
        return line_hash(entry) == digest and signature_ok(
            self.keys.public, digest.encode(), str(entry.get("sig", ""))
        )

    # --- writing -------------------------------------------------------------------------------

    def _rotate_if_needed(self, tip: _Tip) -> _Tip:
        if tip.size < self.max_bytes:
            return tip
        base = tip.base
        oldest = self.path.with_name(f"{self.path.name}.{ROTATED_SEGMENTS}")
        if oldest.exists():
            # The oldest segment is dropped; the trail now starts at the next one's first entry.
            first = _first_line(self.path.with_name(f"{self.path.name}.{ROTATED_SEGMENTS - 1}"))
            with contextlib.suppress(ValueError, KeyError, TypeError):
                base = int(json.loads(first)["seq"]) if first else base
            oldest.unlink()
        for i in range(ROTATED_SEGMENTS - 1, 0, -1):
            older = self.path.with_name(f"{self.path.name}.{i}")
            if older.exists():
                older.replace(self.path.with_name(f"{self.path.name}.{i + 1}"))
        self.path.replace(self.path.with_name(self.path.name + ".1"))
        return replace(tip, ino=0, size=0, base=base)

    def _write_head(self, head: Head) -> None:
        data = canonical(head.to_json())
        if len(data) >= HEAD_SIZE:
            write_private_file(self.head_path, data, durable=False)
            return
        fd = self._head_fd
        if fd is not None and os.fstat(fd).st_nlink == 0:  # replaced or removed under us
            os.close(fd)
            fd = None
        if fd is None:
            fd = os.open(self.head_path, os.O_WRONLY | os.O_CREAT | os.O_CLOEXEC, 0o600)
            os.ftruncate(fd, HEAD_SIZE)
            self._head_fd = fd
        os.pwrite(fd, data + b" " * (HEAD_SIZE - 1 - len(data)) + b"\n", 0)

    def _log_descriptor(self, ino: int) -> int:
        """The open log, if it still is the file at the path (inode `ino`); else reopen it."""
        if self._log_fd is not None:
            fd, open_ino = self._log_fd
            if open_ino == ino and ino != 0:
                return fd
            os.close(fd)
            self._log_fd = None
        fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_CLOEXEC, 0o600)
        self._log_fd = (fd, os.fstat(fd).st_ino)
        return fd

    def _append_at(self, tip: _Tip, record: Mapping[str, Any]) -> dict[str, Any]:
        keys = self.keys
        tip = self._rotate_if_needed(tip)
        entry: dict[str, Any] = {k: v for k, v in record.items() if k not in RESERVED}
        entry.update(seq=tip.seq + 1, time=round(time.time(), 3), prev=tip.hash, kid=keys.kid)
        if tip.seq == 0:
            entry["chain"] = tip.chain
            chain_marker(self.path).parent.mkdir(mode=0o700, exist_ok=True)
            write_private_file(chain_marker(self.path), tip.chain.encode(), durable=False)
        entry["hash"] = line_hash(entry)
        entry["sig"] = keys.sign(entry["hash"].encode())
        fd = self._log_descriptor(tip.ino)
        write_all(fd, canonical(entry) + b"\n")
        st = os.fstat(fd)
        head = Head(tip.chain, entry["seq"], entry["hash"], tip.base, entry["time"], keys.kid)
        self._write_head(replace(head, sig=keys.sign(head.signed_bytes())))
        self._tip = _Tip(st.st_ino, st.st_size, entry["seq"], entry["hash"], tip.chain, tip.base)
        return entry

    def append(self, record: Mapping[str, Any]) -> dict[str, Any]:
        """Append one signed record; returns the full chained entry. Raises AuditError (or
        OSError) when the trail cannot be appended to safely."""
        with self._lock, self._locked():
            try:
                entry = self._append_at(self._current_tip(), record)
            except AuditError:
                self._tip = None
                raise
        if self.on_append is not None:
            with contextlib.suppress(Exception):
                self.on_append()
        return entry

    def reseal(self, reason: str) -> dict[str, Any]:
        """A person's decision to go on after a break: cut a damaged tail aside, record what the
        head said and what was found, and continue the chain from the last sound entry."""
        with self._lock, self._locked():
            problem = ""
            try:
                head = self._verified_head()
            except AuditError as e:
                head, problem = None, str(e)
            cut = self._cut_damaged_tail()
            last = self._last_entry()
            ino, size = self._stat()
            chain = head.chain if head is not None else secrets.token_hex(8)
            base = head.base if head is not None else self._first_seq() or 1
            if last is None:
                tip = _Tip(ino, size, 0, GENESIS, chain, 1)
            else:
                tip = _Tip(ino, size, int(last["seq"]), str(last["hash"]), chain, base)
            previous_chain = read_chain_marker(self.path)
            if head is None:
                write_private_file(chain_marker(self.path), chain.encode(), durable=False)
            record = {
                "event": "reseal",
                "previous_chain": previous_chain,
                "reason": reason,
                "previous_head": None if head is None else {"seq": head.seq, "hash": head.hash},
                "head_problem": problem,
                "found": None if last is None else {"seq": tip.seq, "hash": tip.hash},
                "cut": cut,
            }
            return self._append_at(tip, record)

    def _first_seq(self) -> int | None:
        for seg in segments(self.path):
            first = _first_line(seg)
            if first:
                with contextlib.suppress(ValueError, KeyError, TypeError):
                    return int(json.loads(first)["seq"])
        return None

    def _cut_damaged_tail(self) -> str | None:
        """Move trailing bytes of the current segment that are not a complete entry to a side file."""
        try:
            data = self.path.read_bytes()
        except FileNotFoundError:
            return None
        pos = len(data)
        while pos > 0:
            end = pos - 1 if data[pos - 1 : pos] == b"\n" else pos
            start = data.rfind(b"\n", 0, end) + 1
            if end < pos and _is_entry(data[start:end]):
                break  # a complete line holding an entry: keep everything up to here
            pos = start
        if pos == len(data):
            return None
        side = self.path.with_name(f"{self.path.name}.damaged-{int(time.time())}")
        fd = os.open(side, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        try:
            write_all(fd, data[pos:])
        finally:
            os.close(fd)
        os.truncate(self.path, pos)
        return side.name

    # --- reading ---------------------------------------------------------------------------

    def head(self) -> Head | None:
        return read_head(self.path)

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


def _is_entry(line: bytes) -> bool:
    try:
        entry = json.loads(line)
    except ValueError:
        return False
    return isinstance(entry, dict) and "seq" in entry and "hash" in entry


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
    if not lines:
        return None
    try:
        return lines[-1].decode("utf-8")
    except UnicodeDecodeError:
        return "\ufffd"  # parses as damaged


def _first_line(path: Path) -> str | None:
    try:
        with path.open("rb") as f:
            line = f.readline()
    except FileNotFoundError:
        return None
    return line.decode("utf-8", "replace").strip() or None


def verify_chain(paths: list[Path]) -> list[str]:
    """Problems found walking the given segments oldest first (empty when the chain holds):
    content, signatures, sequence and links. `opafence audit verify` also checks the head."""
    from opafence.audit.verify import verify_segments

    return [str(f) for f in verify_segments(paths).problems]
