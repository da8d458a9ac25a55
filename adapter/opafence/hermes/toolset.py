"""The tools a Hermes session offers the model, for tool-aware binding (intent/catalogue.py).

Two sources, names and parameter names only (never descriptions): the function schemas of the
model request itself (`llm_request` middleware, which runs after `pre_llm_call`), which the
task keeps as the catalogue its grants were bound against; and Hermes' tool registry, for a
session's first message, before any request was seen. A bound tool whose parameters differ in a
later request is no longer the tool the grant was made for: it leaves the grant."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from opafence.intent.catalogue import Catalogue, parse_tools
from opafence.policy import DroppedGrant, TaskPolicy


def request_catalogue(request: Any) -> Catalogue | None:
    """The MCP tools of a model request's `tools` (OpenAI-style function schemas), or None."""
    if not isinstance(request, Mapping):
        return None
    tools = request.get("tools")
    if not isinstance(tools, list):
        return None
    return parse_tools(tools)


def registry_catalogue() -> Catalogue | None:
    """The MCP tools registered with Hermes (tools.registry), or None when it cannot be read."""
    try:
        from tools.registry import registry  # Hermes 0.19.0

        entries = []
        for name in registry.get_all_tool_names():
            if not name.startswith("mcp__"):
                continue
            schema = registry.get_schema(name) or {}
            params = schema.get("parameters", {}) if isinstance(schema, Mapping) else {}
            entries.append({"name": name, "parameters": params})
    except Exception:
        return None
    return parse_tools(entries) if entries else None


def snapshot(catalogue: Catalogue | None) -> dict[str, list[str]]:
    """What the task keeps of a catalogue: tool name -> parameter names."""
    return {t.name: list(t.params) for t in catalogue.tools} if catalogue else {}


def from_snapshot(snap: Mapping[str, list[str]]) -> Catalogue | None:
    return parse_tools([{"name": n, "parameters": list(p)} for n, p in snap.items()]) if snap else None


def changed_tools(bound: Mapping[str, list[str]], seen: Catalogue) -> set[str]:
    """Tools of the grant-time catalogue whose parameters differ in the request seen now."""
    now = {t.name: list(t.params) for t in seen.tools}
    return {n for n, params in bound.items() if n in now and sorted(now[n]) != sorted(params)}


def drop_changed(policy: TaskPolicy, changed: set[str]) -> bool:
    """Take changed tools out of every grant bound to them; a grant left with none is dropped."""
    if not changed:
        return False
    touched = False
    kept = []
    for g in policy.grants:
        if not any(t in changed for t in g.tools):
            kept.append(g)
            continue
        touched = True
        left = [t for t in g.tools if t not in changed]
        if left:
            kept.append(g.model_copy(update={"tools": left}))
            continue
        policy.dropped.append(
            DroppedGrant(
                grant={"id": g.id, "class": g.class_, "capability": g.capability, "tools": g.tools},
                reason="the tools it was bound to changed their parameters after the grant",
                message=g.message,
            )
        )
    policy.grants = kept
    return touched
