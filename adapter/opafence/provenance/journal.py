"""A task's value ledger on disk: an append-only journal beside the task record.

`<tasks>/<id>.values` holds one record a line, `<tag> <json>`. The first line of a file is a
snapshot (the whole ledger when the file was written; `gen` counts the rewrites); every later
line is what one save added (new digests of the owner's words, a source and the new digests of
its content, a reason the record became incomplete). Each tag is HMAC-SHA256 under the values
key over the previous tag, the file's id and the line, so a line cut short, changed, dropped
from the middle, reordered or copied from another task's journal breaks the chain.

A save appends only what is new and fsyncs it before the task record that counts it is written;
the task record keeps the (gen, records, tag) of the journal it saw. On load, a journal that is
missing, damaged, has fewer records than counted, another tag at that place or an older
generation was cut short or rolled back: the ledger is lossy, so every target not in the
owner's words counts as untrusted. A journal newer than its task record (the process stopped
between the two writes) is read whole. The file is rewritten (compacted, atomically, fsync'd)
when it is first written, after a failed append or a damaged load, and when it holds far more
digests than the ledger keeps (after eviction)."""

from __future__ import annotations

import hashlib
import hmac
import json
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from opafence.state_files import write_all, write_private_file

SUFFIX = ".values"
# Rewrite when the file holds this many more digests than twice what the ledger keeps, or
# more lines than this (each line is one HMAC and one JSON parse on load).
COMPACT_SLACK = 4096
MAX_LINES = 4096
_TAG_HEX = 32


@dataclass
class JournalState:
    """Where the journal of a ledger stands (the task record persists gen, records and tag)."""

    gen: int = 0  # 0: never written
    records: int = 0  # lines in the file, the snapshot included
    tag: str = ""  # the tag of the last line
    digests: int = 0  # digests the file holds (snapshot and appends), for compaction
    broken: bool = False  # the file may not hold what the ledger does: rewrite it whole
    pending: list[dict[str, Any]] = field(default_factory=list)  # records not yet written

    def header(self) -> dict[str, Any]:
        return {"gen": self.gen, "records": self.records, "tag": self.tag}


class Journaled(Protocol):
    key: bytes
    journal: JournalState

    def snapshot_record(self) -> dict[str, Any]: ...

    def live_digests(self) -> int: ...

    def empty(self) -> bool: ...

    def apply(self, record: Mapping[str, Any]) -> None: ...

    def mark_lossy(self, why: str) -> None: ...


def file_for(task_file: Path) -> Path:
    return task_file.with_suffix(SUFFIX)


def _tag(key: bytes, fid: str, prev: str, payload: bytes) -> str:
    msg = b"opafence-values\x00" + fid.encode() + b"\x00" + prev.encode() + b"\x00" + payload
    return hmac.new(key, msg, hashlib.sha256).hexdigest()[:_TAG_HEX]


def _lines(key: bytes, fid: str, prev: str, records: list[dict[str, Any]]) -> tuple[bytes, str]:
    out: list[bytes] = []
    for rec in records:
        payload = json.dumps(rec, separators=(",", ":")).encode()
        prev = _tag(key, fid, prev, payload)
        out.append(prev.encode() + b" " + payload + b"\n")
    return b"".join(out), prev


def _count(rec: Mapping[str, Any]) -> int:
    n = len(rec.get("d", ()))
    return n + len(rec.get("untrusted", ())) + len(rec.get("user", ()))


def save(led: Journaled, path: Path, fid: str) -> None:
    """Write what the ledger recorded since the last save (raises OSError; the caller makes
    the ledger lossy then, and the next save rewrites the file)."""
    st = led.journal
    if not st.pending and not st.broken and (st.gen > 0 or led.empty()):
        st.pending.clear()
        return
    slack = st.digests > 2 * led.live_digests() + COMPACT_SLACK or st.records >= MAX_LINES
    if st.broken or st.gen == 0 or slack:
        compact(led, path, fid)
        return
    data, tag = _lines(led.key, fid, st.tag, st.pending)
    try:
        fd = os.open(path, os.O_WRONLY | os.O_APPEND)  # never created here: a vanished file
    except FileNotFoundError:  # (expired by another process, removed) is rewritten whole
        compact(led, path, fid)
        return
    try:
        write_all(fd, data)
        os.fsync(fd)
    except OSError:
        st.broken = True  # part of the lines may be in the file: the chain is broken there
        raise
    finally:
        os.close(fd)
    st.records += len(st.pending)
    st.digests += sum(_count(r) for r in st.pending)
    st.tag = tag
    st.pending.clear()


