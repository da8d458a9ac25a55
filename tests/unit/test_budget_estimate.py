"""The pre-call estimate (deterministic, biased high) and the provider's usage after the call."""

from __future__ import annotations

from decimal import Decimal
from types import SimpleNamespace
from typing import Any

import pytest

from opafence.budget.estimate import (
    IMAGE_TOKENS,
    estimate,
    input_tokens,
    output_tokens,
    usage_of,
)
from opafence.budget.prices import Price

PRICE = Price(
    input=300_000_000, output=1_500_000_000, cache_read=30_000_000, cache_write=375_000_000, source="t"
)


def chat(text: str, **extra: Any) -> dict[str, Any]:
    return {"model": "m", "messages": [{"role": "user", "content": text}], **extra}


def test_ascii_is_four_characters_a_token_plus_a_fifth() -> None:
    base = input_tokens(chat(""))
    assert input_tokens(chat("a" * 4000)) - base == 1200  # 1000 tokens + 20 %


def test_non_ascii_characters_count_one_token_each() -> None:
    base = input_tokens(chat(""))
    assert input_tokens(chat("日本語" * 100)) - base == 360  # 300 characters + 20 %
    # mixed text: the ASCII part at 4 a token, the rest at one
    assert input_tokens(chat("abcd" * 10 + "é" * 10)) - base == 24


def test_the_estimate_is_deterministic_and_counts_every_prompt_part() -> None:
    tools = [{"type": "function", "function": {"name": "t", "parameters": {"x": "y" * 400}}}]
    request = chat("hello " * 50, tools=tools, system="be brief " * 20)
    assert input_tokens(request) == input_tokens(dict(request))
    assert input_tokens(request) > input_tokens(chat("hello " * 50)) + 100  # tools and system count
    codex = {"model": "m", "instructions": "x" * 400, "input": [{"role": "user", "content": "y" * 400}]}
    assert input_tokens(codex) >= 240


def test_images_count_a_fixed_amount_not_their_bytes() -> None:
    data_url = "data:image/png;base64," + "A" * 2_000_000
    parts = [{"type": "text", "text": "what is this"}, {"type": "image_url", "image_url": {"url": data_url}}]
    tokens = input_tokens({"messages": [{"role": "user", "content": parts}]})
    assert IMAGE_TOKENS <= tokens < IMAGE_TOKENS + 50
    anthropic = {
        "messages": [{"role": "user", "content": [{"type": "image", "source": {"data": "A" * 10**6}}]}]
    }
    assert input_tokens(anthropic) < IMAGE_TOKENS + 50
    assert input_tokens({"messages": [{"role": "user", "content": data_url}]}) < IMAGE_TOKENS + 50


@pytest.mark.parametrize(
    ("request_", "want"),
    [
        ({"max_tokens": 1000}, 1000),
        ({"max_completion_tokens": 2000, "max_tokens": 10}, 2000),
        ({"max_output_tokens": 300}, 300),
        ({}, 4096),
        ({"max_tokens": 0}, 4096),
        ({"max_tokens": True}, 4096),
        ({"max_tokens": "9"}, 4096),
    ],
)
def test_output_comes_from_the_request_limit_else_the_default(request_: dict[str, Any], want: int) -> None:
    assert output_tokens(request_, 4096) == want


def test_the_reserved_output_can_be_bounded_below_max_tokens() -> None:
    assert output_tokens({"max_tokens": 65536}, 4096, at_most=8000) == 8000
    assert output_tokens({"max_tokens": 500}, 4096, at_most=8000) == 500
    assert output_tokens({}, 4096, at_most=1000) == 1000


def test_estimate_cost_prices_input_and_output() -> None:
    est = estimate(chat("a" * 4000, max_tokens=1000), 4096)
    assert est.output_tokens == 1000
    assert est.cost(PRICE) == -(-est.input_tokens * 300_000_000 // 10**6) + 1000 * 1500


def test_chat_usage_with_cached_tokens_and_openrouter_cost() -> None:
    from openai.types.chat import ChatCompletion

    response = ChatCompletion.model_validate(
        {
            "id": "x",
            "object": "chat.completion",
            "created": 0,
            "model": "m",
            "choices": [
                {"index": 0, "message": {"role": "assistant", "content": "hi"}, "finish_reason": "stop"}
            ],
            "usage": {
                "prompt_tokens": 1000,
                "completion_tokens": 200,
                "total_tokens": 1200,
                "prompt_tokens_details": {"cached_tokens": 400},
                "cost": 0.0123,
            },
        }
    )
    usage = usage_of(response, "chat_completions")
    assert usage is not None
    assert (usage.input, usage.cache_read, usage.output) == (600, 400, 200)
    assert usage.reported_usd == Decimal("0.0123")
    assert usage.reported_micro() == 1_230_000
    assert usage.cost(PRICE) == 600 * 300 + 400 * 30 + 200 * 1500


def test_anthropic_and_codex_usage() -> None:
    anthropic = SimpleNamespace(
        usage=SimpleNamespace(
            input_tokens=100, output_tokens=50, cache_read_input_tokens=1000, cache_creation_input_tokens=10
        )
    )
    u = usage_of(anthropic, "anthropic_messages")
    assert u is not None and (u.input, u.output, u.cache_read, u.cache_write) == (100, 50, 1000, 10)
    assert u.reported_micro() is None
    codex = SimpleNamespace(
        usage=SimpleNamespace(input_tokens=500, output_tokens=20, input_tokens_details={"cached_tokens": 100})
    )
    c = usage_of(codex, "codex_responses")
    assert c is not None and (c.input, c.cache_read, c.output) == (400, 100, 20)


@pytest.mark.parametrize(
    "response",
    [
        SimpleNamespace(usage=None),
        SimpleNamespace(),
        SimpleNamespace(usage=SimpleNamespace(prompt_tokens=0, completion_tokens=0)),
        {"usage": {"prompt_tokens": 0, "completion_tokens": 0, "cost": "not a number"}},
    ],
)
def test_no_usable_usage_keeps_the_estimate(response: Any) -> None:
    assert usage_of(response, "chat_completions") is None


def test_a_negative_or_bogus_reported_cost_is_ignored() -> None:
    u = usage_of({"usage": {"prompt_tokens": 10, "completion_tokens": 1, "cost": -5}}, "chat_completions")
    assert u is not None and u.reported_usd is None
