"""A tool call's arguments as strings: every string inside the JSON value with the argument it
sits in (bounded), its word tokens, and the secret kinds found in them."""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from typing import Any

from opafence.facts import secrets
from opafence.facts.collect import Collector

MAX_WORDS = 256
MAX_WALK_DEPTH = 8
MAX_WALK_ITEMS = 4096
MAX_SECRET_SCAN = 4 << 20


def strings(
    value: Any, key: str, depth: int = 0, budget: list[int] | None = None
) -> Iterator[tuple[str, str]]:
    """(nearest key, string) for every string inside a JSON value, bounded. budget is
    [items left, 1 if something was left out]."""
    budget = budget if budget is not None else [MAX_WALK_ITEMS, 0]
    if budget[0] <= 0 or depth > MAX_WALK_DEPTH:
        budget[1] = 1
        return
    budget[0] -= 1
    if isinstance(value, str):
        yield key, value
    elif isinstance(value, Mapping):
        for k, v in value.items():
            yield from strings(v, str(k), depth + 1, budget)
    elif isinstance(value, list | tuple):
        for item in value:
            yield from strings(item, key, depth + 1, budget)


def utf8_len(text: str) -> int:
    return len(text.encode("utf-8", "surrogatepass"))


_WORD = re.compile(r"[^\W_]+")
_CAMEL_SPLIT = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|\d+")


def flatten(args: Mapping[str, Any], col: Collector) -> list[tuple[str, str]]:
    """(top-level argument name, string) for every string in the arguments, bounded."""
    budget = [MAX_WALK_ITEMS, 0]
    flat = [
        (str(name), text) for name, value in args.items() for _, text in strings(value, str(name), 0, budget)
    ]
    if budget[1]:
        # Strings nested deeper or further than the bound were not looked at.
        col.opaque("args_too_large")
    return flat


_ASCII_SEPARATORS = bytes(b for b in range(128) if not chr(b).isalnum())
_TO_SPACE = bytes.maketrans(_ASCII_SEPARATORS, b" " * len(_ASCII_SEPARATORS))


def _tokens(part: str) -> list[str]:
    """Unique runs of letters and digits (ASCII text takes a path four times faster than re)."""
    if part.isascii():
        return [t.decode("ascii") for t in dict.fromkeys(part.encode("ascii").translate(_TO_SPACE).split())]
    return list(dict.fromkeys(_WORD.findall(part)))


def words(flat: list[tuple[str, str]]) -> list[str]:
    """Lower-case word tokens of all string values; short values (names, paths, commands) first
    so that a long content argument cannot push them out of the bound."""
    values = sorted((s for _, s in flat), key=len)
    out: dict[str, None] = {}
    for text in values:
        for start in range(0, len(text), 8192):
            # tokens of a slice, deduplicated in C, keep long contents cheap
            for token in _tokens(text[start : start + 8192]):
                low = token.lower()
                if len(low) >= 2:
                    out[low] = None
                if not (token.islower() or token.isupper() or token.isdigit()):
                    for part in _CAMEL_SPLIT.findall(token):
                        if len(part) >= 2:
                            out[part.lower()] = None
                if len(out) >= MAX_WORDS:
                    return list(out)[:MAX_WORDS]
    return list(out)


def secret_kinds(flat: list[tuple[str, str]], col: Collector) -> list[dict[str, str]]:
    found: list[dict[str, str]] = []
    seen: set[tuple[str, str]] = set()
    budget = MAX_SECRET_SCAN
    for name, text in flat:
        if budget < len(text):
            col.opaque("secret_scan_truncated")
            break
        budget -= len(text)
        for kind in secrets.find_kinds(text):
            if (name, kind) not in seen:
                seen.add((name, kind))
                found.append({"arg": name, "kind": kind})
    return found
