"""The scanner behind values.scan_text: linear, and fast on large results.

Every search starts at a literal byte (`@`, `:`, `.`, `#`, `/`, a backtick, a digit after one
C-level translation, a space before an install verb). Where such a byte is rare, bytes.find
(memchr) takes the scan from one to the next and the pattern is matched there; once a text
turns out to be dense in it, the regex engine's own literal search goes on from that point (the
same matches, left to right: every pattern here starts with its byte). What a pattern can
reject stays in C (a scheme before `://`, letters after a `.`, an IBAN's letters and tail); only
hits reach Python, each read in a bounded window. Text is scanned as UTF-8 bytes (IDN labels are
non-ASCII bytes of a label). The same window seen twice is read once (results repeat themselves
a lot): `seen` holds a key per window, prefixed by its kind. A window's key holds every byte its
outcome depends on (an address's or host's whole extent and the bytes around it that the
reading looks at), never a fixed prefix: a longer value must not hide behind an earlier one
that starts or ends the same (issue 15).

`fold` is the text with ASCII letters lower-cased and every digit written `0`: one translation
serves the digit shapes (numbers, IBANs), the install verbs and the `dot` hint."""

from __future__ import annotations

import re
from collections.abc import Iterator
from itertools import chain, starmap

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
_AUTHORITY = rb"[^\s/?#\"'<>`\\|{}^()]{1,512}"
# `://` after one of the schemes (any case), its authority captured without consuming it: one
# result per `://`, as if each were read on its own.
_URL = re.compile(
    rb"://(?:(?<=(?i:https)://)|(?<=(?i:http)://)|(?<=(?i:wss)://)|(?<=(?i:ws)://)|(?<=(?i:ftp)://))"
    rb"(?=(" + _AUTHORITY + rb"))"
)
_HANDLE = re.compile(rb"[A-Za-z0-9_][A-Za-z0-9_.-]{0,79}")
_PATH_REST = rb"[A-Za-z0-9._@%+=,-]{1,255}(?:/[A-Za-z0-9._@%+=,-]{0,255}){0,40}"
_PATH = re.compile(rb"/" + _PATH_REST)
# The same with the two bytes before its `/` (a lookbehind, so nothing more is consumed): what
# decides whether it is a path of its own, for findall (the text is given two spaces first).
_PATH_AFTER = re.compile(rb"(?s)(/(?<=(..)/)" + _PATH_REST + rb")")
_NUMBER = re.compile(rb"0[0 ().-]{5,48}0")  # in fold: digits and what separates them
# An IBAN's two letters and two digits with at least 11 more letters or digits (a space before
# each allowed), found at its digits ("00" of the fold, its letters a lookbehind): the match
# is the digits; the IBAN starts two bytes before.
_IBAN_DIGITS = re.compile(rb"00(?<=[a-z][a-z]00)(?=(?: ?[a-z0]){11})")
_IBAN = re.compile(rb"[A-Za-z]{2}\d{2}(?: ?[A-Za-z0-9]){11,34}")
_BACKTICK = re.compile(rb"`([^`\n]{2,300})`")
_PROMPT = re.compile(rb"\n[ \t]{0,8}[$#>][ \t]{1,3}([^\n]{2,300})")
_PROMPT_AT_START = re.compile(rb"[ \t]{0,8}[$#>][ \t]{1,3}([^\n]{2,300})")
# The install verbs (in fold), one literal search each, the space before them checked on each
# hit: a literal that starts with a space costs the search a step at every word. Plain
# literals only: a branch after one ("i(?:nstall)? ") is tried at every `i` and costs the pass
# twice over. No verb holds another (so the passes find what one would), an occurrence one
# match runs into follows the verb of that match, and a verb is no manager's name, so none is
# lost.
_INSTALLS = (re.compile(rb"i "), re.compile(rb"install "), re.compile(rb"add "), re.compile(rb"get "))
_REQUIRE = re.compile(rb"require ")
_MANAGERS = frozenset(
    b"pip pip3 npm pnpm yarn bun gem cargo go brew apt apt-get dnf yum apk composer uv".split()
)
# The last two bytes of each manager's name in fold: a verb after any other word ("I " is
# " i " in fold) is passed over without walking back to its start.
_MANAGER_TAILS = frozenset(m.translate(FOLD)[-2:] for m in _MANAGERS)
# A label after a dot (any case: the text is not lower-cased whole); the label is the whole run
# of letters, so "report.pdf" and "example.community" end in the label they show.
_DOT_LABEL = re.compile(rb"\.([A-Za-z]{2,24})(?![\w-])")
_HOST_RUN = re.compile(rb"[A-Za-z0-9.\x80-\xff-]*")  # _HOSTCH
_LOCAL_RUN = re.compile(rb"[A-Za-z0-9._%+'\x80-\xff-]*")  # _LOCAL
# Texts shorter than this are left to the regex engine whole; in longer ones memchr goes from
# anchor to anchor while they are fewer than one per _DENSE bytes (a Python step costs what the
# engine's literal search takes for about that many bytes).
_SHORT = 1 << 16
_DENSE = 1024
_SPAN = re.Match.span
# How far before its anchor a window reaches: an address's local part (64) and the byte before
# it; a host's walk back (253) and the byte before it.
_EMAIL_BACK = 65
_HOST_BACK = 254


