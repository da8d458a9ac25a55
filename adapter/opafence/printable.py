"""Text that came from the agent or a tool, made safe to show a person.

Commands, paths and recipients are chosen by the model (or by whatever it read), so before
they reach a terminal (notices, `/fence`, `opafence log`, approval prompts, stderr) they lose
ANSI/OSC escape sequences (which can recolour, retitle, hide or rewrite what the person sees,
or write to the clipboard), every other control character, and the Unicode bidi controls
that make text display in another order than it reads ("Trojan Source"). One function, used
everywhere such text is printed."""

from __future__ import annotations

import re

# ESC [ … final (CSI), ESC ] … BEL/ST (OSC, also unterminated to the end), ESC P/X/^/_ … ST
# (DCS, SOS, PM, APC), then any other two-byte ESC sequence. 8-bit CSI/OSC (0x9b, 0x9d) are
# C1 controls and go with them.
_ESCAPES = re.compile(
    r"\x1b\[[0-?]*[ -/]*[@-~]?"
    r"|\x1b\][^\x07\x1b\x9c]*(?:\x07|\x1b\\|\x9c|$)"
    r"|\x1b[PX^_][^\x1b\x9c]*(?:\x1b\\|\x9c|$)"
    r"|\x1b.?"
    r"|\x9b[0-?]*[ -/]*[@-~]?"
    r"|\x9d[^\x07\x9c]*(?:\x07|\x9c|$)",
    re.DOTALL,
)
# Bidi embeddings, overrides and isolates, and the implicit marks.
_BIDI = "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200e\u200f\u061c"
_CONTROLS = re.compile("[\x00-\x1f\x7f-\x9f" + _BIDI + "]")
_SPACES = re.compile(r"[ \t\r\n]+")


def printable(text: object, limit: int | None = None) -> str:
    """`text` as one line a terminal shows as it reads: escapes, control characters and bidi
    controls removed, runs of whitespace (newlines included) made one space, and cut to
    `limit` characters with an ellipsis when it is longer."""
    raw = text if isinstance(text, str) else str(text)
    out = _ESCAPES.sub("", raw)
    out = _SPACES.sub(" ", out)
    out = _CONTROLS.sub("", out).strip()
    if limit is not None and len(out) > limit:
        out = out[: max(1, limit - 1)].rstrip() + "…"
    return out


def printable_lines(text: object) -> str:
    """Like printable(), keeping line breaks: for multi-line output such as `/fence`."""
    raw = text if isinstance(text, str) else str(text)
    return "\n".join(printable(line) for line in raw.split("\n"))


def lockdown_status(reason: str) -> str:
    """How a lockdown is named wherever a person reads it (stderr, /fence, opafence audit)."""
    return f"LOCKED DOWN: every tool call is blocked because {printable(reason).rstrip('.')}"
