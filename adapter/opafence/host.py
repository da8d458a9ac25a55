"""What the bridge knows about the host Hermes process (the decision input's `host`)."""

from __future__ import annotations

import contextlib
import importlib.util
import os
import sys
import sysconfig
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from opafence.state_files import hermes_home, state_dir


def default_workspace(configured: list[str], cwd: str) -> list[str]:
    """config.workspace, else the starting directory unless it is / or the home directory."""
    if configured:
        return [os.path.realpath(os.path.expanduser(p)) for p in configured]
    real = os.path.realpath(cwd)
    if real in ("/", os.path.realpath(os.path.expanduser("~"))):
        return []
    return [real]


def canonical(path: str) -> str:
    """A host path as the facts spell paths (absolute, symlinks resolved), so a protected
    directory reached through a symlink still compares equal; "" stays ""."""
    return os.path.realpath(os.path.expanduser(path)) if path else ""


def code_dirs() -> tuple[str, ...]:
    """The code this process runs, which the agent must not change (self-protection): the
    Python environment (`sys.prefix`: site-packages, editable finders, .pth files, bin/), the
    directories Hermes' and opafence's packages load from (an editable install lives outside
    the prefix), the base interpreter and its standard library, and the Rego opafence loads.
    `/` and the home directory itself are left out:
    a prefix that wide protects the package directories instead."""
    # A venv's bin/python is a link to the base interpreter: writing through it changes the
    # interpreter (and its standard library) that runs Hermes, wherever that lives.
    found: list[str] = [sys.prefix, os.path.dirname(os.path.realpath(sys.executable))]
    with contextlib.suppress(Exception):
        found.append(sysconfig.get_paths()["stdlib"])
    for name in ("hermes_cli", "run_agent", "opafence"):
        with contextlib.suppress(Exception):
            spec = importlib.util.find_spec(name)
            origin = spec.origin if spec is not None else None
            if origin:
                module = Path(origin).resolve()
                found.append(str(module.parent if module.name == "__init__.py" else module))
    with contextlib.suppress(Exception):
        from opafence.rego_files import rego_root

        found.append(str(rego_root().resolve()))
    home = canonical("~")
    out: list[str] = []
    for raw in found:
        path = canonical(raw)
        if path and path not in ("/", home) and path not in out:
            out.append(path)
    return tuple(out)


@dataclass(frozen=True)
class Host:
    auto_approve: bool = True  # if the bridge cannot tell, it assumes nobody can answer
    interactive: bool = False
    platform: str = ""
    home: str = field(default_factory=lambda: canonical("~"))
    hermes_home: str = field(default_factory=lambda: canonical(str(hermes_home())))
    state_dir: str = field(default_factory=lambda: canonical(str(state_dir())))
    workspace: tuple[str, ...] = ()
    cwd: str = field(default_factory=os.getcwd)
    opa_socket: str = ""
    package_dir: str = field(default_factory=lambda: str(Path(__file__).resolve().parent))
    code_dirs: tuple[str, ...] = field(default_factory=code_dirs)
    other_homes: tuple[str, ...] = ()  # homes besides `home` the tools reach (hermes/homes.py)
    # The managed OPA's process ids (its watchdog and OPA itself); empty for a remote OPA.
    opa_pids: tuple[int, ...] = ()

    def to_input(self) -> dict[str, Any]:
        return {
            "auto_approve": self.auto_approve,
            "interactive": self.interactive,
            "platform": self.platform,
            "home": self.home,
            "hermes_home": self.hermes_home,
            "state_dir": self.state_dir,
            "workspace": list(self.workspace),
            "cwd": self.cwd,
            "opa_socket": self.opa_socket,
            "package_dir": self.package_dir,
            "code_dirs": list(self.code_dirs),
            "other_homes": list(self.other_homes),
            "opa_pids": list(self.opa_pids),
        }
