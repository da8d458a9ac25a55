"""Names: imports with their aliases, every value bound to a name, and an expression's dotted name
(`sp.run` after `import subprocess as sp` is `subprocess.run`)."""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from opafence.facts.code import values
from opafence.facts.code.model import FOLLOW, Binding, Elem, canonical_module
from opafence.facts.code.tables import (
    ENV_ATTRS,
    GETATTR,
    IMPORT,
    NETWORK_MODULES,
    OPAQUE_MODULES,
    RUNNER_MODULES,
)

if TYPE_CHECKING:
    from opafence.facts.code.analyzer import Analyzer


def note_import(an: Analyzer, name: str) -> None:
    imports: list[str] = an.facts["imports"]
    if name and name not in imports:
        imports.append(name)
    root = name.split(".", 1)[0]
    if root in NETWORK_MODULES:
        an.facts["network"] = True
    reason = OPAQUE_MODULES.get(root)
    if reason:
        an.col.opaque(reason)


def _import_from(an: Analyzer, node: ast.ImportFrom) -> None:
    mod = ("." * node.level) + (node.module or "")
    note_import(an, mod)
    for a in node.names:
        if a.name == "*":
            an.star_modules.append(mod)
            if mod.split(".", 1)[0] in (
                "os",
                "posix",
                "subprocess",
                "pty",
                "shutil",
                "builtins",
                "hermes_tools",
            ):
                an.col.opaque("code_star_import")
            continue
        full = f"{canonical_module(mod)}.{a.name}" if mod else a.name
        an.aliases[a.asname or a.name] = full
        if a.name in ENV_ATTRS:
            an.env_used = True
        if mod.split(".", 1)[0] in NETWORK_MODULES or a.name in NETWORK_MODULES:
            an.facts["network"] = True


def _bind(an: Analyzer, name: str, value: Binding) -> None:
    found = an.binds.get(name)
    if found is None:
        an.binds[name] = [value]
    else:
        found.append(value)
    if isinstance(value, ast.expr):
        an.bound_ids[id(value)] = name


def _bind_target(an: Analyzer, target: ast.AST, value: Binding) -> None:
    if type(target) is ast.Name:
        _bind(an, target.id, value)
    elif type(target) is ast.Tuple or type(target) is ast.List:
        elts = target.elts
        if (
            (type(value) is ast.Tuple or type(value) is ast.List)
            and len(value.elts) == len(elts)
            and not any(type(e) is ast.Starred for e in elts)
            and not any(type(e) is ast.Starred for e in value.elts)
        ):
            for sub, v in zip(elts, value.elts, strict=True):
                _bind_target(an, sub, v)
        else:
            part: Binding = Elem(value) if isinstance(value, ast.expr) else value
            for sub in elts:
                _bind_target(an, sub, part)
    elif isinstance(target, ast.Starred):
        _bind_target(an, target.value, Elem(value) if isinstance(value, ast.expr) else value)


