"""Python code (execute_code, `python -c`, here-docs fed to python) -> facts (docs/contract.md, `code`).

The standard `ast` module, never execution. Imports with their aliases resolved; calls as
dotted names (`sp.run` after `import subprocess as sp` is `subprocess.run`); commands passed to
`os.system`, `subprocess.*`, `os.exec*`, `os.spawn*`, `pty.spawn` and Hermes' `terminal` RPC
parsed as shell; file operations (`open(p, "w")`, `shutil.rmtree`, `Path(p).unlink()`, ...)
with the path when it is a literal; URL and absolute-path literals. Anything that can reach
names the reader cannot see (`eval`, `exec`, `compile`, `getattr`/`__import__` with a computed
name, `globals()[...]`, dunder escape hatches, ctypes, unpickling) makes the code opaque.
"""

from __future__ import annotations

import ast
import posixpath
from typing import Any

from opafence.facts import paths, url
from opafence.facts.collect import MAX_DEPTH, Collector

MAX_CODE = 512 * 1024
MAX_NODES = 200_000
MAX_CALLS = 512

NETWORK_MODULES = frozenset(
    {
        "socket",
        "requests",
        "urllib",
        "urllib2",
        "urllib3",
        "http",
        "httplib",
        "httpx",
        "aiohttp",
        "ftplib",
        "smtplib",
        "poplib",
        "imaplib",
        "nntplib",
        "telnetlib",
        "paramiko",
        "websocket",
        "websockets",
        "pycurl",
        "asyncssh",
        "grpc",
        "boto3",
        "botocore",
        "xmlrpc",
        "socketserver",
        "ssl",
        "tornado",
        "twisted",
        "scapy",
        "dns",
    }
)
_OPAQUE_MODULES = {"ctypes": "code_ctypes", "cffi": "code_ctypes", "pickle": "", "marshal": "", "dill": ""}
_DESERIALIZE = frozenset(
    {"pickle.loads", "pickle.load", "marshal.loads", "marshal.load", "dill.loads", "dill.load"}
)
_DUNDER_ESCAPES = frozenset(
    {
        "__builtins__",
        "__globals__",
        "__subclasses__",
        "__getattribute__",
        "__dict__",
        "__class__",
        "__bases__",
        "__base__",
        "__mro__",
        "__code__",
        "__closure__",
        "__func__",
        "__self__",
        "__loader__",
        "__spec__",
        "__reduce__",
        "__reduce_ex__",
    }
)
_EVAL = frozenset(
    {"eval", "exec", "compile", "execfile", "builtins.eval", "builtins.exec", "builtins.compile"}
)
_SHELL_STRING = frozenset(
    {
        "os.system",
        "os.popen",
        "os.popen2",
        "os.popen3",
        "os.popen4",
        "commands.getoutput",
        "commands.getstatusoutput",
        "subprocess.getoutput",
        "subprocess.getstatusoutput",
        "asyncio.create_subprocess_shell",
        "platform.popen",
    }
)
_OPEN = frozenset({"open", "io.open", "codecs.open", "builtins.open", "os.open", "gzip.open", "bz2.open"})
_DELETE_1 = frozenset(
    {"os.remove", "os.unlink", "os.rmdir", "os.removedirs", "shutil.rmtree", "os.truncate", "os.unlinkat"}
)
_WRITE_1 = frozenset({"os.makedirs", "os.mkdir", "os.mkfifo", "os.mknod", "os.utime"})
_READ_1 = frozenset({"os.listdir", "os.scandir", "os.walk", "glob.glob", "glob.iglob", "os.stat", "os.lstat"})
_MOVE = frozenset({"os.rename", "os.replace", "os.renames", "shutil.move"})
_COPY = frozenset({"shutil.copy", "shutil.copy2", "shutil.copyfile", "shutil.copytree", "shutil.copyfileobj"})
_LINK = frozenset({"os.symlink", "os.link"})
_CHMOD = frozenset({"os.chmod", "os.chown", "os.lchown", "os.lchmod", "shutil.chown"})
_PATH_CTORS = frozenset(
    {"pathlib.Path", "pathlib.PosixPath", "pathlib.PurePath", "pathlib.PurePosixPath", "Path"}
)
_PATH_METHODS = {
    "write_text": "write",
    "write_bytes": "write",
    "touch": "write",
    "mkdir": "write",
    "symlink_to": "write",
    "hardlink_to": "write",
    "read_text": "read",
    "read_bytes": "read",
    "iterdir": "read",
    "glob": "read",
    "rglob": "read",
    "unlink": "delete",
    "rmdir": "delete",
    "chmod": "",
    "lchmod": "",
}
_HERMES_TOOLS = frozenset(
    {"terminal", "read_file", "write_file", "search_files", "patch", "web_search", "web_extract"}
)


