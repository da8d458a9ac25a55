"""Interpreter bodies: sh -c, python -c, node -e, perl -e ..., programs read from stdin,
eval, source, trap and alias; one-liners of languages not parsed still expose the commands
they hand a shell as string literals.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from opafence.facts import paths, url
from opafence.facts.collect import MAX_DEPTH
from opafence.facts.shell.carry import carried_argv
from opafence.facts.shell.model import Feed, Field, State, Stdin
from opafence.facts.shell.tables import OTHER_INTERPRETERS
from opafence.facts.shell.words import unescape_literal

if TYPE_CHECKING:
    from opafence.facts.shell.walker import Walker


# One-liners of perl, ruby, php, lua, node, awk: calls that hand a string to a shell (or a
# list of strings to exec), and calls that remove a directory tree.
_STR = r"""(?:"(?:\\.|[^"\\])*"|'(?:\\.|[^'\\])*')"""


INLINE_CALL = re.compile(
    r"(?:\b(?:system|exec|shell_exec|passthru|popen|proc_open|spawn|spawnSync|execSync|execFile|execFileSync"
    r"|os\.execute|io\.popen|IO\.popen|Open3\.\w+|Process\.spawn|Kernel\.system)\s*\(?\s*"
    r"(?P<args>" + _STR + r"(?:\s*,\s*" + _STR + r")*))"
    r"|`(?P<inline>[^`]*)`"
    r"|\bqx\s*(?:\{(?P<qx1>[^}]*)\}|\((?P<qx2>[^)]*)\)|/(?P<qx3>[^/]*)/|\|(?P<qx4>[^|]*)\|)"
    r"|%x\{(?P<rx1>[^}]*)\}|%x\((?P<rx2>[^)]*)\)"
)


STRING_LIST = re.compile(r"""(["'])((?:\\.|(?!\1)[^\\])*)\1""")


_INLINE_RMTREE = re.compile(
    r"""\b(?:rmtree|remove_tree|rm_rf|rm_r|remove_dir|remove_entry(?:_secure)?)\s*\(?\s*(["'])((?:\\.|(?!\1)[^\\])*)\1"""
)


INLINE_SOCKET = re.compile(
    r"IO::Socket|\bSocket\b|\bsocket\s*\(|TCPSocket|UDPSocket|fsockopen|stream_socket_client|\bnet\.connect"
    r"|\bnet\.Socket|require\(\s*['\"]net['\"]\s*\)|/inet[46]?/(?:tcp|udp)/|/dev/(?:tcp|udp)/|socket\.tcp"
)


_INLINE_EXEC = re.compile(
    r"\b(?:exec|system|popen|spawn|proc_open|shell_exec|passthru|dup2|pty|child_process)\b|/bin/(?:ba|z|da|k)?sh\b"
    r"|\bsh\s+-i\b|open\s*\(\s*STD(?:IN|OUT|ERR)"
)


# `-lne`, `-pe`, `-e`: the short option that takes the program, after flags that take none
_CODE_CLUSTER = re.compile(r"^-[lnpawsTtWXCU0-9]*([eErc])")


def stdin_program(w: Walker, feed: Feed, stdin: Stdin | None) -> tuple[str | None, str, bool]:
    """(program text, context, decoded) for an interpreter that reads its program from stdin."""
    if stdin is not None:
        if stdin.kind in ("decoded", "unknown"):
            return None, stdin.kind, stdin.kind == "decoded"
        return stdin.text, "heredoc", False
    if feed.decoded:
        # decoded data: opaque, but when the data was literal its decoding is shown too
        return feed.content, feed.kind, True
    if feed.kind == "unknown":
        return None, "unknown", False
    if feed.content is not None:
        return feed.content, feed.kind, False
    return None, "", False


def program_from_stdin(w: Walker, feed: Feed, stdin: Stdin | None) -> tuple[str | None, str]:
    """The program an interpreter reads from stdin, or None (opacity already recorded)."""
    program, context, decoded = stdin_program(w, feed, stdin)
    if decoded:
        w.col.opaque("decode_and_run")
        return (program, context or "shell_c") if program is not None else (None, "")
    if context == "unknown":
        w.col.opaque("shell_dynamic_body")
        return None, ""
    return program, context


