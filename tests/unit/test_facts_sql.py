"""facts.sql: the SQL an MCP or plugin tool's arguments carry, split into statements outside
literals and comments (adapter/opafence/facts/sql.py). Rego decides what writes."""

from __future__ import annotations

from typing import Any

import pytest

from opafence.facts import FactsContext, build_facts
from opafence.facts.sql import sql_facts, statement_facts

# text -> first keyword of each statement, words among the statements' words, words not among
# them (inside a literal, a quoted identifier or a comment)
STATEMENTS: list[tuple[str, list[str], set[str], set[str]]] = [
    ("SELECT count(*) FROM users", ["select"], {"count", "from", "users"}, set()),
    ("DELETE FROM users WHERE email IS NULL", ["delete"], {"from", "where"}, set()),
    ("select 1; drop table users", ["select", "drop"], {"table"}, set()),
    ("SELECT 'DELETE FROM x' AS s", ["select"], {"as", "s"}, {"delete", "x"}),
    ('SELECT "delete" FROM t', ["select"], {"from", "t"}, {"delete"}),
    ("-- DELETE FROM x\nSELECT 1", ["select"], set(), {"delete"}),
    ("/* drop */ SELECT 1", ["select"], set(), {"drop"}),
    ("SELECT $$;DELETE FROM x$$", ["select"], set(), {"delete"}),
    ("SELECT $q$ drop $q$; UPDATE t SET a=1", ["select", "update"], {"set"}, {"drop"}),
    ("WITH gone AS (DELETE FROM users RETURNING *) SELECT count(*) FROM gone", ["with"], {"delete"}, set()),
    ("SELECT 'it''s; drop'; TRUNCATE t", ["select", "truncate"], set(), {"drop"}),
]


@pytest.mark.parametrize(("text", "firsts", "present", "absent"), STATEMENTS)
def test_statements(text: str, firsts: list[str], present: set[str], absent: set[str]) -> None:
    got = statement_facts(text)
    assert got["opaque"] is False
    assert [s["first"] for s in got["statements"]] == firsts
    words = {w for s in got["statements"] for w in s["words"]}
    assert present <= words
    assert not absent & words, got


def test_functions_are_named() -> None:
    got = statement_facts("SELECT pg_terminate_backend (pid) FROM pg_stat_activity")
    assert got["statements"][0]["functions"] == ["pg_terminate_backend"]


@pytest.mark.parametrize(
    "text", ["SELECT 'open", "SELECT 1 /* never closed", "SELECT $x$ never", "`", "'", "/*", "$$"]
)
def test_open_text_is_opaque(text: str) -> None:
    assert statement_facts(text)["opaque"] is True


# args -> the args read as SQL
ARGS: list[tuple[dict[str, Any], list[str]]] = [
    ({"sql": "DELETE FROM users"}, ["sql"]),
    ({"statement": "whatever it says"}, ["statement"]),
    ({"query": "SELECT * FROM orders"}, ["query"]),
    ({"query": "delete from users where id = 3"}, ["query"]),
    ({"query": "Q4 forecast"}, []),
    ({"query": "select a venue for the offsite"}, []),
    ({"query": "update on the roadmap"}, []),
    ({"statements": ["SELECT 1", "DROP TABLE t"]}, ["statements", "statements"]),
    ({"sql": ""}, []),
    # an open literal before any word: SQL where the argument always is, no SQL where it may be
    ({"sql": "`"}, ["sql"]),
    ({"command": "`"}, []),
    ({"query": "'"}, []),
]


@pytest.mark.parametrize(("args", "want"), ARGS)
def test_which_args_are_sql(args: dict[str, Any], want: list[str]) -> None:
    assert [e["arg"] for e in sql_facts(args)] == want


def test_facts_carry_sql_only_for_service_tools(tmp_path: Any) -> None:
    ctx = FactsContext(home=str(tmp_path), cwd=str(tmp_path))
    mcp = build_facts("mcp__postgres__query", {"sql": "DELETE FROM users"}, ctx)
    assert mcp["sql"][0]["statements"][0]["first"] == "delete"
    assert "sql" not in build_facts("mcp__postgres__query", {"sql": "   "}, ctx)
    assert "sql" not in build_facts("read_file", {"path": "q.sql"}, ctx)
