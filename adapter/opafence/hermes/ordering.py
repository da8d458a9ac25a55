"""Keep opafence first among pre_tool_call hooks and last among tool_execution middleware.

Hermes 0.19.0 takes the first valid pre_tool_call directive in registration order and
`register_hook` appends, so opafence moves its callback to the front (an internal of 0.19.0:
`PluginManager._hooks`). The execution re-check must see the arguments that will really
run, so it moves itself to the end of the middleware chain. Both are checked every turn."""

from __future__ import annotations

import importlib
import logging
from collections.abc import Callable
from typing import Any

log = logging.getLogger("opafence.ordering")


def _manager() -> Any:
    return importlib.import_module("hermes_cli.plugins").get_plugin_manager()


def _same(a: Callable[..., Any], b: Callable[..., Any]) -> bool:
    return a == b  # bound methods compare by function and instance


def ensure_order(pre_tool_call: Callable[..., Any], tool_execution: Callable[..., Any]) -> list[str]:
    """Put our hook first and our middleware last; return the other deciding callbacks."""
    mgr = _manager()
    hooks: list[Callable[..., Any]] = mgr._hooks.setdefault("pre_tool_call", [])
    mine = [cb for cb in hooks if _same(cb, pre_tool_call)]
    if not mine:
        hooks.insert(0, pre_tool_call)
    elif not _same(hooks[0], pre_tool_call):
        hooks[:] = [pre_tool_call] + [cb for cb in hooks if not _same(cb, pre_tool_call)]
    chain: list[Callable[..., Any]] = mgr._middleware.setdefault("tool_execution", [])
    if not chain or not _same(chain[-1], tool_execution):
        chain[:] = [cb for cb in chain if not _same(cb, tool_execution)] + [tool_execution]
    return [describe(cb) for cb in hooks if not _same(cb, pre_tool_call)]


def describe(cb: Callable[..., Any]) -> str:
    module = getattr(cb, "__module__", "") or "?"
    name = getattr(cb, "__qualname__", getattr(cb, "__name__", repr(cb)))
    return f"{module}.{name}"


def other_deciders() -> list[str]:
    """pre_tool_call callbacks of other plugins (they may block or approve calls too)."""
    try:
        hooks = _manager()._hooks.get("pre_tool_call", [])
    except Exception:
        return []
    return [describe(cb) for cb in hooks if "opafence" not in describe(cb)]
