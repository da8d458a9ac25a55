"""Commands the code runs: `os.system`, `subprocess.*`, `os.exec*`/`os.spawn*`, `pty.spawn`, the `sh`
package, `runpy` and file loaders, and programs written to a shell's or interpreter's stdin."""

from __future__ import annotations

import ast
import posixpath
from typing import TYPE_CHECKING

from opafence.facts import paths
from opafence.facts.code import names, origins, values
from opafence.facts.code.model import RUN_ORIGINS, SOCKET, UNKNOWN_CWD, call_arg, call_keyword, starred
from opafence.facts.code.tables import LOADERS, SHELL_STRING

if TYPE_CHECKING:
    from opafence.facts.code.analyzer import Analyzer


def runner(an: Analyzer, low: str, node: ast.Call) -> None:
    args = node.args
    if low in SHELL_STRING:
        command_arg(an, call_arg(node, 0, "cmd", "command"))
    elif low.startswith("subprocess."):
        cmd = call_arg(node, 0, "args")
        if cmd is not None:
            _subprocess(an, node, cmd)
    elif low == "asyncio.create_subprocess_exec":
        _argv_args(an, list(args))
    elif low.startswith("os.exec"):
        _exec_call(an, low, node)
    elif low.startswith("os.spawn"):
        _spawn_call(an, low, node)
    elif low in ("os.posix_spawn", "os.posix_spawnp"):
        if args:
            command_arg(an, _with_program(an, args[0], args[1] if len(args) > 1 else None))
    elif low == "pty.spawn":
        command_arg(an, call_arg(node, 0, "argv"))


def _subprocess(an: Analyzer, node: ast.Call, cmd: ast.expr) -> None:
    """subprocess.*: the command with its `shell=`, `executable=` and `cwd=`; a program
    written to a shell's or interpreter's `input=`."""
    cwd = _cwd_keyword(an, node)
    shell = call_keyword(node, "shell")
    exe = call_keyword(node, "executable")
    as_shell = shell is not None and not (type(shell) is ast.Constant and not shell.value)
    elts = values.literal_elts(an, cmd) if isinstance(cmd, ast.List | ast.Tuple | ast.Name) else None
    run = cmd
    if as_shell and elts:
        # shell=True with a list: the first item is the shell program, the rest its $0, $1, ...
        run = elts[0]
        if type(shell) is not ast.Constant:
            command_arg(an, cmd, cwd)  # shell=flag: either way
    if exe is not None:
        program = values.const_str(an, exe)
        if as_shell:
            if program is None or posixpath.basename(program) not in shell_names():
                run = ast.List(elts=[exe, ast.Constant(value="-c"), run], ctx=ast.Load())
        else:
            run = _with_program(
                an, exe, cmd if elts is not None else None, None if elts is not None else [cmd]
            )
    command_arg(an, run, cwd)
    data = call_keyword(node, "input")
    if data is not None:
        _stdin_program(an, cmd, data)


def _with_program(
    an: Analyzer, program: ast.expr, argv: ast.expr | None, args: list[ast.expr] | None = None
) -> ast.expr:
    """The command a path runs with an argument vector (os.exec*, os.spawn*, posix_spawn,
    `executable=`): the program is the path, whatever argv[0] says."""
    rest: list[ast.expr]
    if args is not None:
        rest = list(args[1:])
    elif argv is None:
        rest = []
    else:
        elts = values.literal_elts(an, argv)
        if elts is None:
            tail = ast.Subscript(value=argv, slice=ast.Slice(lower=ast.Constant(value=1)), ctx=ast.Load())
            rest = [starred(tail)]
        else:
            rest = elts[1:]
    return ast.List(elts=[program, *rest], ctx=ast.Load())


def _cwd_keyword(an: Analyzer, node: ast.Call) -> str | None | object:
    cwd = call_keyword(node, "cwd")
    if cwd is None:
        return None
    an.consume(cwd)  # the directory a command runs in, not a path it acts on
    v = values.value(an, cwd)
    if v is None or v.text is None:
        return UNKNOWN_CWD
    norm = paths.normalize(v.text, an.cwd or "/", an.col.home, an.col.cache)
    return norm.path or UNKNOWN_CWD


def stream_keywords(an: Analyzer, node: ast.Call) -> None:
    for k in node.keywords:
        if k.arg in ("stdin", "stdout", "stderr") and origins.of(an, k.value) & SOCKET:
            an.socket_streams = True


def command_arg(an: Analyzer, arg: ast.expr | None, cwd: str | None | object = None) -> None:
    if arg is None:
        return
    an.consume(arg)
    bits = _argv_origins(an, arg)
    if bits:
        origins.run_origin(an, bits)
    found = values.alternatives(an, arg)
    if found is None:
        an.col.opaque("code_dynamic_command")
        return
    where: str | None = cwd if isinstance(cwd, str) else None
    if cwd is UNKNOWN_CWD:
        an.col.opaque("code_dynamic_cwd")
    for v in found:
        if v.text is not None:
            an.shell(v.text, where)
        elif v.items:
            an.argv(v.items, where)


