"""The response an `llm_execution` middleware returns when it does not call the provider.

Hermes 0.19.0 validates and normalizes whatever the middleware chain returns with the
transport of the agent's API mode. A response with a final assistant text and a plain "stop"
ends the turn cleanly: the text becomes the turn's final response, nothing is retried, no
fallback provider is tried (an exception or an empty response would be retried with backoff
and then sent to the fallback chain; a refusal shape would be reported as a safety refusal).
No usage is attached, so Hermes' own token and cost accounting adds nothing."""

from __future__ import annotations

import time
import uuid
from types import SimpleNamespace
from typing import Any


def _chat(text: str, model: str) -> Any:
    try:
        from openai.types.chat import ChatCompletion
    except ImportError:  # pragma: no cover - Hermes always ships openai
        message = SimpleNamespace(role="assistant", content=text, tool_calls=None, refusal=None)
        choice = SimpleNamespace(index=0, message=message, finish_reason="stop")
        return SimpleNamespace(
            id=f"opafence-{uuid.uuid4().hex[:8]}", model=model, choices=[choice], usage=None
        )
    return ChatCompletion.model_validate(
        {
            "id": f"opafence-{uuid.uuid4().hex[:8]}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": model or "opafence",
            "choices": [
                {"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}
            ],
        }
    )


def _anthropic(text: str, model: str) -> Any:
    return SimpleNamespace(
        id=f"opafence-{uuid.uuid4().hex[:8]}",
        type="message",
        role="assistant",
        model=model,
        content=[SimpleNamespace(type="text", text=text)],
        stop_reason="end_turn",
        stop_sequence=None,
        usage=None,
    )


def _responses(text: str, model: str) -> Any:
    item = SimpleNamespace(
        type="message",
        role="assistant",
        status="completed",
        id=f"msg_opafence_{uuid.uuid4().hex[:8]}",
        content=[SimpleNamespace(type="output_text", text=text, annotations=[])],
    )
    return SimpleNamespace(
        id=f"resp_opafence_{uuid.uuid4().hex[:8]}",
        object="response",
        status="completed",
        model=model,
        output=[item],
        output_text=text,
        incomplete_details=None,
        error=None,
        usage=None,
    )


def stop_response(text: str, api_mode: str, model: str) -> Any:
    """A final assistant message in the shape the agent's API mode expects."""
    if api_mode == "anthropic_messages":
        return _anthropic(text, model)
    if api_mode == "codex_responses":
        return _responses(text, model)
    # chat_completions, bedrock_converse (its transport accepts OpenAI-shaped choices) and others
    return _chat(text, model)
