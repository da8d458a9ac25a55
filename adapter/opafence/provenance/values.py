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

import json
import re
import unicodedata
from collections.abc import Iterator
from typing import Any

import idna

from opafence.provenance.scan import FOLD, Scanner

# A result longer than this is scanned up to here only; the caller marks the task lossy.
MAX_SCAN = 1 << 20
MAX_DEPTH = 32

Value = tuple[str, str]

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
_SPACES = re.compile(r"\s+")
_PACKAGE = re.compile(r"^[a-z0-9@][a-z0-9@._/-]{0,213}$")

# Top-level domains a bare name must end in to count as a host ("report.pdf" is not one). Any
# host of a URL counts whatever its suffix.
_TLDS = frozenset(
    [
        "com",
        "net",
        "org",
        "io",
        "co",
        "ai",
        "app",
        "dev",
        "me",
        "info",
        "biz",
        "xyz",
        "online",
        "site",
        "top",
        "club",
        "shop",
        "store",
        "tech",
        "cloud",
        "live",
        "email",
        "link",
        "click",
        "page",
        "blog",
        "news",
        "pro",
        "tv",
        "cc",
        "ws",
        "us",
        "uk",
        "de",
        "fr",
        "nl",
        "be",
        "es",
        "it",
        "pt",
        "pl",
        "ru",
        "cn",
        "jp",
        "kr",
        "in",
        "au",
        "ca",
        "br",
        "mx",
        "ch",
        "at",
        "se",
        "no",
        "dk",
        "fi",
        "ie",
        "cz",
        "hu",
        "ro",
        "gr",
        "tr",
        "ua",
        "il",
        "za",
        "nz",
        "sg",
        "hk",
        "tw",
        "ar",
        "cl",
        "eu",
        "asia",
        "example",
        "test",
        "invalid",
        "local",
        "zip",
        "mov",
        "sh",
        "gg",
        "ly",
        "to",
        "su",
    ]
)
# Second-level labels under country codes that are registries, not registrants (co.uk, com.au).
_SCANNER = Scanner(_TLDS)
_SLD = frozenset(
    [
        "co",
        "com",
        "net",
        "org",
        "gov",
        "edu",
        "ac",
        "or",
        "ne",
        "go",
        "gob",
        "nic",
        "mil",
        "ltd",
        "plc",
        "sch",
    ]
)


def registrable(host: str) -> str:
    """The registrable domain of a host (approximate public-suffix rule; IPs stay whole)."""
    labels = [x for x in host.split(".") if x]
    if len(labels) <= 2 or all(x.isdigit() for x in labels):
        return ".".join(labels)
    if len(labels[-1]) == 2 and labels[-2] in _SLD:
        return ".".join(labels[-3:])
    return ".".join(labels[-2:])


def norm_domain(domain: str) -> str:
    d = domain.strip().strip(".").lower()
    if not d:
        return ""
    if not d.isascii():
        try:
            d = idna.encode(d, uts46=True).decode("ascii")
        except (idna.IDNAError, UnicodeError, ValueError):
            return ""
    return d


def norm_email(addr: str) -> str:
    a = addr.strip().strip("<>\"'").lower()
    if a.startswith("mailto:"):
        a = a[7:]
    local, sep, domain = a.rpartition("@")
    if not sep or not local or not domain:
        return ""
    d = norm_domain(domain)
    return f"{local}@{d}" if d else ""


# Every ASCII character that is no digit, deleted (ASCII text is the common case: one C call).
_ASCII_NON_DIGITS = str.maketrans("", "", "".join(chr(c) for c in range(128) if not chr(c).isdigit()))


def norm_digits(text: str) -> str:
    if text.isascii():
        return text.translate(_ASCII_NON_DIGITS)
    return "".join(c for c in text if c.isdigit())


def iban_ok(iban: str) -> bool:
    if not (15 <= len(iban) <= 34) or not iban[:2].isalpha() or not iban[2:4].isdigit():
        return False
    moved = iban[4:] + iban[:4]
    try:
        n = int("".join(str(int(c, 36)) for c in moved))
    except ValueError:
        return False
    return n % 97 == 1


def norm_iban(text: str) -> str:
    s = "".join(text.split()).upper()
    return s if iban_ok(s) else ""


def norm_handle(text: str) -> str:
    return text.strip().lstrip("#@").rstrip(".-").lower()


def norm_path(text: str, home: str = "") -> str:
    p = text.strip()
    if p.startswith("~/") and home:
        p = home.rstrip("/") + p[1:]
    while len(p) > 1 and p.endswith("/"):
        p = p[:-1]
    return p


def norm_command(text: str) -> str:
    return _SPACES.sub(" ", text.strip())


