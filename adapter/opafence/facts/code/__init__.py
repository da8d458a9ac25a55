"""Python code (execute_code, `python -c`, here-docs fed to python) -> facts (docs/contract.md, `code`).

The standard `ast` module, never execution. Imports with their aliases resolved; calls as
dotted names (`sp.run` after `import subprocess as sp` is `subprocess.run`); commands passed to
`os.system`, `subprocess.*`, `os.exec*`, `os.spawn*`, `pty.spawn`, ctypes' `system` and Hermes'
`terminal` RPC parsed as shell (a program fed to a shell's or python's stdin too); file
operations (`open(p, "w")`, `shutil.rmtree`, `Path(p).unlink()`, archive extraction, downloads,
...) with the path when it is known; URL and absolute-path literals.

Values are followed the simple way, without running anything: a name's value is every value
bound to it anywhere (assignments, loop targets, `with ... as`, default arguments, and the
arguments of the calls of a local function that is only ever called directly), so a command
built in one place and run in another is still seen, and a name bound to two commands shows
both. A runner reached through a value (`r = os.system`, `[os.system][0]`, `functools.partial`,
`threading.Thread(target=...)`, `executor.submit`, `map`, `operator.methodcaller`, ...) is
resolved where the call is visible and makes the code opaque (`code_indirect_call`) where it
is not.

Where values come from matters too: data produced by a decoder (base64, hex, rot13, zlib,
marshal, `chr()` joins, reversal, `str.translate`, XOR, byte lists) that reaches a command, an
interpreter (`exec`, `eval`, a shell's stdin, unpickling) or a name look-up (`getattr`,
`__import__`) is `decode_and_run`; data read from the network that does the same, or a
downloaded or decoded file that is then run, is `fetch_and_run`; a socket wired to a process's
standard streams is `socket_shell`. The process environment (or a secret-named variable of it)
sent over the network becomes a `secrets` entry of kind `environment`.

Anything that can reach names the reader cannot see (`eval`, `exec`, `compile`, `getattr`/
`__import__` with a computed name, `globals()[...]`, dunder escape hatches, ctypes, unpickling)
makes the code opaque.

The package: `walk.py` makes the one pass over the tree; `analyzer.py` holds a reading's state
and sends each call, by the kinds its dotted name has (`kinds.py`), to the handlers of its
family (`processes.py`, `files.py`, `network.py`, `hermes.py`, `callables.py`, `dynamic.py`);
`names.py`, `values.py` and `origins.py` answer what a name is, what a value is and where it
comes from; `tables.py` loads the per-library tables from `data/*.json`.
"""

from __future__ import annotations

from typing import Any

from opafence.facts.code.analyzer import Analyzer
from opafence.facts.collect import Collector

__all__ = ["parse", "parse_into"]


def parse_into(col: Collector, text: str, cwd: str | None, depth: int = 0, context: str = "code") -> None:
    """Analyze Python source into col (code facts, commands, paths, URLs, opacity)."""
    scope = col.push("code")
    col.code_facts()
    try:
        Analyzer(col, cwd, depth, context).run(text)
    except RecursionError:
        col.opaque("code_too_deep")
    finally:
        col.pop(scope)


def parse(text: str, cwd: str, home: str) -> dict[str, Any]:
    """Stand-alone: Python source -> {"code": ..., "shell": ..., "paths": ..., "urls": ...}."""
    col = Collector(home=home, cwd=cwd, arg="code")
    parse_into(col, text, cwd)
    return {
        "code": col.code,
        "commands": col.commands,
        "paths": col.paths,
        "urls": col.urls,
        "opaque_reasons": col.reasons,
    }
