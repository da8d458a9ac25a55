"""Calls that call the functions they are given (`functools.partial` aside): threads, executors,
`map`, `atexit`, schedulers."""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from opafence.facts.code import values
from opafence.facts.code.model import MAX_ALTERNATIVES, MAX_SYNTHETIC, call_arg, call_keyword, starred
from opafence.facts.code.tables import HOF_ROOTS, HOFS

if TYPE_CHECKING:
    from opafence.facts.code.analyzer import Analyzer


def higher_order(an: Analyzer, name: str, node: ast.Call, synthetic: int) -> None:
    last = name.rpartition(".")[2]
    spec = HOFS.get(name)
    if spec is None:
        if "." not in name or last.endswith(")"):
            return
        spec = HOFS.get("." + last)
        if spec is None:
            return
        if last in ("Thread", "Process", "Timer") and name.split(".", 1)[0] not in HOF_ROOTS:
            return
    kind = spec[0]
    calls: list[ast.Call] = []
    f: ast.expr | None
    if kind == "star":
        index, keyword = spec[1], spec[2]
        f = (
            call_arg(node, index, keyword)
            if keyword
            else (node.args[index] if len(node.args) > index else None)
        )
        if f is None:
            return
        rest = node.args[index + 1 :] if len(node.args) > index else []
        kws = [k for k in node.keywords if k.arg != keyword]
        calls.append(ast.Call(func=f, args=list(rest), keywords=kws))
    elif kind == "target":
        _, fkw, fi, akw, ai, kkw, ki = spec
        f = call_arg(node, fi, fkw)
        if f is None:
            return
        a = call_arg(node, ai, akw)
        k = call_arg(node, ki, kkw)
        call_args: list[ast.expr] = []
        if a is not None:
            elts = values.literal_elts(an, a)
            call_args = elts if elts is not None else [starred(a)]
        call_kws: list[ast.keyword] = []
        if k is not None:
            if type(k) is ast.Dict and all(key is not None for key in k.keys):
                for key, val in zip(k.keys, k.values, strict=True):
                    ks = values.const_str(an, key) if key is not None else None
                    call_kws.append(ast.keyword(arg=ks, value=val))
            else:
                call_kws.append(ast.keyword(arg=None, value=k))
        calls.append(ast.Call(func=f, args=call_args, keywords=call_kws))
    else:
        star = spec[1]
        f = node.args[0] if node.args else call_keyword(node, "func")
        iterables = node.args[1:]
        if f is None or not iterables:
            return
        elts = values.literal_elts(an, iterables[0]) if len(iterables) == 1 else None
        if elts is not None and len(elts) <= MAX_ALTERNATIVES:
            for e in elts:
                if star:
                    inner = values.literal_elts(an, e)
                    each = inner if inner is not None else [starred(e)]
                else:
                    each = [e]
                calls.append(ast.Call(func=f, args=each, keywords=[]))
        else:
            each = [starred(it) for it in iterables]
            calls.append(ast.Call(func=f, args=each, keywords=[]))
    if type(f) is ast.Lambda:
        return  # its body is read where it is written; its parameters stay unknown
    an.resolved.add(id(f))
    for call in calls:
        an.call(call, synthetic + 1)


def hof_call(an: Analyzer, name: str, node: ast.Call, synthetic: int) -> None:
    """A call that calls the function it is given (analyzer.HANDLERS), up to MAX_SYNTHETIC deep."""
    if synthetic < MAX_SYNTHETIC:
        higher_order(an, name, node, synthetic)
