"""Pure word helpers: ANSI-C quoting, backslash removal, brace expansion, IFS splitting,
substrings, option clusters.
"""

from __future__ import annotations

import re

from opafence.facts.shell.model import LIT, MAX_BRACE, QUO, Piece

_ANSI_SIMPLE = {
    "a": "\a",
    "b": "\b",
    "e": "\x1b",
    "E": "\x1b",
    "f": "\f",
    "n": "\n",
    "r": "\r",
    "t": "\t",
    "v": "\v",
    "\\": "\\",
    "'": "'",
    '"': '"',
    "?": "?",
}


_HEX_ESCAPE = {e: re.compile(f"[0-9A-Fa-f]{{1,{w}}}") for e, w in (("x", 2), ("u", 4), ("U", 8))}


def decode_ansi_c(body: str) -> str | None:
    """Decode the inside of $'...' as bash does; None when an escape is malformed."""
    out: list[str] = []
    i = 0
    n = len(body)
    while i < n:
        c = body[i]
        if c != "\\" or i + 1 >= n:
            out.append(c)
            i += 1
            continue
        e = body[i + 1]
        if e in _ANSI_SIMPLE:
            out.append(_ANSI_SIMPLE[e])
            i += 2
        elif e in "01234567":
            m = re.match(r"[0-7]{1,3}", body[i + 1 :])
            assert m is not None
            out.append(chr(int(m.group(0), 8) & 0xFF))
            i += 1 + len(m.group(0))
        elif e in "xuU":
            m = _HEX_ESCAPE[e].match(body, i + 2)
            if not m:
                out.append("\\" + e)
                i += 2
                continue
            cp = int(m.group(0), 16)
            if cp > 0x10FFFF:
                return None
            out.append(chr(cp))
            i += 2 + len(m.group(0))
        elif e == "c" and i + 2 < n:
            out.append(chr(ord(body[i + 2]) & 0x1F))
            i += 3
        else:
            out.append("\\" + e)
            i += 2
    text = "".join(out)
    # bash stops a word at a NUL byte
    return text.split("\x00", 1)[0]


def unescape_unquoted(text: str, out: list[Piece]) -> None:
    if "\\" not in text:
        out.append((text, LIT))
        return
    buf: list[str] = []
    i = 0
    while i < len(text):
        c = text[i]
        if c == "\\" and i + 1 < len(text):
            if buf:
                out.append(("".join(buf), LIT))
                buf = []
            if text[i + 1] != "\n":
                out.append((text[i + 1], QUO))
            i += 2
            continue
        buf.append(c)
        i += 1
    if buf:
        out.append(("".join(buf), LIT))


def unescape_dquoted(text: str) -> str:
    if "\\" not in text:
        return text
    return re.sub(r"\\([$`\"\\\n])", lambda m: "" if m.group(1) == "\n" else m.group(1), text)


def brace_expand(chars: list[tuple[str, int]], budget: list[int]) -> list[list[tuple[str, int]]] | None:
    """Bash brace expansion over (char, kind) lists; only unquoted braces and commas count."""
    n = len(chars)
    for i in range(n):
        if chars[i] != ("{", LIT):
            continue
        depth = 0
        commas: list[int] = []
        close = -1
        for j in range(i + 1, n):
            ch = chars[j]
            if ch == ("{", LIT):
                depth += 1
            elif ch == ("}", LIT):
                if depth == 0:
                    close = j
                    break
                depth -= 1
            elif ch == (",", LIT) and depth == 0:
                commas.append(j)
        if close < 0:
            return [chars]
        prefix, suffix = chars[:i], chars[close + 1 :]
        alts: list[list[tuple[str, int]]] = []
        if commas:
            bounds = [i, *commas, close]
            alts = [chars[bounds[k] + 1 : bounds[k + 1]] for k in range(len(bounds) - 1)]
        else:
            inner = "".join(c for c, _ in chars[i + 1 : close])
            seq = _sequence(inner)
            if seq is None:
                rest = brace_expand(chars[i + 1 :], budget)
                if rest is None:
                    return None
                return [chars[: i + 1] + r for r in rest]
            alts = [[(c, QUO) for c in item] for item in seq]
        results: list[list[tuple[str, int]]] = []
        for alt in alts:
            expanded = brace_expand(prefix + alt + suffix, budget)
            if expanded is None:
                return None
            results.extend(expanded)
            budget[0] -= len(expanded)
            if budget[0] < 0:
                return None
        return results
    return [chars]


def _sequence(inner: str) -> list[str] | None:
    m = re.fullmatch(r"(-?\d+)\.\.(-?\d+)(?:\.\.(-?\d+))?", inner)
    if m:
        a, b = int(m.group(1)), int(m.group(2))
        step = abs(int(m.group(3) or 1)) or 1
        if abs(b - a) // step > MAX_BRACE:
            return None
        rng = range(a, b + 1, step) if a <= b else range(a, b - 1, -step)
        return [str(x) for x in rng]
    m = re.fullmatch(r"([A-Za-z])\.\.([A-Za-z])", inner)
    if m:
        a, b = ord(m.group(1)), ord(m.group(2))
        rng = range(a, b + 1) if a <= b else range(a, b - 1, -1)
        return [chr(x) for x in rng]
    return None


def unescape_literal(text: str) -> str:
    return re.sub(r"\\([\\\"'`$])", r"\1", text)


DEFAULT_IFS = re.compile(r"[ \t\n]+")


def ifs_splitter(ifs: str) -> re.Pattern[str] | None:
    """How bash splits expansion results on IFS: runs of IFS white space, or one other IFS
    character with the white space around it; None for an empty IFS (no splitting)."""
    if not ifs:
        return None
    white = "".join(c for c in " \t\n" if c in ifs)
    other = "".join(dict.fromkeys(c for c in ifs if c not in " \t\n"))
    w = f"[{re.escape(white)}]" if white else ""
    if not other:
        return re.compile(w + "+")
    o = f"[{re.escape(other)}]"
    return re.compile(f"{w}*{o}{w}*|{w}+" if white else o)


def substring(value: str, numbers: list[int]) -> str | None:
    """bash's ${x:offset[:length]}."""
    offset = numbers[0]
    if offset < 0:
        if -offset > len(value):
            return ""
        offset += len(value)
    if len(numbers) == 1:
        return value[offset:]
    end = offset + numbers[1] if numbers[1] >= 0 else len(value) + numbers[1]
    return value[offset:end] if end >= offset else None


def is_flag(text: str) -> bool:
    return len(text) > 1 and text.startswith("-")


def expand_flags(text: str) -> list[str]:
    """`-rf` -> [-rf, -r, -f]; `--force=yes` -> [--force=yes, --force]; `-n5` -> [-n5, -n]."""
    if text.startswith("--"):
        head = text.split("=", 1)[0]
        return [text, head] if head != text and len(head) > 2 else [text]
    out = [text]
    letters = []
    for c in text[1:]:
        if not c.isalpha():
            break
        letters.append(c)
    if len(text) > 2 or (letters and len(letters) < len(text) - 1):
        for c in letters:
            f = "-" + c
            if f not in out:
                out.append(f)
    return out


def basename(text: str) -> str:
    if text.endswith("/"):
        text = text.rstrip("/")
    return text.rpartition("/")[2] or text


def merge_pieces(chars: list[tuple[str, int]]) -> list[Piece]:
    out: list[Piece] = []
    for c, kind in chars:
        if out and out[-1][1] == kind:
            out[-1] = (out[-1][0] + c, kind)
        else:
            out.append((c, kind))
    return out
