"""Paths: raw text -> canonical absolute path (docs/contract.md, `paths`).

Two layers:
- `resolve(path, cwd)` takes a *literal* path (quotes already removed, `~` already expanded) and
  returns the canonical absolute path: joined to cwd, `..` and `//` collapsed, symlinks
  resolved. It is idempotent for every input.
- `normalize(raw, cwd, home)` takes a path as a tool argument carries it and removes shell-style
  quoting, expands `~`, `~user`, `$HOME` and `${HOME}` first. Hermes itself only expands `~`;
  the rest is normalized anyway so that `~/.s"s"h` or `$HOME/.ssh` cannot hide a protected
  path from the guards (the canonical path is the one a reader would assume).

Case is kept: Rego lower-cases where it compares case-insensitively.
"""

from __future__ import annotations

import os
import posixpath
import pwd
import re
from dataclasses import dataclass

MAX_PATH = 4096

_O_PATH = getattr(os, "O_PATH", 0)
_PROC_FD = "/proc/self/fd/"
_HAVE_PROC = bool(_O_PATH) and os.path.isdir(_PROC_FD)


_MAX_HOPS = 40  # symlinks followed before giving up (the kernel's own limit)
_PROCESS_RELATIVE = ("/dev/fd/", "/proc/self/", "/proc/thread-self/")
_PROCESS_RELATIVE_EXACT = frozenset({"/dev/fd", "/dev/stdin", "/dev/stdout", "/dev/stderr", "/proc/self"})
# /proc/<self|thread-self|pid>/root and .../cwd: another spelling of / and of the caller's cwd.
_PROC_ALIAS = re.compile(r"^/proc/(?:self|thread-self|[0-9]+)(?:/task/[0-9]+)?/(root|cwd)(/.*)?$")


def _kernel_resolve(path: str) -> str | None:
    """Resolve an existing path in one system call (Linux): open it O_PATH and read the link.

    os.path.realpath walks every component from Python (about 12 us for six components);
    this costs about 2 us and resolves symlinks exactly as the kernel does."""
    try:
        fd = os.open(path, _O_PATH | os.O_CLOEXEC)
    except (OSError, ValueError):
        return None
    try:
        target = os.readlink(_PROC_FD + str(fd))
    except OSError:
        return None
    finally:
        os.close(fd)
    # Anything but an absolute path (e.g. "anon_inode:[...]", " (deleted)") is not trusted.
    if not target.startswith("/") or target.endswith(" (deleted)"):
        return None
    return target


def _collapse_root(path: str) -> str:
    # POSIX keeps a leading "//" as implementation-defined; on Linux it is "/".
    while path.startswith("//"):
        path = path[1:]
    return path


def _realpath(path: str, cache: dict[str, str] | None, hops: int = 0) -> str:
    if not _HAVE_PROC or hops > _MAX_HOPS:
        return _collapse_root(os.path.realpath(path))
    if cache is not None:
        hit = cache.get(path)
        if hit is not None:
            return hit
    # Walk up until a prefix exists (or is cached), then append the missing tail lexically,
    # as os.path.realpath does for components that do not exist.
    tails: list[str] = []
    head = path
    resolved: str | None = None
    while True:
        resolved = cache.get(head) if cache is not None else None
        if resolved is None:
            resolved = _kernel_resolve(head)
            if resolved is None:
                try:
                    target = os.readlink(head)
                except (OSError, ValueError):
                    target = None
                if target is not None:
                    # A dangling symlink: what it points to is what a write would create.
                    base = head.rpartition("/")[0] or "/"
                    joined = target if target.startswith("/") else base.rstrip("/") + "/" + target
                    resolved = _realpath(joined, cache, hops + 1)
            if resolved is not None and cache is not None:
                cache[head] = resolved
        if resolved is not None:
            break
        head, _, tail = head.rpartition("/")
        if tail == "..":
            # A missing component followed by "..": realpath resolves it lexically; defer to it.
            return _collapse_root(os.path.realpath(path))
        if tail not in ("", "."):
            tails.append(tail)
        if not head:
            resolved = "/"
            break
    result = resolved
    for tail in reversed(tails):
        result = ("" if result == "/" else result) + "/" + tail
    if cache is not None:
        cache[path] = result
    return result


