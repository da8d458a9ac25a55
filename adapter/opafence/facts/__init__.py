"""Raw tool call -> normalized facts for Rego (docs/contract.md, `facts`).

Foundation version: names the tool and nothing else. The facts issue fills in shell, paths,
URLs, recipients and code. Every builder is pure and never raises."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class FactsContext:
    home: str
    cwd: str
    hermes_home: str = ""


def tool_facts(tool: str) -> dict[str, Any]:
    if tool.startswith("mcp__"):
        _, server, name = [*tool.split("__", 2), "", ""][:3]
        return {"name": tool, "origin": "mcp", "mcp": {"server": server, "name": name, "words": []}}
    return {"name": tool, "origin": "builtin"}


def build_facts(tool: str, args: Mapping[str, Any], ctx: FactsContext) -> dict[str, Any]:
    return {
        "tool": tool_facts(tool),
        "paths": [],
        "urls": [],
        "recipients": [],
        "secrets": [],
        "words": [],
        "content_bytes": 0,
        "opaque": False,
        "opaque_reasons": [],
    }
