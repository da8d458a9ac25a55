"""Raw tool call -> normalized facts for Rego (docs/contract.md, `facts`).

`build_facts` is the one entry point. It is pure (apart from filesystem look-ups that resolve
symlinks and `~user`) and never raises: an internal error yields facts marked opaque with an
`internal_error` reason, and Rego never allows what is opaque unless it is harmless anyway.

Which argument of which tool carries what is in `facts.tools`; the arguments' strings, words
and secret kinds in `facts.arguments`; each kind of text (shell, Python, URLs, paths, patches,
addresses, SQL) has its own parser module.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from opafence.facts import email, links, mcp, mentions, sql
from opafence.facts.arguments import flatten, secret_kinds, utf8_len, words
from opafence.facts.collect import Collector
from opafence.facts.context import FactsContext
from opafence.facts.tools import MESSAGING_TOOLS, READERS, Call, generic

__all__ = ["FactsContext", "build_facts"]


def _absolute(cwd: str, home: str) -> str:
    if cwd and cwd.startswith("/"):
        return cwd
    return home if home.startswith("/") else "/"


def _build(tool: str, args: Mapping[str, Any], ctx: FactsContext) -> dict[str, Any]:
    col = Collector(home=ctx.home, cwd=_absolute(ctx.cwd, ctx.home), hermes_home=ctx.hermes_home)
    if not isinstance(tool, str):
        tool = str(tool)
        col.opaque("tool_not_string")
    if not isinstance(args, Mapping):
        col.opaque("args_not_object")
        args = {}
    tool_facts = mcp.tool_facts(tool)
    flat = flatten(args, col)
    call = Call(tool, args, ctx, col)
    reader = READERS.get(tool)
    if reader is not None:
        reader(call)
    elif tool_facts["origin"] != "builtin":
        generic(call)
    facts: dict[str, Any] = {
        "tool": tool_facts,
        "paths": col.paths,
        "urls": col.urls,
        "recipients": _unique_recipients(call.recipients + col.recipients, col),
        "secrets": secret_kinds(flat, col) + col.secrets,
        "words": words(flat),
        "content_bytes": sum(utf8_len(s) for _, s in flat),
        "opaque": False,
        "opaque_reasons": [],
    }
    if call.shell_present or col.shell_seen:
        facts["shell"] = {
            "opaque": bool(col.shell_reasons),
            "opaque_reasons": col.shell_reasons,
            "commands": col.commands,
        }
    if col.code is not None:
        facts["code"] = col.code
    if col.env_vars:
        facts["env_vars"] = col.env_vars
    if tool_facts["origin"] != "builtin":
        statements = sql.sql_facts(args)
        if statements:
            facts["sql"] = statements
    if tool_facts["origin"] != "builtin" or tool in MESSAGING_TOOLS:
        named = mentions.mention_facts(args)
        if named:
            facts["mentions"] = named
    if ctx.identities is not None:
        same, exhausted = ctx.identities.same_files(_named_paths(col))
        if exhausted:
            col.opaque("too_many_paths_to_stat")
    else:
        same = links.same_files(_named_paths(col), ctx.home, ctx.hermes_home, ctx.state_dir)
    if same:
        facts["links"] = same
    facts["opaque"] = bool(col.reasons)
    facts["opaque_reasons"] = col.reasons
    return facts


def _named_paths(col: Collector) -> Iterator[str]:
    """Every canonical path the call names: arguments, operands, redirects, possible paths."""
    for p in col.paths:
        yield p["path"]
    for c in col.commands:
        yield from c.get("operand_paths", ())
        yield from c.get("maybe_paths", ())
        for r in c.get("redirects", ()):
            yield r.get("path", "")


def _unique_recipients(found: list[dict[str, Any]], col: Collector) -> list[dict[str, Any]]:
    seen: set[tuple[str, str]] = set()
    out: list[dict[str, Any]] = []
    for r in found:
        key = (r["address"], r["field"])
        if key not in seen:
            seen.add(key)
            out.append(r)
    if len(out) > email.MAX_RECIPIENTS:
        # Rego cannot check recipients it is not shown.
        col.opaque("too_many_recipients")
    return out[: email.MAX_RECIPIENTS]


def _failed(tool: Any, exc: BaseException) -> dict[str, Any]:
    name = tool if isinstance(tool, str) else ""
    try:
        tool_facts = mcp.tool_facts(name)
    except Exception:
        tool_facts = {"name": name, "origin": "other"}
    return {
        "tool": tool_facts,
        "paths": [],
        "urls": [],
        "recipients": [],
        "secrets": [],
        "words": [],
        "content_bytes": 0,
        "opaque": True,
        "opaque_reasons": [f"internal_error:{type(exc).__name__}"],
    }


def build_facts(tool: str, args: Mapping[str, Any], ctx: FactsContext) -> dict[str, Any]:
    """The `facts` of one tool call. Never raises."""
    try:
        return _build(tool, args, ctx)
    except Exception as exc:  # a parser bug must block (opaque), never crash the hook
        return _failed(tool, exc)
