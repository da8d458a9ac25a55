"""File operations: `open`, `os`/`shutil` calls, `pathlib` methods, archives, downloads, data
libraries' writers; and files the code writes and then runs."""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING, Any

from opafence.facts import paths
from opafence.facts.code import names, origins, processes, values
from opafence.facts.code.model import ENV_ALL, ENV_SECRET, FETCHED, RUN_ORIGINS, Value, call_arg
from opafence.facts.code.tables import (
    ARCHIVES,
    CHMOD,
    COPY,
    DATA_WRITERS,
    DELETE_1,
    DOWNLOADS,
    LINK,
    MOVE,
    OPEN,
    PATH_CTORS,
    PATH_METHODS,
    READ_1,
    READ_CALLS,
    WRITE_1,
)

if TYPE_CHECKING:
    from opafence.facts.code.analyzer import Analyzer


def note_path(an: Analyzer, arg: ast.expr | None, op: str, tool_style: bool = False) -> None:
    if arg is None:
        return
    found = values.alternatives(an, arg) if op in ("write", "delete") else None
    if found is None:
        v = values.value(an, arg)
        found = [v] if v is not None else None
    if found is None or any(v.text is None for v in found):
        if op in ("write", "delete"):
            an.col.opaque("code_dynamic_path")
        return
    for v in found:
        if v.text is not None:
            _add_path(an, v.text, op, tool_style)


def _add_path(an: Analyzer, raw: str, op: str, tool_style: bool = False) -> None:
    if tool_style:
        # Hermes' own file tools expand ~ (Python's open() does not).
        norm = paths.normalize(raw, an.cwd or "/", an.col.home, an.col.cache)
        if norm.problem:
            an.col.opaque(norm.problem)
        an.col.add_path(raw, norm.path, an.col.arg, "code", op)
        return
    bad = paths.problem(raw)
    if bad or not raw:
        if op in ("write", "delete") and bad:
            an.col.opaque(bad)
        return
    if not raw.startswith("/") and an.cwd is None:
        if op in ("write", "delete"):
            an.col.opaque("code_dynamic_cwd")
        return
    an.col.add_path(raw, paths.resolve(raw, an.cwd or "/", an.col.cache), an.col.arg, "code", op)


