"""Assignments and declarations (x=1, a=(...), export, declare, unset)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import tree_sitter

from opafence.facts.shell.environment import env_value
from opafence.facts.shell.model import Feed, Field, State
from opafence.facts.shell.tables import ENV_KINDS

if TYPE_CHECKING:
    from opafence.facts.shell.walker import Walker


def assign_value(w: Walker, node: tree_sitter.Node, st: State) -> tuple[str, str | None]:
    name, value, _srcs, _arr = assign(w, node, st)
    return name, value


def assign(
    w: Walker, node: tree_sitter.Node, st: State
) -> tuple[str, str | None, tuple[str, ...], list[str] | None]:
    """(name, value or None when unknown, paths an unknown value may hold, array elements)."""
    name_node = node.child_by_field_name("name")
    value_node = node.child_by_field_name("value")
    name = w._text(name_node) if name_node is not None else ""
    if value_node is None:
        return name, "", (), None
    appends = any(c.type == "+=" for c in node.children)
    if value_node.type == "array":
        elements = [f for c in value_node.named_children if c.type != "comment" for f in w.fields(c, st)]
        if appends or any(f.dynamic for f in elements):
            return name, None, (), None
        texts = [f.text for f in elements]
        return name, texts[0] if texts else "", (), texts
    fields = w.fields(value_node, st)
    if appends:
        return name, None, (), None
    if len(fields) == 1 and not fields[0].dynamic:
        return name, fields[0].text, (), None
    if not fields:
        return name, "", (), None
    return name, None, tuple(s for f in fields for s in f.sources), None


def remember(
    w: Walker, name: str, value: str | None, srcs: tuple[str, ...], arr: list[str] | None, st: State
) -> None:
    if "[" in name:
        name = name.split("[", 1)[0]
        value, srcs, arr = None, (), None
    st.vars[name] = value
    if arr is not None:
        st.arrays[name] = arr
    elif name in st.arrays:
        del st.arrays[name]
    if srcs:
        st.srcs[name] = srcs
    elif name in st.srcs:
        del st.srcs[name]
    if name in ENV_KINDS or name.startswith(("GIT_CONFIG_", "BASH_FUNC_")):
        # a later program (or one this shell already exported it to) reads it
        env_value(w, name, value, st, "", st.vars)


def assignments(w: Walker, node: tree_sitter.Node, st: State) -> None:
    nodes = [node] if node.type == "variable_assignment" else [c for c in node.children if c.is_named]
    for n in nodes:
        if n.type != "variable_assignment":
            continue
        name, value, srcs, arr = assign(w, n, st)
        if name:
            remember(w, name, value, srcs, arr, st)


def declaration(w: Walker, node: tree_sitter.Node, st: State, inh: list[dict[str, Any]]) -> Feed:
    argv: list[Field] = []
    for child in node.children:
        if not child.is_named:
            argv.append(Field(child.type))
        elif child.type == "variable_assignment":
            name, value, srcs, arr = assign(w, child, st)
            if node.type == "declaration_command" and name:
                remember(w, name, value, srcs, arr, st)
            argv.append(Field(f"{name}={value}" if value is not None else w._text(child), value is None))
        elif child.type == "variable_name":
            name = w._text(child)
            if node.type == "unset_command":
                st.vars[name] = None
            argv.append(Field(name))
        else:
            argv.extend(w.fields(child, st))
    w._emit(argv, {}, [], st, Feed(), list(inh), False, None)
    return Feed(argv[0].text if argv else "")
