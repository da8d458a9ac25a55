"""xargs: the commands it runs, with its input appended (or in place of -I's string)."""

from __future__ import annotations

import shlex
from typing import TYPE_CHECKING

from opafence.facts import paths
from opafence.facts.shell.model import MAX_FIELDS, Feed, Field, State, Stdin
from opafence.facts.shell.words import decode_ansi_c

if TYPE_CHECKING:
    from opafence.facts.shell.walker import Walker


def xargs(
    w: Walker, opts: list[Field], argv: list[Field], feed: Feed, stdin: Stdin | None, st: State
) -> list[tuple[list[Field], bool, tuple[str, ...]]]:
    """The commands xargs runs: argv with its input appended (or put in place of -I's
    string). Literal input (`xargs rm <<< /`, `echo / | xargs rm`) gives literal operands;
    other input leaves them unknown, with what the feeding command named as maybe-paths."""
    arg_file: Field | None = None
    replace: str | None = None
    delim: str | None = None
    i = 0
    n = len(opts)
    while i < n:
        t = opts[i].text
        nxt = opts[i + 1] if i + 1 < n else None
        if t in ("-a", "--arg-file"):
            arg_file, i = nxt, i + 2
            continue
        if t in ("-I", "-d", "--delimiter"):
            if nxt is not None and not nxt.dynamic:
                if t == "-I":
                    replace = nxt.text
                else:
                    delim = nxt.text
            i += 2
            continue
        if t.startswith("--arg-file="):
            arg_file = Field(t.partition("=")[2], opts[i].dynamic)
        elif t.startswith("--replace"):
            replace = t.partition("=")[2] or "{}"
        elif t.startswith("--delimiter="):
            delim = t.partition("=")[2]
        elif t in ("-0", "--null"):
            delim = "\x00"
        elif t.startswith("-") and not t.startswith("--") and len(t) > 1:
            # a cluster: the first value-taking letter takes the rest of the word
            for k, c in enumerate(t[1:], start=1):
                if c == "0":
                    delim = "\x00"
                elif c == "i":
                    replace = t[k + 1 :] or "{}"
                    break
                elif c in "aIdELnPsR":
                    value = t[k + 1 :]
                    if not value and c in "aId" and nxt is not None and not nxt.dynamic:
                        value = nxt.text
                        i += 1
                    if c == "a":
                        arg_file = Field(value)
                    elif c == "I":
                        replace = value or None
                    elif c == "d":
                        delim = value
                    break
        i += 1
    text: str | None = None
    paths_in: tuple[str, ...] = ()
    if arg_file is not None:
        if arg_file.dynamic:
            w.col.opaque("shell_dynamic_source")
        elif arg_file.text in ("-", "/dev/stdin", "/proc/self/fd/0", "/dev/fd/0"):
            arg_file = None
        elif not paths.problem(arg_file.text) and (arg_file.text.startswith("/") or st.cwd is not None):
            # xargs reads the file: its words become arguments (`xargs -a key echo` prints it)
            path = paths.resolve(arg_file.text, st.cwd or "/", w.col.cache)
            w.col.add_path(arg_file.text, path, w.col.arg, "command", "read")
    if arg_file is None:
        if stdin is not None:
            if stdin.kind not in ("decoded", "unknown"):
                text = stdin.text
        elif feed.content is not None and not feed.decoded:
            text = feed.content
        else:
            paths_in = tuple(p for p in feed.paths if p)
    if text is None:
        if replace:
            argv = [Field(f.text, dynamic=True, sources=paths_in) if replace in f.text else f for f in argv]
        return [(argv, True, paths_in)]
    items = xargs_items(text, delim, replace is not None)
    if items is None:
        return [(argv, True, ())]
    if replace:
        none: tuple[str, ...] = ()
        runs = [([Field(f.text.replace(replace, item)) for f in argv], False, none) for item in items[:16]]
        return runs or [(argv, False, ())]
    return [([*argv, *(Field(x) for x in items)], False, ())]


def xargs_items(text: str, delim: str | None, lines: bool) -> list[str] | None:
    if delim is not None:
        sep = decode_ansi_c(delim) if "\\" in delim else delim
        if not sep:
            return None
        items = text.split(sep[0])
        if items and items[-1] in ("", "\n"):
            items.pop()
    elif lines:
        items = [ln.lstrip(" \t") for ln in text.split("\n") if ln.strip()]
    else:
        try:
            items = shlex.split(text, posix=True)
        except ValueError:
            return None
    return items[:MAX_FIELDS]
