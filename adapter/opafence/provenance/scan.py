"""The scanner behind values.scan_text: linear, and fast on large results.

Every search starts at a literal byte (`@`, `:`, `.`, `#`, `/`, a backtick, a digit after one
C-level translation, a space before an install verb). Where such a byte is rare, bytes.find
(memchr) takes the scan from one to the next and the pattern is matched there; once a text
turns out to be dense in it, the regex engine's own literal search goes on from that point (the
same matches, left to right: every pattern here starts with its byte). What a pattern can
reject stays in C (a scheme before `://`, letters after a `.`, an IBAN's letters and tail); only
hits reach Python, each read in a bounded window. Text is scanned as UTF-8 bytes (IDN labels are
non-ASCII bytes of a label). The same window seen twice is read once (results repeat themselves
a lot): `seen` holds a key per window, prefixed by its kind.

`fold` is the text with ASCII letters lower-cased and every digit written `0`: one translation
serves the digit shapes (numbers, IBANs), the install verbs and the `dot` hint."""

from __future__ import annotations

import re
from collections.abc import Iterator

Hit = tuple[str, str]  # (kind, raw text); values.py normalizes

_UPPER = b"ABCDEFGHIJKLMNOPQRSTUVWXYZ"
_LOWER = b"abcdefghijklmnopqrstuvwxyz"
_LETTERS = _UPPER + _LOWER
_DIGITS = b"0123456789"
FOLD = bytes.maketrans(_UPPER + _DIGITS, _LOWER + b"0" * len(_DIGITS))

_LOCAL = frozenset(_LETTERS + _DIGITS + b"._%+'-") | frozenset(range(0x80, 0x100))
_WORD = frozenset(_LETTERS + _DIGITS + b"_") | frozenset(range(0x80, 0x100))
_HOSTCH = frozenset(_LETTERS + _DIGITS + b".-") | frozenset(range(0x80, 0x100))
# Before a path's `/` (or its `~/`): a path does not start inside a word, URL or other path.
_NOT_BEFORE_PATH = _WORD | frozenset(b":/.~-")
_LETTER_OR_DIGIT_FOLDED = frozenset(_LOWER + b"0")
_INSTALL_STOP = frozenset(b" \t\n`$;&|(")

_DOMAIN = re.compile(rb"[\w\x80-\xff-]{1,63}(?:\.[\w\x80-\xff-]{1,63}){1,8}")
_AUTHORITY = re.compile(rb"[^\s/?#\"'<>`\\|{}^()]{1,512}")
_SCHEMES = (b"https", b"http", b"wss", b"ws", b"ftp")
# `://` after one of the schemes (any case); the authority is read by _AUTHORITY.
_URL = re.compile(
    rb"://(?:(?<=(?i:https)://)|(?<=(?i:http)://)|(?<=(?i:wss)://)|(?<=(?i:ws)://)|(?<=(?i:ftp)://))"
)
_HANDLE = re.compile(rb"[A-Za-z0-9_][A-Za-z0-9_.-]{0,79}")
_PATH = re.compile(rb"/[A-Za-z0-9._@%+=,-]{1,255}(?:/[A-Za-z0-9._@%+=,-]{0,255}){0,40}")
_NUMBER = re.compile(rb"0[0 ().-]{5,48}0")  # in fold: digits and what separates them
# An IBAN's two letters and two digits with at least 11 more letters or digits (a space before
# each allowed), found at its digits ("00" of the fold, its letters a lookbehind): the match
# is the digits; the IBAN starts two bytes before.
_IBAN_DIGITS = re.compile(rb"00(?<=[a-z][a-z]00)(?=(?: ?[a-z0]){11})")
_IBAN = re.compile(rb"[A-Za-z]{2}\d{2}(?: ?[A-Za-z0-9]){11,34}")
_BACKTICK = re.compile(rb"`([^`\n]{2,300})`")
_PROMPT = re.compile(rb"\n[ \t]{0,8}[$#>][ \t]{1,3}([^\n]{2,300})")
_PROMPT_AT_START = re.compile(rb"[ \t]{0,8}[$#>][ \t]{1,3}([^\n]{2,300})")
# The install verbs after a space (in fold), one literal search each: " i" serves " i " and
# " install " (neither can hide the other from a manager's name: an occurrence that one match
# runs into follows the verb of that match, never a manager).
_INSTALLS = (re.compile(rb" i(?:nstall)? "), re.compile(rb" add "), re.compile(rb" get "))
_REQUIRE = re.compile(rb" require ")
_INSTALL_GATES = (re.compile(rb"add "), re.compile(rb"get "))
_MANAGERS = frozenset(
    b"pip pip3 npm pnpm yarn bun gem cargo go brew apt apt-get dnf yum apk composer uv".split()
)
# A label after a dot (any case: the text is not lower-cased whole); the label is the whole run
# of letters, so "report.pdf" and "example.community" end in the label they show.
_DOT_LABEL = re.compile(rb"\.([A-Za-z]{2,24})(?![\w-])")
_AT = re.compile(rb"@")
_HASH = re.compile(rb"#")
_COLON = re.compile(rb":")
# Python steps (memchr hits) before the regex engine takes over a dense text.
_STEPS = 512


