"""Which argument of which tool carries a path, a URL, a command, code or a recipient.

Each Hermes tool's arguments are read the way Hermes reads them (argument names checked
against Hermes 0.19.0's schemas in `tools/*.py`); MCP tools and other plugin tools are read by
argument name and by the shape of the values.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Mapping
from typing import Any

from opafence.facts import code, email, mcp, patch, paths, shell, url
from opafence.facts.arguments import strings
from opafence.facts.collect import Collector
from opafence.facts.context import FactsContext


class Call:
    def __init__(self, tool: str, args: Mapping[str, Any], ctx: FactsContext, col: Collector) -> None:
        self.tool = tool
        self.args = args
        self.ctx = ctx
        self.col = col
        self.recipients: list[dict[str, Any]] = []
        self.shell_present = False

    @property
    def hermes_home(self) -> str:
        return self.ctx.hermes_home or os.path.join(self.ctx.home or "/", ".hermes")

    def str_arg(self, name: str) -> str | None:
        value = self.args.get(name)
        if value is None:
            return None
        if not isinstance(value, str):
            self.col.opaque(f"arg_not_string:{name}")
            return None
        return value

    def path(self, raw: str, arg: str, op: str = "", base: str | None = None) -> str:
        norm = paths.normalize(raw, base or self.col.cwd, self.ctx.home, self.col.cache)
        if norm.problem:
            self.col.opaque(norm.problem)
        self.col.add_path(raw, norm.path, arg, "arg", op)
        return norm.path

    def path_arg(self, name: str, op: str = "", default: str | None = None) -> None:
        value = self.args.get(name, default)
        if isinstance(value, str) and value.strip():
            self.path(value, name, op)
        elif isinstance(value, list):
            for item in value:
                if isinstance(item, str) and item.strip():
                    self.path(item, name, op)
        elif value is not None and not isinstance(value, str):
            self.col.opaque(f"arg_not_string:{name}")

    def url_or_path(self, name: str) -> None:
        value = self.args.get(name)
        items = value if isinstance(value, list) else [value]
        for item in items:
            if not isinstance(item, str) or not item.strip():
                continue
            if url.is_url(item) and not item.strip().lower().startswith("file:"):
                self.add_url(item, name)
            else:
                self.path(item, name)

    def add_url(self, raw: str, arg: str, target: bool = True) -> None:
        if raw[:12].lower() == "view-source:" and len(raw) > 12:
            # The browser shows the source of the URL inside: it reads that URL (or file).
            self.add_url(raw[12:].strip(), arg, target)
            return
        fact, problem = url.parse_target(raw, arg) if target else url.parse(raw, arg)
        if problem:
            self.col.opaque(problem)
        if fact is not None:
            self.col.add_url(fact)
            if fact["scheme"] == "file":
                self.path(fact["path"] or "/", arg)
            elif fact["scheme"] == "mailto":
                self.recipients.extend(email.parse_recipients(raw, arg))

    def url_arg(self, name: str) -> None:
        value = self.args.get(name)
        items = value if isinstance(value, list) else [value]
        for item in items:
            if isinstance(item, str) and item.strip():
                self.add_url(item, name)
            elif item is not None and not isinstance(item, str):
                self.col.opaque(f"arg_not_string:{name}")

    def shell(self, text: str, arg: str, cwd: str | None) -> None:
        self.shell_present = True
        self.col.arg = arg
        shell.parse_into(self.col, text, cwd)

    def python(self, text: str, arg: str) -> None:
        self.col.arg = arg
        code.parse_into(self.col, text, self.col.cwd, 0, "code")

    def patch_text(self, text: str, arg: str) -> None:
        for raw, op in patch.parse_patch(text):
            norm = paths.normalize(raw, self.col.cwd, self.ctx.home, self.col.cache)
            if norm.problem:
                self.col.opaque(norm.problem)
            self.col.add_path(raw, norm.path, arg, "patch", op)


def _terminal(c: Call) -> None:
    cwd: str | None = c.col.cwd
    workdir = c.str_arg("workdir")
    if workdir and workdir.strip():
        cwd = c.path(workdir, "workdir") or None
    command = c.str_arg("command")
    c.shell_present = True
    if command is not None:
        c.shell(command, "command", cwd)


def _process(c: Call) -> None:
    action = c.args.get("action")
    if action in ("write", "submit"):
        data = c.str_arg("data")
        c.shell_present = True
        if data is not None:
            c.shell(data, "data", c.col.cwd)


def _execute_code(c: Call) -> None:
    text = c.str_arg("code")
    c.col.code_facts()
    if text is not None:
        c.python(text, "code")


def _file(c: Call) -> None:
    c.path_arg("path")


def _patch(c: Call) -> None:
    c.path_arg("path")
    text = c.str_arg("patch")
    if text:
        c.patch_text(text, "patch")


def _search_files(c: Call) -> None:
    c.path_arg("path", default=".")


def _skill_dir(c: Call) -> str | None:
    name = c.str_arg("name")
    if not name:
        return None
    category = c.str_arg("category")
    parts = [c.hermes_home, "skills"]
    if category:
        parts.append(category)
    parts.append(name)
    return os.path.join(*parts)


def _skill(c: Call) -> None:
    base = _skill_dir(c)
    if base is None:
        return
    name = c.str_arg("name") or ""
    if paths.problem(base):
        c.col.opaque(paths.problem(base))
        return
    c.col.add_path(name, paths.resolve(base, "/", c.col.cache), "name", "arg", "")
    file_path = c.str_arg("file_path")
    if file_path:
        full = os.path.join(base, file_path)
        if paths.problem(full):
            c.col.opaque(paths.problem(full))
        else:
            c.col.add_path(file_path, paths.resolve(full, "/", c.col.cache), "file_path", "arg", "")


def _cronjob(c: Call) -> None:
    script = c.str_arg("script")
    if script and script.strip():
        # Hermes runs cron scripts from $HERMES_HOME/scripts/ when the path is relative.
        expanded, bad = paths.expand_tilde(script.strip(), c.ctx.home, c.col.cwd)
        if bad:
            c.col.opaque(bad)
        else:
            c.path(expanded, "script", base=os.path.join(c.hermes_home, "scripts"))
    workdir = c.str_arg("workdir")
    if workdir and workdir.strip():
        c.path(workdir, "workdir")


def _vision(c: Call) -> None:
    for name in ("image_url", "video_url", "reference_image_urls"):
        if name in c.args:
            c.url_or_path(name)


def _tts(c: Call) -> None:
    c.path_arg("output_path")


def _browser_navigate(c: Call) -> None:
    c.url_arg("url")


def _web_extract(c: Call) -> None:
    c.url_arg("urls")


def _text_urls(name: str) -> Callable[[Call], None]:
    def read(c: Call) -> None:
        for key, text in strings(c.args.get(name), name):
            del key
            for fact in url.find_in_text(text, name):
                c.col.add_url(fact)

    return read


def _browser_cdp(c: Call) -> None:
    for key, text in strings(c.args.get("params"), "params"):
        if url.is_url(text) or (key in ("url", "uri", "href") and text.strip()):
            c.add_url(text, "params")


def _kanban_attach_url(c: Call) -> None:
    c.url_arg("url")


def _kanban_create(c: Call) -> None:
    c.path_arg("workspace_path")


def _kanban_complete(c: Call) -> None:
    c.path_arg("artifacts")


def _project_create(c: Call) -> None:
    c.path_arg("path")


def _yb_send_dm(c: Call) -> None:
    c.url_or_path("media_files")


_PATH_KEYS = frozenset(
    {
        "path",
        "paths",
        "file",
        "files",
        "file_path",
        "filepath",
        "filename",
        "file_name",
        "dir",
        "dirname",
        "directory",
        "folder",
        "src",
        "dst",
        "output",
        "output_path",
        "input_path",
        "local_path",
        "attachment",
        "attachments",
        "workdir",
        "cwd",
        "root",
        "repo_path",
    }
)
_PATH_SUFFIXES = ("_path", "_paths", "_file", "_files", "_dir", "_directory", "_folder")
_URL_KEYS = frozenset({"url", "urls", "uri", "href", "link", "links", "endpoint", "webhook", "webhook_url"})
_URL_SUFFIXES = ("_url", "_urls", "_uri", "_endpoint")
_SHELL_WORDS = frozenset(
    {
        "shell",
        "terminal",
        "bash",
        "sh",
        "zsh",
        "exec",
        "execute",
        "run",
        "command",
        "cmd",
        "process",
        "spawn",
        "ssh",
    }
)
_SHELL_KEYS = frozenset({"command", "cmd", "shell_command", "bash_command", "commandline", "command_line"})
_MEDIA = re.compile(r"(?<![A-Za-z0-9_])MEDIA:\s*([^\s\"'<>|]+)")
_CODE_KEYS = frozenset({"code", "python_code", "source", "script"})


def _path_shaped(text: str) -> bool:
    t = text.strip()
    return (
        2 <= len(t) <= paths.MAX_PATH
        and (t.startswith("/") or t.startswith("~/") or t == "~")
        and "\n" not in t
        and not t.startswith("//")
        and (len(t) < 2 or t[1] != " ")
    )


def generic(c: Call) -> None:
    """MCP and other plugin tools: every argument is read by its name and by its shape."""
    words = set(mcp.split_words(c.tool))
    runs_commands = bool(words & _SHELL_WORDS)
    runs_python = "python" in words or str(c.args.get("language", "")).lower() in ("python", "python3", "py")
    for top, value in c.args.items():
        top_key = str(top)
        for key, text in strings(value, top_key):
            low = key.lower()
            stripped = text.strip()
            if not stripped:
                continue
            if email.recipient_field(low) or (not email.sender_field(low) and email.is_address_list(text)):
                c.recipients.extend(email.parse_recipients(text, key))
            else:
                found = email.message_recipients(text, key) if email.may_be_message(text, low) else []
                c.recipients.extend(found or email.injected_recipients(text, key))
            if low in _SHELL_KEYS and runs_commands:
                c.shell(text, top_key, c.col.cwd)
                continue
            if low in _CODE_KEYS and runs_python:
                c.python(text, top_key)
                continue
            for media in _MEDIA.findall(text):
                # `MEDIA:<path>`: messaging tools attach (read and send) that file.
                c.path(media, top_key)
            if url.is_url(stripped):
                c.add_url(stripped, top_key, target=False)
            elif low in _URL_KEYS or low.endswith(_URL_SUFFIXES):
                c.add_url(stripped, top_key)
            elif (low in _PATH_KEYS or low.endswith(_PATH_SUFFIXES) or _path_shaped(stripped)) and (
                "\n" not in stripped and len(stripped) <= paths.MAX_PATH
            ):
                c.path(stripped, top_key)


# Built-in tools that post what their arguments say to people (mentions in it notify them).
MESSAGING_TOOLS = frozenset(
    {
        "discord",
        "yb_send_dm",
        "feishu_drive_add_comment",
        "feishu_drive_reply_comment",
        "meet_say",
        "kanban_comment",
    }
)

READERS: dict[str, Callable[[Call], None]] = {
    "terminal": _terminal,
    "process": _process,
    "execute_code": _execute_code,
    "read_file": _file,
    "write_file": _file,
    "patch": _patch,
    "search_files": _search_files,
    "skill_manage": _skill,
    "skill_view": _skill,
    "cronjob": _cronjob,
    "vision_analyze": _vision,
    "video_analyze": _vision,
    "image_generate": _vision,
    "video_generate": _vision,
    "xai_video_edit": _vision,
    "xai_video_extend": _vision,
    "text_to_speech": _tts,
    "browser_navigate": _browser_navigate,
    "browser_console": _text_urls("expression"),
    "browser_cdp": _browser_cdp,
    "web_extract": _web_extract,
    "kanban_attach_url": _kanban_attach_url,
    "kanban_create": _kanban_create,
    "kanban_complete": _kanban_complete,
    "project_create": _project_create,
    "yb_send_dm": _yb_send_dm,
}
