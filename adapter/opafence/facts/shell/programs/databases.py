"""Database shells (psql, mysql, sqlite3): their shell escapes."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from opafence.facts.shell.carry import option_value
from opafence.facts.shell.interpreters import stdin_program
from opafence.facts.shell.model import Feed, Field, State, Stdin

if TYPE_CHECKING:
    from opafence.facts.shell.walker import Walker


_DB_SHELL = re.compile(
    r"(?m)(?:^|;|\\\\)\s*(?:\\!|\.shell\b|\.system\b|system\b)\s*([^\n]*)"
    r"|\\[og]\s*\|\s*([^\n]*)"
    r"|(?i:\bprogram\s+)'((?:''|[^'])*)'"
)


def db_shell(w: Walker, name: str, argv: list[Field], st: State, feed: Feed, stdin: Stdin | None) -> None:
    """Database shells run shell commands: psql `\\!`, `\\o |cmd`, COPY … PROGRAM; mysql
    `system` / `\\!`; sqlite3 `.shell` / `.system`."""
    texts: list[str] = []
    for i in range(1, len(argv)):
        for opt in ("-c", "--command", "-e", "--execute", "-cmd"):
            value, took = option_value(w, argv, i, opt)
            if took and value is not None and not value.dynamic:
                texts.append(value.text)
    if name == "sqlite3":
        texts.extend(f.text for f in argv[2:] if not f.text.startswith("-") and not f.dynamic)
    program, _context = stdin_program(w, feed, stdin)[:2]
    if program is not None:
        texts.append(program)
    for text in texts:
        for m in _DB_SHELL.finditer(text):
            body = next(g for g in m.groups() if g is not None)
            w._body(body.replace("''", "'"), st, "shell_c")
