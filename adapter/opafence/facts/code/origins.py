"""Where a value may come from: a decoder, the network, the process environment, a socket."""

from __future__ import annotations

import ast
import re
from typing import TYPE_CHECKING

from opafence.facts.code import names, values
from opafence.facts.code.model import (
    DECODED,
    ENV_ALL,
    ENV_SECRET,
    FETCHED,
    MAX_ORIGIN_DEPTH,
    SOCKET,
    Elem,
    call_arg,
    strip_calls,
)
from opafence.facts.code.tables import (
    DECODERS,
    DECODING_BUILTINS,
    DECODING_METHODS,
    ENVIRON,
    GETATTR,
    GETENV,
    LOCAL_NETWORK_CALLS,
    NETWORK_MODULES,
    OPEN,
    SOCKET_CTORS,
    TEXT_CODECS,
)

if TYPE_CHECKING:
    from opafence.facts.code.analyzer import Analyzer


_SECRET_NAME = re.compile(
    r"(?i)(api_?key|_key$|^key$|secret|token|passw|passwd|pwd|credential|auth|cookie|session|private)"
)


def of(an: Analyzer, node: ast.AST | None, depth: int = 0) -> int:
    """Where an expression's value may come from (DECODED, FETCHED, ENV_*, SOCKET bits)."""
    if node is None:
        return 0
    if depth > MAX_ORIGIN_DEPTH:
        return DECODED  # nested past reading: not something a person writes to run a command
    if type(node) is ast.Constant:
        return 0
    if type(node) is ast.Name:
        return _name_origins(an, node.id, depth)
    if type(node) is ast.Call:
        return _call_origins(an, node, depth)
    if type(node) is ast.Attribute:
        name = names.dotted(an, node)
        if name in ENVIRON:
            return ENV_ALL
        return of(an, node.value, depth + 1)
    if type(node) is ast.Subscript:
        base = names.dotted(an, node.value) if type(node.value) in (ast.Name, ast.Attribute) else None
        if base in ENVIRON:
            return _env_key_origins(an, node.slice)
        bits = of(an, node.value, depth + 1)
        s = node.slice
        if (
            type(s) is ast.Slice
            and s.step is not None
            and not (type(s.step) is ast.Constant and type(s.step.value) is int and s.step.value > 0)
        ):
            bits |= DECODED  # text read backwards (or with a computed step)
        return bits
    if type(node) is ast.BinOp:
        bits = of(an, node.left, depth + 1) | of(an, node.right, depth + 1)
        if type(node.op) is ast.BitXor:
            bits |= DECODED
        elif (
            type(node.op) is ast.Mod
            and type(node.left) is ast.Constant
            and type(node.left.value) is str
            and "%c" in node.left.value
        ):
            bits |= DECODED  # '%c%c' % (114, 109): text spelled as character codes
        return bits
    if type(node) is ast.JoinedStr:
        bits = 0
        for v in node.values:
            if type(v) is ast.FormattedValue:
                bits |= of(an, v.value, depth + 1)
        return bits
    if isinstance(node, (ast.List, ast.Tuple, ast.Set)):
        bits = 0
        for e in node.elts:
            bits |= of(an, e, depth + 1)
        return bits
    if type(node) is ast.Dict:
        bits = 0
        for k in node.keys:
            if k is not None:
                bits |= of(an, k, depth + 1)
        for v in node.values:
            bits |= of(an, v, depth + 1)
        return bits
    if isinstance(node, (ast.GeneratorExp, ast.ListComp, ast.SetComp)):
        bits = of(an, node.elt, depth + 1)
        for g in node.generators:
            bits |= of(an, g.iter, depth + 1)
        return bits
    if type(node) is ast.DictComp:
        bits = of(an, node.key, depth + 1) | of(an, node.value, depth + 1)
        for g in node.generators:
            bits |= of(an, g.iter, depth + 1)
        return bits
    if type(node) is ast.IfExp:
        return of(an, node.body, depth + 1) | of(an, node.orelse, depth + 1)
    if type(node) is ast.BoolOp:
        bits = 0
        for v in node.values:
            bits |= of(an, v, depth + 1)
        return bits
    if isinstance(node, ast.UnaryOp):
        return of(an, node.operand, depth + 1)
    if isinstance(node, ast.Await | ast.Starred | ast.NamedExpr | ast.FormattedValue):
        return of(an, node.value, depth + 1)
    return 0


