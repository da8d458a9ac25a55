"""Programs that run a command they are given: find -exec, watch, su/runuser -c, flock,
hyperfine, GNU parallel, fd -x.
"""

from __future__ import annotations

import re
import shlex
from typing import TYPE_CHECKING

from opafence.facts.collect import MAX_DEPTH
from opafence.facts.shell.carry import carried_argv, carried_body
from opafence.facts.shell.interpreters import program_from_stdin
from opafence.facts.shell.model import Feed, Field, State, Stdin
from opafence.facts.shell.tables import BODY_C, OPTION_BODIES, PARALLEL_VALUE_OPTIONS
from opafence.facts.shell.xargs import xargs

if TYPE_CHECKING:
    from opafence.facts.shell.walker import Walker


def find_exec(w: Walker, argv: list[Field], st: State) -> None:
    i = 1
    n = len(argv)
    while i < n:
        a = argv[i].text
        if a in ("-exec", "-execdir", "-ok", "-okdir"):
            j = i + 1
            while j < n and argv[j].text not in (";", "+"):
                j += 1
            sub_argv = argv[i + 1 : j]
            if sub_argv:
                sub = st.fork(None, deeper=True)
                if sub.depth > MAX_DEPTH:
                    w.col.opaque("shell_too_deep")
                    return
                w._emit_argv(sub_argv, sub, ["find"])
            i = j + 1
            continue
        i += 1


def watch(w: Walker, argv: list[Field], st: State) -> None:
    i = 1
    value_opts = {"-n", "--interval", "-d", "--differences", "-q", "--equexit"}
    while i < len(argv) and argv[i].text.startswith("-"):
        i += 2 if argv[i].text in value_opts and argv[i].text not in ("-d",) else 1
    rest = argv[i:]
    if not rest:
        return
    if any(f.dynamic for f in rest):
        w.col.opaque("shell_dynamic_body")
        return
    w._body(" ".join(f.text for f in rest), st, "shell_c")


def body_c(w: Walker, name: str, argv: list[Field], st: State) -> None:
    flag = BODY_C[name]
    user_at = -1
    for i, f in enumerate(argv[1:], start=1):
        if f.text in ("-u", "--user") and name == "runuser":
            user_at = i
        clustered = name != "flock" and re.fullmatch(r"-[a-zA-Z]*c", f.text) is not None
        if (f.text in (flag, "--command") or clustered) and i + 1 < len(argv):
            body = argv[i + 1]
            if body.dynamic:
                w.col.opaque("decode_and_run" if body.decoded else "shell_dynamic_body")
            else:
                w._body(body.text, st, "shell_c")
            return
        if f.text.startswith("--command="):
            w._body(f.text.split("=", 1)[1], st, "shell_c")
            return
    if user_at > 0:
        # runuser -u USER [--] CMD ARGS...
        rest = argv[user_at + 2 :]
        if rest and rest[0].text == "--":
            rest = rest[1:]
        carried_argv(w, rest, st, name)


def hyperfine(w: Walker, argv: list[Field], st: State) -> None:
    """hyperfine's operands are command lines it runs through a shell."""
    takes = {"-w": 1, "--warmup": 1, "-r": 1, "--runs": 1, "-m": 1, "--min-runs": 1, "-M": 1}
    takes |= {"--max-runs": 1, "-n": 1, "--command-name": 1, "-L": 2, "--parameter-list": 2, "-P": 3}
    takes |= {"--parameter-scan": 3, "-D": 1, "--parameter-step-size": 1, "-S": 1, "--shell": 1}
    takes |= {"-u": 1, "--time-unit": 1, "--style": 1, "--output": 1, "--sort": 1}
    takes |= dict.fromkeys(OPTION_BODIES["hyperfine"], 1)
    i = 1
    while i < len(argv):
        t = argv[i].text
        if t.startswith("--export"):
            i += 1 if "=" in t else 2
        elif t.startswith("-") and len(t) > 1:
            i += 1 + (0 if "=" in t else takes.get(t, 0))
        else:
            carried_body(w, argv[i], st)
            i += 1


def parallel(w: Walker, argv: list[Field], st: State, feed: Feed, stdin: Stdin | None) -> None:
    """GNU parallel runs its command template through a shell, once per argument (from
    `:::` lists, or its input), with {} replaced or the argument appended."""
    i = 1
    n = len(argv)
    while i < n and argv[i].text.startswith("-") and argv[i].text not in (":::", "::::"):
        t = argv[i].text
        if t in ("-a", "--arg-file") and i + 1 < n:
            xargs(w, [argv[i], argv[i + 1]], [], feed, stdin, st)
        i += 2 if t in PARALLEL_VALUE_OPTIONS else 1
    words = argv[i:]
    seps = [k for k, f in enumerate(words) if f.text in (":::", "::::", ":::+", "::::+")]
    template = words[: seps[0]] if seps else words
    if any(f.dynamic for f in template):
        w.col.opaque("shell_dynamic_body")
        return
    line = " ".join(f.text for f in template)
    args: list[Field] = []
    if seps and words[seps[0]].text.startswith(":::") and words[seps[0]].text.rstrip("+") == ":::":
        end = seps[1] if len(seps) > 1 else len(words)
        args = words[seps[0] + 1 : end]
    elif not seps:
        program, _context = program_from_stdin(w, feed, stdin)
        if program is not None:
            args = [Field(x) for x in program.split("\n") if x.strip()]
    if not args:
        args = [Field('"$PARALLEL_ARG"', dynamic=True)]
    for arg in args[:8]:
        text = arg.text if arg.dynamic else shlex.quote(arg.text)
        if not line:
            body = arg.text
        elif "{}" in line:
            body = line.replace("{}", text)
        else:
            body = f"{line} {text}"
        w._body(body, st, "shell_c")


def flock(w: Walker, argv: list[Field], st: State) -> None:
    i = 1
    n = len(argv)
    lock = -1
    while i < n:
        t = argv[i].text
        if t in ("-c", "--command") or t.startswith("--command="):
            body_c(w, "flock", argv, st)
            return
        if t.startswith("-"):
            i += 2 if t in ("-w", "--timeout", "--wait", "-E", "--conflict-exit-code") else 1
            continue
        if lock < 0:
            lock = i
            i += 1
            continue
        carried_argv(w, argv[i:], st, "flock")
        return


def fd_exec(w: Walker, argv: list[Field], st: State) -> None:
    for i, f in enumerate(argv[1:], start=1):
        if f.text in ("-x", "--exec", "-X", "--exec-batch"):
            rest = argv[i + 1 :]
            end = next((k for k, w in enumerate(rest) if w.text == ";"), len(rest))
            carried_argv(w, rest[:end], st, "fd")
            return