def compact(led: Journaled, path: Path, fid: str) -> None:
    """Rewrite the journal as one snapshot of the ledger (atomic, fsync'd)."""
    st = led.journal
    snap = led.snapshot_record()
    snap["gen"] = st.gen + 1
    data, tag = _lines(led.key, fid, "", [snap])
    st.broken = True  # until the new file is in place
    write_private_file(path, data, durable=True)
    st.gen, st.records, st.tag, st.digests, st.broken = snap["gen"], 1, tag, _count(snap), False
    st.pending.clear()


@dataclass
class Read:
    records: list[dict[str, Any]]  # the verified records, in order (the first is the snapshot)
    tags: list[str]
    gen: int
    size: int
    damaged: str  # "" when every line verified


def read(path: Path, key: bytes, fid: str) -> Read | None:
    """The verified records of a journal (None when there is no file)."""
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return None
    lines = data.split(b"\n")
    tail = lines.pop()  # b"" when the file ends with its last line's newline
    records: list[dict[str, Any]] = []
    tags: list[str] = []
    prev, damaged, gen = "", "", 0
    for n, line in enumerate(lines, 1):
        tag, _, payload = line.partition(b" ")
        if not hmac.compare_digest(tag.decode("ascii", "replace"), _tag(key, fid, prev, payload)):
            damaged = f"record {n} does not verify"
            break
        try:
            rec = json.loads(payload)
        except ValueError:
            damaged = f"record {n} does not parse"
            break
        if not isinstance(rec, dict) or (n == 1) != (rec.get("k") == "snap"):
            damaged = f"record {n} is not where it belongs"
            break
        if n == 1:
            gen = int(rec.get("gen", 0))
        records.append(rec)
        tags.append(tag.decode())
        prev = tags[-1]
    if not damaged and tail:
        damaged = f"record {len(lines) + 1} was cut short"
    if not damaged and not records:
        damaged = "it is empty"
    return Read(records=records, tags=tags, gen=gen, size=len(data), damaged=damaged)


def restore(led: Journaled, path: Path, fid: str, want: Mapping[str, Any]) -> None:
    """Fill a ledger read from its task record (`want`: the journal header it saved) from the
    journal; anything missing, damaged, cut short or older makes it lossy. Never raises."""
    st = led.journal
    want_gen = int(want.get("gen", 0))
    want_records = int(want.get("records", 0))
    want_tag = str(want.get("tag", ""))
    try:
        got = read(path, led.key, fid)
    except (OSError, ValueError, TypeError) as e:
        led.mark_lossy(f"the task's value journal could not be read ({type(e).__name__})")
        st.broken = True
        return
    if got is None:
        if want_gen > 0:
            led.mark_lossy("the task's value journal is missing")
            st.broken = True
        return
    try:
        for rec in got.records:
            led.apply(rec)
    except (ValueError, TypeError, KeyError, AttributeError) as e:
        why = f"the task's value journal holds a record this version cannot read ({type(e).__name__})"
        led.mark_lossy(why)
        st.broken = True
        return
    why = ""
    if got.damaged:
        why = f"the task's value journal is damaged ({got.damaged})"
    elif got.gen < want_gen:
        why = "the task's value journal is older than its record"
    elif got.gen == want_gen and len(got.records) < want_records:
        why = f"the task's value journal was cut short ({len(got.records)} of {want_records} records)"
    elif got.gen == want_gen and want_records and got.tags[want_records - 1] != want_tag:
        why = "the task's value journal is not the one its record counted"
    st.pending.clear()
    st.gen, st.records = got.gen, len(got.records)
    st.tag = got.tags[-1] if got.tags else ""
    st.digests = sum(_count(r) for r in got.records)
    if why:
        led.mark_lossy(why)
        st.broken = True
    st.pending.clear()  # restoring is not new: only what comes after is written
