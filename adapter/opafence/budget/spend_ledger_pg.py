"""The spend ledger on PostgreSQL: one organization's caps, shared by many hosts.

The state is the file ledger's, kept in one row (`opafence_ledger`, keyed by the ledger's
name); every reserve and settle is one transaction that holds that row with `SELECT … FOR
UPDATE`, so processes on any host read, decide and write in turn and can never spend the
same remaining budget twice. A process that dies mid-transaction changes nothing: the server
rolls it back and releases the lock. The DSN comes from a 0600 file (a credential: the agent
may not read it); a database that cannot be reached raises LedgerUnavailable, and model calls
are blocked until it is back.

A reservation records its host: only its own host can tell whether the process behind it is
gone; other hosts' orphans are settled at their estimate once they are two hours old."""

from __future__ import annotations

import contextlib
import socket
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, unquote, urlsplit

from opafence.budget.spend_ledger import Ledger, LedgerError, LedgerUnavailable
from opafence.config import BudgetsConfig

CONNECT_TIMEOUT_S = 5.0
SCHEMA = (
    "CREATE TABLE IF NOT EXISTS opafence_ledger ("
    "name text PRIMARY KEY, state text, updated_at timestamptz NOT NULL DEFAULT now())"
)


@dataclass(frozen=True)
class Dsn:
    user: str
    password: str | None
    host: str | None  # a TCP host, or None for a unix socket
    port: int
    database: str
    socket_dir: str | None

    def describe(self) -> str:
        where = f"{self.socket_dir} (socket)" if self.socket_dir else f"{self.host}:{self.port}"
        return f"postgresql {where}/{self.database}"


def parse_dsn(text: str) -> Dsn:
    """`postgresql://user[:password]@host[:port]/db`, or `…@/db?host=/socket/dir` for a unix
    socket; ValueError in plain words otherwise (never echoing the password)."""
    url = urlsplit(text.strip())
    if url.scheme not in ("postgresql", "postgres"):
        raise ValueError("the DSN must be a postgresql:// URL")
    query = parse_qs(url.query)
    socket_dir = query.get("host", [None])[0]
    if not url.username:
        raise ValueError("the DSN names no user")
    database = unquote(url.path.lstrip("/"))
    if not database:
        raise ValueError("the DSN names no database")
    if socket_dir is None and not url.hostname:
        raise ValueError("the DSN names no host (or ?host=/socket/dir)")
    return Dsn(
        user=unquote(url.username),
        password=unquote(url.password) if url.password is not None else None,
        host=url.hostname,
        port=url.port or 5432,
        database=database,
        socket_dir=socket_dir,
    )


def read_dsn(dsn_file: str) -> Dsn:
    path = Path(dsn_file).expanduser()
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as e:
        raise LedgerUnavailable(f"cannot read the ledger DSN file {path}: {e.strerror}") from None
    try:
        return parse_dsn(text)
    except ValueError as e:
        raise LedgerUnavailable(f"the ledger DSN in {path} is malformed: {e}") from None