def _anchored(rx: re.Pattern[bytes], text: bytes, byte: bytes) -> Iterator[re.Match[bytes]]:
    """rx.finditer(text) for a pattern whose every match starts with `byte`. An iterator, not
    a generator: once the text turns out dense, the rest of the matches come from the regex
    engine without a Python frame each."""
    if len(text) < _SHORT:
        return rx.finditer(text)
    found: list[re.Match[bytes]] = []
    find, match = text.find, rx.match
    pos, steps = 0, 0
    while True:
        p = find(byte, pos)
        if p < 0:
            return iter(found)
        steps += 1
        if steps > 16 and p < steps * _DENSE:
            return chain(found, rx.finditer(text, p))
        m = match(text, p)
        if m is None:
            pos = p + 1
            continue
        found.append(m)
        pos = m.end()


def _authorities(b: bytes) -> set[bytes]:
    """The authority after every `://` of a URL scheme (as _anchored goes, from `:` to `:`)."""
    if len(b) < _SHORT:
        return set(_URL.findall(b))
    out: set[bytes] = set()
    find, match = b.find, _URL.match
    pos, steps = 0, 0
    while True:
        p = find(b":", pos)
        if p < 0:
            return out
        steps += 1
        if steps > 16 and p < steps * _DENSE:
            out.update(_URL.findall(b, p))
            return out
        m = match(b, p)
        if m is not None:
            out.add(m.group(1))
        pos = p + 1


def _path_matches(b: bytes) -> set[tuple[bytes, bytes]]:
    """(path, the two bytes before it) of every _PATH match (as _anchored goes, from `/`)."""
    padded = b"  " + b
    if len(b) < _SHORT:
        return set(_PATH_AFTER.findall(padded))
    out: set[tuple[bytes, bytes]] = set()
    find, match = padded.find, _PATH_AFTER.match
    pos, steps = 2, 0
    while True:
        p = find(b"/", pos)
        if p < 0:
            return out
        steps += 1
        if steps > 16 and p < steps * _DENSE:
            out.update(_PATH_AFTER.findall(padded, p))
            return out
        m = match(padded, p)
        if m is None:
            pos = p + 1
            continue
        out.add((m.group(1), m.group(2)))
        pos = m.end()


