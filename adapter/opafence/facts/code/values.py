"""Statically known values of expressions (strings, lists of strings, paths), computed without
running anything: literals, f-strings, `%` and `str.format`, joins, slices, `os.path`, `pathlib`."""

from __future__ import annotations

import ast
import posixpath
import re
import shlex
import string
from typing import TYPE_CHECKING

from opafence.facts import paths
from opafence.facts.code import files, names
from opafence.facts.code.model import MAX_ALTERNATIVES, MAX_CODE, Elem, Value
from opafence.facts.code.tables import GETENV, PATH_CTORS, TEXT_CODECS

if TYPE_CHECKING:
    from opafence.facts.code.analyzer import Analyzer


def const_str(an: Analyzer, node: ast.AST) -> str | None:
    v = value(an, node)
    return v.text if v is not None else None


def value(an: Analyzer, node: ast.AST, depth: int = 0) -> Value | None:
    """Statically known value of an expression (strings, lists of strings, paths)."""
    if depth > 16:
        return None
    if type(node) is ast.Constant:
        v = node.value
        if type(v) is str:
            return Value(v)
        if type(v) is bytes:
            return Value(v.decode("utf-8", "replace"))
        return None
    if type(node) is ast.Name:
        bound = an.consts.get(node.id)
        if bound is not None:
            return value(an, bound, depth + 1)
        return None
    if type(node) is ast.JoinedStr:
        parts: list[str] = []
        for piece in node.values:
            if isinstance(piece, ast.Constant) and type(piece.value) is str:
                parts.append(piece.value)
            elif (
                isinstance(piece, ast.FormattedValue)
                and piece.format_spec is None
                and piece.conversion in (-1, 115)
            ):
                inner = value(an, piece.value, depth + 1)
                if inner is None or inner.text is None:
                    return None
                parts.append(inner.text)
            else:
                return None
        return Value("".join(parts))
    if type(node) is ast.List or type(node) is ast.Tuple:
        items: list[str] = []
        for elt in node.elts:
            inner = value(an, elt, depth + 1)
            if inner is None or inner.text is None:
                return None
            items.append(inner.text)
        return Value(items=items)
    if type(node) is ast.BinOp:
        return _binop_value(an, node, depth)
    if type(node) is ast.Call:
        return _call_value(an, node, depth)
    if type(node) is ast.Subscript:
        return _subscript_value(an, node, depth)
    return None


def alternatives(an: Analyzer, node: ast.AST) -> list[Value] | None:
    """Every value an expression may have: a name bound to several values, `a if c else b`."""
    if type(node) is ast.Name and node.id not in an.consts:
        found = an.binds.get(node.id)
        if not found or len(found) > MAX_ALTERNATIVES:
            return None
        out: list[Value] = []
        for b in found:
            if b is None:
                return None
            if isinstance(b, Elem):
                elts = literal_elts(an, b.of)
                if elts is None:
                    return None
                for e in elts:
                    v = value(an, e)
                    if v is None:
                        return None
                    out.append(v)
            else:
                v = value(an, b)
                if v is None:
                    return None
                out.append(v)
        return out[: MAX_ALTERNATIVES * 2]
    if type(node) is ast.IfExp:
        first = alternatives(an, node.body)
        second = alternatives(an, node.orelse)
        return first + second if first is not None and second is not None else None
    one = value(an, node)
    return [one] if one is not None else None


def literal_elts(an: Analyzer, node: ast.expr) -> list[ast.expr] | None:
    """The elements of a literal list, tuple or set (or of a name bound once to one)."""
    if type(node) is ast.Name:
        bound = an.consts.get(node.id)
        if bound is None:
            return None
        node = bound
    if isinstance(node, ast.List | ast.Tuple | ast.Set):
        elts = node.elts
        if any(type(e) is ast.Starred for e in elts):
            return None
        return list(elts)
    return None


def _binop_value(an: Analyzer, node: ast.BinOp, depth: int) -> Value | None:
    left = value(an, node.left, depth + 1)
    if left is None:
        return None
    op = type(node.op)
    if op is ast.Mod and left.text is not None:
        return _percent(an, left.text, node.right, depth)
    right = value(an, node.right, depth + 1)
    if right is None:
        return None
    if op is ast.Add:
        if left.text is not None and right.text is not None:
            return Value(left.text + right.text)
        if left.items is not None and right.items is not None:
            return Value(items=left.items + right.items)
    if op is ast.Div and left.is_path and left.text is not None and right.text is not None:
        return Value(posixpath.join(left.text, right.text), is_path=True)
    return None