def shell_invocation(w: Walker, argv: list[Field], st: State, feed: Feed, stdin: Stdin | None) -> None:
    i = 1
    c_mode = s_mode = False
    n = len(argv)
    while i < n:
        a = argv[i].text
        if argv[i].dynamic:
            break
        if a in ("--", "-"):
            i += 1
            s_mode = s_mode or a == "-"
            break
        if a in ("-o", "+o", "-O", "+O", "--rcfile", "--init-file"):
            i += 2
            continue
        if a.startswith("--"):
            i += 1
            continue
        if len(a) > 1 and a[0] in "-+":
            c_mode = c_mode or (a[0] == "-" and "c" in a[1:])
            s_mode = s_mode or (a[0] == "-" and "s" in a[1:])
            i += 1
            continue
        break
    rest = argv[i:]
    if c_mode:
        if not rest:
            # `xargs sh -c`: the body is the input's first word
            w.col.opaque("shell_dynamic_body")
            return
        body = rest[0]
        if body.dynamic:
            w.col.opaque("decode_and_run" if body.decoded else "shell_dynamic_body")
            return
        w._body(body.text, st, "shell_c")
        return
    if rest and not s_mode:
        script = rest[0]
        if script.decoded:
            w.col.opaque("decode_and_run")
        elif script.text in ("/dev/stdin", "/proc/self/fd/0", "/dev/fd/0"):
            run_stdin_shell(w, st, feed, stdin)
        return
    run_stdin_shell(w, st, feed, stdin)


def run_stdin_shell(w: Walker, st: State, feed: Feed, stdin: Stdin | None) -> None:
    program, context = program_from_stdin(w, feed, stdin)
    if program is not None:
        w._body(program, st, context)


def python_invocation(w: Walker, argv: list[Field], st: State, feed: Feed, stdin: Stdin | None) -> None:
    i = 1
    n = len(argv)
    while i < n:
        f = argv[i]
        a = f.text
        if f.dynamic:
            w.col.opaque("decode_and_run" if f.decoded else "shell_dynamic_body")
            return
        if a == "-c" or (a.startswith("-") and not a.startswith("--") and a.endswith("c") and len(a) > 2):
            if i + 1 >= n:
                return
            body = argv[i + 1]
            if body.dynamic:
                w.col.opaque("decode_and_run" if body.decoded else "shell_dynamic_body")
                return
            python_body(w, body.text, st, "python_c")
            return
        if a.startswith("-c") and len(a) > 2:
            python_body(w, a[2:], st, "python_c")
            return
        if a in ("-m",) or (a.startswith("-m") and len(a) > 2):
            return
        if a in ("-W", "-X", "-Q", "--check-hash-based-pycs"):
            i += 2
            continue
        if a == "-":
            break
        if a.startswith("-"):
            i += 1
            continue
        if f.decoded:
            w.col.opaque("decode_and_run")
        elif a in ("/dev/stdin", "/proc/self/fd/0", "/dev/fd/0"):
            break
        return  # a script file
    program, _context = program_from_stdin(w, feed, stdin)
    if program is not None:
        python_body(w, program, st, "python_c")


def python_body(w: Walker, text: str, st: State, context: str) -> None:
    if st.depth + 1 > MAX_DEPTH:
        w.col.opaque("shell_too_deep")
        return
    if w.code_parser is None:
        w.col.opaque("python_not_parsed")
        return
    w.code_parser(w.col, text, st.cwd, st.depth + 1, context)


def node_invocation(w: Walker, argv: list[Field], st: State, feed: Feed, stdin: Stdin | None) -> None:
    for i, f in enumerate(argv[1:], start=1):
        if f.text in ("-e", "--eval", "-p", "--print") or f.text.startswith(("--eval=", "--print=")):
            body = argv[i + 1] if "=" not in f.text and i + 1 < len(argv) else Field(f.text.partition("=")[2])
            js_body(w, body, st)
            return
        if not f.text.startswith("-"):
            if f.decoded:
                w.col.opaque("decode_and_run")
            return
    program, _c = program_from_stdin(w, feed, stdin)
    if program is not None:
        js_body(w, Field(program), st)


def js_body(w: Walker, body: Field, st: State) -> None:
    """JavaScript is not parsed: the body is opaque, but commands passed to child_process
    as string literals and URL literals are still exposed."""
    w.col.opaque("node_e")
    if body.dynamic:
        w.col.opaque("decode_and_run" if body.decoded else "shell_dynamic_body")
        return
    if INLINE_SOCKET.search(body.text) and _INLINE_EXEC.search(body.text):
        w.col.opaque("inline_socket_exec")
    for m in re.finditer(
        r"\b(?:exec|execSync|spawn|spawnSync|execFile|execFileSync)\s*\(\s*(['\"`])((?:(?!\1)[^\\]|\\.)*)\1",
        body.text,
    ):
        w._body(m.group(2), st, "node_e")
    for fact in url.find_in_text(body.text, w.col.arg):
        w.col.add_url(fact)


