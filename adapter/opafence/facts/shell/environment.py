"""Environment variables that carry commands (GIT_SSH_COMMAND, PAGER, EDITOR ...) or load
code (BASH_ENV, LD_PRELOAD, NODE_OPTIONS ...).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Set
from typing import TYPE_CHECKING

from opafence.facts.shell.model import Field, State
from opafence.facts.shell.programs.git import git_setting
from opafence.facts.shell.tables import ENV_KINDS, ENV_LOADS, SHELLS, SSH_SAFE_VALUE, SSH_TRANSPORT_VARS
from opafence.facts.shell.words import basename

if TYPE_CHECKING:
    from opafence.facts.shell.walker import Walker


_SSH_PLAIN_WORD = re.compile(r"[A-Za-z0-9_@%+=:,./~-]+")


def _plain_ssh(value: str) -> bool:
    """`ssh` (or a path to it) with options that only pick a key, user, port or verbosity."""
    words = value.split()
    if not words or basename(words[0]) != "ssh" or not all(_SSH_PLAIN_WORD.fullmatch(w) for w in words):
        return False
    i = 1
    while i < len(words):
        w = words[i]
        if not w.startswith("-") or len(w) < 2:
            return False
        flag = w[1]
        if flag in SSH_SAFE_VALUE:
            i += 1 if len(w) > 2 else 2
            continue
        if not all(c in "46AaCfGgKkMNnqsTtVvXxYy" for c in w[1:]):
            return False
        i += 1
    return True


_NEVER = re.compile(r"(?!)")


def env_values(w: Walker, env: dict[str, str], dyn_env: Set[str], argv: list[Field], st: State) -> None:
    """Variables that programs run as commands (GIT_SSH_COMMAND, PAGER, EDITOR, ...) are
    parsed as shell bodies; files a program sources or libraries it loads because of a
    variable (BASH_ENV, LD_PRELOAD, ...) are opaque."""
    program = basename(argv[0].text) if argv and not argv[0].dynamic else ""
    for k, v in env.items():
        env_value(w, k, None if k in dyn_env else v, st, program, env)


def env_value(
    w: Walker, k: str, v: str | None, st: State, program: str, env: Mapping[str, str | None]
) -> None:
    kind = ENV_KINDS.get(k)
    if kind is None:
        if k.startswith("GIT_CONFIG_VALUE_"):
            key = env.get("GIT_CONFIG_KEY_" + k[len("GIT_CONFIG_VALUE_") :], "")
            if key:
                git_setting(w, key, v, st)
        elif k == "GIT_CONFIG_PARAMETERS" and (v is None or v.strip()):
            w.col.opaque("git_config_exec")
        elif k.startswith("BASH_FUNC_"):
            w.col.opaque("env_sourced_file")
        return
    if kind == "shell_if" and program not in SHELLS:
        return
    if v is None:
        w.col.opaque("shell_dynamic_body" if kind in ("cmd", "less") else "env_sourced_file")
        return
    if not v.strip():
        return
    if kind == "cmd":
        if k in SSH_TRANSPORT_VARS and _plain_ssh(v):
            return  # the ssh git or rsync would run anyway, with a key or port: nothing else runs
        w._body(v, st, "shell_c")
    elif kind == "less":
        # LESSOPEN="|cmd %s" / "||cmd %s" / "cmd %s"
        w._body(v.lstrip("|-"), st, "shell_c")
    elif kind == "prompt":
        if "$(" in v or "`" in v:
            w.col.opaque("shell_prompt_expansion")
    elif kind == "preload":
        w.col.opaque("env_preload")
    elif kind in ("source", "shell_if") or (kind == "options" and ENV_LOADS.get(k, _NEVER).search(v)):
        w.col.opaque("env_sourced_file")
