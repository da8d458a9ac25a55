"""The targets of one call, normalized like values.py normalizes what results say.

A target is where the call sends, pays, posts, shares or writes: recipients, hosts of URLs,
phone and account numbers, IBANs, channels and handles, paths, commands and the packages an
install names. Rego decides which of them matter for the call's classes (a URL of a plain
read does not); Python only lists them, each with the argument it came from."""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from typing import Any

from opafence.provenance import normalize
from opafence.provenance import values as v

MAX_TARGETS = 64

# Argument names whose value is a chat channel, a person's handle or a number to reach.
_HANDLE_ARGS = re.compile(
    r"(?i)^(?:channel|channel_id|channel_name|chat|chat_id|room|room_id|conversation|conversation_id|thread_to"
    r"|user|user_id|username|handle|recipient|recipients|to|target|member|members|invitee|invitees"
    r"|attendee|attendees|participant|participants|assignee|reviewer|reviewers|share_with|grantee|dm|peer)$"
)
_NUMBER_ARGS = re.compile(
    r"(?i)(?:phone|mobile|number|account|iban|payee|beneficiary|recipient|to|destination|sort_code|routing"
    r"|card|wallet|creditor|bic|swift)"
)
_SKIP_ARGS = frozenset(
    {"body", "text", "content", "message", "html", "subject", "caption", "description", "notes", "summary"}
)
_ID_LIKE = re.compile(r"^[A-Za-z0-9_.#@+-]{1,120}$")

Target = dict[str, str]


def _strings(obj: Any, key: str = "", depth: int = 0) -> Iterator[tuple[str, str]]:
    """(nearest key, string) for every string of the arguments but message bodies."""
    if depth > 8:
        return
    if isinstance(obj, str):
        yield key, obj
    elif isinstance(obj, int) and not isinstance(obj, bool):
        yield key, str(obj)
    elif isinstance(obj, Mapping):
        for k, val in obj.items():
            if str(k).lower() not in _SKIP_ARGS:
                yield from _strings(val, str(k), depth + 1)
    elif isinstance(obj, list):
        for val in obj:
            yield from _strings(val, key, depth + 1)


def call_targets(
    tool: str, args: Mapping[str, Any], facts: Mapping[str, Any], home: str = ""
) -> list[Target]:
    """Every target of the call, once per (kind, value), at most MAX_TARGETS."""
    out: dict[tuple[str, str], Target] = {}

    def add(kind: str, value: str, arg: str) -> None:
        if value and (kind, value) not in out and len(out) < MAX_TARGETS:
            out[(kind, value)] = {"kind": kind, "value": value, "arg": arg}

    for r in facts.get("recipients", []):
        e = normalize.norm_email(str(r.get("address", "")))
        add("email", e, str(r.get("field", "")))
    for u in facts.get("urls", []):
        if str(u.get("arg", "")).lower() in _SKIP_ARGS:
            continue  # a link in a message body is content, not where the call goes
        h = normalize.norm_domain(str(u.get("host", "")))
        if h:
            add("host", h, str(u.get("arg", "")))
            add("domain", normalize.registrable(h), str(u.get("arg", "")))
    for p in facts.get("paths", []):
        add("path", normalize.norm_path(str(p.get("path", "")), home), str(p.get("arg", "")))
    shell = facts.get("shell")
    if isinstance(shell, Mapping):
        for c in shell.get("commands", []):
            for op in c.get("operand_paths", []):
                add("path", normalize.norm_path(str(op), home), "command")
            for red in c.get("redirects", []):
                add("path", normalize.norm_path(str(red.get("path", "")), home), "command")
    command = args.get("command")
    if isinstance(command, str) and tool in ("terminal", "process"):
        add("command", normalize.norm_command(command), "command")
        for kind, value in v.scan_text(command, home):
            if kind == "package":
                add(kind, value, "command")
    for key, s in _strings(args):
        text = s.strip()
        if not text or len(text) > 2048:
            continue
        iban = normalize.norm_iban(text)
        if iban:
            add("iban", iban, key)
            add("number", normalize.norm_digits(iban[4:]), key)
            continue
        if _NUMBER_ARGS.search(key):
            digits = normalize.norm_digits(text)
            if 7 <= len(digits) <= 34 and len(digits) * 2 >= len(text.replace(" ", "")):
                add("number", digits, key)
        if _HANDLE_ARGS.match(key) and "@" not in text[1:] and _ID_LIKE.match(text):
            add("handle", normalize.norm_handle(text), key)
    return list(out.values())
