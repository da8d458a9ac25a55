"""Package managers and project runners: npx / npm exec / pnpm dlx ..., uv run, poetry run ..."""

from __future__ import annotations

from typing import TYPE_CHECKING

from opafence.facts.shell.carry import carried_argv, carried_body, git_words_body, option_value
from opafence.facts.shell.model import Field, State
from opafence.facts.shell.tables import ENV_RUN_VALUE_OPTIONS, PKG_VALUE_OPTIONS

if TYPE_CHECKING:
    from opafence.facts.shell.walker import Walker


def package_exec(w: Walker, name: str, argv: list[Field], st: State) -> None:
    """npx CMD, npm exec [--] CMD, pnpm exec|dlx CMD, yarn exec|dlx CMD, bunx CMD, bun x CMD;
    -c / --call 'CMD' run through a shell."""
    i = 1
    n = len(argv)
    shell_mode = False
    if name not in ("npx", "pnpx", "bunx"):
        while i < n and argv[i].text.startswith("-"):
            shell_mode = shell_mode or (name == "pnpm" and argv[i].text in ("-c", "--shell-mode"))
            i += 2 if argv[i].text in PKG_VALUE_OPTIONS else 1
        if i >= n or argv[i].text not in ("exec", "x", "dlx"):
            return
        if name == "bun" and argv[i].text == "exec":
            if i + 1 < n:
                carried_body(w, argv[i + 1], st)
            return
        i += 1
    while i < n and argv[i].text.startswith("-"):
        t = argv[i].text
        if t == "--":
            i += 1
            break
        value, took = option_value(w, argv, i, "-c")
        if not took:
            value, took = option_value(w, argv, i, "--call")
        if took:
            if value is not None:
                carried_body(w, value, st)
            return
        i += 2 if t in PKG_VALUE_OPTIONS else 1
    rest = argv[i:]
    if shell_mode and rest:
        git_words_body(w, rest, st)
    else:
        carried_argv(w, rest, st, name)


def env_run(w: Walker, name: str, argv: list[Field], st: State) -> None:
    """uv run CMD, poetry run CMD, pipenv run CMD, pdm run CMD, hatch run CMD, conda run CMD."""
    i = 1
    n = len(argv)
    while i < n and argv[i].text.startswith("-"):
        i += 2 if argv[i].text in ENV_RUN_VALUE_OPTIONS else 1
    if i >= n or argv[i].text != "run":
        return
    i += 1
    while i < n and argv[i].text.startswith("-"):
        if argv[i].text == "--":
            i += 1
            break
        i += 2 if argv[i].text in ENV_RUN_VALUE_OPTIONS else 1
    carried_argv(w, argv[i:], st, name)
