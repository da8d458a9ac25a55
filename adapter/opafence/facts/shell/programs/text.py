"""Text tools that run commands: awk system() and pipes, sed's e command."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from opafence.facts.shell.interpreters import INLINE_SOCKET
from opafence.facts.shell.model import Field, State
from opafence.facts.shell.words import unescape_literal

if TYPE_CHECKING:
    from opafence.facts.shell.walker import Walker


_AWK_COMMAND = re.compile(
    r'\bsystem\s*\(\s*"((?:\\.|[^"\\])*)"\s*\)|\|&?\s*"((?:\\.|[^"\\])*)"|"((?:\\.|[^"\\])*)"\s*\|&?\s*getline'
)


def awk(w: Walker, argv: list[Field], st: State) -> None:
    for f in argv[1:]:
        t = f.text
        if re.search(r"\bsystem\s*\(|\|\s*getline|\|&|print[f]?[^;{}]*\|\s*[\"a-zA-Z_]", t):
            w.col.opaque("awk_exec")
            # system("cmd"), print … | "cmd", "cmd" | getline: the literal command lines
            for m in _AWK_COMMAND.finditer(t):
                body = m.group(1) or m.group(2) or m.group(3) or ""
                if body:
                    w._body(unescape_literal(body), st, "shell_c")
            if INLINE_SOCKET.search(t):
                w.col.opaque("inline_socket_exec")
            return


def sed(w: Walker, argv: list[Field]) -> None:
    for f in argv[1:]:
        t = f.text
        if re.search(r"(?:^|[;\n{}])\s*e(?:\s|$|;)", t) or re.search(
            r"(?:^|[;\n{}])\s*s(.)(?:(?!\1).|\\.)*\1(?:(?!\1).|\\.)*\1[gpiImMw0-9]*e", t
        ):
            w.col.opaque("sed_exec")
            return
