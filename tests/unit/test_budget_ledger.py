"""The spend ledger: reservations, settlement, the local day, restarts, damage, orphans."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import pytest

from opafence.budget import spend_ledger as ledger_mod
from opafence.budget.spend_ledger import Figures, Hold, Ledger, LedgerError, today


def hold(amount: int) -> object:
    def decide(figures: Figures) -> tuple[Figures, Hold | None]:
        return figures, Hold(amount, "m", True)

    return decide


def take(ledger: Ledger, amount: int) -> str:
    _, rid, _ = ledger.reserve(hold(amount))  # type: ignore[arg-type]
    assert rid is not None
    return rid


@pytest.fixture
def ledger(tmp_path: Path) -> Ledger:
    return Ledger(tmp_path / "budget" / "ledger.json")


def test_reserve_settle_release(ledger: Ledger) -> None:
    a = take(ledger, 500)
    b = take(ledger, 300)
    f = ledger.snapshot()
    assert (f.spent, f.reserved, f.minute, f.in_flight) == (0, 800, 800, 2)
    ledger.settle(a, 120)  # the real cost replaces the reservation
    ledger.release(b)  # a failed call gives it back
    f = ledger.snapshot()
    assert (f.spent, f.reserved, f.minute, f.calls, f.in_flight) == (120, 0, 120, 1, 0)
    ledger.settle(a, 999)  # settling twice does not count twice
    assert ledger.snapshot().spent == 120
    assert oct(ledger.path.stat().st_mode & 0o777) == "0o600"


def test_a_blocked_decision_reserves_nothing(ledger: Ledger) -> None:
    verdict, rid, _ = ledger.reserve(lambda f: ("block", None))
    assert verdict == "block" and rid is None
    assert ledger.snapshot().in_flight == 0


def test_unpriced_calls_are_counted_apart_not_as_free(ledger: Ledger) -> None:
    rid = take(ledger, 0)
    ledger.settle(rid, None)
    f = ledger.snapshot()
    assert (f.spent, f.calls, f.unpriced_calls) == (0, 1, 1)


def test_a_restart_or_another_process_does_not_reset_the_day(ledger: Ledger) -> None:
    ledger.settle(take(ledger, 700), 700)
    assert Ledger(ledger.path).snapshot().spent == 700  # a new process' ledger object
    code = (
        "import sys; from pathlib import Path; from opafence.budget.spend_ledger import Ledger;"
        "print(Ledger(Path(sys.argv[1])).snapshot().spent)"
    )
    out = subprocess.run(
        [sys.executable, "-c", code, str(ledger.path)], capture_output=True, text=True, check=True
    )
    assert out.stdout.strip() == "700"


def test_the_day_rolls_over_by_local_date_and_never_back(
    ledger: Ledger, monkeypatch: pytest.MonkeyPatch
) -> None:
    now = time.time()
    ledger.settle(take(ledger, 900), 900)
    monkeypatch.setattr(ledger_mod.time, "time", lambda: now + 86400)
    f = ledger.snapshot()
    assert f.day == today(now + 86400) and f.spent == 0
    ledger.settle(take(ledger, 50), 50)
    assert ledger.history()[today(now)].spent == 900
    monkeypatch.setattr(ledger_mod.time, "time", lambda: now)  # the clock goes back: no new day
    f = ledger.snapshot()
    assert f.day == today(now + 86400) and f.spent == 50


def test_the_minute_window_forgets_old_charges(ledger: Ledger, monkeypatch: pytest.MonkeyPatch) -> None:
    now = time.time()
    ledger.settle(take(ledger, 400), 400)
    monkeypatch.setattr(ledger_mod.time, "time", lambda: now + 61)
    f = ledger.snapshot()
    assert (f.spent, f.minute) == (400, 0)


def test_orphaned_reservations_are_settled_at_their_estimate(ledger: Ledger) -> None:
    take(ledger, 250)
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    data = json.loads(ledger.path.read_text())
    data.pop("checksum")
    for res in data["reservations"].values():
        res["pid"] = dead.pid
    data["checksum"] = ledger_mod._checksum(data)
    ledger.path.write_text(json.dumps(data))
    # The dead process' call may have been billed: it counts at its estimate, once.
    for _ in range(2):
        f = ledger.snapshot()
        assert (f.reserved, f.spent, f.calls) == (0, 250, 1)
    ledger.release(take(ledger, 1))
    f = Ledger(ledger.path).snapshot()
    assert (f.reserved, f.spent, f.calls) == (0, 250, 1)


def test_stale_reservations_expire(ledger: Ledger, monkeypatch: pytest.MonkeyPatch) -> None:
    now = time.time()
    take(ledger, 80)
    monkeypatch.setattr(ledger_mod.time, "time", lambda: now + ledger_mod.RESERVATION_TTL_S + 1)
    ledger.release(take(ledger, 1))
    f = ledger.snapshot()
    assert (f.spent, f.reserved) == (80, 0)


def _tamper(path: Path, **changes: object) -> None:
    data = json.loads(path.read_text())
    data.update(changes)
    path.write_text(json.dumps(data))


@pytest.mark.parametrize(
    ("damage", "why"),
    [
        (lambda p: p.write_text("{not json"), "damaged"),
        (lambda p: p.write_bytes(b"\x00" * 10), "damaged"),
        (lambda p: p.write_text("[]"), "not an object"),
        (lambda p: _tamper(p, spent=1), "checksum mismatch"),  # an edit without the checksum
        (lambda p: p.write_text(""), "damaged"),
    ],
)
def test_a_damaged_ledger_blocks_spending_and_says_how_to_recover(
    ledger: Ledger, damage: object, why: str
) -> None:
    ledger.settle(take(ledger, 10), 10)
    damage(ledger.path)  # type: ignore[operator]
    called = []
    with pytest.raises(LedgerError, match=why) as err:
        ledger.reserve(lambda f: called.append(f) or ("allow", Hold(1, "m", True)))  # type: ignore[func-returns-value]
    assert called == []  # nothing was decided on damaged figures
    assert "opafence audit rebuild-ledger" in str(err.value)
    with pytest.raises(LedgerError):
        ledger.snapshot()


def test_a_well_formed_but_invalid_ledger_is_damaged(ledger: Ledger) -> None:
    ledger.settle(take(ledger, 10), 10)
    data = json.loads(ledger.path.read_text())
    data.pop("checksum")
    data["spent"] = -5
    data["checksum"] = ledger_mod._checksum(data)
    ledger.path.write_text(json.dumps(data))
    with pytest.raises(LedgerError, match="spent"):
        ledger.snapshot()


def test_rebuild_keeps_the_damaged_file(ledger: Ledger) -> None:
    ledger.settle(take(ledger, 10), 10)
    ledger.path.write_text("garbage")
    kept = ledger.rebuild(spent=1234, calls=3, unpriced_calls=1)
    assert kept is not None and kept.read_text() == "garbage"
    f = ledger.snapshot()
    assert (f.spent, f.calls, f.unpriced_calls) == (1234, 3, 1)
