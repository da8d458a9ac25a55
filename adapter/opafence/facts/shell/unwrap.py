"""Wrappers (sudo, env, nice, timeout, xargs, ...): the command they run, found by skipping
their own options (tables.WRAPPERS says which take a value).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from opafence.facts import paths
from opafence.facts.shell.model import Field, State
from opafence.facts.shell.tables import WRAPPERS, WrapSpec
from opafence.facts.shell.words import basename

if TYPE_CHECKING:
    from opafence.facts.shell.walker import Walker


def unwrap(
    w: Walker, argv: list[Field], st: State
) -> tuple[list[Field], list[str], dict[str, str], bool, str | None, list[Field] | None]:
    wrappers: list[str] = []
    env: dict[str, str] = {}
    dynamic = False
    cwd: str | None = None
    xopts: list[Field] | None = None
    while argv and not argv[0].dynamic:
        name = basename(argv[0].text)
        spec = WRAPPERS.get(name)
        if spec is None:
            break
        if name == "env":
            rest, env_more, chdir, ok = unwrap_env(w, argv)
            if not ok:
                break
            env.update(env_more)
            if chdir is not None:
                cwd = chdir
        else:
            rest_opt = unwrap_generic(w, argv, spec)
            if rest_opt is None:
                break
            rest = rest_opt
            if spec.assignments:
                while rest and not rest[0].dynamic and re.match(r"^[A-Za-z_][A-Za-z0-9_]*=", rest[0].text):
                    k, _, v = rest[0].text.partition("=")
                    env[k] = v
                    rest = rest[1:]
        if not rest:
            break
        if name == "xargs" and xopts is None:
            xopts = argv[1 : len(argv) - len(rest)]  # its arguments come from its input
        wrappers.append(name)
        argv = rest
    if cwd is not None and not cwd.startswith("/"):
        cwd = paths.resolve(cwd, st.cwd, w.col.cache) if st.cwd else None
    return argv, wrappers, env, dynamic, cwd, xopts


def unwrap_generic(w: Walker, argv: list[Field], spec: WrapSpec) -> list[Field] | None:
    i = 1
    n = len(argv)
    while i < n:
        a = argv[i].text
        if argv[i].dynamic:
            return None
        if a == "--":
            i += 1
            break
        if a in spec.keep_flags:
            return None
        if a.startswith("--") and len(a) > 2:
            key = a[2:].split("=", 1)[0]
            i += 2 if key in spec.value_long and "=" not in a else 1
            continue
        if spec.numeric_option and re.fullmatch(r"-\d+", a):
            i += 1
            continue
        if a.startswith("-") and len(a) > 1:
            if any(f"-{c}" in spec.keep_flags for c in a[1:]):
                return None
            takes = next((k for k, c in enumerate(a[1:]) if c in spec.value_short), -1)
            i += 2 if takes >= 0 and takes == len(a) - 2 else 1
            continue
        break
    i += spec.positional
    return argv[i:] if i < n else []


def unwrap_env(w: Walker, argv: list[Field]) -> tuple[list[Field], dict[str, str], str | None, bool]:
    env: dict[str, str] = {}
    chdir: str | None = None
    i = 1
    n = len(argv)
    out_argv = argv
    while i < n:
        f = argv[i]
        a = f.text
        if f.dynamic:
            return argv, env, chdir, False
        if a in ("-i", "-", "--ignore-environment", "-0", "--null", "-v", "--debug"):
            i += 1
        elif a in ("-u", "--unset"):
            i += 2
        elif a.startswith(("--unset=", "-u")):
            i += 1
        elif a in ("-C", "--chdir"):
            chdir = argv[i + 1].text if i + 1 < n else None
            i += 2
        elif a.startswith("--chdir="):
            chdir = a.split("=", 1)[1]
            i += 1
        elif a in ("-S", "--split-string") or a.startswith(("--split-string=", "-S")):
            if a in ("-S", "--split-string"):
                s = argv[i + 1].text if i + 1 < n else ""
                i += 2
            else:
                s = a.split("=", 1)[1] if a.startswith("--") else a[2:]
                i += 1
            split = [Field(x) for x in s.split()]
            out_argv = [argv[0], *split, *argv[i:]]
            return unwrap_env(w, out_argv)
        elif a == "--":
            i += 1
            break
        elif a.startswith("-") and len(a) > 1:
            i += 1
        else:
            break
    while i < n and re.match(r"^[A-Za-z_][A-Za-z0-9_]*=", argv[i].text) and not argv[i].dynamic:
        k, _, v = argv[i].text.partition("=")
        env[k] = v
        i += 1
    return argv[i:], env, chdir, True
