"""A real PostgreSQL server for the shared-ledger tests and bench, private to one run.

initdb refuses to run as root, so as root the cluster belongs to the `postgres` user (Debian's
package makes it). The server listens only on a unix socket in its own directory (no TCP);
local connections are trusted, and the DSN is written to a 0600 file as a host would keep it."""

from __future__ import annotations

import glob
import os
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path


def _binary(name: str) -> str | None:
    found = shutil.which(name)
    if found:
        return found
    for candidate in sorted(glob.glob(f"/usr/lib/postgresql/*/bin/{name}"), reverse=True):
        return candidate
    return None


def available() -> str | None:
    """Why no server can be started here, or None when one can."""
    for name in ("initdb", "pg_ctl"):
        if _binary(name) is None:
            return f"no {name} (install Debian's postgresql package)"
    if os.geteuid() == 0:
        try:
            import pwd

            pwd.getpwnam("postgres")
        except KeyError:
            return "running as root and there is no postgres user to own the cluster"
    return None


@dataclass
class PgServer:
    root: Path
    socket_dir: Path
    dsn_file: Path

    def stop(self) -> None:
        subprocess.run(
            _as_owner([str(_binary("pg_ctl")), "-D", str(self.root / "data"), "-m", "immediate", "stop"]),
            capture_output=True,
            timeout=60,
            check=False,
        )
        shutil.rmtree(self.root, ignore_errors=True)


def _as_owner(argv: list[str]) -> list[str]:
    return ["runuser", "-u", "postgres", "--", *argv] if os.geteuid() == 0 else argv


def start(dsn_dir: Path) -> PgServer:
    root = Path(tempfile.mkdtemp(prefix="opafence-pg-"))
    if os.geteuid() == 0:
        shutil.chown(root, "postgres", "postgres")
    data, sock = root / "data", root / "sock"
    sock.mkdir()
    if os.geteuid() == 0:
        shutil.chown(sock, "postgres", "postgres")
    user = "postgres" if os.geteuid() == 0 else os.environ.get("USER", "postgres")
    subprocess.run(
        _as_owner([str(_binary("initdb")), "-D", str(data), "-A", "trust", "-U", user, "--no-sync"]),
        capture_output=True,
        timeout=120,
        check=True,
    )
    options = f"-k {sock} -c listen_addresses='' -c fsync=off -c max_connections=50"
    subprocess.run(
        _as_owner(
            [str(_binary("pg_ctl")), "-D", str(data), "-o", options, "-l", str(root / "log"), "-w", "start"]
        ),
        capture_output=True,
        timeout=120,
        check=True,
    )
    dsn_file = dsn_dir / "ledger.dsn"
    fd = os.open(dsn_file, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as f:
        f.write(f"postgresql://{user}@/postgres?host={sock}\n")
    return PgServer(root, sock, dsn_file)
