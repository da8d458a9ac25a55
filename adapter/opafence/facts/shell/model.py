"""The values a walk passes around: a word's fields, what flows between the commands of a
pipeline (Feed), a here-doc or here-string (Stdin), the shell state (State), limits.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import tree_sitter

MAX_SOURCE = 256 * 1024


MAX_FIELDS = 4096


MAX_BRACE = 256


MAX_NESTING = 120  # syntactic nesting walked (subshells in subshells, ...)


LIT, QUO, EXP, DYN = 0, 1, 2, 3  # unquoted literal, quoted literal, unquoted expansion result, unknown


MAX_SOURCES = 32


ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


Piece = tuple[str, int]


@dataclass(slots=True)
class Field:
    text: str
    dynamic: bool = False
    glob: bool = False
    decoded: bool = False  # produced by a command substitution whose output was decoded
    # paths an unknown (dynamic) field may stand for: the literal path operands of the commands
    # whose output it substitutes, a loop's words, a literal directory before an expansion
    sources: tuple[str, ...] = ()


@dataclass(slots=True)
class Feed:
    """What flows into a command's standard input from the command before it in a pipeline."""

    name: str = ""
    content: str | None = None  # known literal content (echo 'x' | ..., cat <<EOF | ...)
    decoded: bool = False  # the data passed through a decoder (base64 -d, xxd -r, ...)
    kind: str = "shell_c"  # the context a program read from this content runs in
    paths: Sequence[str] = ()  # the path operands of the command that wrote it ("" when unknown)


@dataclass(slots=True)
class Stdin:
    text: str
    kind: str  # "heredoc" | "herestring"


@dataclass(slots=True)
class Tail:
    """Redirections that tree-sitter attached to a list or pipeline but belong to its last command."""

    redirects: list[dict[str, Any]] = field(default_factory=list)
    stdin: Stdin | None = None
    extra_args: list[Field] = field(default_factory=list)
    piped: bool = False  # the command's output continues into a pipeline (here-doc quirk)
    stdin_paths: tuple[str, ...] = ()  # what `< <(ls ~/.ssh)` may name
    # `> >(sh)`: process substitutions the command writes its output into (walked after it)
    procsubs: list[tree_sitter.Node] = field(default_factory=list)


Snapshot = tuple[str | None, dict[str, str | None], dict[str, list[str]]]


_NO_ARRAYS: dict[str, list[str]] = {}  # shared by snapshots of states without arrays: never written


NO_PATHS: tuple[str, ...] = ()


@dataclass(slots=True)
class State:
    cwd: str | None
    vars: dict[str, str | None]
    context: str
    depth: int
    # cwd came from a `cd` to a directory that does not exist (yet): it holds on the success
    # path of the current && chain, and is unknown once the statement ends or after `||`.
    tentative: bool = False
    # paths an unknown variable may hold (`for f in ~/.ssh/*`, `f=$(ls ~/.ssh/id_*)`)
    srcs: dict[str, tuple[str, ...]] = field(default_factory=dict)
    # arrays whose every element is known (`a=(rm -rf x)`)
    arrays: dict[str, list[str]] = field(default_factory=dict)

    def fork(self, context: str | None = None, deeper: bool = False) -> State:
        return State(
            self.cwd,
            dict(self.vars),
            context or self.context,
            self.depth + (1 if deeper else 0),
            False,
            dict(self.srcs) if self.srcs else {},
            dict(self.arrays) if self.arrays else {},
        )

    def snapshot(self) -> Snapshot:
        return self.cwd, dict(self.vars), dict(self.arrays) if self.arrays else _NO_ARRAYS

    def merge_uncertain(self, before: Snapshot) -> None:
        """After code that may or may not have run: whatever it changed is now unknown."""
        cwd, vars_before, arrays_before = before
        if self.cwd != cwd:
            self.cwd = None
        for k in set(self.vars) | set(vars_before):
            if self.vars.get(k, "\x00") != vars_before.get(k, "\x00"):
                self.vars[k] = None
                self.arrays.pop(k, None)
        if self.arrays or arrays_before:
            for k in set(self.arrays) | set(arrays_before):
                if self.arrays.get(k) != arrays_before.get(k):
                    self.vars[k] = None
                    self.arrays.pop(k, None)


@dataclass(slots=True)
class Call:
    """One command as a program's handler sees it (built by dispatch.after)."""

    name: str
    argv: list[Field]
    flags: list[str]
    operands: list[Field]
    st: State  # the state the bodies it runs start from (its cwd, the shell's variables)
    feed: Feed
    stdin: Stdin | None