def resolve(path: str, cwd: str, cache: dict[str, str] | None = None) -> str:
    """Canonical absolute path of a literal path relative to cwd. Idempotent; never raises
    for str input without NUL (callers check `problem()` first). `cache` memoizes look-ups
    within one call's facts (never across calls: the filesystem changes)."""
    base = cwd if cwd.startswith("/") else "/" + cwd
    joined = path if path.startswith("/") else posixpath.join(base, path)
    if "/dev" in joined or "/proc" in joined:
        lexical = _collapse_root(posixpath.normpath(joined))
        alias = _PROC_ALIAS.match(lexical)
        if alias is not None:
            # /proc/self/root/X is X, /proc/self/cwd/X is X in the caller's directory (a process's
            # root or cwd: the same file for the guards, whichever process it is).
            rest = (alias.group(2) or "").lstrip("/")
            target = base if alias.group(1) == "cwd" else "/"
            return resolve(posixpath.join(target, rest) if rest else target, cwd, cache)
        if lexical.startswith(_PROCESS_RELATIVE) or lexical in _PROCESS_RELATIVE_EXACT:
            # /dev/fd/N, /dev/stdin, /proc/self/...: they name the *caller's* process, not
            # ours, so resolving them here would describe opafence's own file descriptors.
            return lexical
    return _collapse_root(_realpath(joined, cache))


def problem(path: str) -> str:
    """Why a literal path cannot be resolved ("" when it can)."""
    if "\x00" in path:
        return "path_nul"
    if len(path) > MAX_PATH:
        return "path_too_long"
    return ""


def user_home(user: str) -> str | None:
    """Home directory of a named user, or None when the system does not know the user."""
    if not user or len(user) > 64 or "/" in user or "\x00" in user:
        return None
    try:
        return pwd.getpwnam(user).pw_dir or None
    except (KeyError, OSError, ValueError):
        return None


def expand_tilde(text: str, home: str, cwd: str) -> tuple[str, str]:
    """Expand a leading `~`, `~/`, `~user`, `~+` of a literal word.

    Returns (expanded, problem): problem is a reason code when the tilde cannot be resolved."""
    if not text.startswith("~"):
        return text, ""
    slash = text.find("/")
    prefix = text[1:] if slash < 0 else text[1:slash]
    rest = "" if slash < 0 else text[slash:]
    if prefix == "":
        return (home or "/") + rest, "" if home else "path_no_home"
    if prefix == "+":
        return cwd + rest, ""
    if prefix == "-":
        return text, "path_oldpwd"
    found = user_home(prefix)
    if found is None:
        return text, "path_unknown_user"
    return found + rest, ""


@dataclass(frozen=True, slots=True)
class Normalized:
    raw: str
    path: str  # "" when it could not be canonicalized
    problem: str  # "" or a reason code


def _dequote(raw: str, home: str) -> tuple[str, bool]:
    """Remove shell-style quotes and expand $HOME / ${HOME} in a tool argument.

    Returns (text, tilde_expandable): the leading `~` only counts when it was not quoted.
    Unbalanced quotes are kept literally (the text then is what Hermes would use)."""
    if not any(c in raw for c in "'\"\\$"):
        return raw, True
    out: list[str] = []
    i = 0
    n = len(raw)
    quote = ""
    tilde_ok = not raw.startswith(("'", '"', "\\"))
    while i < n:
        c = raw[i]
        if quote == "'":
            if c == "'":
                quote = ""
            else:
                out.append(c)
            i += 1
            continue
        if c == "\\" and i + 1 < n and (quote == "" or raw[i + 1] in '"\\$`'):
            out.append(raw[i + 1])
            i += 2
            continue
        if c == "'" and quote == "" and "'" in raw[i + 1 :]:
            quote = "'"
            i += 1
            continue
        if c == '"' and (quote == '"' or '"' in raw[i + 1 :]):
            quote = "" if quote == '"' else '"'
            i += 1
            continue
        if c == "$" and home:
            if raw.startswith("${HOME}", i):
                out.append(home)
                i += 7
                continue
            if raw.startswith("$HOME", i) and not (i + 5 < n and (raw[i + 5].isalnum() or raw[i + 5] == "_")):
                out.append(home)
                i += 5
                continue
        out.append(c)
        i += 1
    return "".join(out), tilde_ok


def normalize(raw: str, cwd: str, home: str, cache: dict[str, str] | None = None) -> Normalized:
    """A path-valued tool argument -> canonical absolute path (never raises). Blanks are kept:
    Hermes does not strip them either, so " /etc/x" is a relative path."""
    text = raw
    if text.startswith("file://"):
        rest = text[7:]
        # file://localhost/etc/x and file:///etc/x both name /etc/x.
        rest = rest[len("localhost") :] if rest.startswith("localhost/") else rest
        text = rest if rest.startswith("/") else "/" + rest
    bad = problem(text)
    if bad:
        return Normalized(raw, "", bad)
    text, tilde_ok = _dequote(text, home)
    if tilde_ok and text.startswith("~"):
        text, bad = expand_tilde(text, home, cwd)
        if bad:
            return Normalized(raw, "", bad)
    if not text:
        return Normalized(raw, "", "path_empty")
    bad = problem(text)
    if bad:
        return Normalized(raw, "", bad)
    return Normalized(raw, resolve(text, cwd, cache), "")
