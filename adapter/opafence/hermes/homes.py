"""Which home directory `~` means in the calls Hermes runs, and which other homes they reach.

Hermes 0.19.0 can give its tools another HOME than its own process has (`terminal.home_mode`,
bridged to TERMINAL_HOME_MODE; hermes_constants.get_subprocess_home): `profile` uses
`$HERMES_HOME/home` when that directory exists, `auto` (the default) does so inside a
container and repairs a parent whose HOME already is the profile home back to the real one,
`real` keeps the user's own. The terminal's commands (tools/environments/local.py), the
execute_code child (tools/code_execution_tool.py) and the file tools' `~`
(tools/file_tools.py:_expand_tilde) all follow it. So the facts and the decision input take
`~` to mean that directory, and the user's own home, still reachable by its absolute path,
is passed as another home to protect. (The terminal keeps one shell per process, started with
the HOME of that moment; if the mode or the profile home changes later, `~` in its commands
may still be the old HOME: both are homes, so both stay protected.)"""

from __future__ import annotations

import importlib
import logging
import os
from dataclasses import dataclass

log = logging.getLogger("opafence.homes")


@dataclass(frozen=True)
class Homes:
    tool_home: str  # what `~` and $HOME mean in the calls Hermes runs
    others: tuple[str, ...] = ()  # other home directories those calls can reach


def _norm(path: str) -> str:
    return os.path.normpath(os.path.abspath(path)) if path else ""


def detect(environ: dict[str, str] | None = None) -> Homes:
    """Ask Hermes' own helpers (about 0.1 ms: call it once per turn, not per tool call)."""
    env = dict(os.environ if environ is None else environ)
    process = _norm(os.path.expanduser("~"))
    try:
        constants = importlib.import_module("hermes_constants")
        sub = str(constants.get_subprocess_home(env) or "")
        real = str(constants.get_real_home(env) or "")
    except Exception as e:  # not inside Hermes, or another version: the process HOME it is
        log.debug("opafence: cannot ask Hermes for its tools' HOME: %s", e)
        return Homes(process)
    home = _norm(sub) or process
    # get_real_home() answers /tmp when it finds no home at all: not a home to protect.
    others = tuple(sorted({h for h in (process, _norm(real)) if h and h not in (home, "/", "/tmp")}))  # noqa: S108
    return Homes(home, others)
