"""Word expansion: quotes, variables, arrays, command and process substitution, tildes,
globs and word splitting, as bash does them.
"""

from __future__ import annotations

import posixpath
import re
from typing import TYPE_CHECKING

import tree_sitter

from opafence.facts import paths
from opafence.facts.collect import MAX_DEPTH
from opafence.facts.shell.commands import emit
from opafence.facts.shell.grammar import PLAIN_WORD_SAFE, contains_kind
from opafence.facts.shell.model import (
    DYN,
    ENV_NAME,
    EXP,
    LIT,
    MAX_BRACE,
    MAX_SOURCES,
    QUO,
    Feed,
    Field,
    Piece,
    State,
    Tail,
)
from opafence.facts.shell.redirects import redirect
from opafence.facts.shell.words import (
    DEFAULT_IFS,
    brace_expand,
    decode_ansi_c,
    ifs_splitter,
    merge_pieces,
    substring,
    unescape_dquoted,
    unescape_unquoted,
)

if TYPE_CHECKING:
    from opafence.facts.shell.walker import Walker


_ARITH_PAYLOAD = re.compile(r"\[[^\]]*(?:\$\(|`)")


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


def word_pieces(
    w: Walker, node: tree_sitter.Node, st: State, out: list[Piece], quoted: bool
) -> tuple[bool, bool]:
    """Append the pieces of a word to out; returns (dynamic, decoded)."""
    t = node.type
    if t in ("word", "number", "special_variable_name", "variable_name", "extglob_pattern", "regex"):
        text = w._text(node)
        payload_check(w, text)
        if quoted:
            out.append((unescape_dquoted(text), QUO))
        else:
            unescape_unquoted(text, out)
        return False, False
    if t == "raw_string":
        text = w._text(node)
        payload_check(w, text)
        out.append((text[1:-1] if len(text) >= 2 else "", QUO))
        return False, False
    if t == "ansi_c_string":
        text = w._text(node)
        decoded = decode_ansi_c(text[2:-1] if len(text) >= 3 else "")
        if decoded is None:
            w.col.opaque("shell_ansi_c_unresolved")
            out.append(("", DYN))
            return True, False
        out.append((decoded, QUO))
        return False, False
    if t in ("string", "translated_string"):
        return string_pieces(w, node, st, out)
    if t == "concatenation":
        dyn = dec = False
        for child in node.children:
            d, e = word_pieces(w, child, st, out, quoted)
            dyn, dec = dyn or d, dec or e
        return dyn, dec
    if t in ("simple_expansion", "expansion"):
        value = expansion_value(w, node, st)
        if value is None:
            out.append(("", DYN))
            return True, False
        out.append((value, QUO if quoted else EXP))
        return False, False
    if t == "command_substitution":
        first = len(w.col.commands)
        from_decoder = substitution(w, node, st)
        result = w._last_output
        if (
            not from_decoder
            and result is not None
            and result.content is not None
            and not result.decoded
            and result.kind != "unknown"
            and len(w.col.commands) == first + 1
        ):
            # $(echo rm), $(printf '%s' x): one command printing literal text
            out.append((result.content.rstrip("\n"), QUO if quoted else EXP))
            return False, False
        out.append(("", DYN))
        return True, from_decoder
    if t == "process_substitution":
        if w._out_procsubs is not None and w._bytes(node).startswith(b">("):
            w._out_procsubs.append(node)  # `tee >(sh)`: walked once the input is known
            out.append(("/dev/fd/63", QUO))
            return False, False
        from_decoder = substitution(w, node, st)
        out.append(("/dev/fd/63", QUO))
        return False, from_decoder
    if t == "arithmetic_expansion":
        arithmetic(w, node, st)
        out.append(("", DYN))
        return True, False
    if t == "brace_expression":
        out.append((w._text(node), LIT))
        return False, False
    if t in ('"', "`", "$"):
        return False, False
    # anything else (ERROR, unusual nodes): not understood as a value
    if t == "ERROR":
        w.col.opaque("shell_parse_error")
    w._generic(node, st, [])
    out.append(("", DYN))
    return True, False


def payload_check(w: Walker, text: str) -> None:
    # `x='a[$(cmd)]'; echo $((x))`: bash runs cmd when it evaluates x arithmetically.
    if "[" in text and _ARITH_PAYLOAD.search(text):
        w.col.opaque("shell_arithmetic_payload")


def string_pieces(w: Walker, node: tree_sitter.Node, st: State, out: list[Piece]) -> tuple[bool, bool]:
    payload_check(w, w._text(node))
    dyn = dec = False
    children = node.children
    src_start = node.start_byte
    raw = w._bytes(node)
    pos = src_start + (2 if node.type == "translated_string" else 1)
    end = node.end_byte - 1
    for child in children:
        if child.type in ('"', '$"'):
            continue
        if child.start_byte > pos:
            gap = raw[pos - src_start : child.start_byte - src_start].decode("utf-8", "replace")
            out.append((unescape_dquoted(gap), QUO))
        if child.type == "string_content":
            out.append((unescape_dquoted(w._text(child)), QUO))
        else:
            d, e = word_pieces(w, child, st, out, True)
            dyn, dec = dyn or d, dec or e
        pos = max(pos, child.end_byte)
    if end > pos:
        gap = raw[pos - src_start : end - src_start].decode("utf-8", "replace")
        out.append((unescape_dquoted(gap), QUO))
    return dyn, dec


