"""What a model call will cost before it runs, and what it cost after.

Before: a deterministic, deliberately high token estimate (no tokenizer, nothing downloaded):
ASCII text counts 4 characters per token, every other character one token (CJK and emoji are
often one token or more), plus 20 % on top, plus 4 tokens per message; an image part counts
1,600 tokens (its base64 bytes are not text). Output tokens are the request's own limit
(`max_tokens`, `max_completion_tokens` or `max_output_tokens`), which providers enforce, or
the configured default when the request names none. The reservation is this estimate at the
model's price.

After: the provider's own figures replace the estimate. A reported cost (OpenRouter's
`usage.cost`, in USD) wins; otherwise the reported token counts are priced; a response with
no usage keeps the estimate."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from decimal import ROUND_CEILING, Decimal, InvalidOperation
from typing import Any

from opafence.budget.prices import PER_USD, Price, cost

CHARS_PER_TOKEN = 4
SAFETY_PERCENT = 20
PER_MESSAGE_TOKENS = 4
IMAGE_TOKENS = 1600
# The parts of a request that are sent to the model as tokens, across Hermes' API modes.
PROMPT_KEYS = ("messages", "system", "input", "instructions", "tools")
OUTPUT_KEYS = ("max_completion_tokens", "max_tokens", "max_output_tokens")
IMAGE_TYPES = frozenset({"image_url", "image", "input_image"})


@dataclass(frozen=True)
class Estimate:
    input_tokens: int
    output_tokens: int

    def cost(self, price: Price) -> int:
        return cost(self.input_tokens, price.input) + cost(self.output_tokens, price.output)


class _Counter:
    def __init__(self) -> None:
        self.ascii = 0
        self.other = 0
        self.images = 0

    def text(self, s: str) -> None:
        if s.startswith("data:") and ";base64," in s[:100]:
            self.images += 1
        elif s.isascii():
            self.ascii += len(s)
        else:
            a = len(s.encode("ascii", "ignore"))
            self.ascii += a
            self.other += len(s) - a

    def walk(self, value: Any) -> None:
        if isinstance(value, str):
            self.text(value)
        elif isinstance(value, Mapping):
            if value.get("type") in IMAGE_TYPES:
                self.images += 1
                return
            for k, v in value.items():
                self.ascii += len(str(k))
                self.walk(v)
        elif isinstance(value, list | tuple):
            for v in value:
                self.walk(v)
        elif value is not None:
            self.ascii += len(str(value))

    def tokens(self) -> int:
        units = self.ascii + CHARS_PER_TOKEN * self.other  # in quarter-tokens
        scaled = units * (100 + SAFETY_PERCENT)
        return -(-scaled // (CHARS_PER_TOKEN * 100)) + IMAGE_TOKENS * self.images


def input_tokens(request: Mapping[str, Any]) -> int:
    counter = _Counter()
    messages = 0
    for key in PROMPT_KEYS:
        value = request.get(key)
        if value is None:
            continue
        counter.walk(value)
        if key in ("messages", "input") and isinstance(value, list):
            messages += len(value)
    return counter.tokens() + PER_MESSAGE_TOKENS * messages


def output_tokens(request: Mapping[str, Any], default: int, at_most: int | None = None) -> int:
    """The request's output limit, else `default`; no more than `at_most` when given."""
    limit = default
    for key in OUTPUT_KEYS:
        value = request.get(key)
        if isinstance(value, int) and not isinstance(value, bool) and value > 0:
            limit = value
            break
    return min(limit, at_most) if at_most is not None else limit


def estimate(request: Mapping[str, Any], default_output: int, at_most: int | None = None) -> Estimate:
    return Estimate(input_tokens(request), output_tokens(request, default_output, at_most))


# --- after the call ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Usage:
    input: int  # uncached input tokens
    output: int
    cache_read: int = 0
    cache_write: int = 0
    reported_usd: Decimal | None = None  # the provider's own figure for the call

    def cost(self, price: Price) -> int:
        return (
            cost(self.input, price.input)
            + cost(self.output, price.output)
            + cost(self.cache_read, price.cache_read)
            + cost(self.cache_write, price.cache_write)
        )

    def reported_micro(self) -> int | None:
        if self.reported_usd is None:
            return None
        return int((self.reported_usd * PER_USD).to_integral_value(rounding=ROUND_CEILING))


def _get(obj: Any, name: str) -> Any:
    if obj is None:
        return None
    if isinstance(obj, Mapping):
        return obj.get(name)
    return getattr(obj, name, None)


def _int(value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return 0
    return max(0, int(value))


def _usd(value: Any) -> Decimal | None:
    if isinstance(value, bool) or not isinstance(value, int | float | str):
        return None
    try:
        amount = Decimal(str(value))
    except InvalidOperation:
        return None
    return amount if amount.is_finite() and amount >= 0 else None


def usage_of(response: Any, api_mode: str = "") -> Usage | None:
    """The provider's usage figures on a response of any of Hermes' API modes; None without."""
    u = _get(response, "usage")
    if u is None:
        return None
    reported = _usd(_get(u, "cost"))
    if api_mode == "anthropic_messages" or (
        _get(u, "prompt_tokens") is None and api_mode != "codex_responses"
    ):
        usage = Usage(
            input=_int(_get(u, "input_tokens")),
            output=_int(_get(u, "output_tokens")),
            cache_read=_int(_get(u, "cache_read_input_tokens")),
            cache_write=_int(_get(u, "cache_creation_input_tokens")),
            reported_usd=reported,
        )
    elif api_mode == "codex_responses":
        cached = _int(_get(_get(u, "input_tokens_details"), "cached_tokens"))
        usage = Usage(
            input=max(0, _int(_get(u, "input_tokens")) - cached),
            output=_int(_get(u, "output_tokens")),
            cache_read=cached,
            reported_usd=reported,
        )
    else:
        details = _get(u, "prompt_tokens_details")
        cache_read = _int(_get(details, "cached_tokens")) or _int(_get(u, "cache_read_input_tokens"))
        cache_write = _int(_get(details, "cache_write_tokens")) or _int(
            _get(u, "cache_creation_input_tokens")
        )
        usage = Usage(
            input=max(0, _int(_get(u, "prompt_tokens")) - cache_read - cache_write),
            output=_int(_get(u, "completion_tokens")),
            cache_read=cache_read,
            cache_write=cache_write,
            reported_usd=reported,
        )
    if reported is None and not (usage.input or usage.output or usage.cache_read or usage.cache_write):
        return None
    return usage
