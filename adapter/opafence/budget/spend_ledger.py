"""The spend ledger: one file per HERMES_HOME, shared by every Hermes process of that home.

`<state dir>/budget/ledger.json` (0600) holds the local day's settled spend, the open
reservations of calls in flight, the last minute's charges and a month of daily totals, in
integer micro-cents (1 cent = 1,000,000). Every read-decide-write happens under an exclusive
`flock` on `ledger.lock`, so the CLI, a gateway and cron workers cannot spend the same
remaining budget: a call's decision and its reservation are one step. Writes are crash-safe
(temporary file, fsync, rename, fsync of the directory) and carry a checksum; a ledger that
does not parse or whose checksum fails is *damaged*, and model calls are blocked until a
person rebuilds it (`opafence audit rebuild-ledger`, from the signed audit trail).

The day is the local date; it rolls over on the first operation of a new day, never back.
A restart or a new worker reads the same file, so it does not reset the day. A reservation
whose process is gone, or older than two hours, is settled at its estimate: the call may have
been billed before its process died."""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from opafence.errors import OpafenceError
from opafence.state_files import file_lock, write_private_file

MINUTE_S = 60.0
RESERVATION_TTL_S = 2 * 3600.0
HISTORY_DAYS = 31
VERSION = 1

T = TypeVar("T")


class LedgerError(OpafenceError):
    """The ledger cannot be trusted; spending stops until a person repairs it."""


class LedgerUnavailable(LedgerError):
    """A shared ledger cannot be reached: spending stops until it is back."""


def today(now: float | None = None) -> str:
    return time.strftime("%Y-%m-%d", time.localtime(time.time() if now is None else now))


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Reservation(_Model):
    amount: int = Field(ge=0)
    at: float
    pid: int
    # The machine the call runs on ("" for a file ledger: this one). A shared ledger can only
    # check the processes of its own machine; others' orphans are settled by age.
    host: str = ""
    model: str = ""
    priced: bool = True


class DayTotal(_Model):
    spent: int = Field(default=0, ge=0)
    calls: int = Field(default=0, ge=0)
    unpriced_calls: int = Field(default=0, ge=0)


class LedgerState(_Model):
    version: int = VERSION
    day: str
    spent: int = Field(default=0, ge=0)
    calls: int = Field(default=0, ge=0)
    unpriced_calls: int = Field(default=0, ge=0)
    recent: list[tuple[float, int]] = Field(default_factory=list)  # (settled at, amount)
    reservations: dict[str, Reservation] = Field(default_factory=dict)
    days: dict[str, DayTotal] = Field(default_factory=dict)


@dataclass(frozen=True)
class Figures:
    """What a spend decision needs, read under the lock (the spend query's `ledger`)."""

    day: str
    spent: int
    reserved: int
    minute: int
    calls: int
    unpriced_calls: int
    in_flight: int

    def to_input(self) -> dict[str, Any]:
        return {
            "day": self.day,
            "spent": self.spent,
            "reserved": self.reserved,
            "minute": self.minute,
            "unpriced_calls": self.unpriced_calls,
        }


@dataclass(frozen=True)
class Hold:
    """What a decision asks the ledger to reserve (None: reserve nothing, the call is blocked)."""

    amount: int
    model: str
    priced: bool


def _checksum(body: dict[str, Any]) -> str:
    return hashlib.sha256(json.dumps(body, sort_keys=True, separators=(",", ":")).encode()).hexdigest()


def _alive(pid: int) -> bool:
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


