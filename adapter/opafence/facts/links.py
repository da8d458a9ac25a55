"""Other names of secret and protected files (docs/contract.md, `links`).

A hard link or a bind mount has no target to resolve: `ln ~/.ssh/id_rsa notes.txt` makes
notes.txt the key itself, and `mount --bind ~/.hermes /tmp/h` makes /tmp/h/config.yaml Hermes'
config. Both keep the file's device and inode (a bind mount does not even raise the link
count), so every path a call names is compared by (st_dev, st_ino) with the secret and
protected places: the secrets guard's tables and the catalogue (read from the Rego data),
Hermes' own files and directories, opafence's state directory, the code Hermes runs and the
configured protected, trust and credential files. The path's parents are compared too, up to
the bind mount point above it (a new file in a bind-mounted directory is a new file in the
original one): only a mount can give a directory a second name, so a path below no bind mount
point (`Mounts`: this process's /proc/self/mountinfo, re-read when the kernel reports a change)
costs one stat. The fact is neutral: "this path is that one"; Rego decides what that other
path is.

`Identities` holds the places' identities for many calls: built at the first call, rebuilt
when older than MAX_AGE, and at once (at most every REBUILD_GAP) when a call names a file
with several names that the index does not know, which is a file created or replaced since
the last build (the plugin also rebuilds it every MAX_AGE / 2 in a thread of its own, so a
decision rarely waits for a build). Why these: a secret created or replaced (a new inode)
after a build is known within MAX_AGE; a hard link raises the link count, which is what makes a
miss worth an early rebuild, while a bind mount needs root or a mount namespace. The stats of
one call are cached for that call alone (the filesystem changes between calls) and bounded
(MAX_STATS; past it the call is opaque).

A terminal backend on another machine (ssh, docker) sees another filesystem: these stats
describe this machine only.
"""

from __future__ import annotations

import functools
import json
import math
import os
import re
import select
import stat
import threading
import time
import weakref
from collections.abc import Callable, Iterable, Sequence

import yaml

MAX_ENTRIES = 4096  # directory entries looked at below the secret places per build
MAX_DEPTH = 4
# Directories looked at below the code directories per build, and how deep: a prefix's
# lib/pythonX.Y/site-packages is 3 down (deeper costs about 3x per level: 30 ms at 3 for a venv
# and its base Python's standard library; a bind of a single package below it is not seen, but
# `mount --bind` of a protected place is blocked by name).
MAX_CODE_DIRS = 2048
MAX_CODE_DEPTH = 3
MAX_STATS = 1024  # stats per call (the named paths and their parents)
MAX_AGE = 30.0  # seconds a build is trusted
REBUILD_GAP = 2.0  # least seconds between the rebuilds an unknown hard link asks for
# Hermes' own files that name credentials or configuration (self-protection and secrets), and
# the directories only its own tools change.
_HERMES_FILES = ("config.yaml", ".env", "auth.json", "auth", ".anthropic_oauth.json", "mcp-tokens")
_HERMES_DIRS = ("plugins", "hooks", "skills", "cron")
# Spellings that name the caller's process, not ours: stat here would describe opafence's own.
_PROCESS_RELATIVE = ("/dev/fd/", "/proc/self/", "/proc/thread-self/", "/dev/std")

Key = tuple[int, int]
MOUNTINFO = "/proc/self/mountinfo"
_OCTAL = re.compile(r"\\([0-7]{3})")


@functools.cache
def _tables() -> tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...]]:
    """(home-relative, absolute, Hermes-relative) secret places from the Rego data."""
    from opafence.rego_files import rego_root

    base = rego_root() / "opafence" / "guards" / "secrets"
    with open(base / "data.json", encoding="utf-8") as f:
        data = json.load(f)
    with open(base / "catalogue" / "data.yaml", encoding="utf-8") as f:
        catalogue = yaml.safe_load(f)
    home = (
        tuple(data["home_secret_dirs"])
        + tuple(n for n in data["secret_names"] if "/" not in n)
        + tuple(catalogue.get("home", {}))
    )
    system = tuple(data["system_secret_paths"]) + tuple(catalogue.get("system", {}))
    hermes = tuple(data["hermes_secret_files"]) + _HERMES_FILES + _HERMES_DIRS
    return tuple(dict.fromkeys(home)), tuple(dict.fromkeys(system)), tuple(dict.fromkeys(hermes))


def places(home: str, hermes_home: str, state_dir: str, extra: Iterable[str] = ()) -> list[str]:
    """Every secret or protected place, as absolute paths (may not exist)."""
    rel, system, hermes = _tables()
    out: list[str] = []
    if home.startswith("/") and home != "/":
        out.extend(os.path.join(home, r) for r in rel)
    out.extend(system)
    if hermes_home.startswith("/") and hermes_home != "/":
        out.append(hermes_home)
        out.extend(os.path.join(hermes_home, r) for r in hermes)
    if state_dir.startswith("/") and state_dir != "/":
        out.append(state_dir)
    out.extend(p for p in extra if p.startswith("/") and p != "/")
    return list(dict.fromkeys(out))