class _Value:
    """A statically known string (or list of strings) and whether it is a pathlib.Path."""

    __slots__ = ("is_path", "items", "text")

    def __init__(
        self, text: str | None = None, items: list[str] | None = None, is_path: bool = False
    ) -> None:
        self.text = text
        self.items = items
        self.is_path = is_path


class Analyzer:
    def __init__(self, col: Collector, cwd: str | None, depth: int, context: str) -> None:
        self.col = col
        self.facts = col.code_facts()
        self.cwd = cwd
        self.depth = depth
        self.context = context
        self.aliases: dict[str, str] = {}
        self.consts: dict[str, ast.expr] = {}
        self.star_modules: list[str] = []
        self.consumed: set[str] = set()

    # -- entry ---------------------------------------------------------------------------
    def run(self, text: str) -> None:
        if len(text) > MAX_CODE:
            self.col.opaque("code_too_large")
            return
        try:
            tree = ast.parse(text)
        except (SyntaxError, ValueError, OverflowError):
            self.col.opaque("code_syntax_error")
            return
        nodes = _preorder(tree)
        if len(nodes) > MAX_NODES:
            self.col.opaque("code_too_large")
            return
        self._bindings(nodes)
        self.literal_paths: list[str] = []
        # Expressions that are called directly, or bound once to a name we resolve (`f = os.system`).
        called = {id(n.func) for n in nodes if isinstance(n, ast.Call)}
        called |= {id(v) for v in self.consts.values()}
        for node in nodes:
            if isinstance(node, ast.Call):
                self._call(node)
            elif isinstance(node, ast.Attribute):
                if node.attr in _DUNDER_ESCAPES:
                    self.col.opaque("code_dunder_access")
                elif id(node) not in called:
                    self._indirect(node)
            elif isinstance(node, ast.Name):
                if node.id in _DUNDER_ESCAPES:
                    self.col.opaque("code_dunder_access")
                elif id(node) not in called and isinstance(node.ctx, ast.Load):
                    self._indirect(node)
            elif isinstance(node, ast.Subscript):
                self._subscript(node)
            elif isinstance(node, ast.Constant) and isinstance(node.value, str):
                self._literal(node.value)
        # Absolute-path literals the calls above did not already name (with what they do).
        known = {p["raw"] for p in self.col.paths} | self.consumed
        for raw in self.literal_paths:
            if raw not in known:
                text = self.col.home + raw[1:] if raw.startswith("~/") else raw
                if not paths.problem(text):
                    self.col.add_path(raw, paths.resolve(text, "/", self.col.cache), self.col.arg, "code", "")

    # -- names ---------------------------------------------------------------------------
    def _import(self, name: str) -> None:
        imports: list[str] = self.facts["imports"]
        if name and name not in imports:
            imports.append(name)
        root = name.split(".", 1)[0]
        if root in NETWORK_MODULES:
            self.facts["network"] = True
        reason = _OPAQUE_MODULES.get(root)
        if reason:
            self.col.opaque(reason)

    def _bindings(self, nodes: list[ast.AST]) -> None:
        counts: dict[str, int] = {}
        values: dict[str, ast.expr] = {}
        for node in nodes:
            if type(node) not in _BINDING_TYPES:
                continue
            if isinstance(node, ast.Import):
                for a in node.names:
                    self._import(a.name)
                    if a.asname:
                        self.aliases[a.asname] = a.name
                    else:
                        root = a.name.split(".", 1)[0]
                        self.aliases.setdefault(root, root)
            elif isinstance(node, ast.ImportFrom):
                mod = ("." * node.level) + (node.module or "")
                self._import(mod)
                for a in node.names:
                    if a.name == "*":
                        self.star_modules.append(mod)
                        if mod.split(".", 1)[0] in (
                            "os",
                            "subprocess",
                            "pty",
                            "shutil",
                            "builtins",
                            "hermes_tools",
                        ):
                            self.col.opaque("code_star_import")
                        continue
                    full = f"{mod}.{a.name}" if mod else a.name
                    self.aliases[a.asname or a.name] = full
                    if mod.split(".", 1)[0] in NETWORK_MODULES or a.name in NETWORK_MODULES:
                        self.facts["network"] = True
            elif isinstance(node, ast.Assign | ast.AnnAssign | ast.AugAssign | ast.NamedExpr):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                value = node.value
                for t in targets:
                    for name in _target_names(t):
                        counts[name] = counts.get(name, 0) + 1
                        if (
                            isinstance(t, ast.Name)
                            and value is not None
                            and not isinstance(node, ast.AugAssign)
                        ):
                            values[name] = value
            elif isinstance(node, ast.For | ast.AsyncFor | ast.comprehension):
                for name in _target_names(node.target):
                    counts[name] = counts.get(name, 2) + 2
            elif isinstance(node, ast.withitem) and node.optional_vars is not None:
                for name in _target_names(node.optional_vars):
                    counts[name] = counts.get(name, 0) + 2
            elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                counts[node.name] = counts.get(node.name, 0) + 2
            elif isinstance(node, ast.arguments):
                for param in [*node.posonlyargs, *node.args, *node.kwonlyargs, node.vararg, node.kwarg]:
                    if param is not None:
                        counts[param.arg] = counts.get(param.arg, 0) + 2
            elif isinstance(node, ast.Global | ast.Nonlocal):
                for name in node.names:
                    counts[name] = counts.get(name, 0) + 2
        for name, n in counts.items():
            if n == 1 and name in values:
                self.consts[name] = values[name]
            # a name rebound by assignment is no longer the module it was imported as
            if name in self.aliases and n >= 1:
                del self.aliases[name]

    def dotted(self, node: ast.AST, depth: int = 0) -> str | None:
        """The dotted name of an expression as written, aliases resolved; None if not a name."""
        if depth > 32:
            return None
        if isinstance(node, ast.Name):
            if node.id in self.aliases:
                return self.aliases[node.id]
            bound = self.consts.get(node.id)
            # `s = subprocess; s.run(...)`, `run = os.system; run(...)`
            if isinstance(bound, ast.Name | ast.Attribute) and not (
                isinstance(bound, ast.Name) and bound.id == node.id
            ):
                return self.dotted(bound, depth + 1)
            return node.id
        if isinstance(node, ast.Attribute):
            base = self.dotted(node.value, depth + 1)
            return f"{base}.{node.attr}" if base else None
        if isinstance(node, ast.Call):
            fn = self.dotted(node.func, depth + 1)
            if fn in ("getattr", "builtins.getattr") and len(node.args) >= 2:
                base = self.dotted(node.args[0], depth + 1)
                attr = self._const_str(node.args[1])
                if base and attr is not None:
                    return f"{base}.{attr}"
                return None
            if fn in ("__import__", "importlib.import_module", "builtins.__import__") and node.args:
                mod = self._const_str(node.args[0])
                return mod
            if fn:
                return f"{fn}()"
        return None

    # -- values --------------------------------------------------------------------------
    def _const_str(self, node: ast.AST) -> str | None:
        v = self.value(node)
        return v.text if v is not None else None

    def value(self, node: ast.AST, depth: int = 0) -> _Value | None:
        """Statically known value of an expression (strings, lists of strings, paths)."""
        if depth > 16:
            return None
        if isinstance(node, ast.Constant):
            return _Value(node.value) if isinstance(node.value, str) else None
        if isinstance(node, ast.JoinedStr):
            parts: list[str] = []
            for v in node.values:
                if isinstance(v, ast.Constant) and isinstance(v.value, str):
                    parts.append(v.value)
                elif (
                    isinstance(v, ast.FormattedValue) and v.format_spec is None and v.conversion in (-1, 115)
                ):
                    inner = self.value(v.value, depth + 1)
                    if inner is None or inner.text is None:
                        return None
                    parts.append(inner.text)
                else:
                    return None
            return _Value("".join(parts))
        if isinstance(node, ast.List | ast.Tuple):
            items: list[str] = []
            for elt in node.elts:
                inner = self.value(elt, depth + 1)
                if inner is None or inner.text is None:
                    return None
                items.append(inner.text)
            return _Value(items=items)
        if isinstance(node, ast.Name):
            if node.id in self.consts:
                return self.value(self.consts[node.id], depth + 1)
            return None
        if isinstance(node, ast.BinOp):
            left = self.value(node.left, depth + 1)
            right = self.value(node.right, depth + 1)
            if left is None or right is None:
                return None
            if isinstance(node.op, ast.Add):
                if left.text is not None and right.text is not None:
                    return _Value(left.text + right.text)
                if left.items is not None and right.items is not None:
                    return _Value(items=left.items + right.items)
            if (
                isinstance(node.op, ast.Div)
                and left.is_path
                and left.text is not None
                and right.text is not None
            ):
                return _Value(posixpath.join(left.text, right.text), is_path=True)
            if isinstance(node.op, ast.Mod) and left.text is not None:
                return None
            return None
        if isinstance(node, ast.Call):
            return self._call_value(node, depth)
        if isinstance(node, ast.Subscript):
            base = self.dotted(node.value)
            key = self._const_str(node.slice)
            if base == "os.environ" and key == "HOME":
                return _Value(self.col.home)
        return None

    def _call_value(self, node: ast.Call, depth: int) -> _Value | None:
        fn = self.dotted(node.func)
        args = node.args
        if fn in _PATH_CTORS or (fn and fn.endswith(".Path") and fn.startswith("pathlib")):
            if not args:
                return _Value(self.cwd or "", is_path=True) if self.cwd else None
            vals = [self.value(a, depth + 1) for a in args]
            if any(v is None or v.text is None for v in vals):
                return None
            return _Value(
                posixpath.join(*[v.text for v in vals if v is not None and v.text is not None]), is_path=True
            )
        if fn in ("pathlib.Path.home", "Path.home", "os.path.expanduser.home"):
            return _Value(self.col.home, is_path=True)
        if fn in ("os.getcwd", "pathlib.Path.cwd", "Path.cwd"):
            return _Value(self.cwd, is_path=fn != "os.getcwd") if self.cwd else None
        if fn in ("os.path.join", "posixpath.join"):
            vals = [self.value(a, depth + 1) for a in args]
            if not vals or any(v is None or v.text is None for v in vals):
                return None
            return _Value(posixpath.join(*[v.text for v in vals if v is not None and v.text is not None]))
        if fn in ("os.path.expanduser", "posixpath.expanduser") and args:
            v = self.value(args[0], depth + 1)
            if v is None or v.text is None:
                return None
            expanded, bad = paths.expand_tilde(v.text, self.col.home, self.cwd or "")
            return None if bad else _Value(expanded)
        if fn in ("os.path.abspath", "os.path.realpath", "os.path.normpath", "str", "os.fspath") and args:
            v = self.value(args[0], depth + 1)
            return _Value(v.text) if v is not None and v.text is not None else None
        if fn in ("os.getenv", "os.environ.get") and args and self._const_str(args[0]) == "HOME":
            return _Value(self.col.home)
        if isinstance(node.func, ast.Attribute):
            base = self.value(node.func.value, depth + 1)
            attr = node.func.attr
            if base is not None and base.is_path and base.text is not None:
                if attr in ("expanduser",):
                    expanded, bad = paths.expand_tilde(base.text, self.col.home, self.cwd or "")
                    return None if bad else _Value(expanded, is_path=True)
                if attr in ("resolve", "absolute"):
                    return base
                if attr == "joinpath":
                    vals = [self.value(a, depth + 1) for a in args]
                    if any(v is None or v.text is None for v in vals):
                        return None
                    texts = [v.text for v in vals if v is not None and v.text is not None]
                    return _Value(posixpath.join(base.text, *texts), is_path=True)
            if attr == "join" and base is not None and base.text is not None and args:
                items = self.value(args[0], depth + 1)
                if items is not None and items.items is not None:
                    return _Value(base.text.join(items.items))
            if (
                attr == "format"
                and base is not None
                and base.text is not None
                and not args
                and not node.keywords
            ):
                return base
        return None

    # -- calls ---------------------------------------------------------------------------
    def _record_call(self, name: str) -> None:
        calls: list[str] = self.facts["calls"]
        if name not in calls and len(calls) < MAX_CALLS:
            calls.append(name)

    def _call(self, node: ast.Call) -> None:
        name = self.dotted(node.func)
        func = node.func
        if name is None:
            # x[0](...), (lambda: ...)(), obj.method() on an expression we cannot name
            if isinstance(func, ast.Subscript):
                self.col.opaque("code_dynamic_call")
            elif isinstance(func, ast.Attribute):
                # (Path.home() / "x").read_text(): a method of a path expression
                self._file_call("." + func.attr, node)
            return
        self._record_call(name)
        low = name.lower()
        if name in _EVAL:
            self.col.opaque("code_eval")
        dynamic_attr = len(node.args) >= 2 and self._const_str(node.args[1]) is None
        if name in ("getattr", "builtins.getattr", "setattr", "delattr") and dynamic_attr:
            self.col.opaque("code_dynamic_getattr")
        if name in ("__import__", "importlib.import_module", "builtins.__import__", "importlib.__import__"):
            mod = self._const_str(node.args[0]) if node.args else None
            if mod is None:
                self.col.opaque("code_dynamic_import")
            else:
                self._import(mod)
        if name in _DESERIALIZE:
            self.col.opaque("code_deserialize")
        self._case_variant(name)
        # commands
        if _runs_commands(low) and (
            any(isinstance(a, ast.Starred) for a in node.args) or any(k.arg is None for k in node.keywords)
        ):
            # subprocess.run(**opts), os.system(*cmd): arguments we cannot see
            self.col.opaque("code_dynamic_command")
        if low in _SHELL_STRING:
            self._command_arg(self._arg(node, 0, "cmd", "command"))
        elif low.startswith("subprocess.") and self._arg(node, 0, "args") is not None:
            self._command_arg(self._arg(node, 0, "args"))
        elif low == "asyncio.create_subprocess_exec":
            self._argv_args(node.args)
        elif low.startswith("os.exec"):
            self._exec_call(low, node)
        elif low.startswith("os.spawn"):
            self._spawn_call(low, node)
        elif low in ("os.posix_spawn", "os.posix_spawnp"):
            self._command_arg(node.args[1] if len(node.args) > 1 else None)
        elif low == "pty.spawn":
            self._command_arg(self._arg(node, 0, "argv"))
        # files
        self._file_call(name, node)
        # Hermes RPC from execute_code scripts
        tool = self._hermes_tool(name)
        if tool:
            self._hermes_call(tool, node)

    def _indirect(self, node: ast.expr) -> None:
        """A command runner or eval used as a value (`map(os.system, cmds)`, `(lambda f: f(x))(eval)`):
        what it will be called with is not visible."""
        name = self.dotted(node)
        if name is None:
            return
        low = name.lower()
        if low.startswith("subprocess."):
            runs = low.split(".", 1)[1] in _SUBPROCESS_RUNNERS
        else:
            runs = _runs_commands(low)
        if runs or name in _EVAL:
            self.col.opaque("code_indirect_call")

    def _case_variant(self, name: str) -> None:
        low = name.lower()
        canonical = (
            low in _SHELL_STRING
            or low.startswith(("subprocess.", "os.exec", "os.spawn", "pty."))
            or low in _DELETE_1
            or low == "os.system"
        )
        if canonical and name != low and not low.startswith("subprocess."):
            self.col.opaque("code_case_variant")
        if low.startswith("subprocess.") and name.split(".", 1)[1] not in (
            "run",
            "Popen",
            "call",
            "check_call",
            "check_output",
            "getoutput",
            "getstatusoutput",
            "PIPE",
            "DEVNULL",
            "STDOUT",
            "CalledProcessError",
            "TimeoutExpired",
            "CompletedProcess",
            "list2cmdline",
        ):
            self.col.opaque("code_case_variant")

    def _arg(self, node: ast.Call, index: int, *names: str) -> ast.expr | None:
        if len(node.args) > index:
            arg = node.args[index]
            return None if isinstance(arg, ast.Starred) else arg
        for k in node.keywords:
            if k.arg in names:
                return k.value
        return None

    def _consume(self, *exprs: ast.AST | None) -> None:
        """String literals used as a command are the command, not separate path literals."""
        todo = [e for e in exprs if e is not None]
        seen: set[str] = set()
        while todo:
            for n in ast.walk(todo.pop()):
                if isinstance(n, ast.Constant) and isinstance(n.value, str):
                    self.consumed.add(n.value)
                elif isinstance(n, ast.Name) and n.id in self.consts and n.id not in seen:
                    seen.add(n.id)
                    todo.append(self.consts[n.id])

    def _command_arg(self, arg: ast.expr | None, cwd: str | None = None) -> None:
        if arg is None:
            return
        self._consume(arg)
        v = self.value(arg)
        if v is None:
            self.col.opaque("code_dynamic_command")
            return
        if v.text is not None:
            self._shell(v.text, cwd)
        elif v.items is not None and v.items:
            self._argv(v.items)

    def _argv_args(self, args: list[ast.expr]) -> None:
        self._consume(*args)
        items: list[str] = []
        for a in args:
            if isinstance(a, ast.Starred):
                self.col.opaque("code_dynamic_command")
                return
            v = self.value(a)
            if v is None or v.text is None:
                self.col.opaque("code_dynamic_command")
                return
            items.append(v.text)
        if items:
            self._argv(items)

    def _exec_call(self, name: str, node: ast.Call) -> None:
        fn = name.split(".", 1)[1]
        args = node.args
        self._consume(*args[:1])
        if fn in ("execl", "execlp", "execle", "execlpe"):
            rest = args[1:-1] if fn.endswith("e") else args[1:]
            self._argv_args(list(rest) or list(args[:1]))
        elif fn in ("execv", "execvp", "execve", "execvpe"):
            self._command_arg(args[1] if len(args) > 1 else (args[0] if args else None))
        else:
            self.col.opaque("code_dynamic_command")

    def _spawn_call(self, name: str, node: ast.Call) -> None:
        fn = name.split(".", 1)[1]
        args = node.args
        self._consume(*args[1:2])
        if fn in ("spawnl", "spawnlp", "spawnle", "spawnlpe"):
            rest = args[2:-1] if fn.endswith("e") else args[2:]
            self._argv_args(list(rest) or list(args[1:2]))
        elif fn in ("spawnv", "spawnvp", "spawnve", "spawnvpe"):
            self._command_arg(args[2] if len(args) > 2 else None)
        else:
            self.col.opaque("code_dynamic_command")

    def _shell(self, text: str, cwd: str | None = None) -> None:
        from opafence.facts import shell

        if self.depth + 1 > MAX_DEPTH:
            self.col.opaque("shell_too_deep")
            return
        shell.parse_into(self.col, text, cwd or self.cwd, self.depth + 1, self.context, parse_into)

    def _argv(self, items: list[str]) -> None:
        from opafence.facts import shell

        if self.depth + 1 > MAX_DEPTH:
            self.col.opaque("shell_too_deep")
            return
        shell.parse_argv_into(self.col, items, self.cwd, self.depth + 1, self.context, parse_into)

    # -- files ---------------------------------------------------------------------------
    def _path(self, arg: ast.expr | None, op: str, tool_style: bool = False) -> None:
        if arg is None:
            return
        v = self.value(arg)
        if v is None or v.text is None:
            if op in ("write", "delete"):
                self.col.opaque("code_dynamic_path")
            return
        self._add_path(v.text, op, tool_style)

    def _add_path(self, raw: str, op: str, tool_style: bool = False) -> None:
        if tool_style:
            # Hermes' own file tools expand ~ (Python's open() does not).
            norm = paths.normalize(raw, self.cwd or "/", self.col.home, self.col.cache)
            if norm.problem:
                self.col.opaque(norm.problem)
            self.col.add_path(raw, norm.path, self.col.arg, "code", op)
            return
        bad = paths.problem(raw)
        if bad or not raw:
            if op in ("write", "delete") and bad:
                self.col.opaque(bad)
            return
        if not raw.startswith("/") and self.cwd is None:
            if op in ("write", "delete"):
                self.col.opaque("code_dynamic_cwd")
            return
        self.col.add_path(raw, paths.resolve(raw, self.cwd or "/", self.col.cache), self.col.arg, "code", op)

    def _file_call(self, name: str, node: ast.Call) -> None:
        func = node.func
        if name in _OPEN or (
            name.endswith(".open") and isinstance(func, ast.Attribute) and self._is_path_expr(func.value)
        ):
            target: ast.expr | None
            if name.endswith(".open") and name not in _OPEN and isinstance(node.func, ast.Attribute):
                target = node.func.value
                mode_arg = self._arg(node, 0, "mode")
            else:
                target = self._arg(node, 0, "file", "filename", "path")
                mode_arg = self._arg(node, 1, "mode", "flags")
            mode = "r"
            if mode_arg is not None:
                mv = self.value(mode_arg)
                if mv is not None and mv.text is not None:
                    mode = mv.text
                elif name == "os.open":
                    mode = "w"  # flags we cannot read statically: assume the worst
                else:
                    mode = "w"
            op = "write" if any(c in mode for c in "wax+") else "read"
            self._path(target, op)
            return
        if name in _DELETE_1:
            self._path(self._arg(node, 0, "path", "name"), "delete")
        elif name in _WRITE_1:
            self._path(self._arg(node, 0, "path", "name"), "write")
        elif name in _READ_1:
            self._path(self._arg(node, 0, "path", "top", "pathname"), "read")
        elif name in _MOVE:
            self._path(self._arg(node, 0, "src"), "delete")
            self._path(self._arg(node, 1, "dst"), "write")
        elif name in _COPY:
            self._path(self._arg(node, 0, "src"), "read")
            self._path(self._arg(node, 1, "dst"), "write")
        elif name in _LINK:
            self._path(self._arg(node, 1, "dst"), "write")
        elif name in _CHMOD:
            self._path(self._arg(node, 0, "path"), "")
        elif isinstance(node.func, ast.Attribute) and node.func.attr in _PATH_METHODS:
            if self._is_path_expr(node.func.value):
                op = _PATH_METHODS[node.func.attr]
                self._path(node.func.value, op)
        elif (
            isinstance(node.func, ast.Attribute)
            and node.func.attr in ("rename", "replace")
            and self._is_path_expr(node.func.value)
        ):
            self._path(node.func.value, "delete")
            self._path(self._arg(node, 0, "target"), "write")

    def _is_path_expr(self, node: ast.AST) -> bool:
        v = self.value(node)
        if v is not None:
            return v.is_path
        # Path(some_variable).unlink(): a path object whose path we cannot know
        if isinstance(node, ast.Call):
            fn = self.dotted(node.func)
            return bool(fn in _PATH_CTORS or (fn and fn.startswith("pathlib.")))
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Div):
            return self._is_path_expr(node.left)
        return False

    # -- Hermes tools --------------------------------------------------------------------
    def _hermes_tool(self, name: str) -> str:
        if name.startswith("hermes_tools."):
            tool = name.split(".", 1)[1]
            return tool if tool in _HERMES_TOOLS else ""
        return ""

    def _hermes_call(self, tool: str, node: ast.Call) -> None:
        calls: list[str] = self.facts["tool_calls"]
        if tool not in calls:
            calls.append(tool)
        if tool == "terminal":
            workdir = self._arg(node, 2, "workdir")
            cwd = self.cwd
            if workdir is not None:
                wv = self.value(workdir)
                if wv is None or wv.text is None:
                    cwd = None
                else:
                    norm = paths.normalize(wv.text, self.cwd or "/", self.col.home, self.col.cache)
                    cwd = norm.path or None
                    self.col.add_path(wv.text, norm.path, self.col.arg, "code", "")
            self._command_arg(self._arg(node, 0, "command"), cwd)
        elif tool == "read_file":
            self._path(self._arg(node, 0, "path"), "read", tool_style=True)
        elif tool == "write_file":
            self._path(self._arg(node, 0, "path"), "write", tool_style=True)
        elif tool == "search_files":
            self._path(self._arg(node, 2, "path"), "read", tool_style=True)
        elif tool == "patch":
            self._path(self._arg(node, 0, "path"), "write", tool_style=True)
            text_arg = self._arg(node, 5, "patch")
            if text_arg is not None:
                v = self.value(text_arg)
                if v is None or v.text is None:
                    self.col.opaque("code_dynamic_path")
                else:
                    from opafence.facts import patch as patch_module

                    for raw, op in patch_module.parse_patch(v.text):
                        norm = paths.normalize(raw, self.cwd or "/", self.col.home, self.col.cache)
                        if norm.problem:
                            self.col.opaque(norm.problem)
                        self.col.add_path(raw, norm.path, self.col.arg, "patch", op)
        elif tool == "web_extract":
            arg = self._arg(node, 0, "urls")
            v = self.value(arg) if arg is not None else None
            for item in (v.items or ([v.text] if v.text else [])) if v is not None else []:
                fact, _ = url.parse(item, self.col.arg)
                if fact is not None:
                    self.col.add_url(fact)

    # -- other nodes ---------------------------------------------------------------------
    def _subscript(self, node: ast.Subscript) -> None:
        base = node.value
        if isinstance(base, ast.Call):
            fn = self.dotted(base.func)
            if fn in ("globals", "locals", "vars", "builtins.globals", "builtins.locals", "builtins.vars"):
                self.col.opaque("code_dynamic_namespace")
        else:
            name = self.dotted(base)
            if name in ("sys.modules", "builtins.__dict__", "__builtins__"):
                self.col.opaque("code_dynamic_namespace")

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


