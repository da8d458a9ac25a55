"""A real Hermes AIAgent talking to the scripted model, and what its tools answered."""

from __future__ import annotations

from typing import Any


def fake_agent(session: str, toolsets: list[str], **extra: Any) -> Any:
    """An AIAgent on the scripted model (the `model` fixture's server), with no context files,
    memory or session database, so only the plugin under test and the script act."""
    from run_agent import AIAgent

    return AIAgent(
        base_url="http://127.0.0.1:9/v1",
        api_key="sk-test",
        provider="custom",
        model="fake-model",
        quiet_mode=True,
        skip_context_files=True,
        skip_memory=True,
        session_db=None,
        enabled_toolsets=toolsets,
        session_id=session,
        **extra,
    )


def tool_messages(messages: list[dict[str, Any]]) -> list[str]:
    return [str(m.get("content")) for m in messages if m.get("role") == "tool"]
