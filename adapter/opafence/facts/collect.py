"""The accumulator the parsers write into while building one call's facts.

Shell programs contain Python (`python -c`, here-docs) and Python contains shell commands
(`os.system`, `subprocess.run`), so the parsers call each other and share one Collector. A
reason for opacity is recorded in every scope that encloses the place it was found: a dynamic
command inside `python -c` inside `terminal` makes the code, the shell and the call opaque.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

MAX_COMMANDS = 256
MAX_ENV_VARS = 64
MAX_PATHS = 512
MAX_URLS = 256
MAX_DEPTH = 4


@dataclass
class Scope:
    kind: str  # "shell" | "code"
    reasons: list[str] = field(default_factory=list)


@dataclass
class Collector:
    home: str
    cwd: str
    hermes_home: str = ""
    arg: str = ""  # the argument being parsed: facts found in it name it
    commands: list[dict[str, Any]] = field(default_factory=list)
    paths: list[dict[str, Any]] = field(default_factory=list)
    urls: list[dict[str, Any]] = field(default_factory=list)
    reasons: list[str] = field(default_factory=list)
    shell_reasons: list[str] = field(default_factory=list)
    code: dict[str, Any] | None = None
    secrets: list[dict[str, str]] = field(default_factory=list)  # found by reading code, not strings
    recipients: list[dict[str, Any]] = field(default_factory=list)  # addresses code sends mail to
    shell_seen: bool = False
    env_vars: list[str] = field(default_factory=list)
    stack: list[Scope] = field(default_factory=list)
    cache: dict[str, str] = field(default_factory=dict)  # path look-ups within this call
    _path_keys: set[tuple[str, str, str, str]] = field(default_factory=set)
    _url_keys: set[tuple[str, str]] = field(default_factory=set)

    # -- opacity -------------------------------------------------------------------------
    def opaque(self, reason: str) -> None:
        if reason not in self.reasons:
            self.reasons.append(reason)
        for scope in self.stack:
            if reason not in scope.reasons:
                scope.reasons.append(reason)

    def push(self, kind: str) -> Scope:
        scope = Scope(kind)
        self.stack.append(scope)
        if kind == "shell":
            self.shell_seen = True
        return scope

    def pop(self, scope: Scope) -> None:
        if self.stack and self.stack[-1] is scope:
            self.stack.pop()
        if scope.kind == "shell":
            for r in scope.reasons:
                if r not in self.shell_reasons:
                    self.shell_reasons.append(r)
        elif scope.kind == "code" and self.code is not None:
            reasons: list[str] = self.code["opaque_reasons"]
            for r in scope.reasons:
                if r not in reasons:
                    reasons.append(r)
            self.code["opaque"] = bool(reasons)

    # -- facts ---------------------------------------------------------------------------
    def add_command(self, command: dict[str, Any]) -> bool:
        if len(self.commands) >= MAX_COMMANDS:
            self.opaque("too_many_commands")
            return False
        self.commands.append(command)
        return True

    def room_for_commands(self) -> bool:
        return len(self.commands) < MAX_COMMANDS

    def add_path(self, raw: str, path: str, arg: str, via: str, op: str) -> None:
        key = (path or raw, arg, via, op)
        if key in self._path_keys:
            return
        if len(self.paths) >= MAX_PATHS:
            self.opaque("too_many_paths")
            return
        self._path_keys.add(key)
        self.paths.append({"raw": raw, "path": path, "arg": arg, "via": via, "op": op})

    def add_url(self, fact: dict[str, Any]) -> None:
        key = (str(fact.get("raw", "")), str(fact.get("arg", "")))
        if key in self._url_keys:
            return
        if len(self.urls) >= MAX_URLS:
            self.opaque("too_many_urls")
            return
        self._url_keys.add(key)
        self.urls.append(fact)

    def add_env_var(self, name: str) -> None:
        """An environment variable the program expands or reads (bounded: Rego judges names)."""
        if name not in self.env_vars and len(self.env_vars) < MAX_ENV_VARS:
            self.env_vars.append(name)

    def add_secret(self, arg: str, kind: str) -> None:
        entry = {"arg": arg, "kind": kind}
        if entry not in self.secrets:
            self.secrets.append(entry)

    def code_facts(self) -> dict[str, Any]:
        if self.code is None:
            self.code = {
                "language": "python",
                "opaque": False,
                "opaque_reasons": [],
                "imports": [],
                "calls": [],
                "tool_calls": [],
                "network": False,
            }
        return self.code
