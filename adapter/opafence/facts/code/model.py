"""What the reader knows of an expression: a static value, an element of an iterable, where a
value comes from (bits), the bounds of the analysis, and helpers that need no analyzer state."""

from __future__ import annotations

import ast

from opafence.facts.code.tables import MODULE_SYNONYMS

MAX_CODE = 512 * 1024
MAX_NODES = 200_000
MAX_CALLS = 512
MAX_ALTERNATIVES = 16  # values of one name we follow (beyond that: unknown)
MAX_SYNTHETIC = 4  # calls made of calls (partial of partial, Thread of partial, ...)
MAX_ORIGIN_DEPTH = 48

# Where a value may come from (origins.of): bits, or-ed together.
DECODED = 1  # made by a decoder, or built so that the reader cannot see it
FETCHED = 2  # read from the network
ENV_ALL = 4  # the whole process environment
ENV_SECRET = 8  # a secret-named (or unknown) environment variable
SOCKET = 16  # a network socket or its descriptor
RUN_ORIGINS = DECODED | FETCHED  # what must never reach something that runs it
# A command's `cwd=` the reader cannot know (None: no `cwd=` at all).
UNKNOWN_CWD = object()


class Elem:
    """An element of an iterable: a for-loop target, a name unpacked from a call's result."""

    __slots__ = ("of",)

    def __init__(self, of: ast.expr) -> None:
        self.of = of


Binding = ast.expr | Elem | None  # None: a value the reader cannot know


class Value:
    """A statically known string (or list of strings) and whether it is a pathlib.Path."""

    __slots__ = ("is_path", "items", "text")

    def __init__(
        self, text: str | None = None, items: list[str] | None = None, is_path: bool = False
    ) -> None:
        self.text = text
        self.items = items
        self.is_path = is_path


def canonical_module(name: str) -> str:
    root, dot, rest = name.partition(".")
    synonym = MODULE_SYNONYMS.get(root)
    return synonym + dot + rest if synonym else name


def strip_calls(name: str) -> str:
    """`requests.Session().post` -> `requests.Session.post`: the dotted path without calls."""
    return name.replace("()", "") if "(" in name else name


def call_arg(node: ast.Call, index: int, *names: str) -> ast.expr | None:
    if len(node.args) > index:
        arg = node.args[index]
        return None if type(arg) is ast.Starred else arg
    for k in node.keywords:
        if k.arg in names:
            return k.value
    return None


def call_keyword(node: ast.Call, name: str) -> ast.expr | None:
    for k in node.keywords:
        if k.arg == name:
            return k.value
    return None


FOLLOW = frozenset({ast.Name, ast.Attribute, ast.Subscript, ast.Call})


def starred(value: ast.expr) -> ast.expr:
    """An argument standing for values the reader cannot list (`*cmds`)."""
    return ast.Starred(value=value, ctx=ast.Load())
