"""The grammar (tree-sitter-bash): one parser per thread, the node kinds the walk treats
alike, and the check that every byte of a program belongs to some token.
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING

import tree_sitter
import tree_sitter_bash

if TYPE_CHECKING:
    from opafence.facts.shell.walker import Walker


_LANGUAGE = tree_sitter.Language(tree_sitter_bash.language())


_WORD_CHARS = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"


ASCII_FOR_PARSER = bytes.maketrans(
    bytes(range(0x80, 0x100)) + b"\x00",
    bytes(_WORD_CHARS[i % len(_WORD_CHARS)] for i in range(0x80)) + b" ",
)


_local = threading.local()


def parser() -> tree_sitter.Parser:
    # tree-sitter parsers are not thread-safe; Hermes calls hooks from worker threads.
    p: tree_sitter.Parser | None = getattr(_local, "parser", None)
    if p is None:
        p = tree_sitter.Parser(_LANGUAGE)
        _local.parser = p
    return p


# Nodes whose text the walker reads itself (quotes, here-doc bodies): coverage counts them whole.
_TEXT_NODES = frozenset({"string", "raw_string", "ansi_c_string", "translated_string", "heredoc_body"})


PLAIN_WORD_SAFE = frozenset("\\{~*?[")


STATEMENTS = frozenset(
    {
        "program",
        "list",
        "pipeline",
        "redirected_statement",
        "command",
        "negated_command",
        "subshell",
        "compound_statement",
        "if_statement",
        "elif_clause",
        "else_clause",
        "while_statement",
        "for_statement",
        "c_style_for_statement",
        "case_statement",
        "case_item",
        "function_definition",
        "declaration_command",
        "unset_command",
        "variable_assignment",
        "variable_assignments",
        "test_command",
        "do_group",
    }
)


CONDITIONAL = frozenset(
    {"if_statement", "while_statement", "for_statement", "c_style_for_statement", "case_statement"}
    | {"function_definition"}
)


def contains_kind(node: tree_sitter.Node, kind: str) -> bool:
    stack = list(node.children)
    while stack:
        n = stack.pop()
        if n.type == kind:
            return True
        stack.extend(n.children)
    return False


def gap_check(w: Walker, root: tree_sitter.Node, src: bytes) -> None:
    """Every non-blank byte must belong to some token: tree-sitter-bash occasionally drops
    a token instead of reporting an error, and a dropped token could hide anything."""
    pos = root.start_byte
    cursor = root.walk()
    visited_children = False
    while True:
        if not visited_children:
            node = cursor.node
            leaf = node is not None and (node.child_count == 0 or node.type in _TEXT_NODES)
            if node is not None and leaf:
                if node.start_byte > pos:
                    gap = src[pos : node.start_byte]
                    if not gap.isspace():
                        check_gap(w, gap)
                pos = max(pos, node.end_byte)
            if not leaf and cursor.goto_first_child():
                continue
        if cursor.goto_next_sibling():
            visited_children = False
            continue
        if not cursor.goto_parent():
            break
        visited_children = True
    if pos < len(src) and not src[pos:].isspace():
        check_gap(w, src[pos:])


def check_gap(w: Walker, gap: bytes) -> None:
    stripped = gap.replace(b"\\\n", b"").strip()
    # A lone "-" before a here-doc is dropped by the grammar; commands.simple_command puts it back.
    if stripped and stripped != b"-":
        w.col.opaque("shell_parse_gap")
