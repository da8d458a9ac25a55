"""Terminals and multiplexers (screen, tmux, xterm ...) and expect: commands they start and
text they type into a shell.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from opafence.facts.shell.carry import carried_argv, carried_body
from opafence.facts.shell.model import Field, State
from opafence.facts.shell.tables import TMUX_KEY, TMUX_KEYS, TMUX_VALUES

if TYPE_CHECKING:
    from opafence.facts.shell.walker import Walker


def expect(w: Walker, argv: list[Field], st: State) -> None:
    for i, f in enumerate(argv[1:], start=1):
        if f.text == "-c" and i + 1 < len(argv):
            script = argv[i + 1]
            w.col.opaque("expect_e")  # Tcl: not parsed
            if script.dynamic:
                return
            for m in re.finditer(r"(?:^|[;\n\[{])\s*(?:spawn|exec)\s+(?:-\S+\s+)*([^;\n\]}]+)", script.text):
                w._body(m.group(1), st, "shell_c")
            return


def screen(w: Walker, argv: list[Field], st: State) -> None:
    i = 1
    n = len(argv)
    while i < n:
        t = argv[i].text
        if t in ("-ls", "-list", "-wipe", "-v", "-version", "-r", "-R", "-x", "-Q", "-help"):
            return
        if t == "-X":
            words = argv[i + 1 :]
            if len(words) > 1 and words[0].text == "stuff":
                typed(w, words[1], st)
            elif words and words[0].text in ("exec", "screen"):
                rest = [w for w in words[1:] if not re.fullmatch(r"[.!:|]+", w.text)]
                carried_argv(w, rest, st, "screen")
            return
        if not t.startswith("-"):
            break
        i += 2 if t in ("-Logfile", "-logfile") or (len(t) >= 2 and t[-1] in "ScehpstT") else 1
    carried_argv(w, argv[i:], st, "screen")


def typed(w: Walker, keys: Field, st: State) -> None:
    """Text typed into a shell (screen stuff, tmux send-keys): each line runs."""
    if keys.dynamic:
        w.col.opaque("shell_dynamic_body")
        return
    text = re.sub(r"\\n|\\r|\^M|\\015|\\012", "\n", keys.text)
    if text.strip():
        w._body(text, st, "shell_c")


def tmux(w: Walker, argv: list[Field], st: State) -> None:
    i = 1
    n = len(argv)
    while i < n and argv[i].text.startswith("-"):
        t = argv[i].text
        if t == "-c" and i + 1 < n:
            carried_body(w, argv[i + 1], st)
            return
        i += 2 if t in ("-L", "-S", "-f", "-T") else 1
    command: list[Field] = []
    for f in [*argv[i:], Field(";")]:
        if f.text == ";" and not f.dynamic:
            if command:
                tmux_command(w, command, st)
            command = []
        elif f.text.endswith("\\;") or (f.text.endswith(";") and len(f.text) > 1 and not command):
            command.append(Field(f.text.rstrip(";").rstrip("\\"), f.dynamic))
            tmux_command(w, command, st)
            command = []
        else:
            command.append(f)


def tmux_command(w: Walker, words: list[Field], st: State) -> None:
    sub = words[0].text
    values = TMUX_VALUES.get(sub)
    if values is None:
        return
    literal = False
    hexkeys = False
    i = 1
    while i < len(words) and words[i].text.startswith("-") and len(words[i].text) > 1:
        t = words[i].text
        if t == "--":
            i += 1
            break
        literal = literal or "l" in t[1:]
        hexkeys = hexkeys or "H" in t[1:]
        i += 2 if t[-1] in values and len(t) == 2 else 1
    rest = words[i:]
    if not rest:
        return
    if sub in ("send-keys", "send"):
        if hexkeys or any(f.dynamic for f in rest):
            w.col.opaque("shell_dynamic_body")
            return
        parts = [
            f.text if literal else TMUX_KEYS.get(f.text, "" if TMUX_KEY.fullmatch(f.text) else f.text)
            for f in rest
        ]
        typed(w, Field("".join(parts)), st)
    elif sub in ("if-shell", "if"):
        carried_body(w, rest[0], st)
    elif any(f.dynamic for f in rest):
        w.col.opaque("shell_dynamic_body")
    else:
        w._body(" ".join(f.text for f in rest), st, "shell_c")


def terminal(w: Walker, name: str, argv: list[Field], st: State) -> None:
    for i, f in enumerate(argv[1:], start=1):
        if f.text in ("-e", "-x", "--") and i + 1 < len(argv):
            rest = argv[i + 1 :]
            if name == "gnome-terminal" and f.text == "-e":
                carried_body(w, rest[0], st)
            else:
                carried_argv(w, rest, st, name)
            return