def read_bindings(an: Analyzer, nodes: list[ast.AST]) -> None:
    funcs: list[ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda] = []
    methods: set[int] = set()
    chdir = an.chdir
    for node in nodes:
        if isinstance(node, ast.Import):
            for a in node.names:
                note_import(an, a.name)
                if a.asname:
                    an.aliases[a.asname] = canonical_module(a.name)
                else:
                    root = a.name.split(".", 1)[0]
                    an.aliases.setdefault(root, canonical_module(root))
        elif isinstance(node, ast.ImportFrom):
            _import_from(an, node)
        elif isinstance(node, ast.Assign):
            for target in node.targets:
                _bind_target(an, target, node.value)
        elif isinstance(node, ast.AnnAssign | ast.NamedExpr):
            if node.value is not None:
                _bind_target(an, node.target, node.value)
        elif isinstance(node, ast.AugAssign):
            target = node.target
            if isinstance(target, ast.Name):
                grown = ast.BinOp(left=ast.Name(id=target.id, ctx=ast.Load()), op=node.op, right=node.value)
                _bind(an, target.id, grown)
        elif isinstance(node, ast.For | ast.AsyncFor | ast.comprehension):
            _bind_target(an, node.target, Elem(node.iter))
        elif isinstance(node, ast.withitem):
            if node.optional_vars is not None:
                _bind_target(an, node.optional_vars, node.context_expr)
            ctx_expr = node.context_expr
            if isinstance(ctx_expr, ast.Call) and isinstance(ctx_expr.func, ast.Attribute):
                chdir = chdir or ctx_expr.func.attr == "chdir"
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            _bind(an, node.name, None)
            funcs.append(node)
        elif isinstance(node, ast.Lambda):
            funcs.append(node)
        elif isinstance(node, ast.ClassDef):
            _bind(an, node.name, None)
            for stmt in node.body:
                if isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef):
                    methods.add(id(stmt))
        elif isinstance(node, ast.arguments):
            _defaults(an, node)
        elif isinstance(node, ast.ExceptHandler | ast.MatchAs | ast.MatchStar):
            if node.name:
                _bind(an, node.name, None)
        elif isinstance(node, ast.MatchMapping) and node.rest:
            _bind(an, node.rest, None)
    for fn in funcs:
        _parameters(an, fn, id(fn) in methods)
    binds = an.binds
    for name, n in an.stores.items():
        # a binding form this reader does not know: the name may hold anything
        known = binds.get(name)
        if known is None or len(known) < n:
            _bind(an, name, None)
    for name, bound in binds.items():
        if len(bound) == 1 and isinstance(bound[0], ast.expr):
            an.consts[name] = bound[0]
        # a name rebound by assignment is no longer the module it was imported as; which one
        # it is where is a question of statement order, which this reader does not follow
        alias = an.aliases.pop(name, None)
        if alias is not None and alias.split(".", 1)[0] in RUNNER_MODULES:
            an.col.opaque("code_dynamic_namespace")
    if chdir:
        # os.chdir moves every relative path that follows it: the reader does not follow
        # the order of statements, so relative paths have no known directory at all.
        an.cwd = None


def _defaults(an: Analyzer, node: ast.arguments) -> None:
    positional = [*node.posonlyargs, *node.args]
    first = len(positional) - len(node.defaults)
    for p, d in zip(positional[first:], node.defaults, strict=True):
        _bind(an, p.arg, d)
    for p, kd in zip(node.kwonlyargs, node.kw_defaults, strict=True):
        if kd is not None:
            _bind(an, p.arg, kd)
    for rest in (node.vararg, node.kwarg):
        if rest is not None:
            _bind(an, rest.arg, None)


def _call_sites(
    an: Analyzer, fn: ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda, method: bool
) -> list[ast.Call] | None:
    """Every call of a local function, or None when it may be called where nobody sees."""
    if isinstance(fn, ast.Lambda):
        direct = an.call_of.get(id(fn))
        if direct is not None:
            return [direct]
        bound_to = an.bound_ids.get(id(fn))
        if bound_to is None:
            return None
        name = bound_to
    else:
        if fn.decorator_list or method:
            return None
        name = fn.name
    if len(an.binds.get(name, ())) != 1:
        return None
    sites: list[ast.Call] = []
    for load in an.loads.get(name, ()):
        call = an.call_of.get(id(load))
        if call is None:
            return None
        sites.append(call)
    return sites


def _parameters(an: Analyzer, fn: ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda, method: bool) -> None:
    args = fn.args
    positional = [*args.posonlyargs, *args.args]
    everyone = [*positional, *args.kwonlyargs]
    sites = _call_sites(an, fn, method)
    if sites is None:
        for p in everyone:
            _bind(an, p.arg, None)
        return
    names = {p.arg for p in everyone}
    for call in sites:
        if any(type(a) is ast.Starred for a in call.args) or any(k.arg is None for k in call.keywords):
            for p in everyone:
                _bind(an, p.arg, None)
            return
        for p, a in zip(positional, call.args, strict=False):
            _bind(an, p.arg, a)
        for k in call.keywords:
            if k.arg in names:
                _bind(an, k.arg, k.value)


