"""Shell commands -> simple commands (docs/contract.md, `shell` and `Command`).

A real grammar (tree-sitter-bash) turns the program into a tree; this package walks it the way
bash would run it: words are expanded (quotes removed, literal concatenations joined, `~`,
`$HOME`, variables assigned earlier in the same program, brace expansion, ANSI-C quoting),
wrappers such as `sudo` or `env` are unwrapped, and the bodies of `eval`, `sh -c`, `python -c`,
here-docs fed to interpreters and command substitutions are parsed recursively.

What cannot be known for certain is marked opaque with a reason instead of guessed: a
command name that comes from an expansion, decoded data that reaches an interpreter, a parse
error, a body nested too deep. Opaque is never a read.

The modules: walker (the Walker, the state of one walk) over grammar (the parser), statements
(lists, pipelines, loops, redirected statements), redirects, expand (word expansion, words for
the pure helpers), assign, commands (a simple command -> a command fact), unwrap and xargs
(wrappers), environment (variables that carry commands), dispatch (what a command does beyond
itself), interpreters (sh -c, python -c, ...) and programs/ (one module per family of programs
that run commands, looked up by name); tables holds the per-program tables.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from opafence.facts.collect import Collector
from opafence.facts.shell.model import Field, State
from opafence.facts.shell.tables import NODES, OTHER_INTERPRETERS, SHELLS, is_python
from opafence.facts.shell.walker import Walker
from opafence.facts.shell.words import decode_ansi_c, expand_flags


def parse_into(
    col: Collector,
    text: str,
    cwd: str | None,
    depth: int = 0,
    context: str = "top",
    code_parser: Callable[..., None] | None = None,
) -> None:
    """Parse a shell program into col (commands, redirect paths, URLs, opacity)."""
    if code_parser is None:
        from opafence.facts import code as code_module

        code_parser = code_module.parse_into
    scope = col.push("shell")
    try:
        st = State(cwd, {}, context, depth)
        Walker(col, code_parser).run(text, st)
    finally:
        col.pop(scope)


def parse_argv_into(
    col: Collector,
    argv: list[str],
    cwd: str | None,
    depth: int,
    context: str,
    code_parser: Callable[..., None] | None = None,
) -> None:
    """A command given as a literal argument vector (subprocess.run(["rm", "-rf", x]))."""
    if code_parser is None:
        from opafence.facts import code as code_module

        code_parser = code_module.parse_into
    scope = col.push("shell")
    try:
        st = State(cwd, {}, context, depth)
        Walker(col, code_parser)._emit_plain([Field(a) for a in argv], st, [])
    finally:
        col.pop(scope)


def parse(text: str, cwd: str, home: str) -> dict[str, Any]:
    """Stand-alone: a shell program -> the `shell` facts object (for tests and `opafence facts`)."""
    col = Collector(home=home, cwd=cwd, arg="command")
    parse_into(col, text, cwd)
    return {"opaque": bool(col.shell_reasons), "opaque_reasons": col.shell_reasons, "commands": col.commands}


__all__ = [
    "NODES",
    "OTHER_INTERPRETERS",
    "SHELLS",
    "Field",
    "Walker",
    "decode_ansi_c",
    "expand_flags",
    "is_python",
    "parse",
    "parse_argv_into",
    "parse_into",
]
