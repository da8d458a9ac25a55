"""Decoders (base64 -d, xxd -r, rev, tr ...) and what echo/printf print: literal input
decoded here is shown; other decoded data reaching an interpreter is opaque.
"""

from __future__ import annotations

import base64
import re
from typing import TYPE_CHECKING

from opafence.facts.shell.model import MAX_FIELDS, MAX_SOURCE, Feed, Field, Stdin
from opafence.facts.shell.tables import DECODE_FLAGS, DECODERS
from opafence.facts.shell.words import decode_ansi_c

if TYPE_CHECKING:
    from opafence.facts.shell.walker import Walker


def decode_literal(
    name: str, argv: list[Field], operands: list[Field], feed: Feed, stdin: Stdin | None
) -> str | None:
    """What a decoder prints for literal input (`echo cm0= | base64 -d`, `rev <<< x`), or None."""
    if [f for f in operands if f.text != "-"] and name != "tr":
        return None
    if stdin is not None:
        text = stdin.text if stdin.kind in ("herestring", "heredoc") else None
    else:
        text = feed.content if feed.kind != "unknown" else None
    if text is None or len(text) > MAX_SOURCE:
        return None
    try:
        if name in ("base64", "base32"):
            packed = "".join(text.split())
            raw = (
                base64.b64decode(packed + "=" * (-len(packed) % 4))
                if name == "base64"
                else base64.b32decode(packed)
            )
            return raw.decode("utf-8")
        if name == "rev":
            return "\n".join(line[::-1] for line in text.split("\n"))
        if name == "xxd" and any(f.text in ("-p", "-ps", "-plain") for f in argv):
            return bytes.fromhex("".join(text.split())).decode("utf-8")
        if name == "tr" and len(operands) == 2 and not [f for f in argv[1:] if f.text.startswith("-")]:
            table = _tr_table(operands[0].text, operands[1].text)
            return text.translate(table) if table is not None else None
    except (ValueError, UnicodeDecodeError):
        return None
    return None


def _tr_table(set1: str, set2: str) -> dict[int, int] | None:
    def expand(spec: str) -> str | None:
        if "[" in spec or "\\" in spec:
            return None
        out: list[str] = []
        i = 0
        while i < len(spec):
            if i + 2 < len(spec) and spec[i + 1] == "-" and ord(spec[i]) <= ord(spec[i + 2]):
                out.extend(chr(c) for c in range(ord(spec[i]), ord(spec[i + 2]) + 1))
                i += 3
            else:
                out.append(spec[i])
                i += 1
        return "".join(out)

    a, b = expand(set1), expand(set2)
    if not a or not b or len(a) > 512:
        return None
    b = b + b[-1] * (len(a) - len(b))
    return {ord(x): ord(y) for x, y in zip(a, b, strict=False)}


# Text whose only escapes are layout ones (\n, \t, ...): printing it decodes nothing hidden.
SIMPLE_ESCAPES = re.compile(r"(?:[^\\%]|%%|\\[ntr\\\"'])*", re.S)


def printf_output(fmt: str, args: list[str]) -> str | None:
    """What printf prints for a format of plain text, layout escapes, %s and %%; None for any
    other directive or escape (hex, octal, %b ... decode data: the caller calls that decoded)."""
    pieces = re.split(r"(%%|%s)", fmt)
    if not all(SIMPLE_ESCAPES.fullmatch(p) for p in pieces[::2]) or len(args) > MAX_FIELDS:
        return None
    conversions = pieces[1::2].count("%s")
    out: list[str] = []
    rest = list(args)
    while True:
        for k, p in enumerate(pieces):
            if k % 2 == 0:
                out.append(decode_ansi_c(p) or "")
            elif p == "%%":
                out.append("%")
            else:
                out.append(rest.pop(0) if rest else "")
        if not rest or not conversions:
            break
    return "".join(out)


def is_decoder(w: Walker, name: str, argv: list[Field]) -> bool:
    if name in DECODERS:
        return True
    if name == "tr":
        return True
    want = DECODE_FLAGS.get(name)
    if want is None:
        return False
    texts = [f.text for f in argv[1:]]
    if name == "openssl":
        return any(t in ("enc", "base64") for t in texts) and any(t in ("-d", "-a", "-base64") for t in texts)
    for t in texts:
        if t in want:
            return True
        if t.startswith("-") and not t.startswith("--") and any(f"-{c}" in want for c in t[1:]):
            return True
    return False