def _argv_origins(an: Analyzer, arg: ast.expr) -> int:
    """Decoded or fetched data that a command would run: anywhere in a shell string, in an
    argument vector's program, or anywhere in the arguments of a shell or interpreter."""
    elts = values.literal_elts(an, arg) if type(arg) in (ast.List, ast.Tuple, ast.Name) else None
    if elts is None:
        return origins.of(an, arg) & RUN_ORIGINS
    return _elts_origins(an, elts)


def _elts_origins(an: Analyzer, elts: list[ast.expr]) -> int:
    if not elts:
        return 0
    head = origins.of(an, elts[0]) & RUN_ORIGINS
    if head:
        return head
    program = values.const_str(an, elts[0])
    if program is not None and _interpreter(posixpath.basename(program)):
        bits = 0
        for e in elts[1:]:
            bits |= origins.of(an, e)
        return bits & RUN_ORIGINS
    return 0


def _argv_args(an: Analyzer, args: list[ast.expr]) -> None:
    an.consume(*args)
    origins.run_origin(an, _elts_origins(an, [a for a in args if type(a) is not ast.Starred]))
    items: list[str] = []
    for a in args:
        if type(a) is ast.Starred:
            an.col.opaque("code_dynamic_command")
            return
        v = values.value(an, a)
        if v is None or v.text is None:
            an.col.opaque("code_dynamic_command")
            return
        items.append(v.text)
    if items:
        an.argv(items)


def _exec_call(an: Analyzer, name: str, node: ast.Call) -> None:
    fn = name.split(".", 1)[1]
    args = node.args
    if not args or any(type(a) is ast.Starred for a in args):
        an.col.opaque("code_dynamic_command")
    elif fn in ("execl", "execlp", "execle", "execlpe"):
        rest = args[1:-1] if fn.endswith("e") else args[1:]
        command_arg(an, _with_program(an, args[0], None, list(rest)))
    elif fn in ("execv", "execvp", "execve", "execvpe"):
        command_arg(an, _with_program(an, args[0], args[1] if len(args) > 1 else None))
    else:
        an.col.opaque("code_dynamic_command")


def _spawn_call(an: Analyzer, name: str, node: ast.Call) -> None:
    fn = name.split(".", 1)[1]
    args = node.args
    if len(args) < 2 or any(type(a) is ast.Starred for a in args):
        an.col.opaque("code_dynamic_command")
    elif fn in ("spawnl", "spawnlp", "spawnle", "spawnlpe"):
        rest = args[2:-1] if fn.endswith("e") else args[2:]
        command_arg(an, _with_program(an, args[1], None, list(rest)))
    elif fn in ("spawnv", "spawnvp", "spawnve", "spawnvpe"):
        command_arg(an, _with_program(an, args[1], args[2] if len(args) > 2 else None))
    else:
        an.col.opaque("code_dynamic_command")


def loop_subprocess(an: Analyzer, name: str, node: ast.Call) -> None:
    """asyncio's `loop.subprocess_shell(factory, cmd)` and `subprocess_exec(factory, program, *args)`."""
    an.spawns = True
    if name.endswith("subprocess_shell"):
        command_arg(an, call_arg(node, 1, "cmd"))
    else:
        _argv_args(an, list(node.args[1:]))


def sh_module(an: Analyzer, name: str, node: ast.Call) -> None:
    """The `sh` package: `sh.rm('-rf', path)`, `sh.Command('rm')(...)` run a program."""
    an.spawns = True
    if name == "sh.Command()":
        maker = node.func
        program = maker.args[0] if type(maker) is ast.Call and maker.args else None
    else:
        program = ast.Constant(value=name.split(".", 1)[1].replace("_", "-"))
    if program is None:
        an.col.opaque("code_dynamic_command")
        return
    _argv_args(an, [program, *node.args])


def runpy_call(an: Analyzer, name: str, node: ast.Call) -> None:
    """runpy and the file loaders of importlib run a file (or module) as code: the command
    `python3 FILE` / `python3 -m M`."""
    module = name == "runpy.run_module"
    index, keyword = LOADERS.get(name, (0, "path_name"))
    target = call_arg(node, index, keyword, "mod_name", "location", "path", "pathname")
    v = values.value(an, target) if target is not None else None
    an.spawns = True
    if v is None or v.text is None:
        an.col.opaque("code_dynamic_command")
        return
    an.consume(target)
    an.argv(["python3", "-m", v.text] if module else ["python3", v.text])


