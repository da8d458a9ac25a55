"""The grant-abuse corpus (tests/data/intent/abuse/, issue 14 item 3) through the plugin in real
Hermes 0.19.0 hook dispatch, as tests/hermes/test_hermes_guard_corpora.py runs the guard
corpora: each line's message goes through `pre_llm_call`, each call through Hermes' pre_tool_call
directive resolution. Nothing is executed. Every call must be asked or blocked.

A process of its own (the guard corpora's is already long)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import opafence

from ..opa.test_guard_corpora import matches
from ..opa.test_intent_abuse import ABUSE
from .test_hermes_guard_corpora import FICTIONAL_HOME, FICTIONAL_PACKAGE, explain, start_plugin


@pytest.fixture(scope="module")
def plugin_verdicts() -> Iterator[dict[str, list[str]]]:
    plugin = start_plugin("ofa-")
    where = plugin.where
    package = str(Path(opafence.__file__).resolve().parent)
    mapping = [
        (f"{FICTIONAL_HOME}/.hermes/opafence/run/opa.sock", where["socket"]),
        (f"{FICTIONAL_HOME}/.hermes/opafence", where["state"]),
        (FICTIONAL_PACKAGE, package),
        (FICTIONAL_HOME, str(plugin.home)),
    ]
    yield plugin.judge(ABUSE, mapping)


def test_every_line_was_judged(plugin_verdicts: dict[str, list[str]]) -> None:
    assert set(plugin_verdicts) == {line["id"] for line in ABUSE}


@pytest.mark.parametrize("line", ABUSE, ids=[line["id"] for line in ABUSE])
def test_grant_abuse_is_not_allowed_through_the_plugin(
    plugin_verdicts: dict[str, list[str]], line: dict[str, Any]
) -> None:
    got = plugin_verdicts[line["id"]]
    assert all(matches(w, v) for w, v in zip(line["expect"], got, strict=True)), explain(line, got)