def norm_package(text: str) -> str:
    return re.sub(r"[<>=!~;\[@ ].*$", "", text.strip().lower())


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
_AT_WORD_ANY = re.compile(r"(?i)at\s{1,3}[a-z0-9-]{1,63}\.[a-z0-9-]")  # the same in any case
# The same hints over the folded bytes of an ASCII text (byte offsets are character offsets
# then): no lower-cased copy of the text. `\s` of a str pattern, spelled out for ASCII.
_WS = rb"[ \t\n\r\f\v\x1c-\x1f]"
_OBF_HINTS_ASCII = (  # (a bracketed `@` is found from each `@`: it is rare)
    re.compile(rb"at" + _WS + rb"{0,3}[\])}>]"),
    re.compile(rb"dot" + _WS + rb"{0,3}[\])}>]"),
    re.compile(rb"\." + _WS + rb"{0,3}[\])}>]"),
)


_CLOSERS = (b"]", b")", b"}", b">")
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


def _hint_starts(fold: bytes) -> list[int]:
    """Where the hints are in the folded bytes of an ASCII text, sorted: _OBF_HINTS_ASCII's
    starts (a bracketed `@` or `.` only after its opening bracket), found from the closing
    brackets back (memchr; text has few of them) or, where there are many, by the patterns;
    and each "dot" between whitespace."""
    closers: list[int] = []
    starts: list[int] = []
    for closer in _CLOSERS:
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


def _deobfuscated(text: str, hits: list[int] | None = None) -> str:
    """The text's `[at]`/`(dot)` and spelled-out "x at y dot z" addresses written plainly
    (`hits`: where the hints are, when the caller found them: _hint_starts)."""
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
        parts += _plain(text[a:z])
    return "\n".join(parts)


def _plain(window: str) -> list[str]:
    """The addresses of a window written plainly: the window with its bracketed forms
    replaced, and each spelled-out or mixed address on its own."""
    plain = _OBF_DOT.sub(".", _OBF_AT.sub("@", window))
    out = [plain]
    out += [f"{x.group(1)}@{_SPELLED_DOT.sub('.', x.group(2))}" for x in _SPELLED.finditer(window)]
    for x in _MIXED.finditer(plain):
        # An address written plainly throughout is the scanner's own; only a spelled word makes
        # this one new.
        if x.group(2) != "@" or _SPELLED_DOT.search(x.group(3)):
            out.append(f"{x.group(1)}@{_SPELLED_DOT.sub('.', x.group(3))}")
    return out


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
        starts = _hint_starts(fold)  # byte offsets are character offsets
        if not starts:
            return
    elif not any(c in b for c in _CLOSERS) and b"dot" not in fold and _AT_WORD_ANY.search(text) is None:
        return
    plain = _deobfuscated(text, starts)
    if plain:
        for _, raw in _SCANNER.emails(plain.encode("utf-8", "replace")):
            yield from _email_values(raw, memo)


def _strings(obj: Any) -> tuple[list[str], bool]:
    """What _walk(obj) yields, in its order, as a list, and whether anything was left out for
    being nested deeper than MAX_DEPTH (the result then counts as truncated: a value hidden
    that deep must not go unrecorded with the ledger still whole). The common JSON nodes (str,
    dict, list of their exact types) are read inline: a generator per node costs more than the
    scan of the text it yields."""
    out: list[str] = []
    cut = _collect(obj, 0, out)
    return out, cut


def _collect(obj: Any, depth: int, out: list[str]) -> bool:
    """_walk's reading of obj into out; whether anything was too deep to read."""
    if depth > MAX_DEPTH:
        return obj is not None and not isinstance(obj, bool)
    t = type(obj)
    cut = False
    if t is dict:
        for k, v in obj.items():
            out.append(k if type(k) is str else str(k))
            if type(v) is str:
                if depth < MAX_DEPTH:
                    out.append(v)
                else:
                    cut = True
            else:
                cut = _collect(v, depth + 1, out) or cut
    elif t is list:
        for v in obj:
            if type(v) is str:
                if depth < MAX_DEPTH:
                    out.append(v)
                else:
                    cut = True
            else:
                cut = _collect(v, depth + 1, out) or cut
    elif isinstance(obj, str):
        out.append(obj)
    elif isinstance(obj, bool) or obj is None:
        pass
    elif isinstance(obj, int | float):
        s = str(obj)
        if len(s) >= 7:
            out.append(s)
    elif isinstance(obj, dict):
        for k, v in obj.items():
            out.append(str(k))
            cut = _collect(v, depth + 1, out) or cut
    elif isinstance(obj, list | tuple):
        for v in obj:
            cut = _collect(v, depth + 1, out) or cut
    return cut


def _walk(obj: Any, depth: int = 0) -> Iterator[str]:
    if depth > MAX_DEPTH:
        return
    if isinstance(obj, str):
        yield obj
    elif isinstance(obj, bool) or obj is None:
        return
    elif isinstance(obj, int | float):
        s = str(obj)
        if len(s) >= 7:
            yield s
    elif isinstance(obj, dict):
        for k, v in obj.items():
            yield str(k)
            yield from _walk(v, depth + 1)
    elif isinstance(obj, list | tuple):
        for v in obj:
            yield from _walk(v, depth + 1)


