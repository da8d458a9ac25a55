"""printable(): what the agent or a tool wrote, shown to a person only as the text it reads."""

from __future__ import annotations

import pytest

from opafence.printable import lockdown_status, printable, printable_lines

CASES = [
    # (raw, shown)
    ("rm -rf build", "rm -rf build"),
    ("\x1b[31mred\x1b[0m text", "red text"),
    ("\x1b[2K\x1b[1Aoverwrite the line above", "overwrite the line above"),
    ("title\x1b]0;pwned\x07 after", "title after"),
    ("clip\x1b]52;c;ZXZpbA==\x1b\\ after", "clip after"),
    ("unterminated \x1b]8;;http://x.test/", "unterminated"),
    ("dcs \x1bPq#0;2;0;0;0\x1b\\ end", "dcs end"),
    ("8-bit csi \x9b31m end", "8-bit csi end"),
    ("bell\x07 back\x08space nul\x00", "bell backspace nul"),
    ("two\nlines\r\nand\ttabs", "two lines and tabs"),
    ("/home/a/\u202egnp.exe", "/home/a/gnp.exe"),
    ("isolate \u2066x\u2069 mark\u200f", "isolate x mark"),
    ("ann@exam\u200eple.com", "ann@example.com"),
    ("caf\u00e9 \u4e2d \U0001f468\u200d\U0001f469", "caf\u00e9 \u4e2d \U0001f468\u200d\U0001f469"),
    ("lone escape at end \x1b", "lone escape at end"),
]


@pytest.mark.parametrize(("raw", "shown"), CASES)
def test_printable(raw: str, shown: str) -> None:
    assert printable(raw) == shown


def test_nothing_terminal_active_survives() -> None:
    hostile = "".join(raw for raw, _ in CASES)
    out = printable(hostile)
    assert not any(ord(ch) < 0x20 or 0x7F <= ord(ch) <= 0x9F for ch in out)
    assert not set(out) & set("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200e\u200f\u061c")


def test_limit_cuts_with_an_ellipsis() -> None:
    assert printable("abcdefghij", limit=5) == "abcd…"
    assert printable("abc", limit=5) == "abc"


def test_lines_keep_their_breaks_and_lose_escapes() -> None:
    assert printable_lines("a\x1b[31m1\nb\u202e2") == "a1\nb2"


def test_lockdown_status_names_the_reason() -> None:
    assert lockdown_status("OPA_NOT_FOUND: no opa\x1b[8m.") == (
        "LOCKED DOWN: every tool call is blocked because OPA_NOT_FOUND: no opa"
    )