def _positions(text: bytes, byte: bytes) -> Iterator[int]:
    """Where `byte` is in text, in order (memchr)."""
    find = text.find
    i = find(byte)
    while i >= 0:
        yield i
        i = find(byte, i + 1)


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
        has_at, has_dot = b"@" in b, b"." in b
        # The text backwards, for the walks back from an `@` and from a label (one C match
        # each): made once when both readers may need it, else by the one that does.
        rb = b[::-1] if has_at and has_dot else b""
        if has_at:
            yield from self._emails(b, seen, rb)
        if b":" in b:
            yield from self._urls(b, seen)
        if has_dot:
            yield from self._hosts(b, seen, rb)
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

    def _emails(self, b: bytes, seen: set[bytes], rb: bytes = b"") -> Iterator[Hit]:
        """`rb`: the text backwards (b[::-1]), when the caller has it."""
        # Windows of the local walk's bytes and the one before them, the `@` and 67 bytes
        # after it, whose outcome was decided within them (past the first _EMAIL_BACK bytes:
        # every such window has the same length and its `@` the same place; the ones nearer
        # the start are not kept).
        inside: set[bytes] = set()
        n = len(b)
        walk = _LOCAL_RUN.match
        for i in _positions(b, b"@"):
            far = i > _EMAIL_BACK
            short = b[i - _EMAIL_BACK : i + 68] if far else b""
            if far and short in inside:
                continue
            # The key is every byte the outcome depends on: the local walk's 64 bytes and the
            # one before them, and the domain or handle after the `@` up to the bytes its match
            # looked at past its end (a fixed window would let a long domain hide behind an
            # earlier one that starts the same).
            dom = _DOMAIN.match(b, i + 1)
            # The handle is read only where it can be the outcome: no domain, or no local part.
            h = _HANDLE.match(b, i + 1) if dom is None or i == 0 or b[i - 1] not in _LOCAL else None
            # (a domain that fails to match has looked at most 66 bytes on).
            tail = max(dom.end() + 2 if dom is not None else i + 68, h.end() + 2 if h is not None else 0)
            if far:
                if tail <= i + 68:
                    inside.add(short)
                key = b"@\x00" + b[i - _EMAIL_BACK : tail]
            else:  # with the `@`'s place in it: near the start two windows can hold the same bytes
                key = b"@\x01%d:" % i + b[:tail]
            if key in seen:
                continue
            seen.add(key)
            # The local part: the run of its bytes before the `@`, at most 64 (one C match
            # over the text backwards).
            j = i
            if i and b[i - 1] in _LOCAL:
                if not rb:
                    rb = b[::-1]
                run = walk(rb, n - i, n - i + 64)
                j = i - (run.end() - (n - i) if run is not None else 0)
            if j < i and dom is not None:
                raw = b[j : dom.end()]
                if raw not in seen:
                    seen.add(raw)
                    yield ("email", raw.decode("utf-8", "replace").strip("."))
            elif j == i or (j > 0 and b[j - 1] not in _WORD):
                if h is not None and (i == 0 or b[i - 1] not in _WORD):
                    key = b"@" + h.group(0)
                    if key not in seen:
                        seen.add(key)
                        yield ("handle", h.group(0).decode())

    def _urls(self, b: bytes, seen: set[bytes]) -> Iterator[Hit]:
        for whole in _authorities(b):
            auth = whole.rpartition(b"@")[2]
            host = auth.split(b"]", 1)[0].lstrip(b"[") if auth.startswith(b"[") else auth.split(b":", 1)[0]
            if host and b"url:" + host not in seen:
                seen.add(b"url:" + host)
                yield ("host", host.decode("utf-8", "replace"))

    def _hosts(self, b: bytes, seen: set[bytes], rb: bytes = b"") -> Iterator[Hit]:
        """`rb`: the text backwards (b[::-1]), when the caller has it."""
        tlds = self._tlds
        n = len(b)
        walk = _HOST_RUN.match
        # Windows of the 64 bytes before a label, the label and the byte after it, that held
        # the host and the byte before it (so decided the outcome): a repeated one is passed
        # over. A plain slice (past the first 64 bytes every window has the same length).
        inside: set[bytes] = set()
        for m in _anchored(_DOT_LABEL, b, b"."):
            if m.group(1).lower() not in tlds:
                continue
            i, end = m.span()
            short = b[i - 64 : end + 1] if i >= 64 else b""
            if short and short in inside:
                continue
            if not rb:
                rb = b[::-1]
            # The host runs back over host bytes, at most 253 of them (bounded, so a long run
            # of labels is not walked again for each).
            run = walk(rb, n - i, n - i + _HOST_BACK - 1)
            j = i - (run.end() - (n - i) if run is not None else 0)
            if short and j > i - 64:
                inside.add(short)
            if j == i or (j > 0 and b[j - 1] in b"@/\\:"):
                continue
            raw = b[j:end].lower().strip(b".-")
            if b"." in raw and b"host:" + raw not in seen:
                seen.add(b"host:" + raw)
                yield ("host", raw.decode("utf-8", "replace"))

    def _numbers(self, b: bytes, fold: bytes, seen: set[bytes]) -> Iterator[Hit]:
        # Each match's bytes as written, deduplicated in C (logs hold tens of thousands of
        # dates and counters, mostly repeated): Python sees each distinct number once.
        spans = starmap(slice, map(_SPAN, _anchored(_NUMBER, fold, b"0")))
        for raw in set(map(b.__getitem__, spans)):
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
        for i in _positions(b, b"#"):
            if i > 0 and (b[i - 1] in _WORD or b[i - 1] in b"&/.-#"):
                continue
            h = _HANDLE.match(b, i + 1)
            if h is not None and b"#" + h.group(0) not in seen:
                seen.add(b"#" + h.group(0))
                yield ("handle", h.group(0).decode())

    def _paths(self, b: bytes, seen: set[bytes]) -> Iterator[Hit]:
        # Every match of _PATH, left to right (a path's own slashes start no other): the byte
        # before its `/` (or `~/`) decides whether it is a path of its own (the start of the
        # text counts as a space).
        for path, before in _path_matches(b):
            home = before[1] == 0x7E  # "~/"
            if (before[0] if home else before[1]) in _NOT_BEFORE_PATH:
                continue
            raw = b"~" + path if home else path
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
        """`<manager> <verb> <packages>`, manager and verb in any case."""
        verbs = list(_INSTALLS)
        if b"q" in b or b"Q" in b:
            verbs.append(_REQUIRE)
        hits: list[tuple[int, int]] = []
        tails = _MANAGER_TAILS
        for rx in verbs:
            for m in rx.finditer(fold):
                i = m.start() - 1
                if i < 0 or fold[i] != 0x20 or fold[i - 2 if i >= 2 else 0 : i] not in tails:
                    continue
                j = i
                while j > 0 and i - j < 12 and fold[j - 1] not in _INSTALL_STOP:
                    j -= 1
                if b[j:i].lower() in _MANAGERS:
                    hits.append((i, m.end()))
        # (Each hit is a verb found in fold after a space: no test of the text as written, so
        # "PIP INSTALL x" is read as "pip install x" is.)
        for _, end in hits:
            line = b[end : end + 200].lower().split(b"\n", 1)[0]
            if b"i:" + line not in seen:
                seen.add(b"i:" + line)
                yield ("install", line.decode("utf-8", "replace"))