class Ledger:
    """The bookkeeping, over a store that gives one exclusive read-decide-write at a time.

    This class is the file store (`<state dir>/budget/ledger.json` under an flock);
    `budget/spend_ledger_pg.py` keeps the same state in one PostgreSQL row under a row lock, so
    many hosts share the caps."""

    host = ""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.lock_path = path.with_name(path.name + ".lock")

    def describe(self) -> str:
        return str(self.path)

    def _locked(self) -> contextlib.AbstractContextManager[None]:
        """Hold the store exclusively; _load and _save run inside it."""
        return file_lock(self.lock_path)

    def damaged(self, why: str) -> LedgerError:
        return LedgerError(
            f"the spend ledger {self.describe()} is damaged ({why}), so model calls are blocked. "
            "To recover, run `opafence audit rebuild-ledger`: it keeps the damaged copy beside the "
            "ledger and rebuilds today's spend from the signed audit trail."
        )

    # --- storage -----------------------------------------------------------------------------

    def _read(self) -> bytes | None:
        try:
            return self.path.read_bytes()
        except FileNotFoundError:
            return None
        except OSError as e:
            raise self.damaged(f"cannot read it: {e.strerror}") from None

    def _write(self, data: bytes) -> None:
        write_private_file(self.path, data, durable=True)

    def _keep_damaged(self) -> Path | str | None:
        """Move the current copy aside (rebuild); where it went, or None when there was none."""
        if not self.path.exists():
            return None
        kept = self.path.with_name(f"{self.path.name}.damaged-{int(time.time())}")
        os.replace(self.path, kept)
        return kept

    def _load(self, now: float) -> LedgerState:
        raw = self._read()
        if raw is None:
            return LedgerState(day=today(now))
        try:
            data = json.loads(raw)
            if not isinstance(data, dict):
                raise ValueError("not an object")
            stored = data.pop("checksum", None)
            if stored != _checksum(data):
                raise ValueError("checksum mismatch")
            state = LedgerState.model_validate(data)
        except ValidationError as e:
            first = e.errors()[0]
            where = ".".join(str(p) for p in first["loc"]) or "the top level"
            raise self.damaged(f"{where}: {first['msg']}") from None
        except ValueError as e:
            raise self.damaged(str(e) or type(e).__name__) from None
        if state.version != VERSION:
            raise self.damaged(f"unknown version {state.version}")
        return state

    def _save(self, state: LedgerState) -> None:
        body = state.model_dump(mode="json")
        body["checksum"] = _checksum(body)
        self._write(json.dumps(body, sort_keys=True, separators=(",", ":")).encode())

    # --- bookkeeping --------------------------------------------------------------------------

    @staticmethod
    def _charge(state: LedgerState, amount: int | None, now: float) -> None:
        state.calls += 1
        if amount is None:
            state.unpriced_calls += 1
            return
        state.spent += amount
        state.recent.append((now, amount))

    def _maintain(self, state: LedgerState, now: float) -> bool:
        """Roll the day forward, forget old charges, settle orphaned reservations. Changed?"""
        changed = False
        day = today(now)
        if day > state.day:
            state.days[state.day] = DayTotal(
                spent=state.spent, calls=state.calls, unpriced_calls=state.unpriced_calls
            )
            for old in sorted(state.days)[:-HISTORY_DAYS]:
                del state.days[old]
            state.day, state.spent, state.calls, state.unpriced_calls = day, 0, 0, 0
            changed = True
        kept = [(t, a) for t, a in state.recent if now - t < MINUTE_S]
        if len(kept) != len(state.recent):
            state.recent = kept
            changed = True
        for rid, res in list(state.reservations.items()):
            gone = res.host == self.host and not _alive(res.pid)
            if now - res.at > RESERVATION_TTL_S or gone:
                # The call's process is gone: it may have been billed, so count its estimate.
                del state.reservations[rid]
                self._charge(state, res.amount if res.priced else None, now)
                changed = True
        return changed

    @staticmethod
    def figures_of(state: LedgerState, now: float) -> Figures:
        reserved = sum(r.amount for r in state.reservations.values())
        minute = sum(a for t, a in state.recent if now - t < MINUTE_S) + reserved
        return Figures(
            day=state.day,
            spent=state.spent,
            reserved=reserved,
            minute=minute,
            calls=state.calls,
            unpriced_calls=state.unpriced_calls,
            in_flight=len(state.reservations),
        )

    # --- the operations ------------------------------------------------------------------------

    def reserve(self, decide: Callable[[Figures], tuple[T, Hold | None]]) -> tuple[T, str | None, Figures]:
        """Under the lock: read the figures, let `decide` judge them, and hold what it asks.

        Returns decide's verdict, the reservation id (None when nothing was held) and the
        figures the decision saw."""
        with self._locked():
            now = time.time()
            state = self._load(now)
            changed = self._maintain(state, now)
            figures = self.figures_of(state, now)
            verdict, hold = decide(figures)
            rid = None
            if hold is not None:
                rid = uuid.uuid4().hex
                state.reservations[rid] = Reservation(
                    amount=max(0, hold.amount),
                    at=now,
                    pid=os.getpid(),
                    host=self.host,
                    model=hold.model,
                    priced=hold.priced,
                )
                changed = True
            if changed:
                self._save(state)
            return verdict, rid, figures

    def settle(self, rid: str, amount: int | None) -> None:
        """The call ran: its real cost (None: unpriced) replaces its reservation."""
        with self._locked():
            now = time.time()
            state = self._load(now)
            self._maintain(state, now)
            if state.reservations.pop(rid, None) is None:
                # Already settled at its estimate as an orphan: do not count the call twice.
                self._save(state)
                return
            self._charge(state, amount, now)
            self._save(state)

    def release(self, rid: str) -> None:
        """The call failed: give its reservation back."""
        with self._locked():
            now = time.time()
            state = self._load(now)
            self._maintain(state, now)
            state.reservations.pop(rid, None)
            self._save(state)

    def snapshot(self) -> Figures:
        """The current figures (read-only; a damaged ledger raises LedgerError)."""
        with self._locked():
            now = time.time()
            state = self._load(now)
            self._maintain(state, now)
            return self.figures_of(state, now)

    def history(self) -> dict[str, DayTotal]:
        with self._locked():
            return dict(self._load(time.time()).days)

    def rebuild(
        self, spent: int, calls: int, unpriced_calls: int, day: str | None = None
    ) -> Path | str | None:
        """Replace a damaged (or missing) ledger with today's figures from another record.
        The old copy is kept beside it; returns its new name."""
        with self._locked():
            kept = self._keep_damaged()
            state = LedgerState(
                day=day or today(),
                spent=max(0, spent),
                calls=max(0, calls),
                unpriced_calls=max(0, unpriced_calls),
            )
            self._save(state)
            return kept
