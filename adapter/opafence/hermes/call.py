"""Hermes' hook keyword arguments, parsed once at the boundary into typed calls.

Hermes passes every hook its keywords (docs: pre_tool_call, post_tool_call, tool_execution,
pre_llm_call); the parsers here read them once, so the hooks and the pipeline work on typed
values. A keyword of the wrong type raises (the hook then blocks), never turns into a default
that could be judged more leniently than what Hermes will run."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any


def canonical_args(args: Mapping[str, Any]) -> str:
    return json.dumps(args, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=repr)


def args_hash(args: Mapping[str, Any]) -> str:
    return hashlib.sha256(canonical_args(args).encode()).hexdigest()


def snapshot(args: Any) -> dict[str, Any]:
    """A deep, JSON-shaped copy: the decision must not see later mutations of Hermes' dict."""
    if not isinstance(args, Mapping):
        return {}
    copied = json.loads(canonical_args(args))
    return copied if isinstance(copied, dict) else {}


def _text(kw: Mapping[str, Any], name: str) -> str:
    value = kw.get(name)
    if value is None:
        return ""
    if not isinstance(value, str):
        raise TypeError(f"Hermes passed {name} as {type(value).__name__}, not a string")
    return value


def _status(kw: Mapping[str, Any]) -> str:
    # A status Hermes gave but not as a string says nothing about the body having run.
    status = kw.get("status", "")
    return status if isinstance(status, str) else "unknown"


@dataclass(frozen=True)
class ToolCall:
    """One tool call as a hook sees it. `args` is the snapshot the decision is made on."""

    tool: str
    args: dict[str, Any]
    task_id: str = ""
    session_id: str = ""
    call_id: str = ""
    status: str = ""  # post_tool_call: ok | error | blocked | cancelled
    result: Any = None  # post_tool_call: what the tool returned

    @classmethod
    def parse(cls, kw: Mapping[str, Any]) -> ToolCall:
        return cls(
            tool=_text(kw, "tool_name"),
            args=snapshot(kw.get("args")),
            task_id=_text(kw, "task_id"),
            session_id=_text(kw, "session_id"),
            call_id=_text(kw, "tool_call_id"),
            status=_status(kw),
            result=kw.get("result"),
        )

    @property
    def digest(self) -> str:
        return args_hash(self.args)

    @property
    def ran(self) -> bool:
        """post_tool_call: the tool body ran (Hermes says so, or says nothing)."""
        return self.status in ("ok", "error", "")


def message_text(user_message: Any) -> str:
    """Hermes passes a string, or a list of parts for multimodal input."""
    if isinstance(user_message, str):
        return user_message
    if isinstance(user_message, list):
        parts = []
        for part in user_message:
            if isinstance(part, str):
                parts.append(part)
            elif isinstance(part, Mapping) and isinstance(part.get("text"), str):
                parts.append(part["text"])
        return "\n".join(parts)
    return ""


@dataclass(frozen=True)
class Turn:
    """pre_llm_call: one user turn (the owner's message, or a sub-agent's goal)."""

    session_id: str
    task_id: str
    text: str
    platform: str
    sender: str

    @classmethod
    def parse(cls, kw: Mapping[str, Any]) -> Turn:
        return cls(
            session_id=_text(kw, "session_id"),
            task_id=_text(kw, "task_id"),
            text=message_text(kw.get("user_message")),
            platform=_text(kw, "platform"),
            sender=_text(kw, "sender_id"),
        )
