"""A simple command -> a command fact: its words, its prefix assignments, its redirections,
the wrappers around it.
"""

from __future__ import annotations

from collections.abc import Sequence, Set
from typing import TYPE_CHECKING, Any

import tree_sitter

from opafence.facts import paths
from opafence.facts.shell.assign import assign_value
from opafence.facts.shell.dispatch import after
from opafence.facts.shell.environment import env_values
from opafence.facts.shell.grammar import PLAIN_WORD_SAFE
from opafence.facts.shell.model import MAX_FIELDS, MAX_SOURCES, NO_PATHS, Feed, Field, State, Stdin, Tail
from opafence.facts.shell.redirects import fd_before, heredoc, redirect
from opafence.facts.shell.tables import LONG_SINGLE_DASH, PASSTHROUGH
from opafence.facts.shell.unwrap import unwrap
from opafence.facts.shell.urls import urls
from opafence.facts.shell.words import basename, expand_flags, is_flag
from opafence.facts.shell.xargs import xargs

if TYPE_CHECKING:
    from opafence.facts.shell.walker import Walker


def simple_command(
    w: Walker, node: tree_sitter.Node, st: State, feed: Feed, tail: Tail | None, inh: list[dict[str, Any]]
) -> Feed:
    env: dict[str, str] = {}
    dyn_env: set[str] = set()
    words: list[Field] = []
    own = Tail()
    cont: list[tuple[str, tree_sitter.Node]] = []
    prev_end = node.start_byte
    saved_subs = w._out_procsubs
    arg_subs: list[tree_sitter.Node] = []
    w._out_procsubs = arg_subs
    last_child: tree_sitter.Node | None = None
    for child in node.children:
        start = child.start_byte
        # tree-sitter drops a lone "-" before a here-doc; put it back
        if start - prev_end > 1 and words and w.src[prev_end:start].strip() == b"-":
            words.append(Field("-"))
        prev_end = max(prev_end, child.end_byte)
        ct = child.type
        prev_child = last_child
        last_child = child
        if ct == "command_name":
            inner = child.named_children
            head = inner[0] if inner else child
            if head.type == "word" and PLAIN_WORD_SAFE.isdisjoint(text := w._text(head)):
                words.append(Field(text))
            else:
                words.extend(w.fields(head, st))
        elif ct == "variable_assignment" and not words:
            name, value = assign_value(w, child, st)
            env[name] = value if value is not None else w._text(child).partition("=")[2]
            if value is None:
                dyn_env.add(name)
        elif ct in ("file_redirect", "herestring_redirect"):
            fd_given = fd_before(w, prev_child, child)
            if fd_given is not None and words:
                words.pop()
            redirect(w, child, st, own, fd_given)
        elif ct == "heredoc_redirect":
            heredoc(w, child, st, own, cont)
        elif ct == "number" and child.start_byte in w._fd_words:
            pass  # `cmd 0</tmp/p`: the grammar's number is the redirection's descriptor
        elif ct == "word" and PLAIN_WORD_SAFE.isdisjoint(text := w._text(child)):
            words.append(Field(text))
        elif child.is_named and ct != "comment":
            words.extend(w.fields(child, st))
        if len(words) > MAX_FIELDS:
            w.col.opaque("shell_too_many_words")
            break
    w._out_procsubs = saved_subs
    words.extend(own.extra_args)
    redirects = [*inh, *own.redirects]
    stdin = own.stdin
    if tail is not None:
        words.extend(tail.extra_args)
        redirects.extend(tail.redirects)
        stdin = stdin or tail.stdin
        if tail.piped:
            # `cat <<EOF | sh`: this command is the head of a pipeline (its own subshell)
            st = st.fork("pipeline" if st.context == "top" else None)
    subs = own.procsubs + tail.procsubs if tail is not None and tail.procsubs else own.procsubs
    if cont:
        out = emit(w, words, env, [], st, feed, redirects, False, stdin, dyn_env)
        if subs or arg_subs:
            output_substitutions(w, words, out, feed, subs, arg_subs, st)
        for kind, nxt in cont:
            if kind == "|":
                out = w._pipeline([nxt], st.fork("pipeline" if st.context == "top" else None), out, None, inh)
            else:
                before = st.snapshot()
                out = w.visit(nxt, st, Feed(), None, inh)
                st.merge_uncertain(before)
        return out
    out = emit(w, words, env, [], st, feed, redirects, False, stdin, dyn_env)
    if subs or arg_subs:
        output_substitutions(w, words, out, feed, subs, arg_subs, st)
    return out


