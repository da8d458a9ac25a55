"""The values a task has seen, as keyed hashes with where they first came in.

One ValueLedger per task, kept in its SessionFacts (so persisted and expired with it), only
touched under the plugin store's lock. Values are HMAC-SHA256 digests under a key of the
state directory (replay: a key per run), so the task file never holds an address or account
in the clear. Rego is sent only the records of the call's own targets (`facts.provenance`).

Once untrusted, a value stays untrusted. When recording fails, a result was cut short, the
bound evicted anything or its journal could not be written or read whole, the ledger is
`lossy`: from then on Rego counts every target that is not in the owner's words as untrusted
(fail-closed). The plugin's store persists a ledger as an append-only journal beside the task
record (journal.py): each save writes only what is new."""

from __future__ import annotations

import hashlib
import os
import re
from collections import OrderedDict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from opafence.provenance import values as v
from opafence.provenance.journal import JournalState
from opafence.provenance.normalize import Value
from opafence.provenance.targets import Target

DEFAULT_MAX_VALUES = 50_000
MAX_SOURCES = 4096
DIGEST_BYTES = 16

# The words of a tool's name that say what kind of source it is (for delegations: "the
# address is in her email", "the IBAN in bill.txt", "the people in the meeting notes").
_LABELS: tuple[tuple[str, re.Pattern[str]], ...] = tuple(
    (label, re.compile(rx))
    for label, rx in (
        ("mail", r"mail|gmail|outlook|inbox|imap|message|thread"),
        ("calendar", r"calendar|event|meeting|invite"),
        ("chat", r"slack|discord|teams|chat|channel|telegram|whatsapp|signal|dm|matrix|message"),
        (
            "file",
            r"read_file|search_files|file|drive|doc|document|notion|sheet|pdf|note|dropbox|onedrive|box",
        ),
        ("web", r"web|browser|x_search|http|fetch|url|page"),
        ("contacts", r"contact|people|directory|address_book|crm"),
        ("payments", r"bank|pay|invoice|bill|stripe|paypal|wise|ledger"),
        ("booking", r"book|booking|hotel|flight|travel|reserv|airbnb|trip"),
        ("subagent", r"delegate_task"),
        ("history", r"session_search"),
    )
)


def source_labels(tool: str, ingests: Iterable[str]) -> list[str]:
    low = tool.lower()
    labels = set(ingests)
    for label, rx in _LABELS:
        if rx.search(low):
            labels.add(label)
    return sorted(labels)


def new_key() -> bytes:
    return os.urandom(32)


# The pads of RFC 2104 as byte translations (what the stdlib's hmac does): one C call per pad
# instead of a generator over the key's bytes.
_IPAD = bytes(x ^ 0x36 for x in range(256))
_OPAD = bytes(x ^ 0x5C for x in range(256))


def _hmac_states(key: bytes) -> tuple[bytes, Any, Any]:
    block = hashlib.sha256().block_size
    k = hashlib.sha256(key).digest() if len(key) > block else key
    k = k.ljust(block, b"\x00")
    inner = hashlib.sha256(k.translate(_IPAD))
    outer = hashlib.sha256(k.translate(_OPAD))
    return key, inner, outer


