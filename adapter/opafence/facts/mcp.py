"""Tool names: builtin / MCP / other, and MCP names split into words (docs/contract.md, `tool`).

Hermes names MCP tools `mcp__<server>__<tool>` (characters outside [A-Za-z0-9_] already
replaced by `_`). Rego owns which words are verbs and nouns; this only splits.
"""

from __future__ import annotations

import functools
import re
from typing import Any

# Hermes 0.19.0's registered tools (tools/*.py schemas) plus the agent-loop tools.
BUILTIN_TOOLS = frozenset(
    {
        "browser_back",
        "browser_cdp",
        "browser_click",
        "browser_console",
        "browser_dialog",
        "browser_get_images",
        "browser_navigate",
        "browser_press",
        "browser_scroll",
        "browser_snapshot",
        "browser_type",
        "browser_vision",
        "clarify",
        "close_terminal",
        "computer_use",
        "cronjob",
        "delegate_task",
        "discord",
        "discord_admin",
        "execute_code",
        "feishu_doc_read",
        "feishu_drive_add_comment",
        "feishu_drive_list_comment_replies",
        "feishu_drive_list_comments",
        "feishu_drive_reply_comment",
        "ha_call_service",
        "ha_get_state",
        "ha_list_entities",
        "ha_list_services",
        "image_generate",
        "kanban_attach",
        "kanban_attach_url",
        "kanban_attachments",
        "kanban_block",
        "kanban_comment",
        "kanban_complete",
        "kanban_create",
        "kanban_heartbeat",
        "kanban_link",
        "kanban_list",
        "kanban_show",
        "kanban_unblock",
        "memory",
        "patch",
        "process",
        "project_create",
        "project_list",
        "project_switch",
        "read_file",
        "read_terminal",
        "search_files",
        "session_search",
        "skill_manage",
        "skill_view",
        "skills_list",
        "spotify_albums",
        "spotify_devices",
        "spotify_library",
        "spotify_playback",
        "spotify_playlists",
        "spotify_queue",
        "spotify_search",
        "terminal",
        "text_to_speech",
        "todo",
        "video_analyze",
        "video_generate",
        "vision_analyze",
        "web_extract",
        "web_search",
        "write_file",
        "x_search",
        "xai_video_edit",
        "xai_video_extend",
        "yb_query_group_info",
        "yb_query_group_members",
        "yb_search_sticker",
        "yb_send_dm",
        "yb_send_sticker",
    }
)

_CAMEL = re.compile(r"[A-Z]+[0-9]*(?=[A-Z][a-z])|[A-Z]?[a-z]+[0-9]*|[A-Z]+[0-9]*|[0-9]+")


@functools.lru_cache(maxsize=1024)
def _split_cached(name: str) -> tuple[str, ...]:
    words: list[str] = []
    for chunk in re.split(r"[_\-.\s/:]+", name):
        if not chunk:
            continue
        pieces = _CAMEL.findall(chunk)
        words.extend(p.lower() for p in (pieces or [chunk]))
    return tuple(words)


def split_words(name: str) -> list[str]:
    """`getOrCreate_contact` -> ["get", "or", "create", "contact"]; `HTTPRequest` -> ["http", "request"]."""
    if len(name) > 256:
        return list(_split_cached.__wrapped__(name))
    return list(_split_cached(name))


def tool_facts(tool: str) -> dict[str, Any]:
    if tool.startswith("mcp__"):
        rest = tool[len("mcp__") :]
        server, sep, name = rest.partition("__")
        if not sep:
            server, name = rest, ""
        return {
            "name": tool,
            "origin": "mcp",
            "mcp": {"server": server, "name": name, "words": split_words(name)},
        }
    return {"name": tool, "origin": "builtin" if tool in BUILTIN_TOOLS else "other"}