def other_interpreter(
    w: Walker, name: str, argv: list[Field], feed: Feed, stdin: Stdin | None, st: State
) -> None:
    opts = OTHER_INTERPRETERS[name]
    short = {o[1] for o in opts if len(o) == 2}
    for i, f in enumerate(argv[1:], start=1):
        a = f.text
        m = _CODE_CLUSTER.match(a) if short and not a.startswith("--") else None
        if a in opts or (m is not None and m.group(1) in short):
            w.col.opaque(f"{name.lower()}_e")
            body = argv[i + 1] if i + 1 < len(argv) else None
            if m is not None and m.end() < len(a):
                body = Field(a[m.end() :], f.dynamic)  # -e'code'
            if body is not None:
                inline_program(w, name, body, st)
            return
        if a.startswith("-") and not a.startswith("--") and short & set(a[1:]) and m is None:
            w.col.opaque(f"{name.lower()}_e")  # an option we cannot split: assume code follows
        if not a.startswith("-"):
            if f.decoded:
                w.col.opaque("decode_and_run")
            return
    program, _c = program_from_stdin(w, feed, stdin)
    if program is not None:
        w.col.opaque(f"{name.lower()}_e")
        inline_program(w, name, Field(program), st)


def inline_program(w: Walker, name: str, body: Field, st: State) -> None:
    """A one-liner in a language we do not parse stays opaque, but the commands it hands a
    shell as string literals (system "…", `…`, qx{…}, os.execute, exec, popen …), the
    directories it removes by literal path and the URLs it names are exposed."""
    if body.dynamic:
        if body.decoded:
            w.col.opaque("decode_and_run")
        return
    text = body.text
    if INLINE_SOCKET.search(text) and _INLINE_EXEC.search(text):
        w.col.opaque("inline_socket_exec")
    found = 0
    for m in INLINE_CALL.finditer(text):
        found += 1
        if found > 16:
            break
        words = [unescape_literal(w.group(2)) for w in STRING_LIST.finditer(m.group("args") or "")]
        inline = next(
            (g for g in m.group("inline", "qx1", "qx2", "qx3", "qx4", "rx1", "rx2") if g is not None),
            None,
        )
        if inline is not None:
            words = [unescape_literal(inline)]
        if not words:
            continue
        if len(words) == 1:
            w._body(words[0], st, "shell_c")
        else:
            carried_argv(w, [Field(w) for w in words], st, name)
    for m in _INLINE_RMTREE.finditer(text):
        raw = unescape_literal(m.group(2))
        if raw and not paths.problem(raw) and (raw.startswith("/") or st.cwd):
            w.col.add_path(raw, paths.resolve(raw, st.cwd or "/", w.col.cache), w.col.arg, "code", "delete")
    for fact in url.find_in_text(text, w.col.arg):
        w.col.add_url(fact)


def eval_words(w: Walker, args: list[Field], st: State) -> None:
    if not args:
        return
    if any(f.dynamic for f in args):
        w.col.opaque("decode_and_run" if any(f.decoded for f in args) else "shell_dynamic_eval")
        return
    w._body(" ".join(f.text for f in args), st, "eval")


def source_file(w: Walker, operands: list[Field], st: State, feed: Feed, stdin: Stdin | None) -> None:
    if not operands:
        return
    f = operands[0]
    if f.decoded:
        w.col.opaque("decode_and_run")
    elif f.dynamic:
        w.col.opaque("shell_dynamic_source")
    elif f.text in ("/dev/stdin", "/proc/self/fd/0", "/dev/fd/0", "-"):
        run_stdin_shell(w, st, feed, stdin)


def trap(w: Walker, operands: list[Field], flags: list[str], st: State) -> None:
    if not operands or {"-l", "-p"} & set(flags):
        return
    body = operands[0]
    if body.dynamic:
        w.col.opaque("shell_dynamic_body")
    elif body.text not in ("-", ""):
        w._body(body.text, st, "eval")


def alias(w: Walker, operands: list[Field], st: State) -> None:
    # only with `shopt -s expand_aliases`, but then `alias ls='rm -rf /'; ls` runs it
    for f in operands:
        if "=" in f.text and not f.dynamic:
            w._body(f.text.partition("=")[2], st, "eval")
