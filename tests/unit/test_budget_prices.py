"""The local price table: packaged prices, the user's file and config, name matching, rounding."""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path

import pytest

from opafence.budget.prices import PriceTable, PriceTableError, cost, normalize, to_micro
from opafence.config import BudgetsConfig, ConfigError, parse_config


@pytest.mark.parametrize(
    ("name", "want"),
    [
        ("gpt-4o", "gpt-4o"),
        ("openai/gpt-4.1-mini", "gpt-4-1-mini"),
        ("anthropic/claude-sonnet-4.5", "claude-sonnet-4-5"),
        ("claude-sonnet-4-20250514", "claude-sonnet-4"),
        ("claude-3-5-haiku-latest", "claude-3-5-haiku"),
        ("deepseek/deepseek-chat:free", "deepseek-chat"),
        ("Gemini-2.5-Pro", "gemini-2-5-pro"),
        ("o3-2025-04-16", "o3"),
    ],
)
def test_names_are_normalized(name: str, want: str) -> None:
    assert normalize(name) == want


def test_packaged_table_prices_known_models_in_micro_cents_per_million() -> None:
    table = PriceTable.for_budgets(BudgetsConfig())
    p = table.lookup("openrouter/openai/gpt-4o-mini")
    assert p is not None and p.source == "packaged"
    # $0.15 / $0.60 per million tokens = 15 / 60 cents = 15e6 / 60e6 micro-cents
    assert (p.input, p.output, p.cache_read) == (15_000_000, 60_000_000, 7_500_000)
    # no cache-write price: cached writes cost what input costs, never less
    assert p.cache_write == p.input
    sonnet = table.lookup("anthropic/claude-sonnet-4.5")
    assert sonnet is not None and (sonnet.input, sonnet.output) == (300_000_000, 1_500_000_000)
    assert table.lookup("claude-sonnet-4-20250514") is not None


def test_unknown_model_is_unpriced_not_free() -> None:
    table = PriceTable.for_budgets(BudgetsConfig())
    assert table.lookup("fake-model") is None
    assert table.lookup("") is None


def test_config_prices_override_the_file_which_overrides_the_package(tmp_path: Path) -> None:
    prices = tmp_path / "prices.yaml"
    prices.write_text(
        "models:\n  gpt-4o: {input: 1.0, output: 2.0}\n  my-local-*: {input: 0.5, output: 0.5}\n"
    )
    budgets = BudgetsConfig.model_validate(
        {"prices_file": str(prices), "prices": {"gpt-4o-mini": {"input": "0.01", "output": "0.02"}}}
    )
    table = PriceTable.for_budgets(budgets)
    gpt4o = table.lookup("gpt-4o")
    assert gpt4o is not None and gpt4o.source == "file" and gpt4o.input == 100_000_000
    mini = table.lookup("gpt-4o-mini")
    assert mini is not None and mini.source == "config" and mini.output == 2_000_000
    glob = table.lookup("my-local-llama")
    assert glob is not None and glob.input == 50_000_000
    assert table.lookup("claude-haiku-4-5") is not None  # the packaged rest stays


def test_yaml_floats_become_exact_prices() -> None:
    cfg = parse_config({"budgets": {"prices": {"x": {"input": 0.075, "output": 0.3}}}}, "test", env={})
    p = PriceTable.for_budgets(cfg.budgets).lookup("x")
    assert p is not None and (p.input, p.output) == (7_500_000, 30_000_000)


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("models:\n  x: {input: -1, output: 1}\n", "x.input"),
        ("models:\n  x: {input: 1}\n", "x.output"),
        ("models:\n  x: {input: 1, output: 1, typo: 2}\n", "x.typo"),
        ("[1, 2", "not valid YAML"),
    ],
)
def test_bad_price_file_is_an_error_that_names_the_entry(tmp_path: Path, text: str, problem: str) -> None:
    path = tmp_path / "p.yaml"
    path.write_text(text)
    with pytest.raises(PriceTableError, match=problem.replace(".", r"\.")):
        PriceTable.for_budgets(BudgetsConfig(prices_file=str(path)))


def test_missing_price_file_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(PriceTableError, match="cannot read"):
        PriceTable.for_budgets(BudgetsConfig(prices_file=str(tmp_path / "nope.yaml")))


def test_costs_round_up_to_the_micro_cent() -> None:
    assert to_micro(Decimal("0.15")) == 15_000_000
    assert cost(1, 15_000_000) == 15  # 15 micro-cents per token
    assert cost(1, 7) == 1  # a fraction of a micro-cent is a whole one
    assert cost(0, 7) == 0
    assert cost(1_000_000, 300_000_000) == 300_000_000


def test_budget_config_is_validated() -> None:
    with pytest.raises(ConfigError, match="daily_soft_cents must not be above daily_hard_cents"):
        parse_config({"budgets": {"daily_soft_cents": 500, "daily_hard_cents": 100}}, "c", env={})
    with pytest.raises(ConfigError, match=r"budgets\.daily_hard_cents"):
        parse_config({"budgets": {"daily_hard_cents": -1}}, "c", env={})
    with pytest.raises(ConfigError, match=r"unknown key 'budgets\.delegation\.short_limit'"):
        parse_config({"budgets": {"delegation": {"short_limit": 3}}}, "c", env={})
    cfg = parse_config({"budgets": {"daily_hard_cents": 100}}, "c", env={})
    assert cfg.budgets.spend_capped and not BudgetsConfig().spend_capped
    assert cfg.to_opa_data()["budgets"]["daily_hard_cents"] == 100
