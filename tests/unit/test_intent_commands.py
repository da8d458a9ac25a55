"""Literal commands: what the owner typed in backticks -> the simple commands the facts will show.

A literal is parsed with the facts builder itself, so its recorded argv and place are exactly
what Rego compares a call's commands with (rego/opafence/lib/grants.rego, literal_covers)."""

from __future__ import annotations

from typing import Any

import pytest
from tests.unit.test_intent_corpus import CWD, HOME, HOST

from opafence.facts import FactsContext, build_facts
from opafence.intent import compile_message
from opafence.intent.commands import parse_literal
from opafence.intent.draft import DraftGrant
from opafence.policy import Grant

# (id, literal, command strings, argvs of the recorded literals)
CASES: list[tuple[str, str, list[str], list[list[str]]]] = [
    ("simple", "make deploy", ["make deploy"], [["make", "deploy"]]),
    ("spaces", "make   deploy ", ["make deploy"], [["make", "deploy"]]),
    (
        "and-list",
        "rm -rf node_modules && npm install",
        ["rm -rf node_modules", "npm install", "rm -rf node_modules && npm install"],
        [["rm", "-rf", "node_modules"], ["npm", "install"]],
    ),
    (
        "activate-then-test",
        "source .venv/bin/activate && pytest",
        ["source .venv/bin/activate", "pytest", "source .venv/bin/activate && pytest"],
        [["source", ".venv/bin/activate"], ["pytest"]],
    ),
    (
        "redirect",
        "python scripts/report.py > out/report.txt",
        ["python scripts/report.py", "python scripts/report.py > out/report.txt"],
        [["python", "scripts/report.py"]],
    ),
    (
        "quoted-argument",
        "psql -c 'SELECT count(*) FROM users'",
        ["psql -c SELECT count(*) FROM users", "psql -c 'SELECT count(*) FROM users'"],
        [["psql", "-c", "SELECT count(*) FROM users"]],
    ),
    (
        "home-expanded",
        "chmod 600 ~/.ssh/id_rsa",
        [f"chmod 600 {HOME}/.ssh/id_rsa", "chmod 600 ~/.ssh/id_rsa"],
        [["chmod", "600", f"{HOME}/.ssh/id_rsa"]],
    ),
    (
        "sudo-wrapper",
        "sudo apt-get update",
        ["apt-get update", "sudo apt-get update"],
        [["apt-get", "update"]],
    ),
    ("pipeline", "cat a.txt | sort", ["cat a.txt", "sort", "cat a.txt | sort"], [["cat", "a.txt"], ["sort"]]),
    # an expansion: the command is kept (a prefix for running it), never an exact literal
    ("dynamic", "echo $(whoami)", ["whoami", "echo $(whoami)"], [["whoami"]]),
    # a here-string feeds text the facts do not show: no literal for that command
    ("here-string", "psql <<< 'DROP TABLE x'", ["psql", "psql <<< 'DROP TABLE x'"], []),
    # not understood: the literal's own text, as before, and nothing more
    ("opaque", "echo cm0gLXJmIC8= | base64 -d | sh", ["echo cm0gLXJmIC8= | base64 -d | sh"], []),
    ("empty", "   ", [], []),
]


@pytest.mark.parametrize(("literal", "commands", "argvs"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_parse_literal(literal: str, commands: list[str], argvs: list[list[str]]) -> None:
    parsed = parse_literal(literal, HOST)
    assert parsed.commands == commands
    assert [x.argv for x in parsed.literals] == argvs
    assert all(x.cwd == CWD for x in parsed.literals)


def _facts_places(text: str, cwd: str = CWD) -> list[dict[str, Any]]:
    facts = build_facts("terminal", {"command": text}, FactsContext(home=HOME, cwd=cwd))
    return [
        {
            "argv": c["argv"],
            "place": {k: c[k] for k in ("operand_paths", "redirects", "env", "wrappers", "pipe_from")},
        }
        for c in facts["shell"]["commands"]
    ]


@pytest.mark.parametrize(
    "literal",
    [
        "rm -rf node_modules && npm install",
        "python scripts/report.py > out/report.txt 2>&1",
        "FOO=1 sudo rm -rf build",
        "cd build && make > ../log.txt",
        "git config user.email dev@example.com",
        "cat x | psql -c 'SELECT 1'",
    ],
)
def test_a_literal_is_what_the_facts_show_for_the_same_call(literal: str) -> None:
    """Rego compares a literal with the call's Command facts field by field: they must be equal."""
    recorded = [x.model_dump(include={"argv", "place"}) for x in parse_literal(literal, HOST).literals]
    assert recorded == _facts_places(literal)


def test_the_same_argv_elsewhere_is_another_place() -> None:
    recorded = parse_literal("rm -rf node_modules", HOST).literals[0].model_dump(include={"argv", "place"})
    elsewhere = _facts_places("rm -rf node_modules", cwd="/tmp")[0]
    assert recorded["argv"] == elsewhere["argv"]
    assert recorded["place"] != elsewhere["place"]


def test_redirect_targets_are_recorded() -> None:
    lit = parse_literal("pytest > out/report.txt", HOST).literals[0]
    assert [r.path for r in lit.place.redirects] == [f"{CWD}/out/report.txt"]
    assert lit.place.operand_paths == []


def test_a_draft_cannot_bring_its_own_literals() -> None:
    """Literals are derived from the checked commands; a draft's (an LLM's) are dropped."""
    forged = [{"argv": ["rm", "-rf", "/"], "place": {}, "cwd": "/"}]
    g = DraftGrant.model_validate(
        {"class": "EXECUTION", "capability": "run_command", "commands": ["ls"], "literals": forged}
    )
    assert g.literals == []


def _grant(message: str) -> Grant:
    policy = compile_message(message, task="t", host=HOST)
    runs = [g for g in policy.grants if g.capability == "run_command"]
    assert len(runs) == 1, policy.grants
    return runs[0]


def test_compiled_grant_carries_the_literals() -> None:
    g = _grant("Run `rm -rf node_modules && npm install`")
    assert g.commands == ["rm -rf node_modules", "npm install", "rm -rf node_modules && npm install"]
    assert [x.argv for x in g.literals] == [["rm", "-rf", "node_modules"], ["npm", "install"]]
    data = g.model_dump(by_alias=True)
    assert data["literals"][0]["place"]["operand_paths"] == [f"{CWD}/node_modules"]


def test_a_prohibition_strikes_a_literal_with_its_command() -> None:
    g = _grant("Run `make deploy && make test`. Don't run `make deploy`.")
    assert g.commands == ["make test"]
    assert [x.argv for x in g.literals] == [["make", "test"]]


def test_non_literal_grants_carry_no_literals() -> None:
    policy = compile_message("Delete the build directory and run the tests", task="t", host=HOST)
    assert policy.grants
    assert all(g.literals == [] for g in policy.grants)
