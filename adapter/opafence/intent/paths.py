"""Paths the owner names, made canonical the way the facts builder makes call paths canonical.

Relative to the host's cwd, `~` and `$HOME` expanded with the host's home, `..` and `//`
collapsed, symlinks resolved. A small local canonicalizer: the facts issue writes
`opafence/facts/paths.py`; the lead unifies the two when both have landed."""

from __future__ import annotations

import os
import re

from opafence.host import Host

_WILDCARD = re.compile(r"[*?\[\]{}]")
_HOME_DIR = re.compile(r"^/(?:home|Users)/[^/]+$|^/root$|^/var/root$")


def canonical(raw: str, host: Host) -> str | None:
    """The canonical absolute path of a path the owner wrote, or None when it has no single meaning."""
    s = raw.strip().strip("`'\"“”\u2018\u2019")
    if not s or "\x00" in s or len(s) > 4096:
        return None
    home = host.home.rstrip("/") or "/"
    if s == "~" or s.startswith("~/"):
        s = home + s[1:]
    elif s.startswith("~"):
        return None  # ~user: another user's home, which we cannot know
    for var in ("${HOME}", "$HOME"):
        if s == var or s.startswith(var + "/"):
            s = home + s[len(var) :]
    if "$" in s:
        return None  # another variable: its value is not the owner's words
    if not os.path.isabs(s):
        s = os.path.join(host.cwd or "/", s)
    s = os.path.normpath(s)
    if s.startswith("//"):
        s = "/" + s.lstrip("/")
    try:
        return os.path.realpath(s)
    except (OSError, ValueError):
        return s


def refused(raw: str, path: str, host: Host) -> str:
    """Why this path cannot bound a grant ("" when it can): too wide to mean "the named thing"."""
    if _WILDCARD.search(raw):
        return "a wildcard is not a literal path"
    if path == "/":
        return "the root directory is not a path bound"
    home = os.path.realpath(host.home) if host.home else ""
    if home and (path == home or home.startswith(path.rstrip("/") + "/")):
        return "the home directory (or a parent of it) is not a path bound"
    if _HOME_DIR.match(path):
        return "a home directory is not a path bound"
    if path.count("/") == 1:
        return "a top-level directory is not a path bound"
    return ""
