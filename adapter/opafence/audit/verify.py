"""Verifying the audit trail: every line, the links between them, and the signed head.

Finds an edited entry (its hash no longer matches, or its signature does not), a removed one
(a gap in the sequence), a reordered or inserted one (out of sequence, or not linked to the
entry before it, or not signed by a known key), a truncated tail (the signed head names a
later entry), a removed oldest segment (the head names an earlier first entry) and a
restarted chain (a new chain begun in the log, or a log whose chain is not the head's).
Each finding names the file, the line and the sequence number, and says why."""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, BinaryIO

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

from opafence.audit.keys import KEY_DIR, AuditKeyError, key_id, load_public_key, signature_ok
from opafence.audit.trail import (
    GENESIS,
    AuditError,
    Head,
    head_path,
    line_hash,
    parse_head,
    read_chain_marker,
    segments,
)


@dataclass(frozen=True)
class Finding:
    where: str  # "audit.jsonl.1:12", or "head"
    seq: int | None
    problem: str

    def __str__(self) -> str:
        at = f"{self.where} (seq {self.seq})" if self.seq is not None else self.where
        return f"{at}: {self.problem}"


@dataclass
class Report:
    entries: int = 0
    first_seq: int | None = None
    last_seq: int | None = None
    last_hash: str | None = None
    chain: str | None = None
    head: Head | None = None
    problems: list[Finding] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems


def public_keys(state: Path, extra: list[Path] | None = None) -> dict[str, Ed25519PublicKey]:
    """Known public keys by key id: the home's own (and any retired ones kept under keys/)."""
    found: dict[str, Ed25519PublicKey] = {}
    candidates = sorted((state / KEY_DIR).glob("*.pub.pem")) + sorted(
        (state / KEY_DIR / "retired").glob("*.pem")
    )
    for path in [*candidates, *(extra or [])]:
        try:
            key = load_public_key(path)
        except AuditKeyError:
            continue
        found[key_id(key)] = key
    return found


def _check_signature(entry: dict[str, Any], keys: dict[str, Ed25519PublicKey]) -> str | None:
    kid, sig = entry.get("kid"), entry.get("sig")
    if not isinstance(kid, str) or not isinstance(sig, str):
        return "it is not signed (no kid/sig): it was not written by opafence, or was rewritten"
    key = keys.get(kid)
    if key is None:
        return f"it is signed by an unknown key {kid!r}: written with another key, or forged"
    if not signature_ok(key, str(entry.get("hash", "")).encode(), sig):
        return "its signature does not verify: the entry was forged or changed after it was signed"
    return None


def verify_segments(paths: list[Path], keys: dict[str, Ed25519PublicKey] | None = None) -> Report:
    """Walk the segments oldest first. Without `keys`, the keys next to the first segment."""
    if keys is None:
        keys = public_keys(paths[0].parent) if paths else {}
    texts = []
    for path in paths:
        try:
            texts.append((path.name, path.read_bytes()))
        except FileNotFoundError:
            continue
    return _verify_texts(texts, keys)


def _snapshot(log: Path) -> tuple[list[tuple[str, bytes]], bytes | None]:
    """The segments and the head as of one instant: taken under a shared lock on the trail
    (writers hold it exclusively), through descriptors opened then, so appends and a rotation
    during the walk change nothing."""
    lock_path = log.with_name(log.name + ".lock")
    files: list[tuple[str, BinaryIO, int]] = []
    head: bytes | None = None
    fd = os.open(lock_path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600) if log.parent.is_dir() else None
    try:
        if fd is not None:
            fcntl.flock(fd, fcntl.LOCK_SH)
        for seg in segments(log):
            with contextlib.suppress(FileNotFoundError):
                f = seg.open("rb")
                files.append((seg.name, f, os.fstat(f.fileno()).st_size))
        with contextlib.suppress(FileNotFoundError):
            head = head_path(log).read_bytes()
    finally:
        if fd is not None:
            fcntl.flock(fd, fcntl.LOCK_UN)
            os.close(fd)
    texts = []
    for name, handle, size in files:
        with handle:
            texts.append((name, handle.read(size)))
    return texts, head


