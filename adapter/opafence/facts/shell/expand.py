"""Word expansion: a word node -> the fields bash would produce (tildes, brace expansion,
globs, word splitting on IFS, arrays), from the pieces pieces.py reads."""

from __future__ import annotations

import posixpath
import re
from typing import TYPE_CHECKING

import tree_sitter

from opafence.facts import paths
from opafence.facts.shell.grammar import PLAIN_WORD_SAFE
from opafence.facts.shell.model import (
    DYN,
    EXP,
    LIT,
    MAX_BRACE,
    MAX_SOURCES,
    QUO,
    Field,
    Piece,
    State,
)
from opafence.facts.shell.pieces import word_pieces
from opafence.facts.shell.words import (
    DEFAULT_IFS,
    brace_expand,
    ifs_splitter,
    merge_pieces,
)

if TYPE_CHECKING:
    from opafence.facts.shell.walker import Walker


def fields(w: Walker, node: tree_sitter.Node, st: State) -> list[Field]:
    """Expand one word node into the fields bash would produce."""
    if node.type == "word":
        text = w._text(node)
        if PLAIN_WORD_SAFE.isdisjoint(text):
            return [Field(text)]
    if node.type in ("string", "expansion") and st.arrays:
        elements = array_fields(w, node, st)
        if elements is not None:
            return elements
    pieces: list[Piece] = []
    saved = w._srcs
    w._srcs = []
    try:
        dynamic, decoded = word_pieces(w, node, st, pieces, False)
        srcs = w._srcs
    finally:
        w._srcs = saved
    if dynamic:
        pattern = glob_pattern(w, pieces, st)
        if pattern:
            srcs.append(pattern)
        sources = tuple(dict.fromkeys(srcs))[:MAX_SOURCES] if srcs else ()
        return [Field(w._text(node), dynamic=True, decoded=decoded, sources=sources)]
    variants: list[list[Piece]] = [pieces]
    lit = "".join(text for text, kind in pieces if kind == LIT)
    if "{" in lit and "}" in lit:
        chars = [(c, kind) for text, kind in pieces for c in text]
        expanded = brace_expand(chars, [MAX_BRACE])
        if expanded is None:
            return [Field(w._text(node), dynamic=True)]
        variants = [merge_pieces(v) for v in expanded]
    out: list[Field] = []
    for v in variants:
        out.extend(finish(w, v, st))
    if srcs and len(out) == 1:
        out[0].sources = tuple(dict.fromkeys(srcs))[:MAX_SOURCES]  # <(ls ~/.ssh)
    return out


def glob_pattern(w: Walker, pieces: list[Piece], st: State) -> str:
    """`~/.ssh/$k` -> "/home/u/.ssh/*": the paths a word with unknown parts may name, as a
    glob, when a literal directory comes before the first unknown part; else ""."""
    text = "".join("*" if kind == DYN else t for t, kind in pieces)
    star = text.find("*")
    if star < 0 or "/" not in text[:star]:
        return ""
    if pieces[0][1] == LIT and text.startswith("~"):
        text, bad = paths.expand_tilde(text, w.col.home, st.cwd or "")
        if bad:
            return ""
    if paths.problem(text):
        return ""
    if not text.startswith("/"):
        if st.cwd is None:
            return ""
        return posixpath.normpath(posixpath.join(st.cwd, text))
    return posixpath.normpath(text)


def array_fields(w: Walker, node: tree_sitter.Node, st: State) -> list[Field] | None:
    """`"${a[@]}"` / `${a[@]}` of an array whose elements are all known: one field each."""
    exp = node
    if node.type == "string":
        inner = [c for c in node.children if c.type not in ('"',)]
        if len(inner) != 1 or inner[0].type not in ("expansion", "simple_expansion"):
            return None
        exp = inner[0]
        if w._text(exp) in ("$@", "${@}") and "@" in st.arrays:
            return [Field(e) for e in st.arrays["@"]]  # "$@" after `set -- ...`
        if exp.type != "expansion":
            return None
    named = [c for c in exp.children if c.is_named]
    ops = [c for c in exp.children if not c.is_named and c.type not in ("${", "}")]
    if ops or len(named) != 1 or named[0].type != "subscript":
        return None
    name_node = named[0].child_by_field_name("name")
    index_node = named[0].child_by_field_name("index")
    if name_node is None or index_node is None or w._text(index_node) not in ("@", "*"):
        return None
    elements = st.arrays.get(w._text(name_node))
    if elements is None:
        return None
    if node.type == "string" and w._text(index_node) == "@":
        return [Field(e) for e in elements]
    return [Field(w) for e in elements for w in e.split()]


def finish(w: Walker, pieces: list[Piece], st: State) -> list[Field]:
    # tilde expansion: an unquoted leading ~ up to the first unquoted slash
    if pieces and pieces[0][1] == LIT and pieces[0][0].startswith("~"):
        first = pieces[0][0]
        slash = first.find("/")
        if slash >= 0 or len(pieces) == 1:
            prefix = first if slash < 0 else first[:slash]
            home = st.vars.get("HOME", w.col.home) if "HOME" in st.vars else w.col.home
            if prefix == "~" and home is None:
                return [Field("".join(p for p, _ in pieces), dynamic=True)]
            expanded, bad = paths.expand_tilde(prefix, home or "", st.cwd or "")
            if bad:
                w.col.opaque(bad)
                return [Field("".join(p for p, _ in pieces), dynamic=True)]
            pieces = [(expanded + ("" if slash < 0 else first[slash:]), QUO), *pieces[1:]]
    glob = any(kind != QUO and any(c in text for c in "*?[") for text, kind in pieces)
    if not any(kind == EXP for _, kind in pieces):
        return [Field("".join(p for p, _ in pieces), glob=glob)]
    splitter: re.Pattern[str] | None = DEFAULT_IFS
    if "IFS" in st.vars:
        ifs = st.vars["IFS"]
        if ifs is None:
            return [Field("".join(p for p, _ in pieces), dynamic=True)]
        splitter = ifs_splitter(ifs)
    # word splitting of unquoted expansion results
    fields: list[str] = []
    cur: list[str] = []
    have = False
    for text, kind in pieces:
        if kind != EXP:
            cur.append(text)
            have = True
            continue
        parts = splitter.split(text) if splitter is not None else [text]
        for k, part in enumerate(parts):
            if k > 0:
                if have or cur:
                    fields.append("".join(cur))
                cur = []
                have = False
            if part:
                cur.append(part)
                have = True
    if have or cur:
        fields.append("".join(cur))
    return [Field(f, glob=glob) for f in fields]
