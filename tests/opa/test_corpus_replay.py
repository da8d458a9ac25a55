"""Transcripts through `opafence replay`: the real CLI (compiler, facts builder, OPA) and the
in-process replay_line, for messages that ask for no change. Whatever the compiler makes of such
a message, nothing consequential is granted, so the verdicts are what the rules say about an
ungranted call. Each line's `want` lists the verdict of each call (attended); with --unattended
every ask becomes a block."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from opafence.config import Config
from opafence.host import Host
from opafence.judge import Judge
from opafence.opa.bridge import Bridge
from opafence.replay import replay_line

TRANSCRIPTS = Path(__file__).resolve().parents[1] / "data" / "corpus" / "replay_transcripts.jsonl"
LINES = [json.loads(raw) for raw in TRANSCRIPTS.read_text(encoding="utf-8").splitlines() if raw.strip()]


def unattended(want: list[str]) -> list[str]:
    return ["block" if v == "ask" else v for v in want]


def run_replay(tmp_path: Path, *flags: str) -> dict[str, dict[str, Any]]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("OPAFENCE_") or k == "OPAFENCE_OPA_BIN"}
    env["HERMES_HOME"] = str(tmp_path / "hermes-home")
    workdir = tmp_path / "project"
    workdir.mkdir(exist_ok=True)
    proc = subprocess.run(
        [sys.executable, "-m", "opafence.cli", "replay", str(TRANSCRIPTS), *flags],
        cwd=workdir,
        env=env,
        capture_output=True,
        text=True,
        timeout=240,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    out = [json.loads(line) for line in proc.stdout.splitlines() if line.strip()]
    return {o["id"]: o for o in out}


def verdicts(out: dict[str, Any]) -> list[str]:
    return [v["verdict"] for v in out["verdicts"]]


def test_transcripts_are_well_formed() -> None:
    assert len(LINES) >= 15
    for line in LINES:
        assert len(line["calls"]) == len(line["want"]), line["id"]


def test_replay_cli_attended(tmp_path: Path) -> None:
    by_id = run_replay(tmp_path)
    assert set(by_id) == {line["id"] for line in LINES}
    wrong = {
        line["id"]: (verdicts(by_id[line["id"]]), line["want"])
        for line in LINES
        if verdicts(by_id[line["id"]]) != line["want"]
    }
    assert wrong == {}


def test_replay_cli_unattended(tmp_path: Path) -> None:
    by_id = run_replay(tmp_path, "--unattended")
    wrong = {
        line["id"]: (verdicts(by_id[line["id"]]), unattended(line["want"]))
        for line in LINES
        if verdicts(by_id[line["id"]]) != unattended(line["want"])
    }
    assert wrong == {}


@pytest.mark.parametrize("line", LINES[:3], ids=[line["id"] for line in LINES[:3]])
def test_replay_line_in_process(line: dict[str, Any], bridge: Bridge, tmp_path: Path) -> None:
    # A project beside HERMES_HOME (tests/conftest.py puts it in tmp_path): searching a directory
    # that holds opafence's audit keys is never allowed.
    project = tmp_path / "project"
    project.mkdir()
    host = Host(
        auto_approve=False, interactive=True, platform="replay", workspace=(str(project),), cwd=str(project)
    )
    out = replay_line(Judge(bridge, host, Config()), json.dumps(line))
    assert out["id"] == line["id"]
    assert [v["verdict"] for v in out["verdicts"]] == line["want"]
    for v in out["verdicts"]:
        assert v["classes"], v
        if v["verdict"] != "allow":
            assert v["reasons"] and all(r["code"] and r["message"] for r in v["reasons"])