def _verify_texts(texts: list[tuple[str, bytes]], keys: dict[str, Ed25519PublicKey]) -> Report:
    report = Report()
    expected: int | None = None
    prev: str | None = None
    for name, data in texts:
        lines = data.decode("utf-8", errors="replace").splitlines()
        for n, raw in enumerate(lines, 1):
            where = f"{name}:{n}"
            try:
                entry = json.loads(raw)
                if not isinstance(entry, dict):
                    raise ValueError("not an object")
                seq = int(entry["seq"])
            except (ValueError, KeyError, TypeError):
                report.problems.append(Finding(where, None, "the line is damaged (not an entry)"))
                prev = None  # the next link cannot be checked against a damaged line
                if expected is not None:
                    expected += 1
                continue
            report.entries += 1
            digest = str(entry.get("hash", ""))
            if line_hash(entry) != digest:
                report.problems.append(
                    Finding(where, seq, "its content was changed after it was written (hash mismatch)")
                )
            else:
                bad_sig = _check_signature(entry, keys)
                if bad_sig:
                    report.problems.append(Finding(where, seq, bad_sig))
            starts_chain = entry.get("prev") == GENESIS
            if expected is None:
                report.first_seq = seq
                if starts_chain:
                    report.chain = str(entry.get("chain", ""))
                if starts_chain and seq != 1:
                    report.problems.append(Finding(where, seq, "it starts a chain but is not entry 1"))
            elif starts_chain:
                report.problems.append(
                    Finding(
                        where,
                        seq,
                        f"the chain restarts here after seq {expected - 1}: the earlier trail was "
                        "discarded and a new chain begun",
                    )
                )
                report.chain = str(entry.get("chain", ""))
            elif seq > expected:
                missing = f"{expected}" if seq == expected + 1 else f"{expected}..{seq - 1}"
                report.problems.append(
                    Finding(where, seq, f"entries {missing} are missing before it (removed or moved)")
                )
            elif seq < expected:
                report.problems.append(
                    Finding(
                        where,
                        seq,
                        f"it is out of order: seq {seq} after seq {expected - 1} (reordered, duplicated "
                        "or inserted)",
                    )
                )
            elif prev is not None and entry.get("prev") != prev:
                report.problems.append(
                    Finding(
                        where,
                        seq,
                        "it does not link to the entry before it (an entry was inserted or replaced here)",
                    )
                )
            if entry.get("event") == "reseal":
                report.notes.append(_reseal_note(where, seq, entry))
            expected = seq + 1
            prev = digest
            report.last_seq, report.last_hash = seq, digest
    return report


def _reseal_note(where: str, seq: int, entry: dict[str, Any]) -> str:
    before = entry.get("previous_head") or {}
    found = entry.get("found") or {}
    text = f"{where} (seq {seq}): a person resealed the trail ({entry.get('reason') or 'no reason given'})"
    if before.get("seq") is not None and found.get("seq") != before.get("seq"):
        text += f"; the head said seq {before.get('seq')}, the log ended at seq {found.get('seq')}"
    if entry.get("head_problem"):
        text += f"; the head was unusable: {entry['head_problem']}"
    if entry.get("cut"):
        text += f"; damaged bytes were moved to {entry['cut']}"
    return text


def verify_trail(log: Path, extra_keys: list[Path] | None = None) -> Report:
    """The whole trail: every segment, then the signed head against what the log holds."""
    keys = public_keys(log.parent, extra_keys)
    texts, head_bytes = _snapshot(log)
    report = _verify_texts(texts, keys)
    try:
        head = parse_head(head_bytes, log) if head_bytes is not None else None
    except AuditError as e:
        report.problems.append(Finding("head", None, str(e)))
        return report
    report.head = head
    began = read_chain_marker(log)
    current = head.chain if head is not None else report.chain
    if began is not None and current is not None and began != current:
        report.problems.append(
            Finding(
                "head",
                None,
                f"this home's key began chain {began}, but the trail holds chain {current}: "
                "the chain was restarted",
            )
        )
    if head is None:
        if report.entries:
            report.problems.append(
                Finding(
                    "head", None, "there is no signed head record: it was removed, so a cut tail cannot show"
                )
            )
        return report
    key = keys.get(head.kid)
    if key is None or not signature_ok(key, head.signed_bytes(), head.sig):
        report.problems.append(Finding("head", head.seq, "the head record's signature does not verify"))
    last = report.last_seq or 0
    if report.entries == 0 and head.seq > 0:
        report.problems.append(
            Finding(
                "head", head.seq, f"the log is empty but the signed head says {head.seq} entries were written"
            )
        )
    elif head.seq > last:
        report.problems.append(
            Finding(
                "head",
                head.seq,
                f"the log was truncated: it ends at seq {last} but the signed head says seq {head.seq} "
                f"(entries {last + 1}..{head.seq} were removed)",
            )
        )
    elif head.seq == last and head.hash != report.last_hash:
        report.problems.append(
            Finding("head", head.seq, "the last entry is not the one the signed head names (it was replaced)")
        )
    elif head.seq < last:
        if last == head.seq + 1:
            report.notes.append(
                f"the head is one entry behind (seq {head.seq} of {last}): a writer stopped between the "
                "two writes of an append"
            )
        else:
            report.problems.append(
                Finding(
                    "head",
                    head.seq,
                    f"the log goes on to seq {last} past the signed head's seq {head.seq}: entries were "
                    "added by something other than opafence, or the head was rolled back",
                )
            )
    if report.first_seq is not None and report.first_seq != head.base:
        report.problems.append(
            Finding(
                "head",
                head.base,
                f"the trail starts at seq {report.first_seq} but the signed head says it starts at "
                f"seq {head.base} (the oldest entries were removed)",
            )
        )
    if report.chain and report.chain != head.chain:
        report.problems.append(
            Finding(
                "head",
                None,
                f"the log holds chain {report.chain} but the signed head names chain {head.chain}: "
                "the chain was restarted",
            )
        )
    return report
