"""Hermes' own tools called from execute_code (`hermes_tools.terminal`, `read_file`, ...)."""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from opafence.facts import paths, url
from opafence.facts.code import files, processes, values
from opafence.facts.code.model import call_arg

if TYPE_CHECKING:
    from opafence.facts.code.analyzer import Analyzer


def tool_call(an: Analyzer, tool: str, node: ast.Call) -> None:
    calls: list[str] = an.facts["tool_calls"]
    if tool not in calls:
        calls.append(tool)
    if tool == "terminal":
        an.spawns = True
        workdir = call_arg(node, 2, "workdir")
        cwd = an.cwd
        if workdir is not None:
            wv = values.value(an, workdir)
            if wv is None or wv.text is None:
                cwd = None
            else:
                norm = paths.normalize(wv.text, an.cwd or "/", an.col.home, an.col.cache)
                cwd = norm.path or None
                an.col.add_path(wv.text, norm.path, an.col.arg, "code", "")
        processes.command_arg(an, call_arg(node, 0, "command"), cwd)
    elif tool == "read_file":
        files.note_path(an, call_arg(node, 0, "path"), "read", tool_style=True)
    elif tool == "write_file":
        target = call_arg(node, 0, "path")
        files.note_path(an, target, "write", tool_style=True)
        content = call_arg(node, 1, "content")
        where = values.value(an, target) if target is not None else None
        if content is not None and where is not None and where.text is not None:
            norm = paths.normalize(where.text, an.cwd or "/", an.col.home, an.col.cache)
            if norm.path:
                files.file_write(an, ast.Constant(value=norm.path), content, path_expr=True)
    elif tool == "search_files":
        files.note_path(an, call_arg(node, 2, "path"), "read", tool_style=True)
    elif tool == "patch":
        files.note_path(an, call_arg(node, 0, "path"), "write", tool_style=True)
        text_arg = call_arg(node, 5, "patch")
        if text_arg is not None:
            v = values.value(an, text_arg)
            if v is None or v.text is None:
                an.col.opaque("code_dynamic_path")
            else:
                from opafence.facts import patch as patch_module

                for raw, op in patch_module.parse_patch(v.text):
                    norm = paths.normalize(raw, an.cwd or "/", an.col.home, an.col.cache)
                    if norm.problem:
                        an.col.opaque(norm.problem)
                    an.col.add_path(raw, norm.path, an.col.arg, "patch", op)
    elif tool == "web_extract":
        arg = call_arg(node, 0, "urls")
        v = values.value(an, arg) if arg is not None else None
        for item in (v.items or ([v.text] if v.text else [])) if v is not None else []:
            fact, _ = url.parse(item, an.col.arg)
            if fact is not None:
                an.col.add_url(fact)


def hermes_call(an: Analyzer, name: str, node: ast.Call, synthetic: int) -> None:
    """`hermes_tools.<tool>(...)` (analyzer.HANDLERS)."""
    tool_call(an, name.split(".", 1)[1], node)