def _stdin_program(an: Analyzer, cmd: ast.expr, data: ast.expr) -> None:
    """Data written to the standard input of a shell or interpreter that reads its program there."""
    found = values.value(an, cmd)
    if found is None:
        origins.run_origin(an, origins.of(an, data))
        return
    items = found.items if found.items is not None else (found.text or "").split()
    if not items or not _reads_program(items):
        return
    bits = origins.of(an, data) & RUN_ORIGINS
    if bits:
        origins.run_origin(an, bits)
        return
    v = values.value(an, data)
    if v is None or v.text is None:
        an.col.opaque("shell_dynamic_body")
        return
    an.consume(data)
    program = posixpath.basename(items[0])
    if program in shell_names():
        an.shell(v.text)
    elif is_python(program):
        an.nested(v.text)
    else:
        an.col.opaque(f"{program}_e")


def stdin_write(an: Analyzer, name: str, node: ast.Call) -> None:
    """A program written to a process's stdin: `Popen(['sh'], stdin=PIPE).communicate(b'...')`,
    `p.stdin.write(...)`, `os.popen('sh', 'w').write(...)`."""
    func = node.func
    if type(func) is not ast.Attribute:
        return
    owner: ast.expr = func.value
    if name.endswith((".stdin.write", ".stdin.writelines")) and type(owner) is ast.Attribute:
        owner = owner.value
    elif not name.endswith(".communicate") and not name.endswith(".write"):
        return
    if type(owner) is ast.Name:
        bound = an.consts.get(owner.id)
        if bound is None:
            return
        owner = bound
    if type(owner) is not ast.Call:
        return
    maker = names.dotted(an, owner.func)
    data = call_arg(node, 0, "input")
    if data is None:
        return
    to_stdin = name.endswith((".communicate", ".stdin.write", ".stdin.writelines"))
    if maker == "subprocess.Popen" and to_stdin:
        cmd = call_arg(owner, 0, "args")
        if cmd is not None:
            _stdin_program(an, cmd, data)
    elif maker == "os.popen" and not to_stdin:
        mode = values.const_str(an, owner.args[1]) if len(owner.args) > 1 else None
        cmd = call_arg(owner, 0, "cmd")
        if mode is not None and "w" in mode and cmd is not None:
            _stdin_program(an, cmd, data)


def shell_names() -> frozenset[str]:
    from opafence.facts import shell

    return shell.SHELLS


def is_python(name: str) -> bool:
    from opafence.facts import shell

    return shell.is_python(name)


def _interpreter(name: str) -> bool:
    """A program that runs the code or commands it is given (a shell or a language)."""
    from opafence.facts import shell

    return (
        name in shell.SHELLS
        or shell.is_python(name)
        or name in shell.NODES
        or name in shell.OTHER_INTERPRETERS
    )


def _reads_program(items: list[str]) -> bool:
    """The command line starts an interpreter that reads its program from standard input."""
    program = posixpath.basename(items[0])
    if not _interpreter(program):
        return False
    shell_like = program in shell_names()
    for a in items[1:]:
        if a in ("-", "-s", "--"):
            return True
        if a in ("-c", "-e", "-E", "-r", "-m") or (shell_like and a.startswith("-") and "c" in a[1:]):
            return False
        if not a.startswith("-"):
            return False
    return True


# -- the handlers kinds.py's bits dispatch to (analyzer.HANDLERS) --------------------------------


def runner_call(an: Analyzer, name: str, node: ast.Call, synthetic: int) -> None:
    """os.system, subprocess.*, os.exec*, os.spawn*, pty.spawn, ..."""
    an.spawns = True
    if any(type(a) is ast.Starred for a in node.args) or any(k.arg is None for k in node.keywords):
        # subprocess.run(**opts), os.system(*cmd): arguments we cannot see
        an.col.opaque("code_dynamic_command")
    stream_keywords(an, node)
    runner(an, name.lower(), node)


def ctypes_call(an: Analyzer, name: str, node: ast.Call, synthetic: int) -> None:
    """libc's `system`/`popen` through ctypes."""
    an.spawns = True
    command_arg(an, call_arg(node, 0, "command"))


def runpy_handler(an: Analyzer, name: str, node: ast.Call, synthetic: int) -> None:
    runpy_call(an, name, node)


def loop_handler(an: Analyzer, name: str, node: ast.Call, synthetic: int) -> None:
    loop_subprocess(an, name, node)


def sh_call(an: Analyzer, name: str, node: ast.Call, synthetic: int) -> None:
    if "sh" in an.facts["imports"]:
        sh_module(an, name, node)


def dup2_call(an: Analyzer, name: str, node: ast.Call, synthetic: int) -> None:
    """os.dup2(s.fileno(), 0): a socket becomes a process's standard stream."""
    if node.args and origins.of(an, node.args[0]) & SOCKET:
        an.socket_streams = True


def stdin_handler(an: Analyzer, name: str, node: ast.Call, synthetic: int) -> None:
    stdin_write(an, name, node)
