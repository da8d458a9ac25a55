"""The Hermes process as the facts and the input document see it: homes, directories, workspace.

Found once at setup (realpath costs, and may raise in a deleted working directory); the home
Hermes' tools use can change between turns (terminal.home_mode), so it is re-read per turn and
made canonical once per value. The protected places' identities (facts/links.py) are kept
across calls for one home and refreshed in the background."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from opafence.config import Config
from opafence.facts import FactsContext
from opafence.facts.links import Identities
from opafence.hermes import homes
from opafence.hermes.host_flags import HostFlags
from opafence.host import Host, canonical, code_dirs, default_workspace
from opafence.inputs import protected_files
from opafence.opa.bridge import Bridge
from opafence.state_files import hermes_home


@dataclass
class HostView:
    config: Config = field(default_factory=Config)
    cwd: str = ""
    workspace: tuple[str, ...] = ()
    homes: homes.Homes = field(default_factory=lambda: homes.Homes(tool_home=""))
    # HERMES_HOME and the state directory, canonical.
    dirs: tuple[str, str] = ("", "")
    code_dirs: tuple[str, ...] = ()  # the code Hermes runs (host.code_dirs), found once
    _home_canonical: tuple[str, str] = ("", "")
    _socket_canonical: tuple[str, str] = ("", "")
    _identities: tuple[str, Identities | None] = ("", None)

    @classmethod
    def detect(cls, config: Config, state: Path) -> HostView:
        """Raises FileNotFoundError when the current directory no longer exists."""
        cwd = os.environ.get("TERMINAL_CWD") or os.getcwd()
        return cls(
            config=config,
            cwd=cwd,
            workspace=tuple(default_workspace(config.workspace, cwd)),
            homes=homes.detect(),
            dirs=(canonical(str(hermes_home())), canonical(str(state))),
            code_dirs=code_dirs(),
        )

    def host(self, flags: HostFlags, platform: str, bridge: Bridge | None) -> Host:
        opa_socket = ""
        pids: tuple[int, ...] = ()
        if bridge is not None:
            pids = bridge.opa_pids()
            if bridge.local is not None:
                opa_socket = self._socket_path(bridge.local.socket_path)
        hermes_dir, state = self.dirs
        return Host(
            auto_approve=flags.auto_approve,
            interactive=flags.interactive,
            platform=platform or ("cron" if flags.cron else ""),
            home=self.home(),
            other_homes=self.homes.others,
            hermes_home=hermes_dir,
            state_dir=state,
            workspace=self.workspace,
            cwd=self.cwd,
            opa_socket=opa_socket,
            opa_pids=pids,
            code_dirs=self.code_dirs,
        )

    def home(self) -> str:
        # The home Hermes' tools use (it can change between turns), canonical once per value.
        raw = self.homes.tool_home or os.path.expanduser("~")
        if self._home_canonical[0] != raw:
            self._home_canonical = (raw, canonical(raw))
        return self._home_canonical[1]

    def _socket_path(self, path: Path) -> str:
        # Canonical once per socket path (it changes only when OPA restarts elsewhere).
        raw = str(path)
        if self._socket_canonical[0] != raw:
            self._socket_canonical = (raw, canonical(raw))
        return self._socket_canonical[1]

    def facts_context(self) -> FactsContext:
        hermes_dir, state = self.dirs
        home = self.home()
        return FactsContext(
            home=home,
            cwd=self.cwd,
            hermes_home=hermes_dir,
            state_dir=state,
            identities=self.identities_for(home),
        )

    def identities_for(self, home: str) -> Identities:
        kept_home, kept = self._identities
        if kept is None or kept_home != home:
            hermes_dir, state = self.dirs
            kept = Identities.for_host(home, hermes_dir, state, self.code_dirs, protected_files(self.config))
            self._identities = (home, kept)
        return kept

    def plain_context(self) -> FactsContext:
        """Facts as a plain process sees them, for when setup stopped before the homes were known."""
        return FactsContext(
            home=os.path.expanduser("~"), cwd=self.cwd or os.getcwd(), hermes_home=str(hermes_home())
        )
