"""Mentions in the text a messaging call sends (`facts.mentions`, docs/contract.md): what makes
the service notify people. Slack's `<!channel>`, `<!here>`, `<!subteam^ID>`, `<@U123>`; Discord's
`<@123>`, `<@&role>`; Teams' `<at>Name</at>`; and the plain `@here`, `@channel`, `@everyone`,
`@name` most services turn into a notification. An address (`ann@x.com`) is no mention.

Rego decides what a mention means (a "don't @-mention anyone" prohibition blocks any)."""

from __future__ import annotations

import re
from typing import Any

MAX_MENTIONS = 100

_BROADCAST = frozenset({"here", "channel", "everyone", "all", "group", "room"})

_PATTERNS: list[tuple[re.Pattern[str], str]] = [
    (re.compile(r"<!(here|channel|everyone|group)(?:\|[^>]*)?>", re.I), "broadcast"),
    (re.compile(r"<!subteam\^[A-Za-z0-9]+(?:\|[^>]*)?>"), "group"),
    (re.compile(r"<@&[0-9]+>"), "group"),
    (re.compile(r"<@!?[A-Za-z0-9]+(?:\|[^>]*)?>"), "person"),
    (re.compile(r"<at\b[^>]*>.*?</at>", re.I | re.S), "person"),
    # "@name": not inside a word or an address (ann@x.com), not an email's domain.
    (re.compile(r"(?<![\w.+\-@/:])@([A-Za-z0-9][A-Za-z0-9._\-]{0,79})"), "plain"),
]


def _in_text(text: str, arg: str, out: list[dict[str, Any]]) -> None:
    taken: list[tuple[int, int]] = []
    for rx, kind in _PATTERNS:
        for m in rx.finditer(text):
            if any(a <= m.start() < b for a, b in taken):
                continue
            taken.append((m.start(), m.end()))
            k = kind
            if kind == "plain":
                name = m.group(1).rstrip(".-_").lower()
                k = "broadcast" if name in _BROADCAST else "person"
            elif kind == "broadcast":
                k = "broadcast"
            out.append({"raw": m.group(0)[:200], "kind": k, "arg": arg})
            if len(out) >= MAX_MENTIONS:
                return


# Top-level arguments that hold what the message says (a recipient argument such as `user: "@ann"`
# names whom it goes to, which the grant's recipients bound).
_PROSE = (
    "text",
    "message",
    "body",
    "content",
    "block",
    "markdown",
    "html",
    "comment",
    "description",
    "note",
    "caption",
    "reply",
    "post",
    "summary",
    "title",
    "subject",
    "attachment",
)


def _prose(key: str) -> bool:
    k = key.lower()
    return any(part in k for part in _PROSE)


def mention_facts(args: Any) -> list[dict[str, Any]]:
    """Every mention in the text arguments of a call (any depth below them), with the top-level
    argument it came from."""
    out: list[dict[str, Any]] = []
    if not isinstance(args, dict):
        return out
    stack: list[tuple[Any, str]] = [(v, str(k)) for k, v in args.items() if _prose(str(k))]
    seen = 0
    while stack and len(out) < MAX_MENTIONS and seen < 10_000:
        value, top = stack.pop()
        seen += 1
        if isinstance(value, str):
            if "@" in value or "<!" in value or "<at" in value.lower():
                _in_text(value, top, out)
        elif isinstance(value, dict):
            stack.extend((v, top) for v in value.values())
        elif isinstance(value, list):
            stack.extend((v, top) for v in value)
    return out[:MAX_MENTIONS]
