"""The shell walk's tables (facts/shell/data/*.json) and the registry of program handlers."""

from __future__ import annotations

from opafence.facts.shell import programs, tables
from opafence.facts.shell.dispatch import _SPECIAL


def test_every_program_with_a_table_has_a_handler() -> None:
    for name in tables.CARRIERS | set(tables.OPTION_BODIES) | tables.SHELLS | tables.NODES:
        assert name in programs.HANDLERS, name
    for name in tables.OTHER_INTERPRETERS:
        assert name in programs.HANDLERS, name


def test_a_name_two_families_claim_keeps_the_first() -> None:
    # bun is an interpreter (bun -e) before it is a package runner (bun x)
    assert programs.HANDLERS["bun"] is programs.HANDLERS["node"]
    # flock has its own handler before the `-c BODY` family
    assert programs.HANDLERS["flock"] is not programs.HANDLERS["su"]
    # rsync's options are read by the ssh family, which reads its option bodies too
    assert programs.HANDLERS["rsync"] is programs.HANDLERS["ssh"]


def test_handlers_only_for_commands_the_walk_looks_at() -> None:
    # dispatch skips a command not in _SPECIAL (or a python) before the registry is consulted
    assert set(programs.HANDLERS) <= _SPECIAL


def test_tables_have_their_shapes() -> None:
    assert all(isinstance(v, tuple) for v in tables.OTHER_INTERPRETERS.values())
    assert all(isinstance(v, tuple) for v in tables.DECODE_FLAGS.values())
    assert all(isinstance(w, tables.WrapSpec) for w in tables.WRAPPERS.values())
    assert tables.is_python("python3.12") and tables.is_python("pypy3") and not tables.is_python("pythonx")
    assert tables.GIT_EXEC_KEY.match("core.sshCommand") and tables.GIT_FILE_KEY.match("core.hooksPath")
    assert not tables.GIT_EXEC_KEY.match("user.name")
    words, prefixes = tables.CARRIER_TRIGGERS["make"]
    assert not words and "--eval" in prefixes