def _stat(path: str) -> os.stat_result | None:
    try:
        return os.stat(path)
    except (OSError, ValueError):
        return None


def _walk(roots: Sequence[str], index: dict[Key, str], budget: int, files: bool, depth: int) -> None:
    """Add every root that exists, then what is below them breadth first (files too when
    `files`), until `budget` entries were looked at. The first name of an inode wins."""
    level: list[str] = []
    for root in roots:
        st = _stat(root)
        if st is None:
            continue
        index.setdefault((st.st_dev, st.st_ino), root)
        if stat.S_ISDIR(st.st_mode):
            level.append(root)
    for _ in range(depth):
        below: list[str] = []
        for d in level:
            try:
                entries = list(os.scandir(d))
            except OSError:
                continue
            for e in entries:
                if budget <= 0:
                    return
                try:
                    is_dir = e.is_dir(follow_symlinks=False)
                    if not is_dir and not (files and e.is_file(follow_symlinks=False)):
                        continue
                    budget -= 1
                    st = e.stat(follow_symlinks=False)
                except OSError:
                    continue
                index.setdefault((st.st_dev, st.st_ino), e.path)
                if is_dir:
                    below.append(e.path)
        level = below
        if not level:
            return


def build_index(secret_places: Sequence[str], code_dirs: Sequence[str] = ()) -> dict[Key, str]:
    """(device, inode) -> name of every secret or protected place, bounded: files and
    directories below the secret places, directories below the code directories."""
    index: dict[Key, str] = {}
    _walk(secret_places, index, MAX_ENTRIES, files=True, depth=MAX_DEPTH)
    _walk(code_dirs, index, MAX_CODE_DIRS, files=False, depth=MAX_CODE_DEPTH)
    return index


def bind_points(mountinfo: str) -> tuple[str, ...]:
    """Mount points through which a path can reach a directory that has another name: a mount
    of a filesystem's subtree (root other than /) or of a filesystem mounted more than once
    (a bind mount of its root), from /proc/self/mountinfo's text. Deepest first."""
    rows: list[tuple[str, str, str]] = []
    for line in mountinfo.splitlines():
        fields = line.split(" ")
        if len(fields) > 4:
            rows.append((fields[2], _unescape(fields[3]), _unescape(fields[4])))
    devices: dict[str, int] = {}
    for dev, _, _ in rows:
        devices[dev] = devices.get(dev, 0) + 1
    points = {point for dev, root, point in rows if root != "/" or devices[dev] > 1}
    return tuple(sorted(points, key=len, reverse=True))


def _unescape(field: str) -> str:
    return _OCTAL.sub(lambda m: chr(int(m.group(1), 8)), field)


class Mounts:
    """This process's bind mount points (bind_points), re-read only when the kernel reports a
    change of the mount table (mountinfo is pollable: POLLPRI after a mount or unmount).
    `points()` is None when the table cannot be watched: then every path's parents are looked at."""

    def __init__(self, path: str = MOUNTINFO, watch: bool = True) -> None:
        self._lock = threading.Lock()
        self._points: tuple[str, ...] | None = None
        self._fd = -1
        self._poll: select.poll | None = None
        if not watch:
            return
        try:
            self._fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
            weakref.finalize(self, os.close, self._fd)
            poll = select.poll()
            poll.register(self._fd, select.POLLPRI | select.POLLERR)
            self._poll = poll
            self._points = bind_points(self._read())
        except (OSError, ValueError, UnicodeDecodeError):
            self._poll = None
            self._points = None

    def _read(self) -> str:
        chunks: list[bytes] = []
        os.lseek(self._fd, 0, os.SEEK_SET)
        while chunk := os.read(self._fd, 65536):
            chunks.append(chunk)
        return b"".join(chunks).decode("utf-8", "surrogateescape")

    def points(self) -> tuple[str, ...] | None:
        if self._poll is None:
            return None
        with self._lock:
            try:
                if self._poll.poll(0):
                    self._points = bind_points(self._read())
            except (OSError, ValueError):
                self._poll = None
                self._points = None
            return self._points


def floor(p: str, points: tuple[str, ...] | None) -> str:
    """How far up p's parents can be another name of a protected directory: to the deepest
    bind mount point above p (or / when the mounts are unknown); p itself when none is."""
    if points is None:
        return "/"
    for m in points:
        if m in ("/", p) or p.startswith(m + "/"):
            return m
    return p


