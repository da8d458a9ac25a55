"""Addresses written to slip past a scanner: `ops [at] evil [dot] example`, `ops(at)evil(dot)example`,
`ops at evil dot example` and the two mixed, written plainly again. Only a window around each
hint (a bracketed or spelled "at"/"dot") is read, so ordinary text costs a few fast passes."""

from __future__ import annotations

import re

# "ops [at] evil [dot] example", "ops(at)evil(dot)example", "ops [@] evil [.] example",
# "ops at evil dot example" (any whitespace around the words: tabs too), and the two mixed:
# "ops (at) evil dot example", "ops at evil [dot] example".
_OBF_AT = re.compile(r"(?i)\s{0,3}[\[\(\{<]\s{0,3}(?:at|@)\s{0,3}[\]\)\}>]\s{0,3}")
_OBF_DOT = re.compile(r"(?i)\s{0,3}[\[\(\{<]\s{0,3}(?:dot|\.)\s{0,3}[\]\)\}>]\s{0,3}")
_SPELLED = re.compile(
    r"(?i)\b([a-z0-9._%+-]{1,64})\s{1,3}at\s{1,3}([a-z0-9-]{1,63}(?:\s{1,3}dot\s{1,3}[a-z0-9-]{1,63}){1,4})\b"
)
_SPELLED_DOT = re.compile(r"(?i)\s{1,3}dot\s{1,3}")
# Over a window whose bracketed forms are written plainly already: an `@` or spelled "at",
# then labels joined by dots or spelled "dot"s (bounded loops, like _SPELLED: linear).
_MIXED = re.compile(
    r"(?i)\b([a-z0-9._%+-]{1,64})(\s{1,3}at\s{1,3}|@)"
    r"([a-z0-9-]{1,63}(?:(?:\s{1,3}dot\s{1,3}|\.)[a-z0-9-]{1,63}){1,4})\b"
)

# Where an obfuscated address may be: a bracketed "at", "dot", `@` or `.` (found from its
# closing bracket) or a "dot" between whitespace (literal-first searches, so text without them
# costs one fast pass each); only a window around each is read.
_OBF_HINTS = (
    re.compile(r"at\s{0,3}[\])}>]"),
    re.compile(r"dot\s{0,3}[\])}>]"),
    re.compile(r"@\s{0,3}[\])}>]"),
    re.compile(r"\.\s{0,3}[\])}>]"),
)
_DOT_WORD_STR = re.compile(r"dot\s")  # the whitespace before it checked per hit
# A spelled "at" before a domain written with plain dots ("ops at evil.example": _MIXED reads
# it; no bracket or spelled "dot" hints it): "at", whitespace, a label, its dot and the next
# label's first letter (not "at home." at a sentence's end: prose is full of those).
_AT_WORD_STR = re.compile(r"at\s{1,3}[a-z0-9-]{1,63}\.[a-z0-9-]")
AT_WORD_ANY = re.compile(r"(?i)at\s{1,3}[a-z0-9-]{1,63}\.[a-z0-9-]")  # the same in any case
# The same hints over the folded bytes of an ASCII text (byte offsets are character offsets
# then): no lower-cased copy of the text. `\s` of a str pattern, spelled out for ASCII.
_WS = rb"[ \t\n\r\f\v\x1c-\x1f]"
_OBF_HINTS_ASCII = (  # (a bracketed `@` is found from each `@`: it is rare)
    re.compile(rb"at" + _WS + rb"{0,3}[\])}>]"),
    re.compile(rb"dot" + _WS + rb"{0,3}[\])}>]"),
    re.compile(rb"\." + _WS + rb"{0,3}[\])}>]"),
)


CLOSERS = (b"]", b")", b"}", b">")
_WS_BYTES = frozenset(b" \t\n\r\f\v\x1c\x1d\x1e\x1f")
# "dot" and the whitespace after it; the whitespace before it is checked per hit (a literal
# that starts with a space costs the search a step at every word).
_DOT_WORD = re.compile(rb"dot" + _WS)
_AT_WORD = re.compile(rb"at" + _WS + rb"{1,3}[a-z0-]{1,63}\.[a-z0-]")  # _AT_WORD_STR in fold
# How far an address can reach before and after one of its hints' starts. Before: the byte
# before a 64-byte local part, its `@` or spelled/bracketed "at" (up to 9 with spaces), a
# 63-byte label and the spaces and bracket before "dot" (7): 160 is more. After: "at"/"dot",
# spaces and a bracket (9), the rest of a domain written with plain dots (8 more labels:
# 575) and the two bytes its match looks at: 600 is more.
_HINT_BEFORE = 160
_HINT_AFTER = 600
# What an address's local part or domain is made of (either way, and the `'` of a local part).
_ADDR_RUN = re.compile(r"[\w.%+'-]*")
_RUN_BACK = 200
# Closing brackets past this many are left to the hint patterns (markup is full of `>`).
_FEW_CLOSERS = 256