def _anchored(rx: re.Pattern[bytes], text: bytes, byte: bytes) -> Iterator[re.Match[bytes]]:
    """rx.finditer(text) for a pattern whose every match starts with `byte`."""
    find, match = text.find, rx.match
    pos = 0
    for _ in range(_STEPS):
        p = find(byte, pos)
        if p < 0:
            return
        m = match(text, p)
        if m is None:
            pos = p + 1
            continue
        yield m
        pos = m.end() if m.end() > p else p + 1
    yield from rx.finditer(text, pos)


class Scanner:
    def __init__(self, tlds: frozenset[str]) -> None:
        self._tlds = frozenset(t.encode() for t in tlds)

    def emails(self, b: bytes) -> Iterator[Hit]:
        """Only the addresses (for text whose obfuscations were written out plainly)."""
        yield from self._emails(b, set())

    def hits(self, b: bytes, fold: bytes) -> Iterator[Hit]:
        """Every hit of `b` (`fold` is b.translate(FOLD))."""
        seen: set[bytes] = set()
        # Gates: a one-byte test (memchr) before any longer one; a two-byte needle ending in a
        # space costs a full slow pass of the text when it is absent.
        if b"@" in b:
            yield from self._emails(b, seen)
        if b"://" in b:
            yield from self._urls(b, seen)
        if b"." in b:
            yield from self._hosts(b, seen)
        if b"0" in fold:
            yield from self._numbers(b, fold, seen)
            yield from self._ibans(b, fold, seen)
        has_hash = b"#" in b
        if has_hash:
            yield from self._handles(b, seen)
        if b"/" in b:
            yield from self._paths(b, seen)
        if b"`" in b or (b"$" in b and b"$ " in b) or (b">" in b and b"> " in b) or (has_hash and b"# " in b):
            yield from self._commands(b, seen)
        yield from self._installs(b, fold, seen)

    # --- one reader per kind ---------------------------------------------------------------------

    def _emails(self, b: bytes, seen: set[bytes]) -> Iterator[Hit]:
        for m in _anchored(_AT, b, b"@"):
            i = m.start()
            key = b"@w:" + b[i - 64 if i > 64 else 0 : i + 64]
            if key in seen:
                continue
            seen.add(key)
            j = i
            while j > 0 and i - j < 64 and b[j - 1] in _LOCAL:
                j -= 1
            dom = _DOMAIN.match(b, i + 1)
            if j < i and dom is not None:
                raw = b[j : dom.end()]
                if raw not in seen:
                    seen.add(raw)
                    yield ("email", raw.decode("utf-8", "replace").strip("."))
            elif j == i or (j > 0 and b[j - 1] not in _WORD):
                h = _HANDLE.match(b, i + 1)
                if h is not None and (i == 0 or b[i - 1] not in _WORD):
                    key = b"@" + h.group(0)
                    if key not in seen:
                        seen.add(key)
                        yield ("handle", h.group(0).decode())

    def _urls(self, b: bytes, seen: set[bytes]) -> Iterator[Hit]:
        for m in _anchored(_COLON, b, b":"):
            i = m.start()
            if b[i + 1 : i + 3] != b"//" or _URL.match(b, i) is None:
                continue
            a = _AUTHORITY.match(b, i + 3)
            if a is None:
                continue
            auth = a.group(0).rpartition(b"@")[2]
            host = auth.split(b"]", 1)[0].lstrip(b"[") if auth.startswith(b"[") else auth.split(b":", 1)[0]
            if host and b"url:" + host not in seen:
                seen.add(b"url:" + host)
                yield ("host", host.decode("utf-8", "replace"))

    def _hosts(self, b: bytes, seen: set[bytes]) -> Iterator[Hit]:
        tlds = self._tlds
        for m in _anchored(_DOT_LABEL, b, b"."):
            if m.group(1).lower() not in tlds:
                continue
            i, end = m.span()
            key = b"h:" + b[i - 64 if i > 64 else 0 : end + 1].lower()
            if key in seen:
                continue
            seen.add(key)
            j = i
            while j > 0 and i - j < 253 and b[j - 1] in _HOSTCH:
                j -= 1
            if j == i or (j > 0 and b[j - 1] in b"@/\\:"):
                continue
            raw = b[j:end].lower().strip(b".-")
            if b"." in raw and b"host:" + raw not in seen:
                seen.add(b"host:" + raw)
                yield ("host", raw.decode("utf-8", "replace"))

    def _numbers(self, b: bytes, fold: bytes, seen: set[bytes]) -> Iterator[Hit]:
        for m in _anchored(_NUMBER, fold, b"0"):
            raw = b[m.start() : m.end()]
            if b"n:" + raw not in seen:
                seen.add(b"n:" + raw)
                yield ("number", raw.decode())

    def _ibans(self, b: bytes, fold: bytes, seen: set[bytes]) -> Iterator[Hit]:
        # Only the letters and digits that the IBAN pattern can go on from reach Python.
        for m in _anchored(_IBAN_DIGITS, fold, b"0"):
            i = m.start() - 2
            if i > 0 and fold[i - 1] in _LETTER_OR_DIGIT_FOLDED:
                continue
            cand = _IBAN.match(b, i)
            if cand is None or b"iban:" + cand.group(0) in seen:
                continue
            seen.add(b"iban:" + cand.group(0))
            text = cand.group(0).decode()
            # The pattern may run on into the next words: try each shorter end at a space.
            while True:
                yield ("iban", text)
                cut = text.rfind(" ")
                if cut < 15:
                    break
                text = text[:cut]

    def _handles(self, b: bytes, seen: set[bytes]) -> Iterator[Hit]:
        for m in _anchored(_HASH, b, b"#"):
            i = m.start()
            if i > 0 and (b[i - 1] in _WORD or b[i - 1] in b"&/.-#"):
                continue
            h = _HANDLE.match(b, i + 1)
            if h is not None and b"#" + h.group(0) not in seen:
                seen.add(b"#" + h.group(0))
                yield ("handle", h.group(0).decode())

    def _paths(self, b: bytes, seen: set[bytes]) -> Iterator[Hit]:
        # Every match of _PATH, left to right (a path's own slashes start no other): the byte
        # before its `/` (or `~/`) decides whether it is a path of its own.
        for m in _anchored(_PATH, b, b"/"):
            i, end = m.span()
            start = i - 1 if i > 0 and b[i - 1] == 0x7E else i  # "~/"
            if start > 0 and b[start - 1] in _NOT_BEFORE_PATH:
                continue
            raw = b[start:end]
            if b"p:" + raw not in seen:
                seen.add(b"p:" + raw)
                yield ("path", raw.decode("utf-8", "replace").rstrip(".,;:"))

    def _commands(self, b: bytes, seen: set[bytes]) -> Iterator[Hit]:
        found = [m.group(1) for m in _anchored(_BACKTICK, b, b"`")] if b"`" in b else []
        first = _PROMPT_AT_START.match(b)
        if first is not None:
            found.append(first.group(1))
        found += [m.group(1) for m in _PROMPT.finditer(b)]
        for raw in found:
            if b"c:" + raw not in seen:
                seen.add(b"c:" + raw)
                yield ("command", raw.decode("utf-8", "replace"))

    def _installs(self, b: bytes, fold: bytes, seen: set[bytes]) -> Iterator[Hit]:
        """`<manager> <verb> <packages>`, in any case. Read only where the text also holds
        one of the verbs as written ("add ", "get ", " i ", "install ", "require ")."""
        verbs = list(_INSTALLS)
        if b"q" in b or b"Q" in b:
            verbs.append(_REQUIRE)
        hits: list[tuple[int, int]] = []
        for rx in verbs:
            for m in rx.finditer(fold):
                i = m.start()
                j = i
                while j > 0 and i - j < 12 and fold[j - 1] not in _INSTALL_STOP:
                    j -= 1
                if b[j:i].lower() in _MANAGERS:
                    hits.append((i, m.end()))
        if not hits or not (
            _INSTALL_GATES[0].search(b) is not None
            or _INSTALL_GATES[1].search(b) is not None
            or b" i " in b
            or b"install " in b
            or (b"q" in b and b"require " in b)
        ):
            return
        for _, end in hits:
            line = b[end : end + 200].lower().split(b"\n", 1)[0]
            if b"i:" + line not in seen:
                seen.add(b"i:" + line)
                yield ("install", line.decode("utf-8", "replace"))
