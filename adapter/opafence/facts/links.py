"""Hard links: a path that is another name of a secret or protected file (docs/contract.md, `links`).

A hard link has no target to resolve: `ln ~/.ssh/id_rsa notes.txt` makes notes.txt the key
itself, and a write through it changes the key. So a regular file with more than one name is
compared by device and inode with the secret and protected places (the secrets guard's tables
and the catalogue, read from the Rego data, plus opafence's state directory and Hermes' own
files). The places are walked only when a call names such a file, bounded, and the result is
kept for that call alone (the filesystem changes between calls). The fact is neutral: "this
path is the same file as that one"; Rego decides what that other path is.

A terminal backend on another machine (ssh, docker) sees another filesystem: these stats
describe this machine only.
"""

from __future__ import annotations

import functools
import json
import os
import stat
from collections.abc import Iterable

import yaml

MAX_ENTRIES = 2048  # directory entries looked at per call when building the index
MAX_DEPTH = 4
# Hermes' own files that name credentials or configuration (self-protection and secrets).
_HERMES_FILES = ("config.yaml", ".env", "auth.json", "auth", ".anthropic_oauth.json", "mcp-tokens")


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
    hermes = tuple(data["hermes_secret_files"]) + _HERMES_FILES
    return tuple(dict.fromkeys(home)), tuple(dict.fromkeys(system)), tuple(dict.fromkeys(hermes))


def places(home: str, hermes_home: str, state_dir: str) -> list[str]:
    """Every secret or protected place, as absolute paths (may not exist)."""
    rel, system, hermes = _tables()
    out: list[str] = []
    if home.startswith("/") and home != "/":
        out.extend(os.path.join(home, r) for r in rel)
    out.extend(system)
    if hermes_home.startswith("/"):
        out.extend(os.path.join(hermes_home, r) for r in hermes)
    if state_dir.startswith("/"):
        out.append(state_dir)
    return out


def _index(roots: Iterable[str]) -> dict[tuple[int, int], str]:
    """(device, inode) -> path of every regular file at or below the roots, bounded."""
    found: dict[tuple[int, int], str] = {}
    budget = [MAX_ENTRIES]

    def visit(path: str, depth: int) -> None:
        if budget[0] <= 0:
            return
        budget[0] -= 1
        try:
            st = os.stat(path)
        except (OSError, ValueError):
            return
        if stat.S_ISREG(st.st_mode):
            found.setdefault((st.st_dev, st.st_ino), path)
        elif stat.S_ISDIR(st.st_mode) and depth < MAX_DEPTH:
            try:
                names = sorted(os.listdir(path))
            except OSError:
                return
            for name in names:
                visit(os.path.join(path, name), depth + 1)

    for root in roots:
        visit(root, 0)
    return found


def same_files(paths: Iterable[str], home: str, hermes_home: str, state_dir: str) -> list[dict[str, str]]:
    """{"path", "same_as"} for every path that is a hard link of a secret or protected file."""
    linked: list[tuple[str, tuple[int, int]]] = []
    for p in dict.fromkeys(paths):
        if not p.startswith("/"):
            continue
        try:
            st = os.stat(p)
        except (OSError, ValueError):
            continue
        if stat.S_ISREG(st.st_mode) and st.st_nlink > 1:
            linked.append((p, (st.st_dev, st.st_ino)))
    if not linked:
        return []
    index = _index(places(home, hermes_home, state_dir))
    return [{"path": p, "same_as": index[key]} for p, key in linked if key in index and index[key] != p]
