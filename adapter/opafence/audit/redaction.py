"""What a call was aimed at, as the audit trail keeps it (`audit.targets` in the config).

- `redacted` (default): each command's name and its first non-option word, with environment
  assignments, options and their values, URL userinfo and query values dropped; paths; the
  recipients' domains; URL hosts. Enough for a person to recognise the call in `opafence log`,
  not enough to carry a secret that was in an argument.
- `full`: the command line as the agent wrote it (cut to 500 characters), full addresses and
  URLs.
- `none`: nothing; the trail holds only keyed hashes and lengths of the arguments.

Built from the normalized facts (facts/), never from a second parse of the raw strings. Every
string is made printable (printable.py) before it is stored, and each list is capped."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal
from urllib.parse import urlsplit, urlunsplit

from opafence.printable import printable

TargetsMode = Literal["redacted", "none", "full"]
MAX_ITEMS = 5
MAX_CHARS = 200
FULL_COMMAND_CHARS = 500


def _short(value: Any, limit: int = MAX_CHARS) -> str:
    return printable(value, limit=limit)


def redact_url(raw: str) -> str:
    """scheme://host[:port]/path with userinfo gone and every query value (and fragment) dropped."""
    try:
        parts = urlsplit(raw)
        host = parts.hostname or ""
        port = f":{parts.port}" if parts.port else ""
    except ValueError:
        return "<url>"
    query = "&".join(f"{kv.split('=', 1)[0]}=" for kv in parts.query.split("&") if kv) if parts.query else ""
    return urlunsplit((parts.scheme, host + port, parts.path, query, ""))


def _value_flag(word: str) -> bool:
    """Could this option take the next word as its value? `-H x`, `--header x`: yes; a bundle of
    short flags (`-rf`) or an option with its value attached (`--out=x`): no. When unsure, the
    next word is treated as a value and not shown."""
    if word.startswith("--"):
        return "=" not in word and len(word) > 2
    return len(word) == 2


def redact_word(word: str) -> str:
    if "://" in word:
        return redact_url(word)
    if "=" in word:
        return word.split("=", 1)[0] + "="
    return word


def redacted_command(command: Mapping[str, Any]) -> str:
    """`name word`: the program and the first word that is not an option or an option's value."""
    argv = [str(a) for a in command.get("argv") or []]
    name = str(command.get("name") or (argv[0] if argv else ""))
    previous_takes_value = False
    for word in argv[1:]:
        if word == "--":
            previous_takes_value = False
            continue
        if word.startswith("-") and word != "-":
            previous_takes_value = _value_flag(word)
            continue
        if previous_takes_value:
            previous_takes_value = False
            continue
        return f"{name} {redact_word(word)}"
    return name


def _unique(values: list[str]) -> list[str]:
    seen: list[str] = []
    for v in values:
        if v and v not in seen:
            seen.append(v)
    return seen[:MAX_ITEMS]


def summarize(facts: Mapping[str, Any], args: Mapping[str, Any], mode: TargetsMode) -> dict[str, list[str]]:
    """The target summary stored with a decision; {} when there is none (or mode is none)."""
    if mode == "none":
        return {}
    commands = (facts.get("shell") or {}).get("commands") or []
    urls = facts.get("urls") or []
    recipients = facts.get("recipients") or []
    out: dict[str, list[str]] = {}
    if mode == "full":
        command = args.get("command")
        if isinstance(command, str) and command:
            out["command"] = [_short(command, FULL_COMMAND_CHARS)]
        out["recipients"] = _unique([_short(r.get("address") or r.get("raw") or "") for r in recipients])
        out["urls"] = _unique([_short(u.get("raw") or "") for u in urls])
    else:
        out["commands"] = _unique([_short(redacted_command(c)) for c in commands if isinstance(c, Mapping)])
        out["recipients"] = _unique([_short("@" + str(r["domain"])) for r in recipients if r.get("domain")])
        out["hosts"] = _unique([_short(u["host"]) for u in urls if u.get("host")])
    out["paths"] = _unique([_short(p.get("path") or "") for p in facts.get("paths") or []])
    return {k: v for k, v in out.items() if v}


def one_line(target: Mapping[str, Any] | None) -> str:
    """The summary as `opafence log` and notices show it."""
    if not target:
        return ""
    parts: list[str] = []
    for key in ("command", "commands", "paths", "recipients", "hosts", "urls"):
        values = target.get(key) or []
        if isinstance(values, list):
            parts.extend(printable(v) for v in values)
    return ", ".join(p for p in parts if p)
