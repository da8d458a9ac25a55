"""The programs whose arguments, input or output run more commands, by command name.

dispatch.after looks a command's name up in HANDLERS and calls what it finds with the command
(a Call). Each entry adapts the Call to the arguments its handler takes. The table is built in
the order the names were once tested (an `elif` chain), and the first entry for a name wins, so
a name that two families claim (`bun` is an interpreter and a package runner) keeps the meaning
it always had. Python (python3.12, pypy3, ...) is matched by pattern, not by name: see `python`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING

from opafence.facts.shell import interpreters
from opafence.facts.shell.carry import option_bodies
from opafence.facts.shell.model import Call, Field
from opafence.facts.shell.programs import (
    build,
    containers,
    databases,
    editors,
    git,
    packages,
    remote,
    runners,
    terminals,
    text,
)
from opafence.facts.shell.tables import BODY_C, CARRIERS, NODES, OPTION_BODIES, OTHER_INTERPRETERS, SHELLS

if TYPE_CHECKING:
    from opafence.facts.shell.walker import Walker

Handler = Callable[["Walker", Call], None]


def _runs_module(argv: list[Field], module: str) -> bool:
    return any(
        f.text == "-m" and k + 1 < len(argv) and argv[k + 1].text == module for k, f in enumerate(argv)
    )


def python(w: Walker, c: Call) -> None:
    if _runs_module(c.argv, "pytest"):
        build.pytest(w, c.argv, c.st)
    interpreters.python_invocation(w, c.argv, c.st, c.feed, c.stdin)


def _shell(w: Walker, c: Call) -> None:
    interpreters.shell_invocation(w, c.argv, c.st, c.feed, c.stdin)


def _pytest(w: Walker, c: Call) -> None:
    build.pytest(w, c.argv, c.st)


def _node(w: Walker, c: Call) -> None:
    interpreters.node_invocation(w, c.argv, c.st, c.feed, c.stdin)


def _other(w: Walker, c: Call) -> None:
    interpreters.other_interpreter(w, c.name, c.argv, c.feed, c.stdin, c.st)


def _eval(w: Walker, c: Call) -> None:
    interpreters.eval_words(w, c.argv[1:], c.st)


def _source(w: Walker, c: Call) -> None:
    interpreters.source_file(w, c.operands, c.st, c.feed, c.stdin)


def _trap(w: Walker, c: Call) -> None:
    interpreters.trap(w, c.operands, c.flags, c.st)


def _alias(w: Walker, c: Call) -> None:
    interpreters.alias(w, c.operands, c.st)


def _find(w: Walker, c: Call) -> None:
    runners.find_exec(w, c.argv, c.st)


def _watch(w: Walker, c: Call) -> None:
    runners.watch(w, c.argv, c.st)


def _flock(w: Walker, c: Call) -> None:
    runners.flock(w, c.argv, c.st)


def _body_c(w: Walker, c: Call) -> None:
    runners.body_c(w, c.name, c.argv, c.st)


def _awk(w: Walker, c: Call) -> None:
    text.awk(w, c.argv, c.st)


def _sed(w: Walker, c: Call) -> None:
    text.sed(w, c.argv)


def _git(w: Walker, c: Call) -> None:
    git.git(w, c.argv, c.st)


def _ssh(w: Walker, c: Call) -> None:
    remote.ssh(w, c.name, c.argv, c.st)


def _option_bodies(w: Walker, c: Call) -> None:
    option_bodies(w, c.name, c.argv, c.st)
    if c.name == "hyperfine":
        runners.hyperfine(w, c.argv, c.st)


def _vim(w: Walker, c: Call) -> None:
    editors.vim(w, c.argv, c.st)


def _gdb(w: Walker, c: Call) -> None:
    build.gdb(w, c.argv, c.st)


def _expect(w: Walker, c: Call) -> None:
    terminals.expect(w, c.argv, c.st)


def _make(w: Walker, c: Call) -> None:
    build.make(w, c.argv, c.st, c.feed, c.stdin)


def _screen(w: Walker, c: Call) -> None:
    terminals.screen(w, c.argv, c.st)


def _tmux(w: Walker, c: Call) -> None:
    terminals.tmux(w, c.argv, c.st)


def _package_exec(w: Walker, c: Call) -> None:
    packages.package_exec(w, c.name, c.argv, c.st)


def _parallel(w: Walker, c: Call) -> None:
    runners.parallel(w, c.argv, c.st, c.feed, c.stdin)


def _fd(w: Walker, c: Call) -> None:
    runners.fd_exec(w, c.argv, c.st)


def _container(w: Walker, c: Call) -> None:
    containers.container(w, c.name, c.argv, c.st)


def _kube(w: Walker, c: Call) -> None:
    containers.kube(w, c.name, c.argv, c.st)


def _db_shell(w: Walker, c: Call) -> None:
    databases.db_shell(w, c.name, c.argv, c.st, c.feed, c.stdin)


def _less(w: Walker, c: Call) -> None:
    editors.less(w, c.argv, c.st)


def _terminal(w: Walker, c: Call) -> None:
    terminals.terminal(w, c.name, c.argv, c.st)


def _emacs(w: Walker, c: Call) -> None:
    editors.emacs(w, c.argv, c.st)


def _env_run(w: Walker, c: Call) -> None:
    packages.env_run(w, c.name, c.argv, c.st)


def _build() -> dict[str, Handler]:
    table: dict[str, Handler] = {}

    def add(names: Iterable[str], handler: Handler) -> None:
        for name in names:
            table.setdefault(name, handler)

    add(SHELLS, _shell)
    add(("pytest", "py.test"), _pytest)
    add(NODES, _node)
    add(OTHER_INTERPRETERS, _other)
    add(("eval",), _eval)
    add(("source", "."), _source)
    add(("trap",), _trap)
    add(("alias",), _alias)
    add(("find",), _find)
    add(("watch",), _watch)
    add(("flock",), _flock)
    add(BODY_C, _body_c)
    add(("awk", "gawk", "mawk", "nawk", "busybox"), _awk)
    add(("sed", "gsed"), _sed)
    add(("git",), _git)
    add(("ssh", "scp", "sftp", "rsync"), _ssh)
    add(OPTION_BODIES, _option_bodies)
    # programs that carry a command in their arguments or options (tables.CARRIERS)
    add(("vim", "vi", "nvim", "view", "vimdiff", "gvim", "ex"), _vim)
    add(("gdb",), _gdb)
    add(("expect",), _expect)
    add(("make", "gmake"), _make)
    add(("screen",), _screen)
    add(("tmux",), _tmux)
    add(("npm", "npx", "pnpm", "pnpx", "yarn", "bunx", "bun"), _package_exec)
    add(("parallel",), _parallel)
    add(("fd", "fdfind"), _fd)
    add(("docker", "podman", "nerdctl"), _container)
    add(("kubectl", "oc"), _kube)
    add(("psql", "mysql", "mariadb", "sqlite3"), _db_shell)
    add(("less",), _less)
    add(("xterm", "gnome-terminal", "konsole"), _terminal)
    add(("emacs", "emacsclient"), _emacs)
    add(CARRIERS, _env_run)  # uv run, poetry run, conda run, ...
    return table


HANDLERS = _build()
