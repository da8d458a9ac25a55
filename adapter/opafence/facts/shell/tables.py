"""The per-program tables, loaded once from the JSON files in data/ (shipped as package data).

interpreters.json: shells, interpreters and decoders; wrappers.json: the wrappers unwrapped
before a command and their options; programs.json: option tables of the programs that run a
command they are given; git.json: git settings that name commands or files; environment.json:
environment variables that carry commands or load code. This module is their one home: other
modules (facts.code too) import the names from here.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from opafence.facts.package_data import read_table
from opafence.facts.shell.model import Field


def _load(name: str) -> dict[str, Any]:
    return read_table("opafence.facts.shell", name)


def _words(values: list[str]) -> frozenset[str]:
    return frozenset(values)


def _tuples(table: dict[str, list[str]]) -> dict[str, tuple[str, ...]]:
    return {k: tuple(v) for k, v in table.items()}


# --- interpreters.json --------------------------------------------------------------------

_interp = _load("interpreters")
SHELLS = _words(_interp["shells"])
PYTHON = re.compile(_interp["python_pattern"])  # python, python3.12, pypy3 ...
NODES = _words(_interp["nodes"])
# language -> the options whose value is its program (`perl -e CODE`)
OTHER_INTERPRETERS = _tuples(_interp["other_interpreters"])
DECODERS = _words(_interp["decoders"])  # programs that always decode their input
DECODE_FLAGS = _tuples(_interp["decode_flags"])  # ... and those that decode with one of these options
PASSTHROUGH = _words(_interp["passthrough"])  # programs whose output is their input (cat, tee ...)


def is_python(name: str) -> bool:
    return bool(PYTHON.match(name))


# --- wrappers.json ------------------------------------------------------------------------


@dataclass(frozen=True)
class WrapSpec:
    value_short: str = ""  # short options that take a value
    value_long: frozenset[str] = frozenset()
    positional: int = 0  # leading positional arguments that are the wrapper's own
    assignments: bool = False  # NAME=value words before the command
    keep_flags: frozenset[str] = frozenset()  # options after which there is no command to unwrap
    numeric_option: bool = False  # nice -10


def _wrap_spec(raw: dict[str, Any]) -> WrapSpec:
    return WrapSpec(
        value_short=str(raw.get("value_short", "")),
        value_long=frozenset(raw.get("value_long", ())),
        positional=int(raw.get("positional", 0)),
        assignments=bool(raw.get("assignments", False)),
        keep_flags=frozenset(raw.get("keep_flags", ())),
        numeric_option=bool(raw.get("numeric_option", False)),
    )


_wrap = _load("wrappers")
# `env` is handled specially (-S, -C, -u, assignments); the others by their WrapSpec
WRAPPERS = {name: _wrap_spec(raw) for name, raw in _wrap["wrappers"].items()}
BODY_C: dict[str, str] = dict(_wrap["body_c"])  # su -c BODY, runuser -c, script -c, flock -c, sg -c

# --- programs.json ------------------------------------------------------------------------

_prog = _load("programs")
# Options whose value is a command line the program runs (through a shell), per program:
# kind "shell"; "tar_action" for --checkpoint-action=exec=CMD; "attached" when the value is
# optional and so only counts attached (`--html=CMD`). The order of a program's options is
# the order they are tried in.
OPTION_BODIES: dict[str, dict[str, str]] = {k: dict(v) for k, v in _prog["option_bodies"].items()}
# Programs that run a command given as their arguments or in an option of their own
# (programs.HANDLERS): the command is emitted beside them, so its own class and guards apply.
CARRIERS = _words(_prog["carriers"])
# Carriers that carry a command only when one of these words (or a word starting with one of
# the prefixes) is among their arguments: `npm run build` and `docker ps` skip the walk.
CARRIER_TRIGGERS: dict[str, tuple[frozenset[str], tuple[str, ...]]] = {
    k: (frozenset(v["words"]), tuple(v["prefixes"])) for k, v in _prog["carrier_triggers"].items()
}
# Commands whose options are single-dash words (`find -name`): no cluster expansion.
LONG_SINGLE_DASH = _words(_prog["long_single_dash"])
URL_TOOLS = _words(_prog["url_tools"])  # operands that look like a host are URLs
NC = _words(_prog["nc"])
NC_VALUE_SHORT: str = _prog["nc_value_short"]
SSH_VALUE_SHORT: str = _prog["ssh_value_short"]
TMUX_VALUES: dict[str, str] = dict(_prog["tmux_values"])  # subcommand -> its short options taking a value
TMUX_KEYS: dict[str, str] = dict(_prog["tmux_keys"])  # send-keys names of the keys that type text
TMUX_KEY = re.compile(_prog["tmux_key_pattern"])  # ... and of those that type none
PKG_VALUE_OPTIONS = _words(_prog["package_value_options"])
PARALLEL_VALUE_OPTIONS = _words(_prog["parallel_value_options"])
DOCKER_VALUE_SHORT: str = _prog["docker_value_short"]
DOCKER_VALUE_LONG = _words(_prog["docker_value_long"])
KUBE_VALUE_OPTIONS = _words(_prog["kube_value_options"])
ENV_RUN_VALUE_OPTIONS = _words(_prog["env_run_value_options"])


def triggered(trigger: tuple[frozenset[str], tuple[str, ...]], argv: list[Field]) -> bool:
    words, prefixes = trigger
    return any(
        f.text in words or bool(prefixes and f.text.startswith(prefixes)) or f.dynamic for f in argv[1:]
    )


# --- git.json -----------------------------------------------------------------------------

_git = _load("git")
# git settings whose value is a command git runs (through a shell) ...
GIT_EXEC_KEY = re.compile("(?i)^(?:" + "|".join(_git["exec_keys"]) + ")$")
# ... and settings that point git at files or hooks we cannot see
GIT_FILE_KEY = re.compile("(?i)^(?:" + "|".join(_git["file_keys"]) + ")$")
GIT_VALUE_OPTIONS = _words(_git["value_options"])

# --- environment.json ---------------------------------------------------------------------

_env = _load("environment")
# Environment variables a program reads as a command line (run through a shell), a file it
# sources, a library it loads, or options that may load code; ENV only for sh/dash/ksh
# ("shell_if"), where it names a file sourced at start.
ENV_KINDS: dict[str, str] = dict(_env["kinds"])
# the options variables ("options") whose value loads code when it matches
ENV_LOADS = {k: re.compile(v) for k, v in _env["loads"].items()}
# Transport commands: `GIT_SSH_COMMAND='ssh -i KEY'` only changes how git reaches its remote.
SSH_TRANSPORT_VARS = _words(_env["ssh_transport_vars"])
# Options of ssh that take a value and cannot run anything (-o and -F can: ProxyCommand).
SSH_SAFE_VALUE = frozenset(_env["ssh_safe_value"])
