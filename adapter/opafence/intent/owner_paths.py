"""Paths the owner names, made canonical exactly the way the facts builder makes call paths
canonical (opafence.facts.paths.normalize), so a grant's bound and a call's target compare.

On top of that, the owner's words are held to a stricter reading: `~user` (another user's
home) and variables other than $HOME have no single meaning in a request, so they bound
nothing."""

from __future__ import annotations

import os
import re

from opafence.facts.paths import normalize
from opafence.host import Host

_WILDCARD = re.compile(r"[*?\[\]{}]")
_HOME_DIR = re.compile(r"^/(?:home|Users)/[^/]+$|^/root$|^/var/root$")
_QUOTES = "`'\"\u201c\u201d\u2018\u2019"


def canonical(raw: str, host: Host) -> str | None:
    """The canonical absolute path of a path the owner wrote, or None when it has no single meaning."""
    s = raw.strip().strip(_QUOTES)
    if not s or "\x00" in s or len(s) > 4096:
        return None
    if s.startswith("~") and not (s == "~" or s.startswith("~/")):
        return None  # ~user: another user's home, which we cannot know
    if "$" in s.replace("${HOME}", "").replace("$HOME", ""):
        return None  # another variable: its value is not the owner's words
    found = normalize(s, host.cwd or "/", host.home)
    return found.path or None


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