def output_substitutions(
    w: Walker,
    words: list[Field],
    out: Feed,
    feed: Feed,
    redirected: list[tree_sitter.Node],
    args: list[tree_sitter.Node],
    st: State,
) -> None:
    """`cmd > >(sh)` feeds cmd's output to sh; `tee >(sh)` feeds tee's input to it; another
    command writes to an argument `>(...)` something we cannot see."""
    for node in redirected:
        w._substitution(node, st, out)
    name = basename(words[0].text) if words and not words[0].dynamic else ""
    for node in args:
        w._substitution(node, st, feed if name == "tee" else Feed(name, None, False, "unknown"))


def emit(
    w: Walker,
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
    argv, wrappers, env2, dynamic, cwd, xopts = unwrap(w, argv_in, st)
    wrappers = [*wrappers_in, *wrappers]
    env = {**env, **env2}
    dynamic = dynamic or dynamic_in
    if env:
        env_values(w, env, dyn_env, argv, st)
    if xopts is None:
        return emit_one(w, argv, env, wrappers, st, feed, redirects, dynamic, stdin, cwd, NO_PATHS)
    out = Feed()
    for run_argv, run_dynamic, maybe in xargs(w, xopts, argv, feed, stdin, st):
        out = emit_one(
            w, run_argv, env, wrappers, st, feed, redirects, dynamic or run_dynamic, stdin, cwd, maybe
        )
    return out


def emit_one(
    w: Walker,
    argv: list[Field],
    env: dict[str, str],
    wrappers: list[str],
    st: State,
    feed: Feed,
    redirects: list[dict[str, Any]],
    dynamic: bool,
    stdin: Stdin | None,
    cwd: str | None,
    maybe_in: Sequence[str],
) -> Feed:
    name = ""
    if argv:
        head = argv[0]
        if head.dynamic:
            dynamic = True
            w.col.opaque("decode_and_run" if head.decoded else "shell_dynamic_command")
        elif head.glob:
            dynamic = True
            w.col.opaque("shell_glob_command")
        name = basename(head.text)
    if any(f.dynamic for f in argv[1:]):
        dynamic = True
    flags: list[str] = []
    operands: list[str] = []
    operand_fields: list[Field] = []
    end = False
    for f in argv[1:]:
        if not end and f.text == "--" and not f.dynamic:
            end = True
            continue
        if not end and not f.dynamic and is_flag(f.text):
            for x in [f.text] if name in LONG_SINGLE_DASH else expand_flags(f.text):
                if x not in flags:
                    flags.append(x)
        else:
            operands.append(f.text)
            operand_fields.append(f)
    cmd_cwd = cwd if cwd is not None else st.cwd
    operand_paths = [operand_path(w, f, cmd_cwd) for f in operand_fields]
    maybe: list[str] | None = None
    if maybe_in:
        maybe = [m for m in maybe_in if m]
    if dynamic:
        for f in operand_fields:
            if f.dynamic and f.sources:
                maybe = [*(maybe or ()), *f.sources]
    command = {
        "name": name,
        "argv": [f.text for f in argv],
        "flags": flags,
        "operands": operands,
        "operand_paths": operand_paths,
        "env": env,
        "redirects": redirects,
        "wrappers": wrappers,
        "context": st.context,
        "depth": st.depth,
        "pipe_from": feed.name,
        "dynamic": dynamic,
        "maybe_paths": list(dict.fromkeys(maybe))[:MAX_SOURCES] if maybe else [],
    }
    if not w.col.add_command(command):
        return Feed(name)
    urls(w, name, argv, operands)
    out = after(w, name, argv, flags, operand_fields, st, feed, stdin, cmd_cwd)
    if operand_paths:
        out.paths = operand_paths  # may hold "" (unknown): readers skip them
    elif name in PASSTHROUGH:
        out.paths = feed.paths
    return out


def operand_path(w: Walker, f: Field, cwd: str | None) -> str:
    if f.dynamic or not f.text or paths.problem(f.text):
        return ""
    if not f.text.startswith("/") and cwd is None:
        w.col.opaque("shell_dynamic_cwd")
        return ""
    return paths.resolve(f.text, cwd or "/", w.col.cache)
