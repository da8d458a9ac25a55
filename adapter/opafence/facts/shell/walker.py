"""The Walker: the state of one walk of a shell program, and the operations the other
modules reach through it (they get the walker as their first argument).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence, Set
from typing import Any

import tree_sitter

from opafence.facts.collect import MAX_DEPTH, Collector
from opafence.facts.shell.commands import emit
from opafence.facts.shell.expand import fields, substitution
from opafence.facts.shell.grammar import ASCII_FOR_PARSER, gap_check, parser
from opafence.facts.shell.model import MAX_SOURCE, Feed, Field, State, Stdin, Tail
from opafence.facts.shell.statements import generic, visit, walk_pipeline, walk_sequence


class Walker:
    """One walk: the collector facts go to, the program being walked, and what the walk
    carries between nodes (the sources of the word being expanded, the last output, ...)."""

    def __init__(self, col: Collector, code_parser: Callable[..., None] | None = None) -> None:
        self.col = col
        self.code_parser = code_parser
        self.src = b""  # the original bytes of the program being walked
        self.nest = 0  # Python recursion used by the walk (a deeper tree is opaque, not a crash)
        self._srcs: list[str] = []  # sources of the word being expanded (see Field.sources)
        self._input_paths: Sequence[str] = ()  # paths named by what feeds the loop being walked
        self._out_procsubs: list[tree_sitter.Node] | None = None  # `>(...)` arguments of this command
        self._fd_words: set[int] = set()  # numbers the grammar split off their redirections
        self._last_output: Feed | None = None  # what the last substitution walked printed

    def run(self, text: str, st: State) -> Feed:
        """Parse and walk one shell program (a whole command, or a -c / eval / here-doc body)."""
        if st.depth > MAX_DEPTH:
            self.col.opaque("shell_too_deep")
            return Feed()
        if len(text) > MAX_SOURCE:
            self.col.opaque("shell_too_large")
            return Feed()
        src = text.encode("utf-8", "replace")
        if b"\x00" in src:
            # bash never sees past a NUL (and Hermes cannot pass one to a process)
            self.col.opaque("shell_nul")
        # The grammar's external scanner calls isalpha()/isdigit() on whole code points, which
        # reads out of bounds for non-ASCII input and can crash the process. Bash treats every
        # non-ASCII byte as a word character, so the parser is given an ASCII copy with each such
        # byte replaced by a letter or digit (same length, same offsets); texts are read from
        # the original bytes.
        tree = parser().parse(src.translate(ASCII_FOR_PARSER))
        root = tree.root_node
        outer = self.src
        self.src = src
        try:
            if root.has_error:
                self.col.opaque("shell_parse_error")
            gap_check(self, root, src)
            return self._sequence(root.children, st, Feed(), None, [])
        finally:
            self.src = outer

    def _bytes(self, node: tree_sitter.Node) -> bytes:
        return self.src[node.start_byte : node.end_byte]

    def _text(self, node: tree_sitter.Node) -> str:
        return self.src[node.start_byte : node.end_byte].decode("utf-8", "replace")

    def _body(self, text: str, st: State, context: str) -> Feed:
        sub = st.fork(context, deeper=True)
        return self.run(text, sub)

    def _emit_argv(self, argv: list[Field], st: State, wrappers: list[str]) -> None:
        """A command given as an argument vector (find -exec, code's subprocess lists)."""
        self._emit_plain(argv, st, wrappers)

    def _emit_plain(self, argv: list[Field], st: State, wrappers: list[str]) -> Feed:
        return self._emit(argv, {}, wrappers, st, Feed(), [], False, None)

    def _sequence(
        self,
        nodes: Sequence[tree_sitter.Node],
        st: State,
        feed: Feed,
        tail: Tail | None,
        inherited: list[dict[str, Any]],
    ) -> Feed:
        return walk_sequence(self, nodes, st, feed, tail, inherited)

    def visit(
        self,
        node: tree_sitter.Node,
        st: State,
        feed: Feed,
        tail: Tail | None = None,
        inherited: list[dict[str, Any]] | None = None,
    ) -> Feed:
        return visit(self, node, st, feed, tail, inherited)

    def _generic(self, node: tree_sitter.Node, st: State, inherited: list[dict[str, Any]]) -> None:
        return generic(self, node, st, inherited)

    def _pipeline(
        self,
        children: Sequence[tree_sitter.Node],
        st: State,
        feed: Feed,
        tail: Tail | None,
        inh: list[dict[str, Any]],
    ) -> Feed:
        return walk_pipeline(self, children, st, feed, tail, inh)

    def fields(self, node: tree_sitter.Node, st: State) -> list[Field]:
        return fields(self, node, st)

    def _substitution(self, node: tree_sitter.Node, st: State, feed: Feed | None = None) -> bool:
        return substitution(self, node, st, feed)

    def _emit(
        self,
        argv_in: list[Field],
        env: dict[str, str],
        wrappers_in: list[str],
        st: State,
        feed: Feed,
        redirects: list[dict[str, Any]],
        dynamic_in: bool,
        stdin: Stdin | None,
        dyn_env: Set[str] = frozenset(),
    ) -> Feed:
        return emit(self, argv_in, env, wrappers_in, st, feed, redirects, dynamic_in, stdin, dyn_env)