def dotted(an: Analyzer, node: ast.AST, depth: int = 0) -> str | None:
    """The dotted name of an expression as written, aliases resolved; None if not a name."""
    if depth > 32:
        return None
    if type(node) is ast.Name:
        name = node.id
        alias = an.aliases.get(name)
        if alias is not None:
            return alias
        bound = an.consts.get(name)
        # `s = subprocess; s.run(...)`, `run = os.system; run(...)`, `s = socket.socket()`
        if bound is not None and type(bound) in FOLLOW and not (type(bound) is ast.Name and bound.id == name):
            found = dotted(an, bound, depth + 1)
            if found is not None:
                return found
        return "builtins" if name == "__builtins__" else name
    if type(node) is ast.Attribute:
        base = dotted(an, node.value, depth + 1)
        if node.attr == "__call__":
            return base  # os.system.__call__(...) is os.system(...)
        return f"{base}.{node.attr}" if base else None
    if type(node) is ast.Subscript:
        target = subscript_target(an, node, depth)
        if target is not None:
            return dotted(an, target, depth + 1)
        return namespace_name(an, node, depth)
    if type(node) is ast.Call:
        fn = dotted(an, node.func, depth + 1)
        args = node.args
        if fn in GETATTR and len(args) >= 2:
            base = dotted(an, args[0], depth + 1)
            attr = values.const_str(an, args[1])
            if base and attr is not None:
                return f"{base}.{attr}"
            return None
        if fn in IMPORT and args:
            mod = values.const_str(an, args[0])
            return canonical_module(mod) if mod else None
        if fn == "sys.modules.get" and args:
            mod = values.const_str(an, args[0])
            return canonical_module(mod) if mod else None
        if fn == "operator.attrgetter()" and args:
            getter = node.func
            base = dotted(an, args[0], depth + 1)
            attr = values.const_str(an, getter.args[0]) if type(getter) is ast.Call and getter.args else None
            if base and attr:
                return f"{base}.{attr}"
            return None
        if fn:
            return f"{fn}()"
    return None


def subscript_target(an: Analyzer, node: ast.Subscript, depth: int = 0) -> ast.expr | None:
    """The element `[a, b][0]` or `{'k': a}['k']` (or a name bound once to such a literal) picks."""
    base = node.value
    if type(base) is ast.Name:
        bound = an.consts.get(base.id)
        if bound is None or base.id in an.aliases:
            return None
        base = bound
    if type(base) is ast.List or type(base) is ast.Tuple:
        key = node.slice
        if type(key) is ast.Constant and type(key.value) is int:
            elts = base.elts
            if -len(elts) <= key.value < len(elts) and type(elts[key.value]) is not ast.Starred:
                return elts[key.value]
    elif type(base) is ast.Dict:
        k = values.const_str(an, node.slice)
        if k is not None:
            for dk, dv in zip(base.keys, base.values, strict=True):
                if dk is not None and values.const_str(an, dk) == k:
                    return dv
    return None


def namespace_name(an: Analyzer, node: ast.Subscript, depth: int) -> str | None:
    """`sys.modules['os']`, `vars(os)['system']`, `os.__dict__['system']`, `globals()['f']`."""
    key = values.const_str(an, node.slice)
    if key is None:
        return None
    base = node.value
    if type(base) is ast.Call:
        fn = dotted(an, base.func, depth + 1)
        if fn in ("vars", "builtins.vars") and base.args:
            owner = dotted(an, base.args[0], depth + 1)
            return f"{owner}.{key}" if owner else None
        if fn in ("globals", "locals", "builtins.globals", "builtins.locals"):
            return an.aliases.get(key, "builtins" if key == "__builtins__" else key)
        return None
    if type(base) is ast.Attribute and base.attr == "__dict__":
        owner = dotted(an, base.value, depth + 1)
        return f"{owner}.{key}" if owner else None
    name = dotted(an, base, depth + 1)
    if name == "sys.modules":
        return canonical_module(key)
    if name in ("builtins.__dict__", "builtins"):
        return f"builtins.{key}"
    return None
