"""Shared by the program handlers: option values, and commands carried as a body (run
through a shell) or as words (an argument vector) of another command.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from opafence.facts import paths
from opafence.facts.collect import MAX_DEPTH
from opafence.facts.shell.model import Field, State
from opafence.facts.shell.tables import OPTION_BODIES

if TYPE_CHECKING:
    from opafence.facts.shell.walker import Walker


def option_value(w: Walker, argv: list[Field], i: int, opt: str) -> tuple[Field | None, int]:
    """The value argv[i] gives option opt (its own word after it, after `=`, or attached to a
    short option), and how many words it took; (None, 0) when argv[i] is not opt."""
    t = argv[i].text
    if t == opt:
        return (argv[i + 1], 2) if i + 1 < len(argv) else (None, 1)
    if opt.startswith("--") and t.startswith(opt + "="):
        return Field(t[len(opt) + 1 :], argv[i].dynamic), 1
    if len(opt) == 2 and t.startswith(opt) and len(t) > 2 and not t.startswith("--"):
        return Field(t[2:], argv[i].dynamic), 1
    return None, 0


def carried_body(w: Walker, body: Field, st: State, context: str = "shell_c") -> None:
    if body.dynamic:
        w.col.opaque("decode_and_run" if body.decoded else "shell_dynamic_body")
    elif body.text.strip():
        w._body(body.text, st, context)


def carried_argv(w: Walker, argv: list[Field], st: State, wrapper: str, context: str | None = None) -> None:
    """A command given as words of another one (screen CMD, docker run IMG CMD ...)."""
    if not argv:
        return
    sub = st.fork(context, deeper=True)
    if sub.depth > MAX_DEPTH:
        w.col.opaque("shell_too_deep")
        return
    w._emit_argv(argv, sub, [wrapper])


def option_bodies(w: Walker, name: str, argv: list[Field], st: State) -> None:
    table = OPTION_BODIES[name]
    i = 1
    n = len(argv)
    while i < n:
        t = argv[i].text
        if t == "--":
            break
        took = 0
        if t.startswith("-"):
            for opt, kind in table.items():
                value, took = option_value(w, argv, i, opt)
                if took:
                    if value is None:
                        break
                    if kind == "tar_action":
                        # --checkpoint-action=exec=CMD (other actions print or wait)
                        if value.dynamic:
                            carried_body(w, value, st)
                        elif value.text.startswith("exec="):
                            carried_body(w, Field(value.text[5:]), st)
                    elif kind == "attached" and took == 2:
                        took = 1  # an optional value must be attached (`--html=CMD`)
                    else:
                        carried_body(w, value, st)
                    break
        i += took or 1


def git_words_body(w: Walker, words: list[Field], st: State) -> None:
    if not words:
        return
    if any(f.dynamic for f in words):
        w.col.opaque("shell_dynamic_body")
        return
    w._body(" ".join(f.text for f in words), st, "shell_c")


def host_path(w: Walker, raw: str, st: State, op: str, unknown: str = "shell_dynamic_mount") -> None:
    text = raw
    if text.startswith("~"):
        text, bad = paths.expand_tilde(text, w.col.home, st.cwd or "")
        if bad:
            w.col.opaque(bad)
            return
    if paths.problem(text) or (not text.startswith("/") and st.cwd is None):
        w.col.opaque(unknown)
        return
    w.col.add_path(raw, paths.resolve(text, st.cwd or "/", w.col.cache), w.col.arg, "command", op)
