"""Calls that reach names or code the reader cannot see: eval and its kin, getattr and
`__import__` with computed names, unpickling, `functools.partial`, case variants of runners
(`os.SYSTEM`), writes into a namespace."""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from opafence.facts.code import names, origins, values
from opafence.facts.code.kinds import is_runner
from opafence.facts.code.model import DECODED, call_arg
from opafence.facts.code.tables import GETATTR

if TYPE_CHECKING:
    from opafence.facts.code.analyzer import Analyzer


def eval_call(an: Analyzer, name: str, node: ast.Call, synthetic: int) -> None:
    an.col.opaque("code_eval")
    source = call_arg(node, 0, "source", "object", "code")
    if source is not None:
        origins.run_origin(an, origins.of(an, source))
        v = values.value(an, source)
        if v is not None and v.text is not None and name not in ("types.FunctionType", "types.CodeType"):
            an.nested(v.text)


def getattr_call(an: Analyzer, name: str, node: ast.Call, synthetic: int) -> None:
    args = node.args
    if len(args) >= 2:
        if values.const_str(an, args[1]) is None:
            an.col.opaque("code_dynamic_getattr")
            origins.run_origin(an, origins.of(an, args[1]) & DECODED)
        if id(node) not in an.called and name in GETATTR:
            # getattr(os, 'system') handed on instead of called
            resolved = names.dotted(an, node)
            if resolved is not None and is_runner(resolved):
                an.pending.append(node)


def import_call(an: Analyzer, name: str, node: ast.Call, synthetic: int) -> None:
    args = node.args
    mod = values.const_str(an, args[0]) if args else None
    if mod is None:
        an.col.opaque("code_dynamic_import")
        if args:
            origins.run_origin(an, origins.of(an, args[0]) & DECODED)
    else:
        names.note_import(an, mod)


def deserialize_call(an: Analyzer, name: str, node: ast.Call, synthetic: int) -> None:
    an.col.opaque("code_deserialize")
    data = node.args[0] if node.args else None
    if data is not None:
        bits = origins.of(an, data)
        if type(data) is ast.Constant or values.const_str(an, data) is not None:
            bits |= DECODED  # an encoded program written into the code
        origins.run_origin(an, bits)


def partial_call(an: Analyzer, name: str, node: ast.Call, synthetic: int) -> None:
    if node.args:
        an.partial_of[id(node.args[0])] = node


def case_variant(an: Analyzer, name: str, node: ast.Call, synthetic: int) -> None:
    an.col.opaque("code_case_variant")


def namespace_write(an: Analyzer, name: str, node: ast.Call, synthetic: int) -> None:
    an.col.opaque("code_dynamic_namespace")
