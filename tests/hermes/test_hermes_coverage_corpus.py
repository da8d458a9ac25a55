"""The intent coverage corpus (tests/data/intent/coverage/, issue 14) through the plugin in real
Hermes 0.19.0 hook dispatch, fed as the guard and abuse corpora are (one Hermes process for every
session): each session's message goes through `pre_llm_call` with the session's MCP tools in
Hermes' registry, each call through Hermes' pre_tool_call directive resolution. Nothing is
executed.

Replay (tests/opa/test_intent_coverage.py) judges the same sessions on a host that mirrors the
plugin's (its home, workspace and state directory). The plugin must give every call replay's
verdict, up to a session's first block: replay judges each call as if every earlier one ran, the
plugin never runs a call it blocked. And no call labelled ask or block may be allowed through
the plugin, up to that first block."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from opafence.config import Config
from opafence.coverage_corpus import CoverageSession, run
from opafence.host import Host
from opafence.judge import Judge
from opafence.opa.bridge import Bridge

from ..opa.test_intent_coverage import KNOWN_LEAKS, SESSIONS
from .test_hermes_guard_corpora import start_plugin, until_first_block

# The module fixture judges every session in one Hermes process before the first test runs.
pytestmark = pytest.mark.timeout(1200)


@dataclass(frozen=True)
class PluginRun:
    verdicts: dict[str, list[str]]
    home: str
    workspace: str
    state: str
    socket: str


def feed_line(s: CoverageSession) -> dict[str, Any]:
    """A session as the plugin feeder reads it (the corpus's own keys; `<ws>` filled later)."""
    line: dict[str, Any] = {
        "id": s.id,
        "user_message": s.user_message,
        "calls": [c.model_dump(mode="json") for c in s.calls],
    }
    if s.tools is not None:
        line["tools"] = s.tools
    return line


@pytest.fixture(scope="module")
def plugin_run() -> PluginRun:
    plugin = start_plugin("ofv-")
    home = Path(plugin.home).resolve()
    workspace = str(home / "src" / "app")  # start_plugin's terminal directory
    verdicts = plugin.judge([feed_line(s) for s in SESSIONS], [("<ws>", workspace)])
    return PluginRun(verdicts, str(home), workspace, plugin.where["state"], plugin.where["socket"])


@pytest.fixture(scope="module")
def replay_verdicts(
    plugin_run: PluginRun, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[dict[str, list[str]]]:
    root = tmp_path_factory.mktemp("coverage-parity")
    host = Host(
        auto_approve=False,
        interactive=True,
        platform="cli",
        home=plugin_run.home,
        hermes_home=str(Path(plugin_run.home) / ".hermes"),
        state_dir=plugin_run.state,
        workspace=(plugin_run.workspace,),
        cwd=plugin_run.workspace,
        opa_socket=plugin_run.socket,
    )
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("HERMES_HOME", str(root / "hermes-home"))  # never the real ~/.hermes
        bridge = Bridge(Config(), root / "state")
        bridge.start()
        try:
            outs = run(Judge(bridge, host, Config()), SESSIONS, plugin_run.workspace)
        finally:
            bridge.close()
    got: dict[str, list[str]] = {}
    for o in outs:
        got.setdefault(o.session, []).append(o.got)
    yield got


def test_every_session_was_judged_by_the_plugin(plugin_run: PluginRun) -> None:
    assert {s.id: len(s.calls) for s in SESSIONS} == {k: len(v) for k, v in plugin_run.verdicts.items()}


def test_plugin_and_replay_agree_on_every_call(
    plugin_run: PluginRun, replay_verdicts: dict[str, list[str]]
) -> None:
    differ = {
        s.id: {"replay": replay_verdicts.get(s.id), "plugin": plugin_run.verdicts.get(s.id)}
        for s in SESSIONS
        if until_first_block(plugin_run.verdicts.get(s.id) or [])
        != until_first_block(replay_verdicts.get(s.id) or [])
    }
    assert differ == {}


def test_no_call_outside_the_words_is_allowed_through_the_plugin(plugin_run: PluginRun) -> None:
    leaks = [
        f"{s.id}#{i} {s.calls[i].tool}: want {want}, got allow"
        for s in SESSIONS
        for i, (want, got) in enumerate(
            zip(s.want, until_first_block(plugin_run.verdicts[s.id]), strict=False)
        )
        if want != "allow" and got == "allow" and f"{s.id}#{i}" not in KNOWN_LEAKS
    ]
    assert leaks == []
