"""SQL that a tool's arguments carry (`facts.sql`, docs/contract.md): a tool named `query` runs
what its `sql` says, and `DELETE FROM users` through it is no read. This splits the text into
statements and lists, per statement, its first keyword, its words and the functions it calls,
outside string literals, quoted identifiers and comments. Rego decides which of them write
(rego/opafence/classify/mcp, data.yaml sql_*).

Linear in the text's length; a literal or comment left open makes the entry opaque."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

# Arguments whose text is SQL whatever it says.
SQL_ARGS = frozenset({"sql", "sql_query", "sqlquery", "statement", "stmt", "sql_statement", "raw_sql"})
# Arguments that hold SQL only when the text reads as SQL (a search tool's query is words).
MAYBE_SQL_ARGS = frozenset({"query", "statements", "query_string", "querystring", "q", "command"})

# Keywords a statement starts with (the text reads as SQL when its first word is one).
STARTERS = frozenset(
    {
        "select",
        "with",
        "insert",
        "update",
        "delete",
        "merge",
        "upsert",
        "replace",
        "drop",
        "create",
        "alter",
        "truncate",
        "grant",
        "revoke",
        "copy",
        "call",
        "execute",
        "exec",
        "do",
        "vacuum",
        "analyze",
        "analyse",
        "explain",
        "show",
        "describe",
        "desc",
        "set",
        "reset",
        "begin",
        "start",
        "commit",
        "rollback",
        "savepoint",
        "release",
        "lock",
        "refresh",
        "comment",
        "values",
        "table",
        "pragma",
        "attach",
        "detach",
        "use",
        "load",
        "import",
        "reindex",
        "cluster",
        "listen",
        "notify",
        "unlisten",
        "prepare",
        "deallocate",
        "declare",
        "fetch",
        "move",
        "close",
        "discard",
        "checkpoint",
        "security",
        "reassign",
        "rename",
        "optimize",
        "repair",
        "flush",
        "kill",
        "purge",
        "handler",
    }
)
# Words besides the first that show the text is SQL, not a sentence of words.
_SQL_SHAPE = frozenset(
    {
        "from",
        "into",
        "set",
        "table",
        "where",
        "values",
        "join",
        "index",
        "view",
        "schema",
        "database",
        "returning",
        "union",
        "group",
        "order",
        "limit",
    }
)
MAX_STATEMENTS = 50
MAX_WORDS = 300

_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_$]*")
# A PostgreSQL dollar-quote tag ($$ or $name$), matched in place (no slice per "$").
_DOLLAR_TAG = re.compile(r"\$([A-Za-z_][A-Za-z0-9_]*)?\$")


def _kept(statements: list[list[tuple[str, bool]]]) -> list[list[tuple[str, bool]]]:
    """The statements that hold a word (an open literal can end the scan before the first)."""
    return [s for s in statements if s]


def _scan(text: str) -> tuple[list[list[tuple[str, bool]]], bool]:
    """Statements as lists of (lower-case word, followed by "(") outside literals and comments;
    True when a literal or comment is left open."""
    statements: list[list[tuple[str, bool]]] = [[]]
    i, n = 0, len(text)
    while i < n:
        ch = text[i]
        if (ch == "-" and text.startswith("--", i)) or ch == "#":
            j = text.find("\n", i)
            i = n if j < 0 else j + 1
        elif ch == "/" and text.startswith("/*", i):
            j = text.find("*/", i + 2)
            if j < 0:
                return _kept(statements), True
            i = j + 2
        elif ch in "'\"`":
            j = i + 1
            while True:
                j = text.find(ch, j)
                if j < 0:
                    return _kept(statements), True
                if text.startswith(ch * 2, j):  # '' inside a literal
                    j += 2
                    continue
                break
            i = j + 1
        elif (
            ch == "["
            and statements[-1]
            and statements[-1][-1][0] in ("from", "join", "into", "update", "table")
        ):
            j = text.find("]", i)  # a T-SQL [quoted identifier]
            if j < 0:
                return _kept(statements), True
            i = j + 1
        elif ch == "$" and (m := _DOLLAR_TAG.match(text, i)):
            tag = m.group(0)
            j = text.find(tag, i + len(tag))
            if j < 0:
                return _kept(statements), True
            i = j + len(tag)
        elif ch == ";":
            if statements[-1]:
                statements.append([])
            i += 1
        elif m := _WORD.match(text, i):
            end = m.end()
            k = end
            while k < n and text[k] in " \t\r\n":
                k += 1
            statements[-1].append((m.group(0).lower(), k < n and text[k] == "("))
            i = end
        else:
            i += 1
    return _kept(statements), False


def statement_facts(text: str) -> dict[str, Any]:
    return _facts_of(*_scan(text))


def _facts_of(stmts: list[list[tuple[str, bool]]], open_: bool) -> dict[str, Any]:
    out = []
    for s in stmts[:MAX_STATEMENTS]:
        words = list(dict.fromkeys(w for w, _ in s))[:MAX_WORDS]
        functions = list(dict.fromkeys(w for w, call in s if call))[:MAX_WORDS]
        out.append({"first": s[0][0], "words": words, "functions": functions})
    return {"statements": out, "opaque": open_ or len(stmts) > MAX_STATEMENTS}


def _reads_as_sql(text: str, stmts: list[list[tuple[str, bool]]], open_: bool) -> bool:
    """Whether a maybe-SQL argument's text (and its scan) reads as SQL rather than words."""
    if not stmts:
        return False
    first = stmts[0]
    if first[0][0] not in STARTERS:
        return False
    rest = {w for w, _ in first[1:]}
    return bool(rest & _SQL_SHAPE) or len(first) == 1 or "*" in text or text.rstrip().endswith(";") or open_


def sql_facts(args: Mapping[str, Any]) -> list[dict[str, Any]]:
    """One entry per argument (top level, or a list of strings under it) that carries SQL."""
    out: list[dict[str, Any]] = []
    for key, value in args.items():
        if not isinstance(key, str):
            continue
        k = key.lower()
        if k not in SQL_ARGS and k not in MAYBE_SQL_ARGS:
            continue
        texts = (
            [value]
            if isinstance(value, str)
            else [v for v in value if isinstance(v, str)]
            if isinstance(value, list)
            else []
        )
        for text in texts:
            if not text.strip():
                continue
            # One scan serves both the "reads as SQL" test and the facts.
            stmts, open_ = _scan(text)
            if k in SQL_ARGS or _reads_as_sql(text, stmts, open_):
                out.append({"arg": key, **_facts_of(stmts, open_)})
    return out
