"""What a command does beyond itself: the builtins that change the shell state (cd, read,
set), the program handlers (programs.HANDLERS), and what it prints for the next command.
"""

from __future__ import annotations

import os
import re
from typing import TYPE_CHECKING

from opafence.facts import paths
from opafence.facts.shell.decode import SIMPLE_ESCAPES, decode_literal, is_decoder, printf_output
from opafence.facts.shell.model import Call, Feed, Field, State, Stdin
from opafence.facts.shell.programs import HANDLERS, python
from opafence.facts.shell.programs.git import patch_stdin
from opafence.facts.shell.tables import (
    BODY_C,
    CARRIER_TRIGGERS,
    CARRIERS,
    DECODE_FLAGS,
    DECODERS,
    NODES,
    OPTION_BODIES,
    OTHER_INTERPRETERS,
    PASSTHROUGH,
    SHELLS,
    is_python,
    triggered,
)
from opafence.facts.shell.words import decode_ansi_c

if TYPE_CHECKING:
    from opafence.facts.shell.walker import Walker


# Commands whose arguments, input or output mean more than their argv (see after, below).
_SPECIAL = (
    SHELLS
    | NODES
    | frozenset(OTHER_INTERPRETERS)
    | DECODERS
    | frozenset(DECODE_FLAGS)
    | frozenset(BODY_C)
    | PASSTHROUGH
    | frozenset(
        {"cd", "pushd", "popd", "read", "mapfile", "readarray", "getopts", "printf", "echo", "eval"}
        | {"source", ".", "trap", "find", "watch", "awk", "gawk", "mawk", "nawk", "busybox", "sed"}
        | {"gsed", "git", "ssh", "scp", "sftp", "rsync", "patch", "tr", "alias"}
    )
    | frozenset(OPTION_BODIES)
    | frozenset(CARRIERS)
    | {"pytest", "py.test", "set"}
)


def after(
    w: Walker,
    name: str,
    argv: list[Field],
    flags: list[str],
    operands: list[Field],
    st: State,
    feed: Feed,
    stdin: Stdin | None,
    cwd: str | None,
) -> Feed:
    if (name not in _SPECIAL and not is_python(name)) or (
        name in CARRIER_TRIGGERS and not triggered(CARRIER_TRIGGERS[name], argv)
    ):
        # the common case: nothing to parse further, output unknown but not decoded
        return Feed(name, None, feed.decoded)
    decoded = feed.decoded or is_decoder(w, name, argv)
    if name in ("cd", "pushd"):
        cd(w, operands, st)
    elif name == "popd":
        st.cwd = None
    elif name in ("read", "mapfile", "readarray", "getopts"):
        names = [f.text for f in operands if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", f.text)]
        literal = stdin.text if stdin is not None and stdin.kind == "herestring" else None
        if name == "read" and len(names) == 1 and literal is not None and flags in ([], ["-r"]):
            line = literal.split("\n", 1)[0].strip(" \t")
            st.vars[names[0]] = line if ("-r" in flags or "\\" not in line) else None
            st.arrays.pop(names[0], None)
        else:
            # the names read from the input may be any path the command feeding it named
            srcs = tuple(p for p in (feed.paths or w._input_paths) if p)
            for v in names:
                st.vars[v] = None
                st.arrays.pop(v, None)
                if srcs:
                    st.srcs[v] = srcs
    if name == "set":
        set_positional(w, argv, st)
    if name == "printf" and "-v" in flags:
        for i, f in enumerate(argv[:-1]):
            if f.text == "-v":
                st.vars[argv[i + 1].text] = None
    sub = State(cwd, st.vars, st.context, st.depth, False, st.srcs, st.arrays)
    handler = HANDLERS.get(name)
    if handler is None and is_python(name):
        handler = python
    if handler is not None:
        handler(w, Call(name, argv, flags, operands, sub, feed, stdin))
    if stdin is not None and stdin.kind != "decoded" and name in ("patch", "git") and stdin.text:
        patch_stdin(w, name, argv, stdin.text, cwd)
    if decoded and not feed.decoded:
        plain = decode_literal(name, argv, operands, feed, stdin)
        if plain is not None:
            return Feed(name, plain, True, "shell_c")
    # What this command writes to its standard output, for the next one in a pipeline.
    content: str | None = None
    if name in ("echo", "printf") and any(f.dynamic for f in argv[1:]):
        # text built from values we cannot see: a shell reading it runs unknown code
        return Feed(name, None, decoded or any(f.decoded for f in argv[1:]), "unknown")
    if name == "echo":
        opts = [f.text for f in argv[1:] if re.fullmatch(r"-[neE]+", f.text)]
        words = [f.text for f in argv[1 + len(opts) :]]
        text = " ".join(words)
        if any("e" in o for o in opts) and "\\" in text:
            if SIMPLE_ESCAPES.fullmatch(text):
                content = decode_ansi_c(text)
                if content is not None:
                    content += "" if any("n" in o for o in opts) else "\n"
            decoded = content is None
        else:
            content = text + ("" if any("n" in o for o in opts) else "\n")
    elif name == "printf" and len(argv) >= 2 and not argv[1].text.startswith("-"):
        content = printf_output(argv[1].text, [f.text for f in argv[2:]])
        decoded = decoded or content is None
    elif name in PASSTHROUGH and not [f for f in operands if f.text != "-"]:
        if stdin is not None and stdin.kind == "unknown":
            return Feed(name, None, decoded, "unknown")
        if stdin is not None and stdin.kind != "decoded":
            return Feed(name, stdin.text, decoded, "heredoc")
        if stdin is not None:
            decoded = True
        else:
            return Feed(name, feed.content, decoded, feed.kind)
    return Feed(name, content, decoded)


def set_positional(w: Walker, argv: list[Field], st: State) -> None:
    """`set -- a b` / `set a b`: the positional parameters ("$@", $1 ...)."""
    words = argv[1:]
    texts = [f.text for f in words]
    if "--" in texts:
        rest = words[texts.index("--") + 1 :]
    elif words and not texts[0].startswith(("-", "+")):
        rest = words
    else:
        return
    if any(f.dynamic for f in rest):
        st.arrays.pop("@", None)
    else:
        st.arrays["@"] = [f.text for f in rest]


def cd(w: Walker, operands: list[Field], st: State) -> None:
    targets = [f for f in operands if not (f.text.startswith("-") and f.text not in ("-",))]
    if not targets:
        st.cwd = w.col.home or None
        return
    f = targets[0]
    if f.dynamic or f.text == "-" or paths.problem(f.text):
        st.cwd = None
        return
    if not f.text.startswith("/") and st.cwd is None:
        return
    target = paths.resolve(f.text, st.cwd or "/", w.col.cache)
    st.tentative = st.tentative or not os.path.isdir(target)
    st.cwd = target
