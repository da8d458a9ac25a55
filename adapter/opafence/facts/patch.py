"""Patches -> file operations (docs/contract.md, `paths` with via=patch).

V4A (Hermes' `patch` tool, mode=patch) is read as leniently as Hermes' own parser
(`tools.patch_parser.parse_v4a_patch`) and then some: every header anywhere in the text counts,
not only those between `*** Begin Patch` and `*** End Patch`, spacing and case are free, and
codex' `*** Move to:` is read as the destination of the update before it. The result is a
superset of the paths Hermes would touch (tests compare against Hermes' parser).

Unified diffs (`--- a/x` / `+++ b/y`, git headers, /dev/null for add and delete, renames) are
read when the text has no V4A header.
"""

from __future__ import annotations

import re

MAX_OPS = 512

_V4A = re.compile(r"^\s*\*\*\*\s*(?P<kind>update|add|delete)\s+file\s*:\s*(?P<path>.*?)\s*$", re.IGNORECASE)
_V4A_MOVE = re.compile(r"^\s*\*\*\*\s*move\s+file\s*:\s*(?P<src>.+?)\s*->\s*(?P<dst>.*?)\s*$", re.IGNORECASE)
_V4A_MOVE_TO = re.compile(r"^\s*\*\*\*\s*move\s+to\s*:\s*(?P<dst>.*?)\s*$", re.IGNORECASE)
_GIT = re.compile(r"^diff --git (?P<a>\"(?:[^\"\\]|\\.)*\"|\S+) (?P<b>\"(?:[^\"\\]|\\.)*\"|\S+)\s*$")

Op = tuple[str, str]  # (path as written, op)


def is_v4a(text: str) -> bool:
    return any(
        _V4A.match(line) or _V4A_MOVE.match(line) or _V4A_MOVE_TO.match(line) for line in text.split("\n")
    )


def parse_v4a(text: str) -> list[Op]:
    ops: list[Op] = []
    last_update = ""
    for line in text.split("\n"):
        m = _V4A.match(line)
        if m:
            kind = m.group("kind").lower()
            path = m.group("path").strip()
            ops.append((path, kind))
            last_update = path if kind == "update" else ""
            continue
        mv = _V4A_MOVE.match(line)
        if mv:
            ops.append((mv.group("src").strip(), "move_from"))
            ops.append((mv.group("dst").strip(), "move_to"))
            last_update = ""
            continue
        mt = _V4A_MOVE_TO.match(line)
        if mt:
            if last_update:
                ops.append((last_update, "move_from"))
            ops.append((mt.group("dst").strip(), "move_to"))
            continue
        if len(ops) >= MAX_OPS:
            break
    return ops


def _unquote_c(text: str) -> str:
    """git quotes unusual names as C strings: "a/sp\\303\\251cial name"."""
    if not (len(text) >= 2 and text.startswith('"') and text.endswith('"')):
        return text
    body = text[1:-1]
    out = bytearray()
    i = 0
    simple = {"n": 10, "t": 9, "r": 13, '"': 34, "\\": 92, "a": 7, "b": 8, "f": 12, "v": 11}
    while i < len(body):
        c = body[i]
        if c == "\\" and i + 1 < len(body):
            nxt = body[i + 1]
            if nxt in simple:
                out.append(simple[nxt])
                i += 2
                continue
            if re.match(r"[0-7]{3}", body[i + 1 : i + 4]):
                out.append(int(body[i + 1 : i + 4], 8) & 0xFF)
                i += 4
                continue
        out.extend(c.encode("utf-8"))
        i += 1
    return out.decode("utf-8", errors="replace")


def _header_path(rest: str) -> str:
    text = rest.rstrip("\r")
    if text.startswith('"'):
        end = re.match(r"\"(?:[^\"\\]|\\.)*\"", text)
        return _unquote_c(end.group(0)) if end else text.strip()
    # Timestamps follow a tab (diff -u); git never writes one.
    return text.split("\t", 1)[0].strip()


def _strip(path: str, level: int) -> str:
    if path == "/dev/null" or level <= 0:
        return path
    parts = [p for p in path.split("/") if p]
    return "/".join(parts[level:]) if len(parts) > level else parts[-1] if parts else path


def parse_unified(text: str, strip: int | None = None) -> list[Op]:
    """Unified / git diff headers. strip is patch(1)'s -p level; None means "git style when the
    headers look like git's (a/ and b/), else 0"."""
    lines = text.split("\n")
    ops: list[Op] = []
    pairs: list[tuple[str, str]] = []
    renames: list[tuple[str, str]] = []
    git_paths: list[tuple[str, str]] = []
    rename_from = ""
    for i, line in enumerate(lines):
        g = _GIT.match(line)
        if g:
            git_paths.append((_unquote_c(g.group("a")), _unquote_c(g.group("b"))))
            continue
        if line.startswith(("rename from ", "copy from ")):
            rename_from = _header_path(line.split(" ", 2)[2])
            continue
        if line.startswith(("rename to ", "copy to ")) and rename_from:
            kind = "rename" if line.startswith("rename") else "copy"
            renames.append((rename_from, _header_path(line.split(" ", 2)[2])))
            if kind == "copy":
                renames[-1] = ("", renames[-1][1])
            rename_from = ""
            continue
        if line.startswith("--- ") and i + 1 < len(lines) and lines[i + 1].startswith("+++ "):
            pairs.append((_header_path(line[4:]), _header_path(lines[i + 1][4:])))
    gitlike = bool(git_paths) or (
        bool(pairs)
        and all(
            (old == "/dev/null" or old.startswith("a/")) and (new == "/dev/null" or new.startswith("b/"))
            for old, new in pairs
        )
    )
    level = strip if strip is not None else (1 if gitlike else 0)
    for old, new in pairs:
        o, n = _strip(old, level), _strip(new, level)
        if o == "/dev/null" and n != "/dev/null":
            ops.append((n, "add"))
        elif n == "/dev/null" and o != "/dev/null":
            ops.append((o, "delete"))
        elif o == n:
            ops.append((n, "update"))
        else:
            # Plain diff -u of two trees: patch(1) picks one of them; both may be touched.
            ops.extend(((o, "update"), (n, "update")))
    for src, dst in renames:
        level_r = 0 if strip is None else max(level - 1, 0)
        if src:
            ops.append((_strip(src, level_r), "move_from"))
        ops.append((_strip(dst, level_r), "move_to" if src else "add"))
    if not pairs:
        # Binary or mode-only git patches have headers but no ---/+++ lines.
        renamed = {dst for _, dst in renames} | {src for src, _ in renames}
        for a, b in git_paths:
            if _strip(a, 1) in renamed and _strip(b, 1) in renamed:
                continue
            ops.append((_strip(b, level if strip is not None else 1), "update"))
            if a != b:
                ops.append((_strip(a, level if strip is not None else 1), "update"))
    return ops[:MAX_OPS]


def parse_patch(text: str, strip: int | None = None) -> list[Op]:
    """V4A when the text has any V4A header, else unified. Duplicates removed, order kept."""
    ops = parse_v4a(text) if is_v4a(text) else parse_unified(text, strip)
    seen: set[Op] = set()
    out: list[Op] = []
    for path, op in ops:
        if not path or (path, op) in seen:
            continue
        seen.add((path, op))
        out.append((path, op))
    return out
