"""The analyzer of one piece of Python source: the walk's results read in order (bindings, calls,
indirect references, subscripts, literals), each call sent to its family's handler module."""

from __future__ import annotations

import ast
from collections.abc import Callable

from opafence.facts import paths, url
from opafence.facts.code import (
    callables,
    dynamic,
    files,
    hermes,
    names,
    network,
    origins,
    processes,
    values,
    walk,
)
from opafence.facts.code.kinds import (
    K_CASE,
    K_CTYPES,
    K_DESERIALIZE,
    K_DUP2,
    K_EVAL,
    K_FILE,
    K_GETATTR,
    K_HERMES,
    K_HOF,
    K_IMPORT,
    K_LOOP,
    K_NAMESPACE,
    K_NETWORK,
    K_PARTIAL,
    K_REVEAL,
    K_RUNNER,
    K_RUNPY,
    K_SH,
    K_STDIN,
    K_WRITE,
    is_runner,
    kind_of,
)
from opafence.facts.code.model import (
    DECODED,
    FOLLOW,
    MAX_ALTERNATIVES,
    MAX_CALLS,
    MAX_CODE,
    MAX_SYNTHETIC,
    Binding,
)
from opafence.facts.collect import MAX_DEPTH, Collector


class Analyzer:
    """One reading of Python source into a Collector: its state, the order of the passes and the
    dispatch of each call to the handler of its library family."""

    def __init__(self, col: Collector, cwd: str | None, depth: int, context: str) -> None:
        self.col = col
        self.facts = col.code_facts()
        self.cwd = cwd
        self.depth = depth
        self.context = context
        self.aliases: dict[str, str] = {}
        self.binds: dict[str, list[Binding]] = {}
        self.consts: dict[str, ast.expr] = {}
        self.loads: dict[str, list[ast.Name]] = {}
        self.called: set[int] = set()  # ids of expressions called directly (a Call's func)
        self.call_of: dict[int, ast.Call] = {}  # id(func) -> the call
        self.bound_ids: dict[int, str] = {}  # id(expression bound to a name) -> the name
        self.resolved: set[int] = set()  # runner references consumed by a call we resolved
        self.pending: list[ast.expr] = []  # runner references not called directly
        self.partial_of: dict[int, ast.Call] = {}  # id(function given to functools.partial) -> the partial
        self.star_modules: list[str] = []
        self.consumed: set[str] = set()
        self.literal_paths: list[str] = []
        self.name_origins: dict[str, int] = {}
        # files this code writes: (path as written, content when known, where the content came from)
        self.written: list[tuple[str, str | None, int]] = []
        self.socket_streams = False  # a socket became a process's stdin/stdout (os.dup2, stdin=s)
        self.spawns = False  # the code starts a process
        self.egress_env = False
        self.first_command = len(col.commands)
        self.stores: dict[str, int] = {}
        self.chdir = False
        self.env_used = False  # the code names the environment (os.environ, os.getenv, ...)

    def run(self, text: str) -> None:
        if len(text) > MAX_CODE:
            self.col.opaque("code_too_large")
            return
        try:
            tree = ast.parse(text)
        except (SyntaxError, ValueError, OverflowError):
            self.col.opaque("code_syntax_error")
            return
        walked = walk.walk_tree(self, tree)
        if walked is None:
            self.col.opaque("code_too_large")
            return
        calls, refs, subscripts, texts, binders = walked
        names.read_bindings(self, binders)
        for call in calls:
            self.call(call)
        for ref in refs:
            self._indirect(ref)
        for sub in subscripts:
            self._subscript(sub)
        for t in texts:
            self._literal(t)
        self._finish()

    def _finish(self) -> None:
        for node in self.pending:
            if not self._escape_ok(node):
                self.col.opaque("code_indirect_call")
                break
        if self.written:
            files.written_runs(self)
        if self.socket_streams and self.spawns:
            self.col.opaque("socket_shell")
        if self.egress_env:
            self.col.add_secret("code" if not self.col.arg else self.col.arg, "environment")
        # Absolute-path literals the calls above did not already name (with what they do).
        known = {p["raw"] for p in self.col.paths} | self.consumed
        for raw in self.literal_paths:
            if raw not in known:
                text = self.col.home + raw[1:] if raw.startswith("~/") else raw
                if not paths.problem(text):
                    self.col.add_path(raw, paths.resolve(text, "/", self.col.cache), self.col.arg, "code", "")

    def _record_call(self, name: str) -> None:
        calls: list[str] = self.facts["calls"]
        if name not in calls and len(calls) < MAX_CALLS:
            calls.append(name)

    def _callees(self, func: ast.expr, depth: int = 0) -> list[ast.expr]:
        """What a call's function may be: a name bound to several callables, a partial, a literal
        container's element. The function itself when there is nothing to follow."""
        if type(func) is ast.Name and func.id not in self.aliases and depth < 4:
            found = self.binds.get(func.id)
            if found and (len(found) > 1 or type(found[0]) is ast.Call):
                out: list[ast.expr] = []
                for b in found[:MAX_ALTERNATIVES]:
                    if isinstance(b, ast.expr) and type(b) in FOLLOW:
                        out.extend(self._callees(b, depth + 1))
                if out:
                    return out
        elif type(func) is ast.Subscript and depth < 4:
            target = names.subscript_target(self, func)
            if target is not None:
                if type(func.value) is not ast.Name:
                    self.resolved.add(id(target))
                return self._callees(target, depth + 1)
        return [func]

    def call(self, node: ast.Call, synthetic: int = 0) -> None:
        func = node.func
        for callee in self._callees(func):
            if type(callee) is ast.Call:
                inner = names.dotted(self, callee.func)
                if inner == "functools.partial" and callee.args and synthetic < MAX_SYNTHETIC:
                    merged = ast.Call(
                        func=callee.args[0],
                        args=[*callee.args[1:], *node.args],
                        keywords=[*callee.keywords, *node.keywords],
                    )
                    self.call(merged, synthetic + 1)
                    continue
                if inner == "operator.methodcaller" and callee.args and synthetic < MAX_SYNTHETIC:
                    method = values.const_str(self, callee.args[0])
                    if method is None:
                        self.col.opaque("code_dynamic_getattr")
                    elif node.args:
                        attr = ast.Attribute(value=node.args[0], attr=method, ctx=ast.Load())
                        self.call(
                            ast.Call(func=attr, args=callee.args[1:], keywords=callee.keywords), synthetic + 1
                        )
                    continue
            target = node if callee is func else ast.Call(func=callee, args=node.args, keywords=node.keywords)
            name = names.dotted(self, callee)
            if name is None:
                # x[0](...), (lambda: ...)(), obj.method() on an expression we cannot name
                if type(callee) is ast.Subscript:
                    self.col.opaque("code_dynamic_call")
                elif type(callee) is ast.Attribute:
                    # (Path.home() / "x").read_text(): a method of a path expression
                    files.file_call(self, "." + callee.attr, target)
                continue
            self._call_named(name, target, synthetic)

    def _call_named(self, name: str, node: ast.Call, synthetic: int = 0) -> None:
        self._record_call(name)
        kind = kind_of(name)
        if not kind:
            return
        for bit, handler in HANDLERS:
            if kind & bit:
                handler(self, name, node, synthetic)

    def _indirect(self, node: ast.expr) -> None:
        """A command runner or eval used as a value (`map(os.system, cmds)`, `r = os.system`):
        decided at the end, once every call that may consume it was seen."""
        name = names.dotted(self, node)
        if name is not None and is_runner(name):
            self.pending.append(node)

    def _escape_ok(self, node: ast.expr) -> bool:
        """A runner reference that is consumed where the reader sees the call it ends up in."""
        i = id(node)
        if i in self.resolved:
            return True
        partial = self.partial_of.get(i)
        if partial is not None:
            return self._used_directly(partial)
        name = self.bound_ids.get(i)
        return name is not None and self._call_only(name, 0)

    def _used_directly(self, node: ast.expr) -> bool:
        i = id(node)
        if i in self.called or i in self.resolved:
            return True
        name = self.bound_ids.get(i)
        return name is not None and self._call_only(name, 0)

    def _call_only(self, name: str, depth: int) -> bool:
        """Every use of the name is a call (or a binding of another such name)."""
        uses = self.loads.get(name)
        if not uses or depth > 4:
            return False
        for use in uses:
            i = id(use)
            if i in self.called or i in self.resolved:
                continue
            other = self.bound_ids.get(i)
            if other is not None and other != name and self._call_only(other, depth + 1):
                continue
            return False
        return True

    def consume(self, *exprs: ast.AST | None) -> None:
        """String literals used as a command are the command, not separate path literals."""
        if len(exprs) == 1 and type(exprs[0]) is ast.Constant:
            if type(exprs[0].value) is str:
                self.consumed.add(exprs[0].value)
            return
        todo = [e for e in exprs if e is not None]
        seen: set[str] = set()
        while todo:
            for n in ast.walk(todo.pop()):
                if type(n) is ast.Constant and type(n.value) is str:
                    self.consumed.add(n.value)
                elif type(n) is ast.Name and n.id in self.consts and n.id not in seen:
                    seen.add(n.id)
                    todo.append(self.consts[n.id])

    def nested(self, text: str) -> None:
        """Python source handed to exec/eval (or to python's stdin): read it as code too."""
        if self.depth + 1 > MAX_DEPTH:
            self.col.opaque("code_too_deep")
            return
        inner = Analyzer(self.col, self.cwd, self.depth + 1, self.context)
        inner.aliases = dict(self.aliases)
        inner.run(text)

    def shell(self, text: str, cwd: str | None = None) -> None:
        from opafence.facts import shell
        from opafence.facts.code import parse_into

        if self.depth + 1 > MAX_DEPTH:
            self.col.opaque("shell_too_deep")
            return
        shell.parse_into(self.col, text, cwd or self.cwd, self.depth + 1, self.context, parse_into)

    def argv(self, items: list[str], cwd: str | None = None) -> None:
        from opafence.facts import shell
        from opafence.facts.code import parse_into

        if self.depth + 1 > MAX_DEPTH:
            self.col.opaque("shell_too_deep")
            return
        shell.parse_argv_into(self.col, items, cwd or self.cwd, self.depth + 1, self.context, parse_into)

    def _subscript(self, node: ast.Subscript) -> None:
        base = node.value
        namespace = False
        if type(base) is ast.Call:
            fn = names.dotted(self, base.func)
            namespace = fn in (
                "globals",
                "locals",
                "vars",
                "builtins.globals",
                "builtins.locals",
                "builtins.vars",
            )
        elif type(base) is ast.Attribute and base.attr == "__dict__":
            namespace = True
        else:
            name = names.dotted(self, base)
            namespace = name in ("sys.modules", "builtins.__dict__", "builtins")
        if not namespace:
            return
        key = values.const_str(self, node.slice)
        if key is None or key.startswith("__") or type(node.ctx) is not ast.Load:
            # a name computed at run time, a dunder, or a namespace written to
            self.col.opaque("code_dynamic_namespace")
            if key is None:
                origins.run_origin(self, origins.of(self, node.slice) & DECODED)
            return
        if id(node) not in self.called:
            resolved = names.namespace_name(self, node, 0)
            if resolved is not None and is_runner(resolved):
                self.pending.append(node)

    def _literal(self, text: str) -> None:
        if "://" in text:
            for fact in url.find_in_text(text, self.col.arg):
                self.col.add_url(fact)
            return
        if (
            2 <= len(text) <= paths.MAX_PATH
            and (text.startswith("/") or text.startswith("~/"))
            and not any(c.isspace() for c in text)
            and (len(text) > 1 and (text[1].isalnum() or text[1] in "._~-"))
        ):
            self.literal_paths.append(text)


