"""Statements: lists, pipelines, subshells, loops and conditionals, redirected statements."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import tree_sitter

from opafence.facts import paths
from opafence.facts.shell.assign import assignments, declaration
from opafence.facts.shell.commands import emit, simple_command
from opafence.facts.shell.expand import arithmetic, fields, substitution, word_pieces
from opafence.facts.shell.grammar import CONDITIONAL, STATEMENTS
from opafence.facts.shell.model import MAX_NESTING, MAX_SOURCES, Feed, Field, Piece, State, Tail
from opafence.facts.shell.redirects import fd_before, heredoc, redirect

if TYPE_CHECKING:
    from opafence.facts.shell.walker import Walker


def walk_sequence(
    w: Walker,
    nodes: Sequence[tree_sitter.Node],
    st: State,
    feed: Feed,
    tail: Tail | None,
    inherited: list[dict[str, Any]],
) -> Feed:
    stmts = [n for n in nodes if n.is_named and n.type != "comment"]
    out = Feed()
    for i, node in enumerate(stmts):
        last = i == len(stmts) - 1
        out = visit(w, node, st, feed if i == 0 else Feed(), tail if last else None, inherited)
        if st.tentative:
            # `cd nowhere; rm x`: if the cd failed, rm ran where we were.
            st.cwd = None
            st.tentative = False
    return out


def visit(
    w: Walker,
    node: tree_sitter.Node,
    st: State,
    feed: Feed,
    tail: Tail | None = None,
    inherited: list[dict[str, Any]] | None = None,
) -> Feed:
    if w.nest >= MAX_NESTING or not w.col.room_for_commands():
        w.col.opaque("shell_too_deep" if w.nest >= MAX_NESTING else "too_many_commands")
        return Feed()
    w.nest += 1
    try:
        return visit_node(w, node, st, feed, tail, inherited or [])
    finally:
        w.nest -= 1


def visit_node(
    w: Walker, node: tree_sitter.Node, st: State, feed: Feed, tail: Tail | None, inh: list[dict[str, Any]]
) -> Feed:
    t = node.type
    if t == "command":
        return simple_command(w, node, st, feed, tail, inh)
    if t == "redirected_statement":
        return redirected(w, node, st, feed, tail, inh)
    if t == "pipeline":
        return walk_pipeline(w, node.children, st, feed, tail, inh)
    if t == "list":
        return walk_list(w, node, st, feed, tail, inh)
    if t == "compound_statement" and node.child_count and node.children[0].type == "((":
        arithmetic(w, node, st)
        return Feed()
    if t in ("program", "compound_statement", "do_group"):
        return walk_sequence(w, node.children, st, feed, tail, inh)
    if t == "subshell":
        sub = st.fork("subshell" if st.context in ("top", "pipeline") else None)
        return walk_sequence(w, node.children, sub, feed, tail, inh)
    if t == "negated_command":
        return walk_sequence(w, node.children, st, feed, tail, inh)
    if t in ("variable_assignment", "variable_assignments"):
        assignments(w, node, st)
        return Feed()
    if t == "declaration_command":
        return declaration(w, node, st, inh)
    if t == "unset_command":
        return declaration(w, node, st, inh)
    if t in CONDITIONAL:
        before = st.snapshot()
        saved_input = w._input_paths
        if feed.paths:
            w._input_paths = feed.paths  # `ls ~/.ssh | while read f; do ...`
        if t == "for_statement":
            walk_for(w, node, st, inh)
        else:
            generic(w, node, st, inh)
        w._input_paths = saved_input
        st.merge_uncertain(before)
        return Feed()
    generic(w, node, st, inh)
    return Feed()


def generic(w: Walker, node: tree_sitter.Node, st: State, inherited: list[dict[str, Any]]) -> None:
    if w.nest >= MAX_NESTING:
        w.col.opaque("shell_too_deep")
        return
    w.nest += 1
    try:
        generic_children(w, node, st, inherited)
    finally:
        w.nest -= 1


def generic_children(w: Walker, node: tree_sitter.Node, st: State, inherited: list[dict[str, Any]]) -> None:
    for child in node.children:
        if child.is_named:
            generic_child(w, child, st, inherited)


def generic_child(w: Walker, child: tree_sitter.Node, st: State, inherited: list[dict[str, Any]]) -> None:
    ct = child.type
    if ct in STATEMENTS:
        visit(w, child, st, Feed(), None, inherited)
    elif ct in ("command_substitution", "process_substitution"):
        substitution(w, child, st)
    elif ct in ("expansion", "simple_expansion", "arithmetic_expansion"):
        pieces: list[Piece] = []
        word_pieces(w, child, st, pieces, False)
    elif ct != "comment":
        generic(w, child, st, inherited)


def walk_for(w: Walker, node: tree_sitter.Node, st: State, inherited: list[dict[str, Any]]) -> None:
    """`for f in WORDS; do ...; done`: f is unknown in the body, but it is one of the words,
    so the paths they name are what an operand "$f" may name."""
    var = node.child_by_field_name("variable")
    name = w._text(var) if var is not None else ""
    srcs: list[str] = []
    for i, child in enumerate(node.children):
        if not child.is_named or child == var:
            continue
        if node.field_name_for_child(i) == "value":
            for f in fields(w, child, st):
                if f.dynamic:
                    srcs.extend(f.sources)
                elif f.text and not paths.problem(f.text) and (f.text.startswith("/") or st.cwd):
                    srcs.append(paths.resolve(f.text, st.cwd or "/", w.col.cache))
            continue
        if name:
            st.vars[name] = None
            st.arrays.pop(name, None)
            if srcs:
                st.srcs[name] = tuple(dict.fromkeys(srcs))[:MAX_SOURCES]
            name = ""
        generic_child(w, child, st, inherited)


def walk_list(
    w: Walker, node: tree_sitter.Node, st: State, feed: Feed, tail: Tail | None, inh: list[dict[str, Any]]
) -> Feed:
    # a && b || c: later elements may not run, so what they change is uncertain afterwards
    # (but visible to the elements after them, which only run on that path).
    elems: list[tree_sitter.Node] = []
    ops: list[str] = []
    flatten_list(w, node, elems, ops)
    snapshots = []
    out = Feed()
    for i, elem in enumerate(elems):
        if i and i - 1 < len(ops) and ops[i - 1] == "||" and st.tentative:
            # what follows || runs when the cd before it failed
            st.cwd = None
            st.tentative = False
        out = visit(w, elem, st, feed if i == 0 else Feed(), tail if i == len(elems) - 1 else None, inh)
        snapshots.append(st.snapshot())
    if len(snapshots) > 1:
        first = snapshots[0]
        for snap in snapshots[1:]:
            if snap != first:
                st.merge_uncertain(first)
                break
    return out


def flatten_list(w: Walker, node: tree_sitter.Node, elems: list[tree_sitter.Node], ops: list[str]) -> None:
    """`a && b || c` is list(list(a, b), c) in the grammar: one chain of elements and operators
    (walked without recursion: a chain can be thousands of elements long)."""
    chain = [node]
    while True:
        first = next((c for c in chain[-1].children if c.is_named and c.type != "comment"), None)
        if first is None or first.type != "list":
            break
        chain.append(first)
    for depth, lst in enumerate(reversed(chain)):
        skipped = depth == 0  # the innermost list has no nested list to skip
        for child in lst.children:
            if child.type == "comment":
                continue
            if not child.is_named:
                ops.append(child.type)
            elif not skipped:
                skipped = True  # the nested list, already flattened
            else:
                elems.append(child)


def walk_pipeline(
    w: Walker,
    children: Sequence[tree_sitter.Node],
    st: State,
    feed: Feed,
    tail: Tail | None,
    inh: list[dict[str, Any]],
) -> Feed:
    elems = [c for c in children if c.is_named and c.type != "comment"]
    context = "pipeline" if st.context == "top" else None
    out = feed
    for i, elem in enumerate(elems):
        # every element of a pipeline runs in its own subshell
        sub = st.fork(context)
        out = visit(w, elem, sub, out if i else feed, tail if i == len(elems) - 1 else None, inh)
    return out


def redirected(
    w: Walker, node: tree_sitter.Node, st: State, feed: Feed, tail: Tail | None, inh: list[dict[str, Any]]
) -> Feed:
    body = node.child_by_field_name("body")
    mine = Tail()
    continuation: list[tuple[str, tree_sitter.Node]] = []
    prev_end = node.start_byte
    raw = w._bytes(node)
    fds: dict[int, int] = {}
    children = node.children
    for k in range(1, len(children)):
        prev_node = children[k - 1]
        if prev_node.end_byte != children[k].start_byte or children[k].type != "file_redirect":
            continue
        leaf = prev_node
        while leaf.child_count:
            leaf = leaf.children[-1]
        fd_given = fd_before(w, leaf, children[k])
        if fd_given is not None:
            fds[children[k].start_byte] = fd_given
            w._fd_words.add(leaf.start_byte)
    for child in children:
        if child.start_byte - prev_end > 1:
            gap = raw[prev_end - node.start_byte : child.start_byte - node.start_byte].strip()
            if gap == b"-":
                mine.extra_args.append(Field("-"))
        prev_end = max(prev_end, child.end_byte)
        if child.type in ("file_redirect", "herestring_redirect"):
            redirect(w, child, st, mine, fds.get(child.start_byte))
        elif child.type == "heredoc_redirect":
            heredoc(w, child, st, mine, continuation)
    if tail is not None:
        mine.redirects.extend(tail.redirects)
        mine.stdin = mine.stdin or tail.stdin
        mine.extra_args.extend(tail.extra_args)
        mine.piped = mine.piped or tail.piped
    mine.piped = any(kind == "|" for kind, _ in continuation)
    if body is None:
        # A bare redirection (`> file`) still truncates or creates the file.
        emit(w, [], {}, [], st, feed, [*inh, *mine.redirects], False, mine.stdin)
        for sub_node in mine.procsubs:
            substitution(w, sub_node, st, Feed())
        out = Feed()
    elif body.type in ("command", "list", "pipeline", "redirected_statement", "negated_command"):
        out = visit(w, body, st, feed, mine, inh)
    else:
        # Redirections of a compound statement apply to every command inside it.
        saved_input = w._input_paths
        w._input_paths = mine.stdin_paths or saved_input
        out = visit(w, body, st, feed, None, [*inh, *mine.redirects])
        w._input_paths = saved_input
        for sub_node in mine.procsubs:
            # what a loop or group writes is not known
            substitution(w, sub_node, st, Feed("", None, False, "unknown"))
    for kind, cont in continuation:
        if kind == "|":
            out = walk_pipeline(
                w, [cont], st.fork("pipeline" if st.context == "top" else None), out, None, inh
            )
        else:
            before = st.snapshot()
            out = visit(w, cont, st, Feed(), None, inh)
            st.merge_uncertain(before)
    return out