def file_call(an: Analyzer, name: str, node: ast.Call) -> None:
    func = node.func
    if name in OPEN or (
        name.endswith(".open") and type(func) is ast.Attribute and _is_path_expr(an, func.value)
    ):
        target: ast.expr | None
        if name.endswith(".open") and name not in OPEN and type(func) is ast.Attribute:
            target = func.value
            mode_arg = call_arg(node, 0, "mode")
        else:
            target = call_arg(node, 0, "file", "filename", "path")
            mode_arg = call_arg(node, 1, "mode", "flags")
        mode = "r"
        if mode_arg is not None:
            mv = values.value(an, mode_arg)
            # flags or a mode we cannot read statically: assume the worst
            mode = mv.text if mv is not None and mv.text is not None else "w"
        op = "write" if any(c in mode for c in "wax+") else "read"
        note_path(an, target, op)
        return
    if name in DELETE_1:
        note_path(an, call_arg(node, 0, "path", "name"), "delete")
    elif name in WRITE_1:
        note_path(an, call_arg(node, 0, "path", "name"), "write")
    elif name in READ_1:
        note_path(an, call_arg(node, 0, "path", "top", "pathname"), "read")
    elif name in MOVE:
        note_path(an, call_arg(node, 0, "src"), "delete")
        note_path(an, call_arg(node, 1, "dst"), "write")
    elif name in COPY:
        note_path(an, call_arg(node, 0, "src"), "read")
        note_path(an, call_arg(node, 1, "dst"), "write")
    elif name in LINK:
        note_path(an, call_arg(node, 1, "dst"), "write")
    elif name in CHMOD:
        note_path(an, call_arg(node, 0, "path"), "")
    elif name in ARCHIVES:
        mode_expr = call_arg(node, 1, "mode")
        archive_mode = values.const_str(an, mode_expr) if mode_expr is not None else "r"
        reads = archive_mode is not None and archive_mode[:1] == "r"
        note_path(an, call_arg(node, 0, "name", "file"), "read" if reads else "write")
    elif name in READ_CALLS:
        index, keyword, default, op = READ_CALLS[name]
        target = call_arg(node, index, keyword)
        if target is not None:
            note_path(an, target, op)
        elif default is not None:
            raw = an.col.home + default[1:] if default.startswith("~/") else default
            _add_path(an, raw, op)
    elif name == "shutil.make_archive":
        note_path(an, call_arg(node, 0, "base_name"), "write")
        root = call_arg(node, 2, "root_dir")
        if root is not None:
            note_path(an, root, "read")
        elif an.cwd is not None:
            _add_path(an, ".", "read")
    elif name.startswith(("tarfile.", "zipfile.")) and name.endswith((".add", ".write")):
        note_path(an, call_arg(node, 0, "name", "filename"), "read")
    elif name == "shutil.unpack_archive":
        note_path(an, call_arg(node, 0, "filename"), "read")
        _extract_to(an, call_arg(node, 1, "extract_dir"))
    elif name.startswith(("tarfile.", "zipfile.")) and name.endswith((".extractall", ".extract")):
        index = 0 if name.endswith(".extractall") else 1
        _extract_to(an, call_arg(node, index, "path"))
    elif name in DOWNLOADS:
        dest = call_arg(node, DOWNLOADS[name], "filename", "out")
        if dest is not None:
            note_path(an, dest, "write")
            v = values.value(an, dest)
            if v is not None and v.text is not None:
                an.written.append((v.text, None, FETCHED))
    elif type(func) is ast.Attribute and func.attr in DATA_WRITERS and not _is_path_expr(an, func.value):
        # df.to_csv("out.csv"), fig.savefig("mau.png"), np.save("a.npy", x)
        note_path(an, call_arg(node, 0, *DATA_WRITERS[func.attr]), "write")
    elif type(func) is ast.Attribute and func.attr in PATH_METHODS:
        if _is_path_expr(an, func.value):
            op = PATH_METHODS[func.attr]
            note_path(an, func.value, op)
            if func.attr in ("write_text", "write_bytes") and node.args:
                file_write(an, func.value, node.args[0], path_expr=True)
    elif type(func) is ast.Attribute and func.attr in ("rename", "replace") and _is_path_expr(an, func.value):
        note_path(an, func.value, "delete")
        note_path(an, call_arg(node, 0, "target"), "write")


def _extract_to(an: Analyzer, dest: ast.expr | None) -> None:
    """An archive is unpacked into dest (by default the directory the code runs in)."""
    if dest is None:
        if an.cwd is None:
            an.col.opaque("code_dynamic_cwd")
        else:
            _add_path(an, ".", "write")
        return
    note_path(an, dest, "write")


def file_write(an: Analyzer, owner: ast.expr, data: ast.expr, path_expr: bool = False) -> None:
    """A file this code writes: its content when known, and where that content came from,
    remembered to see whether the code then runs the file."""
    if path_expr:
        target: ast.expr | None = owner
        mode = "w"
    else:
        target, mode = _file_target(an, owner)
    if target is None:
        return
    where = values.value(an, target)
    if where is None or where.text is None:
        return
    bits = origins.of(an, data)
    if bits & (ENV_ALL | ENV_SECRET) and an.env_used:
        origins.environment_read(an)
    content = values.value(an, data) if "w" in mode and "+" not in mode else None
    known = content.text if content is not None else None
    for i, (raw, _, old) in enumerate(an.written):
        if raw == where.text:
            an.written[i] = (raw, None, old | bits)  # written twice: no single content
            return
    an.written.append((where.text, known, bits))