class Identities:
    """The identities of the secret and protected places, kept across calls (one per host)."""

    def __init__(
        self,
        secret_places: Sequence[str],
        code_dirs: Sequence[str] = (),
        clock: Callable[[], float] = time.monotonic,
        mounts: Mounts | None = None,
    ) -> None:
        self.mounts = mounts if mounts is not None else Mounts()
        self.secret_places = tuple(dict.fromkeys(secret_places))
        self.code_dirs = tuple(dict.fromkeys(p for p in code_dirs if p.startswith("/") and p != "/"))
        self._clock = clock
        self._lock = threading.Lock()
        self._built = -math.inf
        self._state: tuple[dict[Key, str], frozenset[int]] = ({}, frozenset())
        self.builds = 0  # how many times the index was built (for tests and benchmarks)

    @classmethod
    def for_host(
        cls,
        home: str,
        hermes_home: str,
        state_dir: str,
        code_dirs: Sequence[str] = (),
        extra: Iterable[str] = (),
    ) -> Identities:
        return cls(places(home, hermes_home, state_dir, extra), code_dirs)

    def _rebuild(self, now: float) -> tuple[dict[Key, str], frozenset[int]]:
        with self._lock:
            if self._built >= now:  # another thread rebuilt meanwhile
                return self._state
            index = build_index(self.secret_places, self.code_dirs)
            self._state = (index, frozenset(dev for dev, _ in index))
            self._built = self._clock()
            self.builds += 1
            return self._state

    def refresh(self) -> None:
        """Rebuild now (the plugin does this off the decision path, every MAX_AGE / 2)."""
        self._rebuild(self._clock())

    def current(self, missed: bool = False) -> tuple[dict[Key, str], frozenset[int]]:
        """The index, rebuilt first when it is too old (or, after a miss, old enough)."""
        now = self._clock()
        age = now - self._built
        if age > MAX_AGE or (missed and age > REBUILD_GAP):
            return self._rebuild(now)
        return self._state

    def same_files(self, paths: Iterable[str]) -> tuple[list[dict[str, str]], bool]:
        """({"path", "same_as"} for every named path that is another name of a place, whether
        the per-call stat budget ran out)."""
        index, devices = self.current()
        if not index:
            return [], False
        named = [p for p in dict.fromkeys(paths) if _statable(p)]
        points = self.mounts.points() if named else ()
        probe = _Probe(points)
        found, missed = probe.match_all(named, index, devices)
        if missed and not probe.exhausted:
            fresh = self.current(missed=True)
            if fresh[0] is not index:
                found, _ = _Probe(points).match_all(named, *fresh)
        return found, probe.exhausted


def _statable(p: str) -> bool:
    return p.startswith("/") and p != "/" and not p.startswith(_PROCESS_RELATIVE)


class _Probe:
    """The stats of one call: cached, bounded."""

    def __init__(self, points: tuple[str, ...] | None = None) -> None:
        self.points = points
        self.cache: dict[str, os.stat_result | None] = {}
        self.left = MAX_STATS
        self.exhausted = False

    def stat(self, path: str) -> os.stat_result | None:
        if path in self.cache:
            return self.cache[path]
        if self.left <= 0:
            self.exhausted = True
            return None
        self.left -= 1
        st = self.cache[path] = _stat(path)
        return st

    def match_all(
        self, named: Sequence[str], index: dict[Key, str], devices: frozenset[int]
    ) -> tuple[list[dict[str, str]], bool]:
        found: list[dict[str, str]] = []
        missed = False
        for p in named:
            same, unknown_link = self.match(p, index, devices)
            missed = missed or unknown_link
            if same is not None:
                found.append({"path": p, "same_as": same})
        return found, missed

    def match(self, p: str, index: dict[Key, str], devices: frozenset[int]) -> tuple[str | None, bool]:
        """(the place p is another name of, or None; whether p is a file with several names
        the index does not know). p itself, then its parents up to the bind mount point above
        it (none: p alone) or a filesystem boundary."""
        a = p
        last = floor(p, self.points)
        dev: int | None = None
        while a and a != "/":
            st = self.stat(a)
            if st is not None:
                if dev is None:
                    dev = st.st_dev
                    if dev not in devices:
                        return None, False  # nothing protected lives on that filesystem
                elif st.st_dev != dev:
                    return None, False  # a mount boundary: above it is another filesystem
                known = index.get((st.st_dev, st.st_ino))
                if known is not None:
                    # The place by its own name is no other name; else the rest of p is below it.
                    return (None if known == a else known + p[len(a) :]), False
                if a == p and stat.S_ISREG(st.st_mode) and st.st_nlink > 1:
                    return None, True
            elif self.exhausted:
                return None, False
            if len(a) <= len(last):
                return None, False
            a = a.rpartition("/")[0]
        return None, False


def same_files(paths: Iterable[str], home: str, hermes_home: str, state_dir: str) -> list[dict[str, str]]:
    """Without a kept index (one-off facts): hard links only, indexed for this call when a named
    regular file has several names."""
    named = [p for p in dict.fromkeys(paths) if _statable(p)]
    several = False
    for p in named:
        st = _stat(p)
        if st is not None and stat.S_ISREG(st.st_mode) and st.st_nlink > 1:
            several = True
            break
    if not several:
        return []
    index = Identities(places(home, hermes_home, state_dir), mounts=Mounts(watch=False))
    found, _ = index.same_files(named)
    return found