def hint_starts(fold: bytes) -> list[int]:
    """Where the hints are in the folded bytes of an ASCII text, sorted: _OBF_HINTS_ASCII's
    starts (a bracketed `@` or `.` only after its opening bracket), found from the closing
    brackets back (memchr; text has few of them) or, where there are many, by the patterns;
    and each "dot" between whitespace."""
    closers: list[int] = []
    starts: list[int] = []
    for closer in CLOSERS:
        i = fold.find(closer)
        while i >= 0:
            closers.append(i)
            if len(closers) > _FEW_CLOSERS:
                break
            i = fold.find(closer, i + 1)
    if len(closers) > _FEW_CLOSERS:
        for rx in _OBF_HINTS_ASCII[:2]:
            starts += [m.start() for m in rx.finditer(fold)]
        starts += [m.start() for m in _OBF_HINTS_ASCII[2].finditer(fold) if _opened(fold, m.start())]
        # `@` is rare: from one to the next (memchr) rather than a pass of its pattern.
        n = len(fold)
        i = fold.find(b"@")
        while i >= 0:
            k = i + 1
            while k < n and k - i <= 3 and fold[k] in _WS_BYTES:
                k += 1
            if k < n and fold[k] in b"])}>" and _opened(fold, i):
                starts.append(i)
            i = fold.find(b"@", i + 1)
    else:
        for c in closers:
            w = c
            while w > 0 and c - w < 3 and fold[w - 1] in _WS_BYTES:
                w -= 1
            if c - w <= 3:  # "at", "dot", `@` or `.`, up to three spaces, the bracket
                if fold[w - 2 if w >= 2 else 0 : w] == b"at":
                    starts.append(w - 2)
                if fold[w - 3 if w >= 3 else 0 : w] == b"dot":
                    starts.append(w - 3)
                if w > 0 and fold[w - 1] in b"@." and _opened(fold, w - 1):
                    starts.append(w - 1)
    starts += _spelled_dots(fold)
    starts += _spelled_ats(fold)
    return sorted(starts)


def _opened(fold: bytes, i: int) -> bool:
    """Whether an opening bracket stands before position i, up to three spaces away."""
    w = i
    while w > 0 and i - w < 3 and fold[w - 1] in _WS_BYTES:
        w -= 1
    return w > 0 and fold[w - 1] in b"[({<"


def _spelled_ats(fold: bytes) -> list[int]:
    """Where a spelled "at" stands after whitespace and before a label with a dot (the
    whitespace before it: its hint's start). Prose is full of " at ": the label and its dot
    are matched in C, so only the few that may be an address reach Python."""
    return [m.start() - 1 for m in _AT_WORD.finditer(fold, 1) if fold[m.start() - 1] in _WS_BYTES]


def _spelled_dots(fold: bytes) -> list[int]:
    """Where a "dot" stands between whitespace (the whitespace before it: its hint's start)."""
    return [m.start() - 1 for m in _DOT_WORD.finditer(fold, 1) if fold[m.start() - 1] in _WS_BYTES]


def _run_end(text: str, i: int) -> int:
    """Where the run of address characters from i ends."""
    m = _ADDR_RUN.match(text, i)
    return m.end() if m is not None else i


def deobfuscated(text: str, hits: list[int] | None = None) -> str:
    """The text's `[at]`/`(dot)` and spelled-out "x at y dot z" addresses written plainly
    (`hits`: where the hints are, when the caller found them: hint_starts)."""
    parts: list[str] = []
    if hits is None:
        low = text.lower()
        hits = sorted(
            [m.start() for rx in _OBF_HINTS for m in rx.finditer(low)]
            + [m.start() - 1 for m in _DOT_WORD_STR.finditer(low, 1) if low[m.start() - 1].isspace()]
            + [m.start() - 1 for m in _AT_WORD_STR.finditer(low, 1) if low[m.start() - 1].isspace()]
        )
    # Each hint's window reaches as far as an address around it can: hints whose windows
    # overlap are read as one span (a window cut at a fixed end would hide the address that
    # runs past it), so every byte is read once and nothing is capped.
    spans: list[list[int]] = []
    for start in hits:
        a, z = max(0, start - _HINT_BEFORE), start + _HINT_AFTER
        if spans and a <= spans[-1][1]:
            spans[-1][1] = max(spans[-1][1], z)
        else:
            spans.append([a, z])
    # A span's ends are then moved out of the word it cuts (so a cut makes no shorter address
    # than the text has): forward over the whole run, back over up to _RUN_BACK characters.
    # Runs hold no hint, so no run is read twice; spans that now touch are read as one.
    whole: list[list[int]] = []
    for lo, hi in spans:
        z = _run_end(text, hi)
        a = lo - _run_end(text[lo - _RUN_BACK if lo > _RUN_BACK else 0 : lo][::-1], 0) if lo else 0
        if whole and a <= whole[-1][1]:
            whole[-1][1] = max(whole[-1][1], z)
        else:
            whole.append([a, z])
    for a, z in whole:
        parts += plain(text[a:z])
    return "\n".join(parts)


def plain(window: str) -> list[str]:
    """The addresses of a window written plainly: the window with its bracketed forms
    replaced, and each spelled-out or mixed address on its own."""
    written = _OBF_DOT.sub(".", _OBF_AT.sub("@", window))
    out = [written]
    out += [f"{x.group(1)}@{_SPELLED_DOT.sub('.', x.group(2))}" for x in _SPELLED.finditer(window)]
    for x in _MIXED.finditer(written):
        # An address written plainly throughout is the scanner's own; only a spelled word makes
        # this one new.
        if x.group(2) != "@" or _SPELLED_DOT.search(x.group(3)):
            out.append(f"{x.group(1)}@{_SPELLED_DOT.sub('.', x.group(3))}")
    return out