def as_text(result: Any) -> tuple[str | None, Any, bool]:
    """(text, parsed JSON, truncated): a result as Hermes passes it (usually a JSON string)."""
    if isinstance(result, str):
        truncated = len(result) > MAX_SCAN
        text = result[:MAX_SCAN] if truncated else result
        head = text.lstrip()[:1]
        if head in ("{", "[", '"') and not truncated:
            try:
                return None, json.loads(text), False
            except ValueError:
                pass
        return text, None, truncated
    if result is None:
        return "", None, False
    return None, result, False


def extract(result: Any, home: str = "") -> tuple[set[Value], bool]:
    """(values, truncated) of one tool result or other untrusted text."""
    text, parsed, truncated = as_text(result)
    if text is None:
        text, cut = _json_text(parsed)
        truncated = truncated or cut
    found = set(scan_text(text, home))
    # JSON escapes in what was read raw (JSON after a prefix or cut short, a string literal, an
    # encoding too deep to parse) spell values only once undone: each decoding is read too.
    # One byte test first: text without a backslash costs nothing more.
    if "\\" in text:
        decoded, cut = _unescaped(text)
        truncated = truncated or cut
        for plain in decoded:
            found.update(scan_text(plain, home))
    return found, truncated


def _json_text(parsed: Any) -> tuple[str, bool]:
    """The strings of a JSON result as one text, a line each (no value spans a newline: one
    scan instead of one per string), JSON text inside them read as JSON again (_nested); and
    whether anything was left out (too deep, past MAX_SCAN)."""
    strings, deep = _strings(parsed)
    joined = "\n".join(strings)
    # What the loop below builds, when nothing is cut and no string may hold JSON: a string
    # whose stripped start is `{` or `[` begins a line of the joined text with whitespace (of
    # the same \s as str.strip) before it; a match elsewhere only sends the text the long way.
    if len(joined) < MAX_SCAN and not _may_hold_json(joined):
        return joined, deep
    truncated = deep
    budget = MAX_SCAN
    lines: list[str] = []
    for whole in strings:
        if budget <= 0:
            truncated = True
            break
        s = whole[:budget]
        truncated = truncated or len(s) < len(whole)
        budget -= len(s) + 1
        # A string inside JSON may itself be JSON (MCP results wrap their payload so): its
        # escapes (\u0040) must be undone before the patterns see it. The strings of a document
        # are no longer than its text, so what the budget let through bounds every level.
        truncated = _nested(s, 1, lines) or truncated
    return "\n".join(lines), truncated


# JSON text inside a string is read as JSON again, this many documents deep (an API answer's
# body inside an HTTP result inside MCP text content: 2); a string that is JSON text past it is
# read as text and the result counts as truncated. Each level reads at most the text of the one
# before, so a result costs at most MAX_NEST parses of MAX_SCAN bytes. The same bound serves
# the escapes: text is decoded at most MAX_NEST times (one level of encoding each).
MAX_NEST = 4


def _nested(s: str, level: int, lines: list[str]) -> bool:
    """s into lines: s itself, or where it is JSON text, the strings of that document, each
    read so one level further; whether anything was left out (nested past MAX_DEPTH in a
    document, or JSON text past MAX_NEST)."""
    inner = _json_in(s)
    if inner is None:
        lines.append(s)
        return False
    if level > MAX_NEST:
        lines.append(s)
        return True
    strings, truncated = _strings(inner)
    joined = "\n".join(strings)
    if not _may_hold_json(joined):  # (as in _json_text: none of them is JSON text)
        lines.append(joined)
        return truncated
    for t in strings:
        truncated = _nested(t, level + 1, lines) or truncated
    return truncated


def _may_hold_json(joined: str) -> bool:
    return _JSON_START.match(joined) is not None or _JSON_LINE.search(joined) is not None


_JSON_START = re.compile(r"\s*[\[{]")
_JSON_LINE = re.compile(r"\n\s*[\[{]")  # a literal first: one fast pass


def _json_in(s: str) -> Any:
    head = s.lstrip()[:1]
    if head not in ("{", "["):
        return None
    try:
        return json.loads(s)
    except ValueError:
        return None


# A JSON escape: what json.loads undoes in a string.
_JSON_ESCAPE = re.compile(r'\\(?:u[0-9a-fA-F]{4}|["\\/bfnrt])')
_ESCAPED = {"\\" + k: c for k, c in zip('"\\/bfnrt', '"\\/\b\f\n\r\t', strict=True)}


def _unescape(m: re.Match[str]) -> str:
    e = m.group(0)
    # A lone surrogate stays one: the scan encodes it as "?" (no value holds one).
    return chr(int(e[2:], 16)) if e[1] == "u" else _ESCAPED[e]


def _unescaped(text: str) -> tuple[list[str], bool]:
    """The text with its JSON escapes undone, once per level of encoding (each decoding of the
    one before, up to MAX_NEST), and whether escapes were still left past that (truncated)."""
    out: list[str] = []
    for _ in range(MAX_NEST):
        text, n = _JSON_ESCAPE.subn(_unescape, text)
        if not n:
            return out, False
        out.append(text)
    return out, _JSON_ESCAPE.search(text) is not None