def _percent(an: Analyzer, fmt: str, right: ast.expr, depth: int) -> Value | None:
    """`'%s/.ssh/id_rsa' % home`: only %s, %r and %% without widths (anything else: unknown)."""
    pieces = _PERCENT.split(fmt)
    named = isinstance(right, ast.Dict)
    args: list[str] = []
    mapping: dict[str, str] = {}
    if isinstance(right, ast.Dict):
        for k, v in zip(right.keys, right.values, strict=True):
            ks = const_str(an, k) if k is not None else None
            vv = value(an, v, depth + 1)
            if ks is None or vv is None or vv.text is None:
                return None
            mapping[ks] = vv.text
    else:
        r = value(an, right, depth + 1)
        if r is None:
            return None
        args = r.items if r.items is not None else [r.text or ""]
    out: list[str] = []
    used = 0
    for i, piece in enumerate(pieces):
        if i % 2 == 0:
            out.append(piece)
            continue
        if piece == "%%":
            out.append("%")
            continue
        m = _PERCENT_FIELD.fullmatch(piece)
        if m is None:
            return None
        key = m.group(1)
        if key is not None:
            if key not in mapping:
                return None
            out.append(mapping[key])
        else:
            if named or used >= len(args):
                return None
            out.append(args[used])
            used += 1
    if not named and used != len(args):
        return None
    return Value("".join(out))


def _format(an: Analyzer, fmt: str, node: ast.Call, depth: int) -> Value | None:
    """`'{}/.netrc'.format(home)`, `'{h}/x'.format(h=...)`: plain fields only."""
    if any(type(a) is ast.Starred for a in node.args) or any(k.arg is None for k in node.keywords):
        return None
    positional: list[str] = []
    for a in node.args:
        v = value(an, a, depth + 1)
        if v is None or v.text is None:
            return None
        positional.append(v.text)
    named: dict[str, str] = {}
    for k in node.keywords:
        v = value(an, k.value, depth + 1)
        if v is None or v.text is None or k.arg is None:
            return None
        named[k.arg] = v.text
    out: list[str] = []
    auto = 0
    try:
        parsed = list(string.Formatter().parse(fmt))
    except ValueError:
        return None
    for literal, field, spec, conversion in parsed:
        out.append(literal)
        if field is None:
            continue
        if spec or conversion:
            return None
        if field == "":
            if auto >= len(positional):
                return None
            out.append(positional[auto])
            auto += 1
        elif field.isdigit():
            if int(field) >= len(positional):
                return None
            out.append(positional[int(field)])
        elif field in named:
            out.append(named[field])
        else:
            return None
    return Value("".join(out))


def _subscript_value(an: Analyzer, node: ast.Subscript, depth: int) -> Value | None:
    base = names.dotted(an, node.value) if type(node.value) in (ast.Name, ast.Attribute) else None
    if base == "os.environ":
        key = const_str(an, node.slice)
        return Value(an.col.home) if key == "HOME" else None
    target = names.subscript_target(an, node)
    if target is not None:
        return value(an, target, depth + 1)
    s = node.slice
    if type(s) is ast.Slice:
        inner = value(an, node.value, depth + 1)
        if inner is None or inner.text is None:
            return None
        bounds: list[int | None] = []
        for part in (s.lower, s.upper, s.step):
            if part is None:
                bounds.append(None)
            elif type(part) is ast.Constant and type(part.value) is int:
                bounds.append(part.value)
            elif (
                type(part) is ast.UnaryOp
                and type(part.op) is ast.USub
                and type(part.operand) is ast.Constant
                and type(part.operand.value) is int
            ):
                bounds.append(-part.operand.value)
            else:
                return None
        if bounds[2] == 0:
            return None
        return Value(inner.text[bounds[0] : bounds[1] : bounds[2]])
    return None


