"""The grant-abuse corpus (tests/data/intent/abuse/, issue 14 item 3) through the plugin in real
Hermes 0.19.0 hook dispatch, as tests/hermes/test_hermes_guard_corpora.py runs the guard
corpora: each line's message goes through `pre_llm_call`, each call through Hermes' pre_tool_call
directive resolution. Nothing is executed. Every call must be asked or blocked.

A process of its own (the guard corpora's is already long), fed from a thread so neither pipe
can fill while the other waits."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import opafence

from ..opa.test_guard_corpora import matches
from ..opa.test_intent_abuse import ABUSE
from .conftest import HERMES_BIN
from .test_hermes_guard_corpora import FICTIONAL_HOME, FICTIONAL_PACKAGE, SCRIPT, explain, translate


@pytest.fixture(scope="module")
def plugin_verdicts() -> Iterator[dict[str, list[str]]]:
    # Short: the OPA socket must stay under the unix socket path limit inside this home.
    root = Path(tempfile.mkdtemp(prefix="ofa-", dir="/tmp"))
    home = root / "h"
    hermes_home = home / ".hermes"
    workspace = home / "src" / "app"
    workspace.mkdir(parents=True)
    hermes_home.mkdir(parents=True, exist_ok=True)
    package = str(Path(opafence.__file__).resolve().parent)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("HERMES_", "OPAFENCE_"))}
    env.update({"HOME": str(home), "HERMES_HOME": str(hermes_home), "TERMINAL_CWD": str(workspace)})
    if "OPAFENCE_OPA_BIN" in os.environ:
        env["OPAFENCE_OPA_BIN"] = os.environ["OPAFENCE_OPA_BIN"]
    subprocess.run(
        [str(HERMES_BIN), "plugins", "enable", "opafence", "--no-allow-tool-override"],
        env=env,
        check=True,
        capture_output=True,
    )
    proc = subprocess.Popen(
        [sys.executable, "-c", SCRIPT],
        env=env,
        cwd=str(workspace),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert proc.stdin is not None and proc.stdout is not None
    where = json.loads(proc.stdout.readline())
    mapping = [
        (f"{FICTIONAL_HOME}/.hermes/opafence/run/opa.sock", where["socket"]),
        (f"{FICTIONAL_HOME}/.hermes/opafence", where["state"]),
        (FICTIONAL_PACKAGE, package),
        (FICTIONAL_HOME, str(home)),
    ]
    stdin = proc.stdin

    def feed() -> None:
        try:
            for line in ABUSE:
                stdin.write(json.dumps(translate(line, mapping)) + "\n")
                stdin.flush()
        finally:
            stdin.close()

    feeder = threading.Thread(target=feed, daemon=True)
    feeder.start()
    results = {}
    for raw in proc.stdout:
        row = json.loads(raw)
        results[row["id"]] = row["verdicts"]
    feeder.join(timeout=60)
    assert proc.wait(timeout=600) == 0
    yield results


def test_every_line_was_judged(plugin_verdicts: dict[str, list[str]]) -> None:
    assert set(plugin_verdicts) == {line["id"] for line in ABUSE}


@pytest.mark.parametrize("line", ABUSE, ids=[line["id"] for line in ABUSE])
def test_grant_abuse_is_not_allowed_through_the_plugin(
    plugin_verdicts: dict[str, list[str]], line: dict[str, Any]
) -> None:
    got = plugin_verdicts[line["id"]]
    assert all(matches(w, v) for w, v in zip(line["expect"], got, strict=True)), explain(line, got)