_BINDING_TYPES = frozenset(
    {
        ast.Import,
        ast.ImportFrom,
        ast.Assign,
        ast.AnnAssign,
        ast.AugAssign,
        ast.NamedExpr,
        ast.For,
        ast.AsyncFor,
        ast.comprehension,
        ast.withitem,
        ast.FunctionDef,
        ast.AsyncFunctionDef,
        ast.ClassDef,
        ast.arguments,
        ast.Global,
        ast.Nonlocal,
    }
)


def _preorder(tree: ast.AST) -> list[ast.AST]:
    """Every node, parents before children and in source order (faster than ast.walk)."""
    out: list[ast.AST] = []
    stack = [tree]
    while stack:
        node = stack.pop()
        out.append(node)
        children: list[ast.AST] = []
        for name in node._fields:
            value = getattr(node, name, None)
            if isinstance(value, ast.AST):
                children.append(value)
            elif isinstance(value, list):
                children.extend(v for v in value if isinstance(v, ast.AST))
        stack.extend(reversed(children))
    return out


_SUBPROCESS_RUNNERS = frozenset(
    {"run", "popen", "call", "check_call", "check_output", "getoutput", "getstatusoutput"}
)


def _runs_commands(low: str) -> bool:
    """A (lower-cased) dotted name that starts a process."""
    return (
        low in _SHELL_STRING
        or low.startswith(("subprocess.", "os.exec", "os.spawn", "os.posix_spawn"))
        or low in ("pty.spawn", "asyncio.create_subprocess_exec", "hermes_tools.terminal")
    )


def _target_names(node: ast.AST) -> list[str]:
    if isinstance(node, ast.Name):
        return [node.id]
    if isinstance(node, ast.Tuple | ast.List):
        return [n for elt in node.elts for n in _target_names(elt)]
    if isinstance(node, ast.Starred):
        return _target_names(node.value)
    return []


def parse_into(col: Collector, text: str, cwd: str | None, depth: int = 0, context: str = "code") -> None:
    """Analyze Python source into col (code facts, commands, paths, URLs, opacity)."""
    scope = col.push("code")
    col.code_facts()
    try:
        Analyzer(col, cwd, depth, context).run(text)
    except RecursionError:
        col.opaque("code_too_deep")
    finally:
        col.pop(scope)


def parse(text: str, cwd: str, home: str) -> dict[str, Any]:
    """Stand-alone: Python source -> {"code": ..., "shell": ..., "paths": ..., "urls": ...}."""
    col = Collector(home=home, cwd=cwd, arg="code")
    parse_into(col, text, cwd)
    return {
        "code": col.code,
        "commands": col.commands,
        "paths": col.paths,
        "urls": col.urls,
        "opaque_reasons": col.reasons,
    }