def _call_value(an: Analyzer, node: ast.Call, depth: int) -> Value | None:
    fn = names.dotted(an, node.func)
    args = node.args
    if fn in PATH_CTORS or (fn and fn.endswith(".Path") and fn.startswith("pathlib")):
        if not args:
            return Value(an.cwd or "", is_path=True) if an.cwd else None
        vals = [value(an, a, depth + 1) for a in args]
        if any(v is None or v.text is None for v in vals):
            return None
        return Value(
            posixpath.join(*[v.text for v in vals if v is not None and v.text is not None]), is_path=True
        )
    if fn in ("pathlib.Path.home", "Path.home", "os.path.expanduser.home"):
        return Value(an.col.home, is_path=True)
    if fn in ("os.getcwd", "pathlib.Path.cwd", "Path.cwd"):
        return Value(an.cwd, is_path=fn != "os.getcwd") if an.cwd else None
    if fn in ("os.path.join", "posixpath.join"):
        vals = [value(an, a, depth + 1) for a in args]
        if not vals or any(v is None or v.text is None for v in vals):
            return None
        return Value(posixpath.join(*[v.text for v in vals if v is not None and v.text is not None]))
    if fn in ("os.path.expanduser", "posixpath.expanduser") and args:
        v = value(an, args[0], depth + 1)
        if v is None or v.text is None:
            return None
        expanded, bad = paths.expand_tilde(v.text, an.col.home, an.cwd or "")
        return None if bad else Value(expanded)
    if fn in ("os.path.abspath", "os.path.realpath", "os.path.normpath", "str", "os.fspath") and args:
        v = value(an, args[0], depth + 1)
        return Value(v.text) if v is not None and v.text is not None else None
    if fn in GETENV and args and const_str(an, args[0]) == "HOME":
        return Value(an.col.home)
    if fn == "shlex.split" and args:
        v = value(an, args[0], depth + 1)
        if v is None or v.text is None:
            return None
        try:
            return Value(items=shlex.split(v.text))
        except ValueError:
            return None
    if fn == "shlex.quote" and args:
        v = value(an, args[0], depth + 1)
        return Value(shlex.quote(v.text)) if v is not None and v.text is not None else None
    if fn == "shlex.join" and args:
        v = value(an, args[0], depth + 1)
        return Value(shlex.join(v.items)) if v is not None and v.items is not None else None
    if type(node.func) is ast.Attribute:
        base = value(an, node.func.value, depth + 1)
        attr = node.func.attr
        if base is not None and base.is_path and base.text is not None:
            if attr in ("expanduser",):
                expanded, bad = paths.expand_tilde(base.text, an.col.home, an.cwd or "")
                return None if bad else Value(expanded, is_path=True)
            if attr in ("resolve", "absolute"):
                return base
            if attr == "joinpath":
                vals = [value(an, a, depth + 1) for a in args]
                if any(v is None or v.text is None for v in vals):
                    return None
                texts = [v.text for v in vals if v is not None and v.text is not None]
                return Value(posixpath.join(base.text, *texts), is_path=True)
        if attr in ("read", "read_text") and an.written and (base is None or not base.is_path):
            return files.written_content(an, node.func.value)
        if base is None or base.text is None:
            return None
        if attr == "join" and args:
            items = value(an, args[0], depth + 1)
            if items is not None and items.items is not None:
                return Value(base.text.join(items.items))
            return None
        if attr == "format":
            return _format(an, base.text, node, depth)
        if attr in _STR_METHODS and not node.keywords:
            consts: list[str] = []
            for a in args:
                v = value(an, a, depth + 1)
                if v is None or v.text is None:
                    return None
                consts.append(v.text)
            if len(consts) != _STR_METHODS[attr] and not (attr in _STR_STRIP and not consts):
                return None
            try:
                out = getattr(base.text, attr)(*consts)
            except (TypeError, ValueError):
                return None
            return Value(out) if type(out) is str and len(out) <= MAX_CODE else None
        if attr in ("decode", "encode") and not node.keywords:
            enc = const_str(an, args[0]) if args else "utf-8"
            return base if enc is not None and enc.lower() in TEXT_CODECS else None
    return None


_PERCENT = re.compile(r"(%%|%(?:\([^)]*\))?[-#0 +]*(?:\*|\d+)?(?:\.(?:\*|\d+))?[a-zA-Z])")
_PERCENT_FIELD = re.compile(r"%(?:\(([^)]*)\))?[sr]")
# str methods whose result we compute: name -> number of string arguments
_STR_METHODS = {
    "strip": 1,
    "lstrip": 1,
    "rstrip": 1,
    "lower": 0,
    "upper": 0,
    "casefold": 0,
    "replace": 2,
    "removeprefix": 1,
    "removesuffix": 1,
}
_STR_STRIP = frozenset({"strip", "lstrip", "rstrip"})