@dataclass
class ValueLedger:
    key: bytes = field(default_factory=new_key, repr=False)
    max_values: int = DEFAULT_MAX_VALUES
    # digest -> index into sources of the first untrusted content that held it
    untrusted: OrderedDict[str, int] = field(default_factory=OrderedDict)
    user: set[str] = field(default_factory=set)  # digests of values in the owner's words
    sources: list[dict[str, Any]] = field(default_factory=list)
    lossy: bool = False
    lossy_why: str = ""
    calls: int = 0  # calls decided in this task (a source's "call N")
    # Calls allowed to bring untrusted content in whose results are not recorded yet: saved
    # with the task before they run, so a process that stops before recording their values
    # leaves a task that loads lossy.
    awaiting: set[int] = field(default_factory=set)
    # Set by the store that persists this ledger as a journal: what each add records is kept
    # (journal.pending) until the next save writes it.
    journaled: bool = False
    journal: JournalState = field(default_factory=JournalState, repr=False, compare=False)
    # The keyed HMAC state before any message, copied per digest (cheaper than keying anew).
    # The keyed inner and outer SHA-256 states of HMAC before any message (RFC 2104), copied
    # per digest: the same digests as hmac.new(key, msg, sha256), without keying anew.
    _mac: tuple[bytes, Any, Any] | None = field(default=None, init=False, repr=False, compare=False)

    def digest(self, kind: str, value: str) -> str:
        base = self._mac
        if base is None or base[0] != self.key:
            base = self._mac = _hmac_states(self.key)
        inner = base[1].copy()
        inner.update(f"{kind}\x00{value}".encode())
        outer = base[2].copy()
        outer.update(inner.digest())
        hexed: str = outer.hexdigest()
        return hexed[: DIGEST_BYTES * 2]

    def mark_lossy(self, why: str) -> None:
        if not self.lossy:
            self.lossy, self.lossy_why = True, why
            if self.journaled:
                self.journal.pending.append({"k": "l", "why": why})

    def next_call(self) -> int:
        self.calls += 1
        return self.calls

    # --- recording ----------------------------------------------------------------------

    def add_user(self, found: Iterable[Value]) -> None:
        """Values of the owner's own words (or configured identity): never untrusted."""
        digest, user = self.digest, self.user
        new = [d for d in {digest(kind, value) for kind, value in found} if d not in user]
        user.update(new)
        if new and self.journaled:
            self.journal.pending.append({"k": "u", "d": new})

    def add_untrusted(self, found: Iterable[Value], source: Mapping[str, Any]) -> int:
        """Record values of untrusted content from one source; returns how many were new."""
        src: dict[str, Any] | None = None
        if len(self.sources) >= MAX_SOURCES:
            self.mark_lossy("too many sources")
        else:
            src = dict(source)
            self.sources.append(src)
        index = len(self.sources) - 1
        digest, untrusted = self.digest, self.untrusted
        # The first source stays the one shown.
        new = [d for d in {digest(kind, value) for kind, value in found} if d not in untrusted]
        if self.journaled and (new or src is not None):
            self.journal.pending.append({"k": "t", "src": src, "i": index, "d": new})
        self._take(new, index)
        return len(new)

    def _take(self, new: Iterable[str], index: int) -> None:
        untrusted = self.untrusted
        for d in new:
            untrusted.setdefault(d, index)
        while len(untrusted) > self.max_values:
            untrusted.popitem(last=False)
            self.mark_lossy(f"more than {self.max_values} values")

    def record_result(
        self, tool: str, call: int, result: Any, ingests: Sequence[str], home: str = "", path: str = ""
    ) -> None:
        """One tool result of untrusted content. Never raises: a failure makes the ledger lossy."""
        try:
            found, truncated = v.extract(result, home)
            if truncated:
                self.mark_lossy(f"the result of {tool} (call {call}) was too large to read whole")
            source = {"tool": tool, "call": call, "labels": source_labels(tool, ingests), "path": path}
            self.add_untrusted(found, source)
        except Exception as e:  # recording must fail closed, never open
            self.mark_lossy(f"recording the result of {tool} failed ({type(e).__name__})")

    # --- matching -----------------------------------------------------------------------

    def match(self, targets: Sequence[Target]) -> dict[str, Any]:
        """facts.provenance: the call's targets, each with whether it is the owner's and where
        it first came in as untrusted content."""
        out: list[dict[str, Any]] = []
        for t in targets:
            d = self.digest(t["kind"], t["value"])
            rec: dict[str, Any] = {**t, "user": d in self.user, "untrusted": False}
            i = self.untrusted.get(d)
            if i is not None:
                rec["untrusted"] = True
                src: dict[str, Any] = self.sources[i] if 0 <= i < len(self.sources) else {}
                rec["source"] = {
                    "tool": str(src.get("tool", "")),
                    "call": int(src.get("call", 0)),
                    "labels": list(src.get("labels", [])),
                    "path": str(src.get("path", "")),
                    "message": int(src.get("message", 0)),
                }
            out.append(rec)
        return {"lossy": self.lossy, "why": self.lossy_why, "targets": out}

    # --- persistence (with the session facts) -------------------------------------------

    def to_json(self) -> dict[str, Any]:
        """The ledger for the task record: its values inline, or (journaled) only where its
        journal stands; the values are in the journal."""
        out: dict[str, Any] = {
            "lossy": self.lossy,
            "lossy_why": self.lossy_why,
            "calls": self.calls,
            "awaiting": sorted(self.awaiting),
            "check": self.digest("check", ""),
        }
        if self.journaled:
            out["journal"] = self.journal.header()
        else:
            out.update(self._values_json())
        return out

    def _values_json(self) -> dict[str, Any]:
        return {
            "untrusted": [[d, i] for d, i in self.untrusted.items()],
            "user": sorted(self.user),
            "sources": self.sources,
        }

    @staticmethod
    def from_json(
        raw: Mapping[str, Any] | None, key: bytes, max_values: int = DEFAULT_MAX_VALUES
    ) -> ValueLedger:
        """A ledger from its task record. A journaled one holds only the journal's header
        (`journal`): journal.restore() fills it from the file."""
        led = ValueLedger(key=key, max_values=max_values)
        if raw is None:
            return led
        led.untrusted = OrderedDict((str(d), int(i)) for d, i in raw.get("untrusted", []))
        led.user = {str(d) for d in raw.get("user", [])}
        led.sources = [dict(s) for s in raw.get("sources", [])]
        led.lossy = bool(raw.get("lossy", False))
        led.lossy_why = str(raw.get("lossy_why", ""))
        led.calls = int(raw.get("calls", 0))
        awaiting = sorted(int(n) for n in raw.get("awaiting", []))
        if awaiting:
            led.mark_lossy(f"the values of the result of call {awaiting[0]} were never recorded")
        if raw.get("check") != led.digest("check", ""):
            # Hashed under another key: nothing recorded can be matched any more.
            led.mark_lossy("the values were recorded under another key")
        return led

    # --- the journal (journal.py) ----------------------------------------------------------

    def empty(self) -> bool:
        return not (self.untrusted or self.user or self.sources or self.lossy)

    def live_digests(self) -> int:
        return len(self.untrusted) + len(self.user)

    def snapshot_record(self) -> dict[str, Any]:
        return {"k": "snap", **self._values_json(), "lossy": self.lossy, "why": self.lossy_why}

    def apply(self, record: Mapping[str, Any]) -> None:
        """Replay one journal record (as the adds that wrote it did, journaling nothing)."""
        journaled, self.journaled = self.journaled, False
        try:
            kind = record["k"]
            if kind == "snap":
                self.untrusted = OrderedDict((str(d), int(i)) for d, i in record["untrusted"])
                self.user = {str(d) for d in record["user"]}
                self.sources = [dict(s) for s in record["sources"]]
                if record.get("lossy"):
                    self.mark_lossy(str(record.get("why", "")))
                self._take((), 0)  # a smaller bound than the one it was written under
            elif kind == "u":
                self.user.update(str(d) for d in record["d"])
            elif kind == "t":
                if record["src"] is not None:
                    self.sources.append(dict(record["src"]))
                self._take((str(d) for d in record["d"]), int(record["i"]))
            elif kind == "l":
                self.mark_lossy(str(record["why"]))
            else:
                raise ValueError(f"unknown journal record {kind!r}")
        finally:
            self.journaled = journaled

    def summary(self) -> dict[str, Any]:
        """What `opafence facts` shows of a session: counts and sources, never the values."""
        per_source: dict[int, int] = {}
        for i in self.untrusted.values():
            per_source[i] = per_source.get(i, 0) + 1
        return {
            "values": len(self.untrusted),
            "user_values": len(self.user),
            "lossy": self.lossy,
            "why": self.lossy_why,
            "sources": [{**s, "values": per_source.get(i, 0)} for i, s in enumerate(self.sources)],
        }
