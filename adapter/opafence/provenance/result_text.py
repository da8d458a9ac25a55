"""A tool result as the text its values are scanned in: JSON read as JSON (its strings, keys and
long numbers; JSON text inside a string read again, MAX_NEST deep), JSON escapes undone, all of
it bounded (MAX_SCAN, MAX_DEPTH); whatever was left out makes the result truncated."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

# A result longer than this is scanned up to here only; the caller marks the task lossy.
MAX_SCAN = 1 << 20
MAX_DEPTH = 32


def strings_of(obj: Any) -> tuple[list[str], bool]:
    """What walk(obj) yields, in its order, as a list, and whether anything was left out for
    being nested deeper than MAX_DEPTH (the result then counts as truncated: a value hidden
    that deep must not go unrecorded with the ledger still whole). The common JSON nodes (str,
    dict, list of their exact types) are read inline: a generator per node costs more than the
    scan of the text it yields."""
    out: list[str] = []
    cut = _collect(obj, 0, out)
    return out, cut


def _collect(obj: Any, depth: int, out: list[str]) -> bool:
    """walk's reading of obj into out; whether anything was too deep to read."""
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


def walk(obj: Any, depth: int = 0) -> Iterator[str]:
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
            yield from walk(v, depth + 1)
    elif isinstance(obj, list | tuple):
        for v in obj:
            yield from walk(v, depth + 1)


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


def json_text(parsed: Any) -> tuple[str, bool]:
    """The strings of a JSON result as one text, a line each (no value spans a newline: one
    scan instead of one per string), JSON text inside them read as JSON again (_nested); and
    whether anything was left out (too deep, past MAX_SCAN)."""
    strings, deep = strings_of(parsed)
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
    strings, truncated = strings_of(inner)
    joined = "\n".join(strings)
    if not _may_hold_json(joined):  # (as in json_text: none of them is JSON text)
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


def unescaped(text: str) -> tuple[list[str], bool]:
    """The text with its JSON escapes undone, once per level of encoding (each decoding of the
    one before, up to MAX_NEST), and whether escapes were still left past that (truncated)."""
    out: list[str] = []
    for _ in range(MAX_NEST):
        text, n = _JSON_ESCAPE.subn(_unescape, text)
        if not n:
            return out, False
        out.append(text)
    return out, _JSON_ESCAPE.search(text) is not None