def _file_target(an: Analyzer, owner: ast.expr) -> tuple[ast.expr | None, str]:
    """The path and mode of `open(P, 'w')` (or of a name bound to it) whose method is called."""
    if type(owner) is ast.Name:
        bound = an.consts.get(owner.id)
        if bound is None:
            return None, ""
        owner = bound
    if type(owner) is not ast.Call:
        return None, ""
    fn = names.dotted(an, owner.func)
    if fn in OPEN:
        mode = call_arg(owner, 1, "mode")
        text = values.const_str(an, mode) if mode is not None else "r"
        return call_arg(owner, 0, "file", "filename", "path"), text or ""
    if fn is not None and fn.endswith(".open") and type(owner.func) is ast.Attribute:
        mode = call_arg(owner, 0, "mode")
        text = values.const_str(an, mode) if mode is not None else "r"
        return owner.func.value, text or ""
    return None, ""


def written_content(an: Analyzer, owner: ast.expr) -> Value | None:
    """`open(P).read()` of a file this code wrote with a known content."""
    target, mode = _file_target(an, owner)
    if target is None or "r" not in mode:
        return None
    where = values.value(an, target)
    if where is None:
        return None
    for raw, content, _ in an.written:
        if raw == where.text and content is not None:
            return Value(content)
    return None


def written_runs(an: Analyzer) -> None:
    """A file this code wrote that one of its commands then runs: its content is the program
    (decoded or downloaded content is named as such; content the reader cannot see is opaque)."""
    commands = an.col.commands[an.first_command :]
    for raw, content, bits in list(an.written):
        canonical = paths.resolve(raw, an.cwd or "/", an.col.cache) if not paths.problem(raw) else ""
        for c in commands:
            how = _runs_file(an, c, raw, canonical)
            if not how:
                continue
            if bits & RUN_ORIGINS:
                origins.run_origin(an, bits)
            elif content is None:
                an.col.opaque("code_dynamic_command")
            elif how == "python" or (
                how == "exec" and content.startswith("#!") and "python" in content.split("\n", 1)[0]
            ):
                an.nested(content)
            else:
                an.shell(content)
            break


def _runs_file(an: Analyzer, c: dict[str, Any], raw: str, canonical: str) -> str:
    argv = c["argv"]
    if not argv:
        return ""
    head = argv[0]
    if head == raw or (
        canonical and "/" in head and paths.resolve(head, an.cwd or "/", an.col.cache) == canonical
    ):
        return "exec"
    program = c["name"]
    language = (
        "shell" if program in processes.shell_names() else ("python" if processes.is_python(program) else "")
    )
    if not language or "-c" in c["flags"] or not c["operands"]:
        return ""
    if c["operands"][0] == raw or (canonical and c["operand_paths"][0] == canonical):
        return language
    return ""


def _is_path_expr(an: Analyzer, node: ast.AST) -> bool:
    v = values.value(an, node)
    if v is not None:
        return v.is_path
    # Path(some_variable).unlink(): a path object whose path we cannot know
    if type(node) is ast.Call:
        fn = names.dotted(an, node.func)
        return bool(fn in PATH_CTORS or (fn and fn.startswith("pathlib.")))
    if type(node) is ast.BinOp and type(node.op) is ast.Div:
        return _is_path_expr(an, node.left)
    return False


# -- the handlers kinds.py's bits dispatch to (analyzer.HANDLERS) --------------------------------


def write_method(an: Analyzer, name: str, node: ast.Call, synthetic: int) -> None:
    """`f.write(data)`, `f.writelines(lines)`: what is written to a file the code opened."""
    if type(node.func) is ast.Attribute and node.args:
        file_write(an, node.func.value, node.args[0])


def file_handler(an: Analyzer, name: str, node: ast.Call, synthetic: int) -> None:
    file_call(an, name, node)