Handler = Callable[[Analyzer, str, ast.Call, int], None]
# Which module handles each kind of call (kinds.kind_of: a call's dotted name -> its K_* bits), in
# the order they run; a call of several kinds (a network client's `write`) goes through each.
# The kinds of one group in kinds._kind (eval, getattr, import; deserialize, partial; the
# command runners) exclude each other, so at most one of a group runs.
HANDLERS: tuple[tuple[int, Handler], ...] = (
    (K_EVAL, dynamic.eval_call),
    (K_GETATTR, dynamic.getattr_call),
    (K_IMPORT, dynamic.import_call),
    (K_DESERIALIZE, dynamic.deserialize_call),
    (K_PARTIAL, dynamic.partial_call),
    (K_CASE, dynamic.case_variant),
    (K_NAMESPACE, dynamic.namespace_write),
    (K_RUNNER, processes.runner_call),
    (K_CTYPES, processes.ctypes_call),
    (K_RUNPY, processes.runpy_handler),
    (K_LOOP, processes.loop_handler),
    (K_SH, processes.sh_call),
    (K_DUP2, processes.dup2_call),
    (K_STDIN, processes.stdin_handler),
    (K_WRITE, files.write_method),
    (K_REVEAL, origins.reveal_call),
    (K_FILE, files.file_handler),
    (K_HERMES, hermes.hermes_call),
    (K_NETWORK, network.network_call),
    (K_HOF, callables.hof_call),
)
