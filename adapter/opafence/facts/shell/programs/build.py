"""Build and test tools: make (recipes of --eval text and stdin makefiles), gdb, pytest."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from opafence.facts.shell.carry import carried_argv, host_path, option_value
from opafence.facts.shell.interpreters import INLINE_CALL, STRING_LIST, program_from_stdin
from opafence.facts.shell.model import Feed, Field, State, Stdin
from opafence.facts.shell.words import unescape_literal

if TYPE_CHECKING:
    from opafence.facts.shell.walker import Walker


def _make_recipes(text: str) -> list[str]:
    """The shell lines of a makefile's text: recipe lines (after a tab, or `target: ; cmd`)
    and $(shell …) calls, with make's `$$` made `$` and make variables left unknown."""
    out: list[str] = []
    for line in text.replace("\\\n", " ").split("\n"):
        m = re.match(r"^\t[@+\-]*(.*)$", line)
        rule = re.match(r"^[^\t#=:][^=:#]*::?[^=;#]*;\s*[@+\-]*(.*)$", line)
        body = m.group(1) if m else rule.group(1) if rule else ""
        for call in re.finditer(r"\$\(shell\s+([^)]*)\)", line):
            out.append(call.group(1))
        if body.strip():
            out.append(body)
    return [
        re.sub(r"\$[({]([A-Za-z_][A-Za-z0-9_]*)[)}]", r"${\1}", r.replace("$$", "\x01")).replace("\x01", "$")
        for r in out
    ]


def pytest(w: Walker, argv: list[Field], st: State) -> None:
    """pytest --basetemp=DIR empties DIR before the run (and removes it)."""
    for i in range(1, len(argv)):
        value, took = option_value(w, argv, i, "--basetemp")
        if took and value is not None:
            if value.dynamic:
                w.col.opaque("shell_dynamic_redirect")
            else:
                host_path(w, value.text, st, "delete", "shell_dynamic_cwd")


def gdb(w: Walker, argv: list[Field], st: State) -> None:
    i = 1
    while i < len(argv):
        t = argv[i].text
        if t == "--args":
            carried_argv(w, argv[i + 1 :], st, "gdb")
            return
        value: Field | None = None
        for opt in (
            "-ex",
            "--ex",
            "-iex",
            "--iex",
            "-eval-command",
            "--eval-command",
            "-init-eval-command",
        ):
            if t == opt and i + 1 < len(argv):
                value = argv[i + 1]
                i += 1
            elif t.startswith(opt + "="):
                value = Field(t.partition("=")[2], argv[i].dynamic)
        if t in ("-x", "--command", "-ix", "--init-command") or t.startswith(("--command=", "-x=")):
            w.col.opaque("gdb_exec")
        if value is not None:
            gdb_command(w, value, st)
        i += 1


def gdb_command(w: Walker, cmd: Field, st: State) -> None:
    if cmd.dynamic:
        w.col.opaque("gdb_exec")
        return
    text = cmd.text.strip()
    m = re.match(r"(?:shell\s|!)\s*(.*)$", text, re.S)
    if m:
        w._body(m.group(1), st, "shell_c")
        return
    m = re.match(r"(?:pipe\s|\|)[^|]*\|\s*(.*)$", text, re.S)
    if m:
        w._body(m.group(1), st, "shell_c")
        return
    if re.match(r"(?:python|py|pi|python-interactive|source|guile|gu)\b", text):
        w.col.opaque("gdb_exec")
    for c in INLINE_CALL.finditer(text):
        words = [unescape_literal(w.group(2)) for w in STRING_LIST.finditer(c.group("args") or "")]
        if words:
            w._body(" ".join(words), st, "shell_c")


def make(w: Walker, argv: list[Field], st: State, feed: Feed, stdin: Stdin | None) -> None:
    texts: list[str] = []
    for i in range(1, len(argv)):
        value, took = option_value(w, argv, i, "--eval")
        if not took:
            value, took = option_value(w, argv, i, "-E")
        if took and value is not None:
            if value.dynamic:
                w.col.opaque("shell_dynamic_body")
            else:
                texts.append(value.text)
        for opt in ("-f", "--file", "--makefile"):
            file, ftook = option_value(w, argv, i, opt)
            if (
                ftook
                and file is not None
                and file.text in ("-", "/dev/stdin", "/dev/fd/0", "/proc/self/fd/0")
            ):
                program, _context = program_from_stdin(w, feed, stdin)
                if program is not None:
                    texts.append(program)
    for text in texts:
        for recipe in _make_recipes(text):
            w._body(recipe, st, "shell_c")
