"""Frozen copy of the provenance scanner before the speed-up (commit 8d8749b), the reference the
equivalence test compares the current one with. Do not edit.

The scanner behind values.scan_text: linear, and fast on large results.

Every search starts at a literal byte (`@`, `://`, `.tld`, `#`, `/`, a backtick, a digit or
letter class after one C-level translation), so CPython's regex engine skips ahead at memchr
speed instead of trying a character class at every position; each hit is then read in a
bounded window. Text is scanned as UTF-8 bytes (IDN labels are non-ASCII bytes of a label).
The same window seen twice is read once (results repeat themselves a lot)."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator

Hit = tuple[str, str]  # (kind, raw text); values.py normalizes

_LETTERS = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
_DIGITS = b"0123456789"
# Letters -> 'A', digits -> '0', everything else as it is: shapes become literal searches.
_SHAPE = bytes.maketrans(_LETTERS + _DIGITS, b"A" * len(_LETTERS) + b"0" * len(_DIGITS))

_LOCAL = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._%+'-") | frozenset(
    range(0x80, 0x100)
)
_WORD = frozenset(_LETTERS + _DIGITS + b"_") | frozenset(range(0x80, 0x100))
_HOSTCH = frozenset(_LETTERS + _DIGITS + b".-") | frozenset(range(0x80, 0x100))

_AT = re.compile(rb"@")
_DOMAIN = re.compile(rb"[\w\x80-\xff-]{1,63}(?:\.[\w\x80-\xff-]{1,63}){1,8}")
_SCHEME_SEP = re.compile(rb"://")
_AUTHORITY = re.compile(rb"[^\s/?#\"'<>`\\|{}^()]{1,512}")
_SCHEMES = (b"https", b"http", b"wss", b"ws", b"ftp")
_HASH = re.compile(rb"#")
_HANDLE = re.compile(rb"[A-Za-z0-9_][A-Za-z0-9_.-]{0,79}")
_SLASH = re.compile(rb"/")
_PATH = re.compile(rb"/[A-Za-z0-9._@%+=,-]{1,255}(?:/[A-Za-z0-9._@%+=,-]{0,255}){0,40}")
_NUMBER = re.compile(rb"0[0 ().-]{5,48}0")
_IBAN_SHAPE = re.compile(rb"AA00")
_IBAN = re.compile(rb"[A-Za-z]{2}\d{2}(?: ?[A-Za-z0-9]){11,34}")
_BACKTICK = re.compile(rb"`([^`\n]{2,300})`")
_PROMPT = re.compile(rb"\n[ \t]{0,8}[$#>][ \t]{1,3}([^\n]{2,300})")
# One literal search per verb: an alternation would be tried at every space.
_INSTALLS = tuple(re.compile(rb" " + verb + rb" ") for verb in (b"install", b"add", b"i", b"get", b"require"))
_MANAGERS = frozenset(
    b"pip pip3 npm pnpm yarn bun gem cargo go brew apt apt-get dnf yum apk composer uv".split()
)


_DOT_LABEL = re.compile(rb"\.([a-z]{2,24})(?![\w-])")


def _once() -> Callable[[bytes], bool]:
    """A per-scan memo: True the first time a key is seen."""
    seen: set[bytes] = set()

    def once(key: bytes) -> bool:
        if key in seen:
            return False
        seen.add(key)
        return True

    return once


class Scanner:
    def __init__(self, tlds: frozenset[str]) -> None:
        self._tlds = frozenset(t.encode() for t in tlds)

    def emails(self, b: bytes) -> Iterator[Hit]:
        """Only the addresses (for text whose obfuscations were written out plainly)."""
        yield from self._emails(b, _once())

    def hits(self, b: bytes) -> Iterator[Hit]:
        once = _once()

        if b"@" in b:
            yield from self._emails(b, once)
        if b"://" in b:
            yield from self._urls(b, once)
        if b"." in b:
            yield from self._hosts(b, once)
        shape = b.translate(_SHAPE)
        if b"0" in shape:
            yield from self._numbers(b, shape, once)
            yield from self._ibans(b, shape, once)
        if b"#" in b:
            yield from self._handles(b, _HASH, once)
        if b"/" in b:
            yield from self._paths(b, once)
        if b"`" in b or b"$ " in b or b"> " in b or b"# " in b:
            yield from self._commands(b, once)
        # The verbs in any case (as _installs reads them): "PIP INSTALL x" names a package as
        # "pip install x" does (the gate once tested the text as written; issue 15).
        low = b.lower()
        if b"install " in low or b"add " in low or b"get " in low or b"require " in low or b" i " in low:
            yield from self._installs(b, once)

    # --- one reader per kind ---------------------------------------------------------------------

    def _emails(self, b: bytes, once: Callable[[bytes], bool]) -> Iterator[Hit]:
        for m in _AT.finditer(b):
            i = m.start()
            if not once(b"@w:" + b[max(0, i - 64) : i + 64]):
                continue
            j = i
            while j > 0 and i - j < 64 and b[j - 1] in _LOCAL:
                j -= 1
            dom = _DOMAIN.match(b, i + 1)
            if j < i and dom is not None:
                raw = b[j : dom.end()]
                if once(raw):
                    yield ("email", raw.decode("utf-8", "replace").strip("."))
            elif j == i or (j > 0 and b[j - 1] not in _WORD):
                h = _HANDLE.match(b, i + 1)
                if h is not None and (i == 0 or b[i - 1] not in _WORD) and once(b"@" + h.group(0)):
                    yield ("handle", h.group(0).decode())

    def _urls(self, b: bytes, once: Callable[[bytes], bool]) -> Iterator[Hit]:
        for m in _SCHEME_SEP.finditer(b):
            i = m.start()
            head = b[max(0, i - 5) : i].lower()
            if not any(head.endswith(s) for s in _SCHEMES):
                continue
            a = _AUTHORITY.match(b, i + 3)
            if a is None:
                continue
            auth = a.group(0).rpartition(b"@")[2]
            host = auth.split(b"]", 1)[0].lstrip(b"[") if auth.startswith(b"[") else auth.split(b":", 1)[0]
            if host and once(b"url:" + host):
                yield ("host", host.decode("utf-8", "replace"))

    def _hosts(self, b: bytes, once: Callable[[bytes], bool]) -> Iterator[Hit]:
        low = b.lower()
        for m in _DOT_LABEL.finditer(low):
            if m.group(1) not in self._tlds:
                continue
            i, end = m.start(), m.end()
            if not once(b"h:" + low[max(0, i - 64) : end + 1]):
                continue
            j = i
            while j > 0 and i - j < 253 and low[j - 1] in _HOSTCH:
                j -= 1
            if j == i or (j > 0 and low[j - 1] in b"@/\\:"):
                continue
            raw = low[j:end].strip(b".-")
            if b"." in raw and once(b"host:" + raw):
                yield ("host", raw.decode("utf-8", "replace"))

    def _numbers(self, b: bytes, shape: bytes, once: Callable[[bytes], bool]) -> Iterator[Hit]:
        for m in _NUMBER.finditer(shape):
            raw = b[m.start() : m.end()]
            if once(b"n:" + raw):
                yield ("number", raw.decode())

    def _ibans(self, b: bytes, shape: bytes, once: Callable[[bytes], bool]) -> Iterator[Hit]:
        for m in _IBAN_SHAPE.finditer(shape):
            i = m.start()
            if i > 0 and shape[i - 1] in b"A0":
                continue
            cand = _IBAN.match(b, i)
            if cand is None or not once(b"iban:" + cand.group(0)):
                continue
            text = cand.group(0).decode()
            # The pattern may run on into the next words: try each shorter end at a space.
            while True:
                yield ("iban", text)
                cut = text.rfind(" ")
                if cut < 15:
                    break
                text = text[:cut]

    def _handles(self, b: bytes, rx: re.Pattern[bytes], once: Callable[[bytes], bool]) -> Iterator[Hit]:
        for m in rx.finditer(b):
            i = m.start()
            if i > 0 and (b[i - 1] in _WORD or b[i - 1] in b"&/.-#"):
                continue
            h = _HANDLE.match(b, i + 1)
            if h is not None and once(b"#" + h.group(0)):
                yield ("handle", h.group(0).decode())

    def _paths(self, b: bytes, once: Callable[[bytes], bool]) -> Iterator[Hit]:
        pos = 0
        while True:
            i = b.find(b"/", pos)
            if i < 0:
                return
            home = i > 0 and b[i - 1] == 0x7E  # "~/"
            start = i - 1 if home else i
            prev = b[start - 1] if start > 0 else 0x20
            m = _PATH.match(b, i)
            if m is None:
                pos = i + 1
                continue
            pos = m.end()
            if prev in _WORD or prev in b":/.~-":
                continue
            raw = b[start : m.end()]
            if once(b"p:" + raw):
                yield ("path", raw.decode("utf-8", "replace").rstrip(".,;:"))

    def _commands(self, b: bytes, once: Callable[[bytes], bool]) -> Iterator[Hit]:
        for rx in (_BACKTICK, _PROMPT):
            for m in rx.finditer(b"\n" + b if rx is _PROMPT else b):
                raw = m.group(1)
                if once(b"c:" + raw):
                    yield ("command", raw.decode("utf-8", "replace"))

    def _installs(self, b: bytes, once: Callable[[bytes], bool]) -> Iterator[Hit]:
        low = b.lower()
        for m in (m for rx in _INSTALLS for m in rx.finditer(low)):
            i = m.start()
            j = i
            while j > 0 and i - j < 12 and low[j - 1] not in b" \t\n`$;&|(":
                j -= 1
            if low[j:i] not in _MANAGERS:
                continue
            line = low[m.end() : m.end() + 200].split(b"\n", 1)[0]
            if once(b"i:" + line):
                yield ("install", line.decode("utf-8", "replace"))
