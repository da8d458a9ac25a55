"""Redirections and here-docs: the paths they read and write, the stdin they give."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

import tree_sitter

from opafence.facts import paths, url
from opafence.facts.shell.model import Field, State, Stdin, Tail

if TYPE_CHECKING:
    from opafence.facts.shell.walker import Walker


def fd_before(w: Walker, word: tree_sitter.Node | None, redirect: tree_sitter.Node) -> int | None:
    """`sh 0</tmp/p`: the grammar reads `0` as a word; bash reads it as the descriptor of
    the redirection that touches it."""
    if (
        word is None
        or word.type != "number"
        or word.end_byte != redirect.start_byte
        or redirect.type != "file_redirect"
        or any(c.type == "file_descriptor" for c in redirect.children)
    ):
        return None
    text = w._text(word)
    return int(text) if text.isdigit() and len(text) < 4 else None


def redirect(w: Walker, node: tree_sitter.Node, st: State, into: Tail, fd_given: int | None = None) -> None:
    if node.type == "herestring_redirect":
        words = [c for c in node.children if c.is_named]
        fields = [f for word in words for f in w.fields(word, st)]
        text = " ".join(f.text for f in fields)
        into.redirects.append({"op": "<<<", "fd": 0, "raw": text[:256], "path": "", "mode": "other"})
        if not any(f.dynamic for f in fields):
            into.stdin = Stdin(text + "\n", "herestring")
        elif any(f.decoded for f in fields):
            into.stdin = Stdin("", "decoded")
        else:
            into.stdin = Stdin("", "unknown")
        return
    op = ""
    fd: int | None = None
    dests: list[tree_sitter.Node] = []
    for i, child in enumerate(node.children):
        fname = node.field_name_for_child(i)
        if child.type == "file_descriptor":
            try:
                fd = int(w._text(child))
            except ValueError:
                fd = None
        elif fname == "destination":
            dests.append(child)
        elif not child.is_named:
            op = child.type
    if fd is None and fd_given is not None:
        fd = fd_given
    if op.startswith("<") and fd is None:
        fd = 0
    elif fd is None:
        fd = 1
    if not dests:
        into.redirects.append({"op": op, "fd": fd, "raw": "", "path": "", "mode": "dup"})
        return
    if dests[0].type == "process_substitution" and w._bytes(dests[0]).startswith(b">(") and op[-1] == ">":
        # the command's output is the input of the commands inside: walked once it is known
        into.procsubs.append(dests[0])
        into.redirects.append(
            {"op": op, "fd": fd, "raw": "/dev/fd/63", "path": "/dev/fd/63", "mode": "write"}
        )
        return
    target = w.fields(dests[0], st)
    for extra in dests[1:]:
        if extra.start_byte not in w._fd_words:
            into.extra_args.extend(w.fields(extra, st))
    f = target[0] if target else Field("", dynamic=True)
    raw = f.text
    if op == "<" and f.sources:
        into.stdin_paths = f.sources
    if op in (">&", "<&") and (raw.isdigit() or raw == "-"):
        into.redirects.append({"op": op, "fd": fd, "raw": raw, "path": "", "mode": "dup"})
        return
    mode = {">": "write", ">|": "write", "&>": "write", ">&": "write", "<>": "write"}.get(op, "")
    mode = mode or {">>": "append", "&>>": "append", "<": "read", "<&": "read"}.get(op, "other")
    path = ""
    if f.dynamic or len(target) != 1:
        if mode in ("write", "append"):
            w.col.opaque("shell_dynamic_redirect")
    else:
        path = resolve(w, raw, st)
    into.redirects.append({"op": op, "fd": fd, "raw": raw, "path": path, "mode": mode})
    if path:
        w.col.add_path(raw, path, w.col.arg, "redirect", mode if mode != "other" else "")
        for prefix, scheme in (("/dev/tcp/", "tcp"), ("/dev/udp/", "udp")):
            if raw.startswith(prefix):
                host, _, port = raw[len(prefix) :].partition("/")
                fact, _ = url.parse(f"{scheme}://{host}:{port}" if port else f"{scheme}://{host}", w.col.arg)
                if fact is not None:
                    fact["raw"] = raw
                    w.col.add_url(fact)


def heredoc(
    w: Walker,
    node: tree_sitter.Node,
    st: State,
    into: Tail,
    continuation: list[tuple[str, tree_sitter.Node]],
) -> None:
    op = "<<"
    delim = ""
    body_node: tree_sitter.Node | None = None
    pending = ""
    for child in node.children:
        ct = child.type
        if ct in ("<<", "<<-"):
            op = ct
        elif ct == "heredoc_start":
            delim = w._text(child)
        elif ct == "heredoc_body":
            body_node = child
        elif ct in ("file_redirect", "herestring_redirect"):
            redirect(w, child, st, into)
        elif ct in ("|", "|&", "&&", "||", ";"):
            pending = "|" if ct.startswith("|") else ct
        elif ct == "pipeline":
            # `cat <<EOF | sh`: the grammar nests the rest of the pipeline in the here-doc.
            inner = [c for c in child.children if c.is_named]
            for c in inner:
                continuation.append(("|", c))
        elif child.is_named and ct not in ("heredoc_end", "heredoc_content", "comment"):
            if pending == "|":
                continuation.append(("|", child))
            elif pending:
                continuation.append((pending, child))
            else:
                into.extra_args.extend(w.fields(child, st))
            pending = ""
    quoted = any(q in delim for q in "'\"\\")
    text = ""
    if body_node is not None:
        text = w._text(body_node)
        if not quoted:
            # An unquoted here-doc expands $(...) and `...` when the shell reads it.
            w._generic(body_node, st, [])
            # `...` is not parsed inside here-doc bodies by the grammar: find it in the
            # text outside the $(...) the grammar did parse.
            plain = bytearray(w._bytes(body_node))
            for part in body_node.children:
                if part.type != "heredoc_content":
                    a, b = part.start_byte - body_node.start_byte, part.end_byte - body_node.start_byte
                    plain[a:b] = b" " * (b - a)
            for m in re.finditer(r"(?<!\\)`([^`]*)`", plain.decode("utf-8", "replace")):
                w._body(m.group(1), st, "command_substitution")
    if op == "<<-":
        text = "\n".join(line.lstrip("\t") for line in text.split("\n"))
    into.redirects.append({"op": op, "fd": 0, "raw": delim.strip("'\"\\"), "path": "", "mode": "other"})
    into.stdin = Stdin(text, "heredoc")


def resolve(w: Walker, text: str, st: State) -> str:
    if paths.problem(text):
        w.col.opaque(paths.problem(text))
        return ""
    if not text.startswith("/") and st.cwd is None:
        w.col.opaque("shell_dynamic_cwd")
        return ""
    return paths.resolve(text, st.cwd or "/", w.col.cache)
