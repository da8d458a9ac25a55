"""Target-like values in untrusted text: what an injection must name to send, pay or post somewhere.

Pure functions. A tool result is read as JSON where it is JSON (its strings, keys and long
numbers), as text otherwise; never as YAML. Every pattern is linear-time: character classes
with bounded or possessive-free single loops, no nested quantifiers, so a hostile result
cannot stall the hook. Values come out normalized the way call targets are normalized
(targets.py), so one spelling matches the other:

  email   lower-cased, display name dropped, domain IDNA-encoded, `[at]`/`(dot)` undone
  domain  the registrable domain of a host, an email's or a URL's (IDNA, lower-case)
  host    the full host of a URL or a bare domain
  number  the digits of a phone or account number (7 to 34 of them)
  iban    upper-case, spaces removed, mod-97 checked
  handle  a chat channel or user handle without its `#`/`@`, lower-case
  path    an absolute or home path (`~` expanded), trailing slashes removed
  package a package name an install command names, lower-case, version dropped
  command a command line in backticks or after a shell prompt, whitespace collapsed
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterator
from typing import Any

from opafence.provenance.normalize import (
    TLDS,
    Value,
    norm_command,
    norm_digits,
    norm_domain,
    norm_email,
    norm_handle,
    norm_iban,
    norm_package,
    norm_path,
    registrable,
)
from opafence.provenance.obfuscated import AT_WORD_ANY, CLOSERS, deobfuscated, hint_starts
from opafence.provenance.result_text import as_text, json_text, unescaped
from opafence.provenance.scan import FOLD, Scanner

_PACKAGE = re.compile(r"^[a-z0-9@][a-z0-9@._/-]{0,213}$")
_SCANNER = Scanner(TLDS)


def _host_values(host: str) -> Iterator[Value]:
    h = norm_domain(host)
    if h:
        yield ("host", h)
        yield ("domain", registrable(h))


def _hosts_of(host: str, memo: dict[str, tuple[Value, ...]]) -> tuple[Value, ...]:
    """_host_values, once per host of one scan (addresses share their domains)."""
    got = memo.get(host)
    if got is None:
        got = memo[host] = tuple(_host_values(host))
    return got


def _email_values(raw: str, memo: dict[str, tuple[Value, ...]] | None = None) -> Iterator[Value]:
    e = norm_email(raw)
    if e:
        yield ("email", e)
        host = e.rpartition("@")[2]
        yield from _host_values(host) if memo is None else _hosts_of(host, memo)


def _packages(line: str) -> Iterator[Value]:
    for word in line.split()[:12]:
        if word.startswith("-"):
            continue
        end = word[-1] in ".,:;)"
        p = norm_package(word.strip("'\"`.,:;()"))
        if not _PACKAGE.match(p):
            break
        yield ("package", p)
        if end:
            break


def _normalized(kind: str, raw: str, home: str, memo: dict[str, tuple[Value, ...]]) -> Iterator[Value]:
    if kind == "email":
        yield from _email_values(raw, memo)
    elif kind == "host":
        yield from _hosts_of(raw, memo)
    elif kind == "number":
        d = norm_digits(raw)
        if 7 <= len(d) <= 34:
            yield ("number", d)
    elif kind == "iban":
        i = norm_iban(raw)
        if i:
            yield ("iban", i)
            yield ("number", norm_digits(i[4:]))
    elif kind == "handle":
        h = norm_handle(raw)
        if h:
            yield ("handle", h)
    elif kind == "path":
        p = norm_path(raw, home)
        if len(p) > 1:
            yield ("path", p)
    elif kind == "command":
        c = norm_command(raw)
        if " " in c or "/" in c:
            yield ("command", c)
    elif kind == "install":
        yield from _packages(raw)


def scan_text(text: str, home: str = "") -> Iterator[Value]:
    """Every target-like value of one string (normalized; duplicates possible)."""
    if not text:
        return
    if not text.isascii():
        # Fullwidth @, compatibility digits and the like spell the same targets.
        text = unicodedata.normalize("NFKC", text)
    b = text.encode("utf-8", "replace")
    fold = b.translate(FOLD)
    memo: dict[str, tuple[Value, ...]] = {}
    for kind, raw in _SCANNER.hits(b, fold):
        if kind == "number":  # inline: the kind logs and listings hold by the ten thousand
            d = norm_digits(raw)
            if 7 <= len(d) <= 34:
                yield ("number", d)
        else:
            yield from _normalized(kind, raw, home, memo)
    # Every hint needs a closing bracket or "dot" (case aside; lower-casing maps nothing but
    # ASCII D, O and T onto those letters once NFKC has run): one-byte tests first spare the
    # lower-cased str and the slow hint passes on ordinary text.
    starts: list[int] | None = None
    if text.isascii():
        starts = hint_starts(fold)  # byte offsets are character offsets
        if not starts:
            return
    elif not any(c in b for c in CLOSERS) and b"dot" not in fold and AT_WORD_ANY.search(text) is None:
        return
    plain = deobfuscated(text, starts)
    if plain:
        for _, raw in _SCANNER.emails(plain.encode("utf-8", "replace")):
            yield from _email_values(raw, memo)


def extract(result: Any, home: str = "") -> tuple[set[Value], bool]:
    """(values, truncated) of one tool result or other untrusted text."""
    text, parsed, truncated = as_text(result)
    if text is None:
        text, cut = json_text(parsed)
        truncated = truncated or cut
    found = set(scan_text(text, home))
    # JSON escapes in what was read raw (JSON after a prefix or cut short, a string literal, an
    # encoding too deep to parse) spell values only once undone: each decoding is read too.
    # One byte test first: text without a backslash costs nothing more.
    if "\\" in text:
        decoded, cut = unescaped(text)
        truncated = truncated or cut
        for plain in decoded:
            found.update(scan_text(plain, home))
    return found, truncated
