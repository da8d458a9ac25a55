"""git: settings that name commands (-c, --config-env, GIT_CONFIG_*, git config), subcommand
options that run them, and patches applied from stdin (git apply, patch).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from opafence.facts import paths
from opafence.facts.shell.carry import carried_argv, git_words_body, option_bodies
from opafence.facts.shell.model import Field, State
from opafence.facts.shell.tables import GIT_EXEC_KEY, GIT_FILE_KEY, GIT_VALUE_OPTIONS, OPTION_BODIES

if TYPE_CHECKING:
    from opafence.facts.shell.walker import Walker


def git_setting(w: Walker, key: str, value: str | None, st: State) -> None:
    """A git setting given on the command line, in the environment or by `git config`:
    a command it names is parsed; a hook directory or included file is opaque."""
    if GIT_FILE_KEY.match(key):
        w.col.opaque("git_config_exec")
        return
    if not GIT_EXEC_KEY.match(key):
        return
    if value is None:
        w.col.opaque("shell_dynamic_body")
        return
    k = key.lower()
    body = value.strip()
    if not body:
        return
    if k.startswith("alias."):
        # `!cmd` runs a shell command; anything else is a git command line
        body = body[1:] if body.startswith("!") else "git " + body
    elif k.endswith(".helper"):
        if body.startswith("!"):
            body = body[1:]
        elif not body.startswith("/"):
            return  # git credential-<name>
    elif k == "core.fsmonitor" and body.lower() in ("true", "false", "yes", "no", "on", "off", "1", "0"):
        return
    w._body(body, st, "shell_c")


def git(w: Walker, argv: list[Field], st: State) -> None:
    """git runs commands it is given in settings (-c KEY=VALUE, --config-env, GIT_CONFIG_*,
    `git config KEY VALUE`) and in subcommand options (rebase --exec, submodule foreach,
    bisect run, filter-branch --*-filter, --upload-pack, ...)."""
    n = len(argv)
    i = 1
    sub_i = -1
    while i < n:
        t = argv[i].text
        if t == "-c" or (t.startswith("-c") and len(t) > 2 and not t.startswith("--")):
            kv = argv[i + 1] if t == "-c" and i + 1 < n else Field(t[2:], argv[i].dynamic)
            git_kv(w, kv, st)
            i += 2 if t == "-c" else 1
            continue
        if t.startswith("--config-env="):
            key, _, var = t.partition("=")[2].partition("=")
            git_setting(w, key, st.vars.get(var) if var in st.vars else None, st)
            i += 1
            continue
        if t in GIT_VALUE_OPTIONS:
            i += 2
            continue
        if t.startswith("--exec-path="):
            w.col.opaque("git_config_exec")  # git runs its subcommands from there
        if t.startswith("-"):
            i += 1
            continue
        sub_i = i
        break
    if sub_i < 0:
        return
    sub = argv[sub_i].text
    rest = argv[sub_i + 1 :]
    if sub == "clone":
        for k, f in enumerate(rest):
            if f.text in ("-c", "--config") and k + 1 < len(rest):
                git_kv(w, rest[k + 1], st)
            elif f.text.startswith("--config="):
                git_kv(w, Field(f.text.partition("=")[2], f.dynamic), st)
    if sub == "config":
        git_config(w, rest, st)
    elif sub == "submodule":
        words = [f for f in rest if not f.text.startswith("-")]
        if words and words[0].text == "foreach":
            k = rest.index(words[0]) + 1
            while k < len(rest) and rest[k].text.startswith("-"):
                k += 1
            git_words_body(w, rest[k:], st)
    elif sub == "bisect" and rest and rest[0].text == "run":
        carried_argv(w, rest[1:], st, "git")
    elif "git " + sub in OPTION_BODIES:
        option_bodies(w, "git " + sub, [argv[sub_i], *rest], st)


def git_kv(w: Walker, kv: Field, st: State) -> None:
    if kv.dynamic:
        key = kv.text.partition("=")[0]
        if GIT_EXEC_KEY.match(key) or GIT_FILE_KEY.match(key) or not re.fullmatch(r"[\w.-]+", key):
            w.col.opaque("git_config_exec")
        return
    key, eq, value = kv.text.partition("=")
    git_setting(w, key, value if eq else "true", st)


def git_config(w: Walker, rest: list[Field], st: State) -> None:
    """git config [--global|--file F|...] KEY VALUE, git config set KEY VALUE, --add."""
    words: list[Field] = []
    k = 0
    while k < len(rest):
        t = rest[k].text
        if t in ("-f", "--file", "--blob", "--type", "--default", "--comment", "--value"):
            k += 2
            continue
        if t in (
            "--get",
            "--get-all",
            "--get-regexp",
            "--unset",
            "--unset-all",
            "-l",
            "--list",
            "-e",
            "--edit",
        ):
            return
        if t.startswith("-") and not rest[k].dynamic:
            k += 1
            continue
        words.append(rest[k])
        k += 1
    if words and words[0].text in ("set", "add"):
        words = words[1:]
    elif words and words[0].text in ("get", "list", "unset", "edit", "rename-section", "remove-section"):
        return
    if len(words) >= 2:
        if words[0].dynamic:
            w.col.opaque("git_config_exec")
            return
        git_setting(w, words[0].text, None if words[1].dynamic else words[1].text, st)


def patch_stdin(w: Walker, name: str, argv: list[Field], text: str, cwd: str | None) -> None:
    from opafence.facts import patch

    texts = [f.text for f in argv[1:]]
    if name == "git" and (not texts or texts[0] != "apply"):
        return
    level: int | None = None
    for t in texts:
        m = re.fullmatch(r"-p(\d+)", t)
        if m:
            level = int(m.group(1))
    if name == "git" and level is None:
        level = 1
    for raw, op in patch.parse_patch(text, level):
        if cwd is None and not raw.startswith("/"):
            w.col.opaque("shell_dynamic_cwd")
            continue
        if paths.problem(raw):
            continue
        w.col.add_path(raw, paths.resolve(raw, cwd or "/", w.col.cache), w.col.arg, "patch", op)
