"""Where opafence keeps its state, and how it creates private directories."""

from __future__ import annotations

import contextlib
import fcntl
import os
import stat
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path

# Linux limits sun_path to 108 bytes (macOS 104); keep a margin for the file name.
MAX_SOCKET_PATH = 100


def hermes_home() -> Path:
    """Hermes' home: $HERMES_HOME, else ~/.hermes (what Hermes itself uses)."""
    env = os.environ.get("HERMES_HOME")
    return Path(env).expanduser() if env else Path.home() / ".hermes"


def state_dir() -> Path:
    """opafence's state directory: $HERMES_HOME/opafence."""
    return hermes_home() / "opafence"


def ensure_private_dir(path: Path) -> Path:
    """Create path (and parents) and make sure it is 0700 and owned by us."""
    path.mkdir(parents=True, exist_ok=True, mode=0o700)
    st = path.stat()
    if st.st_uid != os.getuid():
        raise PermissionError(f"{path} is owned by uid {st.st_uid}, not by this user")
    if stat.S_IMODE(st.st_mode) != 0o700:
        path.chmod(0o700)
    return path


def write_all(fd: int, data: bytes) -> None:
    """os.write may write less than asked (signals, pipes, full disks): loop until all is out."""
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def write_private_file(path: Path, data: str | bytes, durable: bool = True) -> None:
    """Write a file readable only by its owner, replacing it atomically.

    The temporary name is unique per process and thread (Hermes calls hooks from several
    threads), a failed write leaves no temporary file behind, and when durable the data and
    the rename are both fsync'd, so a crash leaves the old file or the new one, never a mix."""
    raw = data.encode() if isinstance(data, str) else data
    tmp = path.with_name(f".{path.name}.{os.getpid()}.{threading.get_ident()}.tmp")
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        try:
            write_all(fd, raw)
            if durable:
                os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise
    if durable:
        dfd = os.open(path.parent, os.O_RDONLY)
        try:
            os.fsync(dfd)
        finally:
            os.close(dfd)


@contextlib.contextmanager
def file_lock(lock_path: Path) -> Iterator[None]:
    """An exclusive lock shared by every process of this user (flock on a 0600 lock file)."""
    ensure_private_dir(lock_path.parent)
    fd = os.open(lock_path, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        fcntl.flock(fd, fcntl.LOCK_UN)
        os.close(fd)


def runtime_dir(state: Path) -> Path:
    """A private directory for the OPA socket, short enough for a unix socket path."""
    preferred = state / "run"
    if len(str(preferred / "opa.sock")) <= MAX_SOCKET_PATH:
        return ensure_private_dir(preferred)
    base = Path(os.environ.get("XDG_RUNTIME_DIR") or tempfile.gettempdir())
    short = Path(tempfile.mkdtemp(prefix="opafence-", dir=base))
    if len(str(short / "opa.sock")) > MAX_SOCKET_PATH:
        short.rmdir()
        short = Path(tempfile.mkdtemp(prefix="of-", dir="/tmp"))
    return ensure_private_dir(short)
