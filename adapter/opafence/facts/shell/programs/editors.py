"""Editors and pagers (vim, emacs, less): Ex commands, Lisp and pager commands that run a
shell.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from opafence.facts.shell.carry import carried_argv, option_value
from opafence.facts.shell.interpreters import INLINE_CALL, STRING_LIST
from opafence.facts.shell.model import Field, State
from opafence.facts.shell.words import unescape_literal

if TYPE_CHECKING:
    from opafence.facts.shell.walker import Walker


_EMACS_SHELL = re.compile(r'\((?:async-)?shell-command(?:-to-string)?\s+"((?:\\.|[^"\\])*)"')


# (call-process "prog" nil nil nil "arg" ...), (start-process "name" buf "prog" "arg" ...)
_EMACS_PROCESS = re.compile(
    r'\((?:call-process|process-lines)\s+((?:"(?:\\.|[^"\\])*"\s*(?:nil|t|\s)*)+)'
    r'|\(start-process\s+"[^"]*"\s+(?:nil|"[^"]*")\s+((?:"(?:\\.|[^"\\])*"\s*)+)'
)


_VIM_BANG = re.compile(r"^[:\s]*(?:sil(?:ent)?!?\s+)?[%.,$0-9'<>+\-]*!(?!\s*$)(.*)$", re.S)


_VIM_READ_WRITE_BANG = re.compile(
    r"^[:\s]*(?:sil(?:ent)?!?\s+)?(?:r|re|rea|read|w|wr|wri|writ|write)\s+!(.*)$", re.S
)


_VIM_SCRIPT = re.compile(
    r"(?:^|[|:\s])(?:py(?:thon)?3?|pyx|pyfile|py3file|lua|luafile|perl|ruby|rubyfile|tcl|mz|so|source|runtime"
    r"|exe|execute|call|term|terminal|norm|normal|redir)\b|system\s*\(|systemlist\s*\(|job_start|jobstart"
)


def vim(w: Walker, argv: list[Field], st: State) -> None:
    i = 1
    while i < len(argv):
        f = argv[i]
        t = f.text
        if t == "--":
            return
        if t in ("-c", "--cmd") and i + 1 < len(argv):
            vim_command(w, argv[i + 1], st)
            i += 2
            continue
        if t.startswith("+") and len(t) > 1:
            vim_command(w, Field(t[1:], f.dynamic), st)
        elif t in ("-S", "-s", "-u", "--startuptime") or (t.startswith("-S") and len(t) > 2):
            if t in ("-S", "-s") or t.startswith("-S"):
                w.col.opaque("vim_exec")  # sources a script we cannot see
            i += 2 if t in ("-S", "-s", "-u", "--startuptime") else 1
            continue
        i += 1


def vim_command(w: Walker, cmd: Field, st: State) -> None:
    """An Ex command: `!cmd`, `%!cmd`, `r !cmd`, `w !cmd` run a shell command; system() a
    literal one; a script language or `:source` is opaque."""
    if cmd.dynamic:
        w.col.opaque("vim_exec")
        return
    m = _VIM_BANG.match(cmd.text) or _VIM_READ_WRITE_BANG.match(cmd.text)
    if m:
        w._body(m.group(1), st, "shell_c")
        return
    if _VIM_SCRIPT.search(cmd.text):
        w.col.opaque("vim_exec")
    for c in INLINE_CALL.finditer(cmd.text):
        words = [unescape_literal(w.group(2)) for w in STRING_LIST.finditer(c.group("args") or "")]
        if words:
            w._body(" ".join(words), st, "shell_c")


def less(w: Walker, argv: list[Field], st: State) -> None:
    for f in argv[1:]:
        if f.text.startswith("+") and not f.dynamic:
            m = re.match(r"\+{1,2}(?:!|\|.)\s*(.*)$", f.text, re.S)
            if m:
                w._body(m.group(1), st, "shell_c")


def emacs(w: Walker, argv: list[Field], st: State) -> None:
    """emacs --eval / -l: Lisp is opaque; shell-command and call-process literals are shown."""
    for i in range(1, len(argv)):
        t = argv[i].text
        if t in ("-l", "--load", "-f", "--funcall", "--script", "-x") or t.startswith(
            ("--load=", "--funcall=")
        ):
            w.col.opaque("emacs_eval")
        for opt in ("--eval", "-eval", "--execute", "-execute"):
            value, took = option_value(w, argv, i, opt)
            if not took or value is None:
                continue
            w.col.opaque("emacs_eval")
            if value.dynamic:
                break
            for m in _EMACS_SHELL.finditer(value.text):
                w._body(unescape_literal(m.group(1)), st, "shell_c")
            for m in _EMACS_PROCESS.finditer(value.text):
                words = [
                    unescape_literal(w.group(1))
                    for w in re.finditer(r'"((?:\\.|[^"\\])*)"', m.group(1) or m.group(2) or "")
                ]
                carried_argv(w, [Field(w) for w in words], st, "emacs")
            break
