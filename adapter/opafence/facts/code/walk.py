"""One pass over a syntax tree: the calls, names, subscripts, string literals and binding nodes."""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from opafence.facts.code.model import MAX_NODES
from opafence.facts.code.tables import DUNDER_ESCAPES, ENV_ATTRS, FRAME_NAMESPACES

if TYPE_CHECKING:
    from opafence.facts.code.analyzer import Analyzer


def walk_tree(
    an: Analyzer, tree: ast.AST
) -> tuple[list[ast.Call], list[ast.expr], list[ast.Subscript], list[str], list[ast.AST]] | None:
    """One pass over every node, parents before children and in source order: the calls,
    the names and attributes not called directly, subscripts, string literals and the
    nodes that bind names; names loaded and stored are counted on the way."""
    calls: list[ast.Call] = []
    refs: list[ast.expr] = []
    subscripts: list[ast.Subscript] = []
    texts: list[str] = []
    binders: list[ast.AST] = []
    called = an.called
    call_of = an.call_of
    loads = an.loads
    stores = an.stores
    table = _CHILD_FIELDS
    binding_types = _BINDING_TYPES
    node_type = ast.AST
    stack: list[ast.AST] = [tree]
    pop = stack.pop
    push = stack.append
    count = 0
    while stack:
        node = pop()
        count += 1
        if type(node) is ast.Name:
            name = node.id
            ctx = type(node.ctx)
            if ctx is ast.Load:
                found = loads.get(name)
                if found is None:
                    loads[name] = [node]
                else:
                    found.append(node)
                if id(node) not in called:
                    refs.append(node)
            elif ctx is ast.Store:
                stores[name] = stores.get(name, 0) + 1
            if name in DUNDER_ESCAPES:
                an.col.opaque("code_dunder_access")
            continue
        if type(node) is ast.Constant:
            if type(node.value) is str:
                texts.append(node.value)
                if node.value in ENV_ATTRS:
                    an.env_used = True  # getattr(os, 'environ')
            continue
        t = type(node)
        if type(node) is ast.Call:
            func = node.func
            called.add(id(func))
            call_of[id(func)] = node
            calls.append(node)
            if type(func) is ast.Attribute and func.attr in ("chdir", "fchdir"):
                an.chdir = True
        elif type(node) is ast.Attribute:
            attr = node.attr
            if attr in ENV_ATTRS:
                an.env_used = True
            if attr in DUNDER_ESCAPES:
                an.col.opaque("code_dunder_access")
            elif attr in FRAME_NAMESPACES:
                an.col.opaque("code_dynamic_namespace")
            elif id(node) not in called:
                refs.append(node)
        elif type(node) is ast.Subscript:
            subscripts.append(node)
        elif t in binding_types:
            binders.append(node)
        fields = table.get(t)
        if fields is None:
            fields = _child_fields(t)
        # children pushed last first, so that they come off the stack in source order
        for field in fields:
            value = getattr(node, field, None)
            if value is None:
                continue
            if type(value) is list:
                for v in reversed(value):
                    if isinstance(v, node_type):
                        push(v)
            elif isinstance(value, node_type):
                push(value)
    if count > MAX_NODES:
        return None
    return calls, refs, subscripts, texts, binders


_BINDING_TYPES = frozenset(
    {
        ast.Import,
        ast.ImportFrom,
        ast.Assign,
        ast.AnnAssign,
        ast.AugAssign,
        ast.NamedExpr,
        ast.For,
        ast.AsyncFor,
        ast.comprehension,
        ast.withitem,
        ast.FunctionDef,
        ast.AsyncFunctionDef,
        ast.Lambda,
        ast.ClassDef,
        ast.arguments,
        ast.ExceptHandler,
        ast.MatchAs,
        ast.MatchStar,
        ast.MatchMapping,
    }
)
# Fields that never hold child nodes we read (contexts, operators, names as strings).
_SKIP_FIELDS = frozenset(
    {"ctx", "op", "ops", "type_comment", "kind", "conversion", "is_async", "level", "names", "type_ignores"}
)
_CHILD_FIELDS: dict[type[ast.AST], tuple[str, ...]] = {ast.Constant: ()}


def _child_fields(t: type[ast.AST]) -> tuple[str, ...]:
    """The fields of a node type that may hold child nodes, last first (the walk's stack order)."""
    fields = tuple(reversed([n for n in t._fields if n not in _SKIP_FIELDS]))
    _CHILD_FIELDS[t] = fields
    return fields