class PgLedger(Ledger):
    """The ledger's bookkeeping over one PostgreSQL row (thread-safe: a connection per call)."""

    def __init__(self, dsn: Dsn, name: str = "default", host: str = "") -> None:
        self.dsn = dsn
        self.name = name
        self.host = host or socket.gethostname()
        self._txn = threading.local()
        self._schema_ready = False

    def describe(self) -> str:
        return f"'{self.name}' on {self.dsn.describe()}"

    def _connect(self) -> Any:
        import pg8000.native

        d = self.dsn
        try:
            if d.socket_dir:
                return pg8000.native.Connection(
                    d.user,
                    password=d.password,
                    database=d.database,
                    unix_sock=f"{d.socket_dir}/.s.PGSQL.{d.port}",
                    timeout=CONNECT_TIMEOUT_S,
                )
            return pg8000.native.Connection(
                d.user,
                password=d.password,
                database=d.database,
                host=d.host,
                port=d.port,
                timeout=CONNECT_TIMEOUT_S,
            )
        except Exception as e:
            raise self.unavailable(e) from None

    def unavailable(self, e: BaseException) -> LedgerUnavailable:
        detail = getattr(e, "args", [None])[0]
        what = detail.get("M", "") if isinstance(detail, dict) else str(e) or type(e).__name__
        return LedgerUnavailable(
            f"the shared spend ledger {self.describe()} cannot be reached ({what}), so model calls "
            "are blocked until it is back."
        )

    def _ensure_schema(self, con: Any) -> None:
        if self._schema_ready:
            return
        try:
            con.run(SCHEMA)
        except Exception:
            # Two hosts creating the table at once: one wins, the other's statement fails.
            if not con.run("SELECT to_regclass('opafence_ledger') IS NOT NULL")[0][0]:
                raise
        self._schema_ready = True

    @contextlib.contextmanager
    def _locked(self) -> Iterator[None]:
        con = self._connect()
        try:
            try:
                self._ensure_schema(con)
                con.run("START TRANSACTION")
                con.run("INSERT INTO opafence_ledger (name) VALUES (:n) ON CONFLICT DO NOTHING", n=self.name)
                rows = con.run("SELECT state FROM opafence_ledger WHERE name = :n FOR UPDATE", n=self.name)
            except Exception as e:
                raise self.unavailable(e) from None
            self._txn.con = con
            self._txn.state = rows[0][0] if rows else None
            try:
                yield
            except BaseException:
                with contextlib.suppress(Exception):
                    con.run("ROLLBACK")
                raise
            try:
                con.run("COMMIT")
            except Exception as e:
                raise self.unavailable(e) from None
        finally:
            self._txn.con = None
            with contextlib.suppress(Exception):
                con.close()

    def _read(self) -> bytes | None:
        state = getattr(self._txn, "state", None)
        return state.encode() if isinstance(state, str) else None

    def _write(self, data: bytes) -> None:
        con = getattr(self._txn, "con", None)
        if con is None:
            raise LedgerError("the shared ledger was written outside its transaction")
        try:
            con.run(
                "UPDATE opafence_ledger SET state = :s, updated_at = now() WHERE name = :n",
                s=data.decode(),
                n=self.name,
            )
        except Exception as e:
            raise self.unavailable(e) from None
        self._txn.state = data.decode()

    def _keep_damaged(self) -> Path | str | None:
        if self._read() is None:
            return None
        con = self._txn.con
        kept = f"{self.name}.damaged-{int(time.time())}"
        try:
            con.run(
                "INSERT INTO opafence_ledger (name, state) VALUES (:k, :s)",
                k=kept,
                s=self._txn.state,
            )
        except Exception as e:
            raise self.unavailable(e) from None
        return f"row '{kept}' of opafence_ledger"


def open_ledger(budgets: BudgetsConfig, budget_dir: Path, host: str | None = None) -> Ledger:
    """The ledger the configuration names: the home's file (default) or a shared PostgreSQL
    row. A DSN that cannot be read still gives a ledger, whose every operation raises
    LedgerUnavailable, so model calls block with the reason instead of opafence failing."""
    cfg = budgets.ledger
    if cfg.kind == "file":
        return Ledger(budget_dir / "ledger.json")
    assert cfg.dsn_file is not None  # the config model requires it for postgres
    try:
        dsn = read_dsn(cfg.dsn_file)
    except LedgerUnavailable as e:
        return UnavailableLedger(str(e))
    return PgLedger(dsn, cfg.name, host or "")


class UnavailableLedger(Ledger):
    """A configured shared ledger that cannot be used: every operation says why."""

    def __init__(self, why: str) -> None:
        self.why = why

    def describe(self) -> str:
        return "(unavailable)"

    def _locked(self) -> contextlib.AbstractContextManager[None]:
        raise LedgerUnavailable(self.why)