def expansion_value(w: Walker, node: tree_sitter.Node, st: State) -> str | None:
    named = [c for c in node.children if c.is_named]
    if node.type == "simple_expansion":
        if len(named) != 1 or named[0].type not in ("variable_name", "special_variable_name"):
            return None
        return lookup(w, w._text(named[0]), st)
    text = w._text(node)
    if "@P" in text.replace(" ", "") or re.search(r"@\s*P\s*}", text):
        w.col.opaque("shell_prompt_expansion")
    # any command substitution inside (${x:-$(cmd)}) may run
    for child in named:
        if child.type != "variable_name":
            generic_word(w, child, st)
    ops = [c for c in node.children if not c.is_named and c.type not in ("${", "}")]
    if len(named) == 1 and named[0].type == "variable_name" and [o.type for o in ops] == ["!"]:
        # ${!ref}: the variable whose name ref holds
        ref = lookup(w, w._text(named[0]), st)
        if ref is None or not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", ref):
            return None
        return lookup(w, ref, st)
    if not ops and len(named) == 1 and named[0].type == "subscript" and st.arrays:
        name_node = named[0].child_by_field_name("name")
        index_node = named[0].child_by_field_name("index")
        elements = st.arrays.get(w._text(name_node)) if name_node is not None else None
        if elements is not None and index_node is not None:
            index = w._text(index_node)
            if index in ("@", "*"):
                return " ".join(elements)
            if index.isdigit():
                k = int(index)
                return elements[k] if k < len(elements) else ""
        return None
    if (
        named
        and named[0].type == "variable_name"
        and ops
        and all(o.type == ":" for o in ops)
        and len(named) == len(ops) + 1 <= 3
        and all(n.type == "number" for n in named[1:])
    ):
        # ${x:offset} / ${x:offset:length} with literal numbers
        value = lookup(w, w._text(named[0]), st)
        return None if value is None else substring(value, [int(w._text(n)) for n in named[1:]])
    if ops or len(named) != 1 or named[0].type not in ("variable_name", "special_variable_name"):
        if named and named[0].type == "variable_name" and w._text(named[0]) not in st.vars:
            w.col.add_env_var(w._text(named[0]))  # ${TOKEN:-x}, ${TOKEN#prefix}
        return None
    return lookup(w, w._text(named[0]), st)


def generic_word(w: Walker, node: tree_sitter.Node, st: State) -> None:
    if node.type in ("command_substitution", "process_substitution"):
        substitution(w, node, st)
    elif node.type == "arithmetic_expansion":
        arithmetic(w, node, st)
    else:
        for child in node.children:
            if child.is_named:
                generic_word(w, child, st)


def lookup(w: Walker, name: str, st: State) -> str | None:
    if name in st.vars:
        value = st.vars[name]
        if value is None and name in st.srcs and len(w._srcs) < MAX_SOURCES:
            w._srcs.extend(st.srcs[name])
        return value
    if name == "HOME":
        return w.col.home or None
    if name == "PWD":
        return st.cwd
    if name == "IFS":
        return " \t\n"  # bash's default when nothing in the program set it
    positional = st.arrays.get("@")
    if positional is not None:
        if name in ("@", "*"):
            return " ".join(positional)
        if name == "#":
            return str(len(positional))
        if name.isdigit() and name != "0":
            k = int(name)
            return positional[k - 1] if k <= len(positional) else ""
    if ENV_NAME.fullmatch(name):
        # Set nowhere in the program: the environment's value (a credential, perhaps).
        w.col.add_env_var(name)
    return None


def arithmetic(w: Walker, node: tree_sitter.Node, st: State) -> None:
    if "`" in w._text(node) or contains_kind(node, "command_substitution"):
        w.col.opaque("shell_arithmetic_substitution")
    w._generic(node, st, [])


def substitution(w: Walker, node: tree_sitter.Node, st: State, feed: Feed | None = None) -> bool:
    """Walk the body of $(...), `...`, <(...) or >(...); True when its output was decoded."""
    kind = "process_substitution" if node.type == "process_substitution" else "command_substitution"
    sub = st.fork(kind, deeper=True)
    if sub.depth > MAX_DEPTH:
        w.col.opaque("shell_too_deep")
        return False
    text = w._text(node)
    first = len(w.col.commands)
    named = [c for c in node.children if c.is_named and c.type != "comment"]
    if text.startswith("`"):
        inner = re.sub(r"\\([\\`$])", r"\1", text[1:-1] if text.endswith("`") else text[1:])
        out = w.run(inner, sub)
    elif len(named) == 1 and named[0].type == "file_redirect":
        # $(< FILE): bash reads FILE itself; shown as a bare redirection, like `< FILE`
        into = Tail()
        redirect(w, named[0], sub, into)
        emit(w, [], {}, [], sub, Feed(), into.redirects, False, None)
        out = Feed()
        for r in into.redirects:
            if r["path"] and r["mode"] == "read":
                w._srcs.append(r["path"])
    else:
        out = w._sequence(node.children, sub, feed or Feed(), None, [])
    if len(w._srcs) < MAX_SOURCES:
        # what the output may name: the literal paths the commands inside were given
        for cmd in w.col.commands[first:]:
            w._srcs.extend(p for p in cmd["operand_paths"] if p)
            w._srcs.extend(cmd["maybe_paths"])
    w._last_output = out
    if out.decoded:
        w.col.opaque("decode_and_run")
    return out.decoded
