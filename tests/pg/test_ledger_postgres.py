"""The spend ledger shared through a real PostgreSQL server (issue 19: organization-wide caps).

Several processes reserve against one cap at once: never over it, every reservation counted
once; a process killed while it holds the row lock changes nothing; a process killed after
its reservation leaves an orphan that is settled at its estimate; an unreachable database
blocks model calls. Under CI=true a missing server fails the run instead of skipping."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from opafence.audit.trail import AuditLog
from opafence.budget.spend import CallInfo, SpendGuard
from opafence.budget.spend_ledger import Hold, LedgerUnavailable
from opafence.budget.spend_ledger_pg import PgLedger, UnavailableLedger, open_ledger, parse_dsn, read_dsn
from opafence.config import BudgetsConfig, ConfigError, LedgerConfig, load_config
from opafence.opa.bridge import Bridge
from tests.pg import pg_server

WORKER = Path(__file__).with_name("ledger_worker.py")
REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def pg(tmp_path_factory: pytest.TempPathFactory) -> Iterator[pg_server.PgServer]:
    why = pg_server.available()
    if why is not None:
        if os.environ.get("CI") == "true":
            pytest.fail(f"CI needs a PostgreSQL server for the shared-ledger tests: {why}")
        pytest.skip(why)
    server = pg_server.start(tmp_path_factory.mktemp("pg-dsn"))
    try:
        yield server
    finally:
        server.stop()


def _worker(pg: pg_server.PgServer, name: str, *argv: str) -> subprocess.Popen[str]:
    env = {**os.environ, "PYTHONPATH": f"{REPO / 'adapter'}{os.pathsep}{REPO}"}
    return subprocess.Popen(
        [sys.executable, str(WORKER), str(pg.dsn_file), name, *argv],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )


def _ledger(pg: pg_server.PgServer, name: str) -> PgLedger:
    return PgLedger(read_dsn(str(pg.dsn_file)), name)


def test_concurrent_processes_never_pass_the_cap(pg: pg_server.PgServer) -> None:
    name = f"cap-{uuid.uuid4().hex[:8]}"
    cap, amount, per_worker, workers = 1_000, 7, 40, 5
    procs = [_worker(pg, name, str(cap), str(amount), str(per_worker)) for _ in range(workers)]
    results = []
    for p in procs:
        out, err = p.communicate(timeout=300)
        assert p.returncode == 0, err
        results.append(json.loads(out.strip().splitlines()[-1]))
    allowed = sum(r["allowed"] for r in results)
    figures = _ledger(pg, name).snapshot()
    # 200 attempts of 7 against a cap of 1000: exactly 142 fit, and no more were let through.
    assert allowed == cap // amount
    assert figures.spent == allowed * amount <= cap
    assert figures.calls == allowed
    assert figures.reserved == 0


def test_a_process_killed_inside_the_transaction_changes_nothing(pg: pg_server.PgServer) -> None:
    name = f"kill-{uuid.uuid4().hex[:8]}"
    holder = _worker(pg, name, "100", "10", "1", "--hold-s", "60")
    assert holder.stdout is not None
    assert holder.stdout.readline().strip() == "holding"  # it holds the row lock now
    other = _worker(pg, name, "100", "10", "3")
    time.sleep(0.5)
    assert other.poll() is None  # waits for the row
    holder.send_signal(signal.SIGKILL)
    holder.wait(30)
    out, err = other.communicate(timeout=60)
    assert other.returncode == 0, err
    assert json.loads(out)["allowed"] == 3
    f = _ledger(pg, name).snapshot()
    assert (f.spent, f.calls, f.reserved) == (30, 3, 0)


def test_a_reservation_whose_process_died_is_settled_at_its_estimate(pg: pg_server.PgServer) -> None:
    name = f"orphan-{uuid.uuid4().hex[:8]}"
    p = _worker(pg, name, "100", "25", "1", "--no-settle")
    out, err = p.communicate(timeout=60)
    assert p.returncode == 0, err
    assert json.loads(out)["allowed"] == 1
    # The process is gone and ran on this host: its reservation may have been billed.
    f = _ledger(pg, name).snapshot()
    assert (f.spent, f.calls, f.reserved) == (25, 1, 0)


def test_another_hosts_reservation_is_not_taken_for_an_orphan(pg: pg_server.PgServer) -> None:
    name = f"hosts-{uuid.uuid4().hex[:8]}"
    elsewhere = PgLedger(read_dsn(str(pg.dsn_file)), name, host="other-host")
    _, rid, _ = elsewhere.reserve(lambda f: (True, Hold(40, "m", True)))
    assert rid is not None
    # Its pid means nothing here: the reservation stays open until it is settled (or ages out).
    here = _ledger(pg, name)
    f = here.snapshot()
    assert (f.spent, f.reserved) == (0, 40)
    elsewhere.settle(rid, 35)
    f = here.snapshot()
    assert (f.spent, f.calls, f.reserved) == (35, 1, 0)


def test_an_unreachable_database_blocks(tmp_path: Path) -> None:
    dsn = tmp_path / "dsn"
    dsn.write_text(f"postgresql://postgres@/postgres?host={tmp_path / 'nobody-here'}\n")
    ledger = PgLedger(read_dsn(str(dsn)), "x")
    with pytest.raises(LedgerUnavailable, match="cannot be reached"):
        ledger.reserve(lambda f: (True, Hold(1, "m", True)))
    with pytest.raises(LedgerUnavailable):
        ledger.snapshot()


def test_the_spend_guard_blocks_when_the_ledger_is_unreachable(tmp_path: Path, bridge: Bridge) -> None:
    dsn = tmp_path / "dsn"
    dsn.write_text(f"postgresql://postgres@/postgres?host={tmp_path / 'nobody-here'}\n")
    budgets = BudgetsConfig(daily_hard_cents=100, ledger=LedgerConfig(kind="postgres", dsn_file=str(dsn)))
    audit = AuditLog(tmp_path / "audit.jsonl")
    guard = SpendGuard(budgets, open_ledger(budgets, tmp_path), bridge, audit, lambda: None)
    request = {"model": "gpt-4o-mini", "messages": [{"role": "user", "content": "hi"}], "max_tokens": 10}
    plan = guard.decide(request, "gpt-4o-mini", CallInfo(session="s", task="t", platform="cli"))
    assert not plan.allowed
    assert "[LEDGER_UNAVAILABLE]" in plan.message
    assert "cannot be reached" in plan.message


def test_dsn_parsing_and_config() -> None:
    d = parse_dsn("postgresql://ann:s%40cret@db.internal:6543/ledger")
    assert (d.user, d.password, d.host, d.port, d.database) == (
        "ann",
        "s@cret",
        "db.internal",
        6543,
        "ledger",
    )
    assert "s@cret" not in d.describe()
    for bad, said in [
        ("mysql://a@h/db", "postgresql://"),
        ("postgresql://h/db", "no user"),
        ("postgresql://a@h/", "no database"),
    ]:
        with pytest.raises(ValueError, match=said):
            parse_dsn(bad)
    with pytest.raises(ValueError, match="dsn_file"):
        LedgerConfig(kind="postgres")
    # A DSN file that cannot be read is a ledger that says why, not a crash.
    ledger = open_ledger(
        BudgetsConfig(ledger=LedgerConfig(kind="postgres", dsn_file="/nonexistent/dsn")), Path("/tmp")
    )
    assert isinstance(ledger, UnavailableLedger)
    with pytest.raises(LedgerUnavailable, match="cannot read the ledger DSN"):
        ledger.snapshot()


def test_the_dsn_file_is_a_credential(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    cfg = tmp_path / "config.yaml"
    cfg.write_text(f"budgets:\n  ledger: {{kind: postgres, dsn_file: {tmp_path / 'pg.dsn'}}}\n")
    config = load_config(cfg)
    assert str(tmp_path / "pg.dsn") in config.credential_files()
    cfg.write_text("budgets:\n  ledger: {kind: postgres, dns_file: x}\n")
    with pytest.raises(ConfigError, match="dns_file"):
        load_config(cfg)