def _name_origins(an: Analyzer, name: str, depth: int) -> int:
    known = an.name_origins.get(name)
    if known is not None:
        return known
    alias = an.aliases.get(name)
    if alias is not None:
        return ENV_ALL if alias in ENVIRON else 0
    found = an.binds.get(name)
    if found is None:
        return DECODED if name in DECODING_BUILTINS else 0
    an.name_origins[name] = 0  # a name defined through itself adds nothing
    bits = 0
    for b in found[:64]:
        if isinstance(b, Elem):
            bits |= of(an, b.of, depth + 1)
        elif b is not None:
            bits |= of(an, b, depth + 1)
    an.name_origins[name] = bits
    return bits


def _env_key_origins(an: Analyzer, key: ast.expr) -> int:
    k = values.const_str(an, key)
    if k is None:
        return ENV_SECRET
    if _SECRET_NAME.search(k):
        an.col.add_env_var(k)
        return ENV_SECRET
    return 0


def _call_origins(an: Analyzer, node: ast.Call, depth: int) -> int:
    func = node.func
    fn = names.dotted(an, func)
    args = node.args
    if fn is not None:
        if fn in DECODERS or fn in DECODING_BUILTINS:
            return DECODED
        if fn in GETATTR and names.dotted(an, node) in ENVIRON:
            return ENV_ALL
        if fn in GETENV:
            return _env_key_origins(an, args[0]) if args else 0
        if fn in ("codecs.decode", "codecs.encode"):
            enc = call_arg(node, 1, "encoding")
            text = values.const_str(an, enc) if enc is not None else "utf-8"
            if text is None or text.lower() not in TEXT_CODECS:
                return DECODED
        if fn in ("bytes", "bytearray") and args and _numbers(an, args[0]):
            return DECODED  # bytes([114, 109, ...]): text spelled as numbers
        if fn in OPEN and args:
            bits = _tainted_file(an, args[0])
            if bits:
                return bits
        low_root = fn.split(".", 1)[0]
        if low_root in NETWORK_MODULES and not fn.startswith(LOCAL_NETWORK_CALLS):
            bits = FETCHED | (SOCKET if strip_calls(fn) in SOCKET_CTORS else 0)
            if isinstance(func, ast.Attribute):
                bits |= of(an, func.value, depth + 1)  # s.fileno() of a socket s
            return bits
    bits = 0
    if type(func) is ast.Attribute:
        attr = func.attr
        if attr in DECODING_METHODS:
            bits |= DECODED
        elif attr == "format" and type(func.value) is ast.Constant and ":c}" in str(func.value.value):
            bits |= DECODED  # '{:c}{:c}'.format(114, 109)
        elif attr in ("decode", "encode"):
            enc = call_arg(node, 0, "encoding")
            text = values.const_str(an, enc) if enc is not None else "utf-8"
            if text is not None and text.lower() not in TEXT_CODECS:
                bits |= DECODED
        bits |= of(an, func.value, depth + 1)
    elif type(func) is ast.Name and func.id in DECODING_BUILTINS and func.id not in an.binds:
        bits |= DECODED
    for a in args:
        bits |= of(an, a, depth + 1)
    for k in node.keywords:
        bits |= of(an, k.value, depth + 1)
    return bits


def _numbers(an: Analyzer, node: ast.expr) -> bool:
    """An iterable of numbers spelled out or computed (a list, a comprehension, map, range)."""
    if type(node) is ast.Name:
        bound = an.consts.get(node.id)
        if bound is None:
            return False
        node = bound
    if isinstance(node, (ast.GeneratorExp, ast.ListComp)):
        return True
    if isinstance(node, (ast.List, ast.Tuple)):
        return any(type(e) is not ast.Constant or type(e.value) is int for e in node.elts)
    if type(node) is ast.Call:
        return names.dotted(an, node.func) in ("map", "range", "reversed")
    return False


def _tainted_file(an: Analyzer, arg: ast.expr) -> int:
    """Where the content of a file this code wrote came from."""
    if not an.written:
        return 0
    v = values.value(an, arg)
    if v is None or v.text is None:
        return 0
    bits = 0
    for raw, _, b in an.written:
        if raw == v.text:
            bits |= b
    return bits


def environment_read(an: Analyzer) -> None:
    """The environment shown or stored (printed, logged, written to a file): a read of the
    process environment, as `cat /proc/self/environ` would be."""
    an.col.add_path("/proc/self/environ", "/proc/self/environ", an.col.arg, "code", "read")


def run_origin(an: Analyzer, bits: int) -> None:
    """Decoded or fetched data reaches something that runs it."""
    if bits & DECODED:
        an.col.opaque("decode_and_run")
    if bits & FETCHED:
        an.col.opaque("fetch_and_run")


def reveal_call(an: Analyzer, name: str, node: ast.Call, synthetic: int) -> None:
    """print, logging, json.dump, ... of the environment: a read of it (analyzer.HANDLERS)."""
    if an.env_used and any(of(an, a) & (ENV_ALL | ENV_SECRET) for a in node.args):
        environment_read(an)
