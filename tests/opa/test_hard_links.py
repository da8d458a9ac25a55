"""Hard links of secret and protected files, on a real filesystem, through the real OPA.

A hard link has no target to resolve, so the facts compare device and inode (facts/links.py);
the corpora name a fictional machine and cannot hold these cases. (Bind mounts: the unit tests
of facts/links.py, which need a mount namespace.)"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from opafence.config import Config
from opafence.facts import FactsContext, build_facts
from opafence.host import Host
from opafence.judge import Judge
from opafence.opa.bridge import Bridge
from opafence.replay import replay_line


@pytest.fixture(scope="module")
def machine(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("links")
    home = root / "home"
    (home / ".ssh").mkdir(parents=True)
    (home / ".ssh" / "id_ed25519").write_text("not a real key\n")
    state = home / ".hermes" / "opafence"
    (state / "keys").mkdir(parents=True)
    (state / "keys" / "audit-hmac.key").write_text("not a real key\n")
    work = home / "src" / "app"
    work.mkdir(parents=True)
    os.link(home / ".ssh" / "id_ed25519", work / "notes.txt")
    os.link(state / "keys" / "audit-hmac.key", work / "scratch.txt")
    skills = home / ".hermes" / "skills" / "ops"
    skills.mkdir(parents=True)
    (skills / "SKILL.md").write_text("# ops\n")
    os.link(skills / "SKILL.md", work / "ops.md")
    (work / "plain.txt").write_text("hello\n")
    os.link(work / "plain.txt", work / "plain-copy.txt")  # a link of an ordinary file
    return {"home": home, "state": state, "work": work}


@pytest.fixture(scope="module")
def judge(machine: dict[str, Path], tmp_path_factory: pytest.TempPathFactory) -> Iterator[Judge]:
    home = machine["home"]
    host = Host(
        auto_approve=False,
        interactive=True,
        platform="replay",
        home=str(home),
        hermes_home=str(home / ".hermes"),
        state_dir=str(machine["state"]),
        workspace=(str(machine["work"]),),
        cwd=str(machine["work"]),
        package_dir=str(home / "pkg" / "opafence"),
        code_dirs=(),
    )
    config = Config()
    bridge = Bridge(config, tmp_path_factory.mktemp("links-state"))
    bridge.start()
    try:
        yield Judge(bridge, host, config)
    finally:
        bridge.close()


def test_links_fact(machine: dict[str, Path]) -> None:
    home, work = machine["home"], machine["work"]
    ctx = FactsContext(
        home=str(home), cwd=str(work), hermes_home=str(home / ".hermes"), state_dir=str(machine["state"])
    )
    facts = build_facts("read_file", {"path": "notes.txt"}, ctx)
    assert facts["links"] == [{"path": str(work / "notes.txt"), "same_as": str(home / ".ssh" / "id_ed25519")}]
    assert "links" not in build_facts("read_file", {"path": "plain-copy.txt"}, ctx)
    assert "links" not in build_facts("read_file", {"path": "plain.txt"}, ctx)


def verdicts(judge: Judge, message: str, calls: list[dict[str, object]]) -> list[tuple[str, list[str]]]:
    out = replay_line(judge, json.dumps({"user_message": message, "calls": calls}))
    return [(v["verdict"], [r["code"] for r in v["reasons"]]) for v in out["verdicts"]]


def test_a_link_of_a_key_is_the_key(judge: Judge) -> None:
    got = verdicts(
        judge,
        "Summarize notes.txt",
        [
            {"tool": "read_file", "args": {"path": "notes.txt"}},
            {"tool": "terminal", "args": {"command": "cat notes.txt"}},
        ],
    )
    assert all(v == "ask" and "SECRET_READ" in codes for v, codes in got), got


def test_a_write_through_a_link_of_a_protected_file_blocks(judge: Judge) -> None:
    got = verdicts(
        judge,
        "Fix the typo in scratch.txt",
        [{"tool": "write_file", "args": {"path": "scratch.txt", "content": "x"}}],
    )
    assert got == [("block", ["SELF_PROTECT_PATH"])], got


def test_a_read_through_a_link_of_opafence_key_blocks(judge: Judge) -> None:
    # opafence's own credentials are never read, by any name (self-protection, not a secret ask).
    got = verdicts(
        judge,
        "Summarize scratch.txt",
        [
            {"tool": "read_file", "args": {"path": "scratch.txt"}},
            {"tool": "terminal", "args": {"command": "cat scratch.txt"}},
            {"tool": "terminal", "args": {"command": "base64 < scratch.txt"}},
            {"tool": "execute_code", "args": {"code": "print(open('scratch.txt').read())"}},
        ],
    )
    assert all(v == "block" and "SELF_PROTECT_CREDENTIAL" in codes for v, codes in got), got


def test_writes_into_hermes_skills_by_another_name_block(judge: Judge) -> None:
    got = verdicts(
        judge,
        "Fix the typo in ops.md",
        [{"tool": "write_file", "args": {"path": "ops.md", "content": "x"}}],
    )
    assert got == [("block", ["SELF_PROTECT_HERMES_TOOL_DIR"])], got


def test_an_ordinary_link_is_ordinary(judge: Judge) -> None:
    got = verdicts(
        judge, "Summarize plain-copy.txt", [{"tool": "read_file", "args": {"path": "plain-copy.txt"}}]
    )
    assert got == [("allow", [])], got
