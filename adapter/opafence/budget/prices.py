"""The local price table: what a model's tokens cost, in integer micro-cents per million tokens.

Three layers, later ones winning: the packaged table (`prices.json`, list prices in USD per
million tokens), the user's `budgets.prices_file` (YAML or JSON, same shape as
`budgets.prices`) and `budgets.prices` in the config. Nothing is fetched from the network.

Model names are matched after normalizing both sides: lower case, the part after the last
`/` (so `openrouter`'s `anthropic/claude-sonnet-4.5` finds `claude-sonnet-4-5`), without a
`:tag`, a `-latest` or a date suffix (`-20250514`, `-2025-05-14`), dots as dashes. Keys with
`*` or `?` are glob patterns, tried after exact names, longest first. A model with no entry
is *unpriced*: never treated as free."""

from __future__ import annotations

import fnmatch
import json
import re
from dataclasses import dataclass
from decimal import ROUND_CEILING, Decimal, InvalidOperation
from importlib import resources
from pathlib import Path
from typing import Any

import yaml
from pydantic import TypeAdapter, ValidationError

from opafence.config import BudgetsConfig, PriceConfig
from opafence.errors import OpafenceError

MICRO = 1_000_000  # micro-cents per cent
PER_USD = 100 * MICRO  # micro-cents per dollar
MILLION = 1_000_000

_DATE_SUFFIX = re.compile(r"-(\d{8}|\d{4}-\d{2}-\d{2})$")


class PriceTableError(OpafenceError):
    """The price table cannot be read; the message names the file and the entry."""


@dataclass(frozen=True)
class Price:
    """Micro-cents per million tokens."""

    input: int
    output: int
    cache_read: int
    cache_write: int
    source: str  # "packaged", "file" or "config"

    def to_input(self, name: str) -> dict[str, Any]:
        return {"name": name, "priced": True, "input": self.input, "output": self.output}


def normalize(name: str) -> str:
    n = name.strip().lower().rsplit("/", 1)[-1]
    n = n.split(":", 1)[0]
    n = _DATE_SUFFIX.sub("", n)
    n = n.removesuffix("-latest")
    return n.replace(".", "-")


def to_micro(usd_per_million: Decimal) -> int:
    """USD per million tokens -> micro-cents per million tokens, rounded up."""
    return int((usd_per_million * PER_USD).to_integral_value(rounding=ROUND_CEILING))


def _price(entry: PriceConfig, source: str) -> Price:
    inp = to_micro(entry.input)
    return Price(
        input=inp,
        output=to_micro(entry.output),
        # Without a cache price, cached tokens cost what input tokens cost (never less).
        cache_read=to_micro(entry.cache_read) if entry.cache_read is not None else inp,
        cache_write=to_micro(entry.cache_write) if entry.cache_write is not None else inp,
        source=source,
    )


_ENTRIES = TypeAdapter(dict[str, PriceConfig])


def _entries(raw: Any, where: str) -> dict[str, PriceConfig]:
    if isinstance(raw, dict) and "models" in raw:
        raw = raw["models"]
    try:
        return _ENTRIES.validate_python(raw)
    except ValidationError as e:
        first = e.errors()[0]
        key = ".".join(str(p) for p in first["loc"])
        raise PriceTableError(f"{where}: {key}: {first['msg']}") from None
    except (InvalidOperation, TypeError) as e:
        raise PriceTableError(f"{where}: {e}") from None


def packaged() -> dict[str, PriceConfig]:
    text = resources.files("opafence.budget").joinpath("prices.json").read_text(encoding="utf-8")
    return _entries(json.loads(text), "the packaged price table")


def from_file(path: Path) -> dict[str, PriceConfig]:
    try:
        raw = yaml.safe_load(path.read_text(encoding="utf-8"))
    except OSError as e:
        raise PriceTableError(f"{path}: cannot read: {e.strerror}") from None
    except yaml.YAMLError as e:
        raise PriceTableError(f"{path}: not valid YAML or JSON: {e}") from None
    return _entries(raw or {}, str(path))


class PriceTable:
    def __init__(self, layers: list[tuple[str, dict[str, PriceConfig]]]) -> None:
        self._exact: dict[str, Price] = {}
        self._globs: dict[str, Price] = {}
        for source, entries in layers:
            for name, entry in entries.items():
                if any(c in name for c in "*?["):
                    self._globs[name.strip().lower()] = _price(entry, source)
                else:
                    self._exact[normalize(name)] = _price(entry, source)

    @staticmethod
    def for_budgets(budgets: BudgetsConfig) -> PriceTable:
        layers = [("packaged", packaged())]
        if budgets.prices_file:
            layers.append(("file", from_file(Path(budgets.prices_file).expanduser())))
        layers.append(("config", dict(budgets.prices)))
        return PriceTable(layers)

    def lookup(self, model: str) -> Price | None:
        if not model:
            return None
        name = normalize(model)
        found = self._exact.get(name)
        if found is not None:
            return found
        raw = model.strip().lower()
        for pattern in sorted(self._globs, key=len, reverse=True):
            if fnmatch.fnmatchcase(raw, pattern) or fnmatch.fnmatchcase(name, pattern):
                return self._globs[pattern]
        return None

    def __len__(self) -> int:
        return len(self._exact) + len(self._globs)


def cost(tokens: int, per_million: int) -> int:
    """Micro-cents for `tokens` at `per_million` micro-cents per million tokens, rounded up."""
    return -(-max(0, tokens) * per_million // MILLION)
