"""What the bridge knows about the host Hermes process (the decision input's `host`)."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from opafence.paths import hermes_home, state_dir


def default_workspace(configured: list[str], cwd: str) -> list[str]:
    """config.workspace, else the starting directory unless it is / or the home directory."""
    if configured:
        return [os.path.realpath(os.path.expanduser(p)) for p in configured]
    real = os.path.realpath(cwd)
    if real in ("/", os.path.realpath(os.path.expanduser("~"))):
        return []
    return [real]


@dataclass(frozen=True)
class Host:
    auto_approve: bool = True  # if the bridge cannot tell, it assumes nobody can answer
    interactive: bool = False
    platform: str = ""
    home: str = field(default_factory=lambda: os.path.expanduser("~"))
    hermes_home: str = field(default_factory=lambda: str(hermes_home()))
    state_dir: str = field(default_factory=lambda: str(state_dir()))
    workspace: tuple[str, ...] = ()
    cwd: str = field(default_factory=os.getcwd)
    opa_socket: str = ""
    package_dir: str = field(default_factory=lambda: str(Path(__file__).resolve().parent))
    other_homes: tuple[str, ...] = ()  # homes besides `home` the tools reach (hermes/homes.py)

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
            "other_homes": list(self.other_homes),
        }
