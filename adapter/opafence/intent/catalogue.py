"""The tools a session offers the model, and binding a grant to them (DESIGN.md, "The TaskPolicy").

A grant that acts through a service (an external write, a send, a share, a payment, a delete of
no file) is bound to the concrete MCP tools that fit it: a verb of a kind the grant asks for and
a noun of an object it names, read from the tool's name through the lexicon kept as data under
`rego/` (classify/verbs/data.yaml for the names' words, classify/bind/data.yaml for the owner's
words). Only names count, never descriptions: a server writes its own. The grant is bound to
the server the owner named, else to the only server that fits; when several fit and none was
named, it is not granted (the call asks). Tools that appear after the grant are not in its list,
and a bound tool whose parameters change is not the tool the grant was made for."""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import yaml

from opafence.facts.mcp import split_words
from opafence.rego_files import rego_root

MAX_TOOLS = 2000  # a catalogue bigger than this is cut, never trusted to be complete
_NAME = re.compile(r"^mcp__([A-Za-z0-9_-]+?)__([A-Za-z0-9_.-]+)$")


@dataclass(frozen=True)
class ToolSpec:
    name: str
    server: str
    words: tuple[str, ...]  # the name's words, without a first word that repeats the server
    params: tuple[str, ...]  # parameter names, sorted; () when the catalogue gave none


@dataclass(frozen=True)
class Catalogue:
    tools: tuple[ToolSpec, ...] = ()

    @property
    def servers(self) -> frozenset[str]:
        return frozenset(t.server for t in self.tools)

    def __bool__(self) -> bool:
        return bool(self.tools)


def _params(schema: Any) -> tuple[str, ...]:
    if not isinstance(schema, Mapping):
        return ()
    props = schema.get("properties", schema)
    if not isinstance(props, Mapping):
        return ()
    return tuple(sorted(str(k) for k in props if isinstance(k, str)))


def _entry(e: Any) -> tuple[str, tuple[str, ...]] | None:
    """(name, parameter names) of one catalogue entry: a name, {"name", "parameters"}, or an
    OpenAI-style {"type": "function", "function": {...}} as in a model request's tools."""
    if isinstance(e, str):
        return e, ()
    if not isinstance(e, Mapping):
        return None
    inner = e.get("function")
    fn: Mapping[str, Any] = inner if isinstance(inner, Mapping) else e
    name = fn.get("name")
    if not isinstance(name, str):
        return None
    params = fn.get("parameters", fn.get("input_schema", fn.get("inputSchema")))
    if isinstance(params, list):
        return name, tuple(sorted(str(p) for p in params if isinstance(p, str)))
    return name, _params(params)


def tool_spec(name: str, params: tuple[str, ...] = ()) -> ToolSpec | None:
    m = _NAME.match(name)
    if not m:
        return None
    server = m.group(1).lower()
    words = tuple(split_words(m.group(2)))
    if len(words) > 1 and (words[0] == server or words[0] in server.split("_")):
        words = words[1:]  # "slack_post_message" on server slack (rego: classify/mcp words)
    return ToolSpec(name=name, server=server, words=words, params=params)


def parse_tools(entries: Iterable[Any] | None) -> Catalogue:
    """The MCP tools of a catalogue; entries that are not MCP tools or not well-formed are left out."""
    out: dict[str, ToolSpec] = {}
    for e in list(entries or [])[:MAX_TOOLS]:
        got = _entry(e)
        if got is None:
            continue
        spec = tool_spec(*got)
        if spec is not None:
            out[spec.name] = spec
    return Catalogue(tuple(out[k] for k in sorted(out)))


# --- the lexicon (data under rego/) ---------------------------------------------------------------


@functools.cache
def lexicon() -> dict[str, Any]:
    root = rego_root() / "opafence" / "classify"
    verbs = yaml.safe_load((root / "verbs" / "data.yaml").read_text(encoding="utf-8"))
    bind = yaml.safe_load((root / "bind" / "data.yaml").read_text(encoding="utf-8"))
    return {**verbs, **{f"bind_{k}": v for k, v in bind.items()}}


def request_kind(lemma: str) -> str:
    """The kind of action a request verb of the owner asks for ("" when the data has none)."""
    kinds: dict[str, str] = lexicon()["bind_request_kinds"]
    return kinds.get(lemma, "")


@dataclass(frozen=True)
class _Profile:
    kinds: Mapping[str, frozenset[str]]  # class -> kinds of action of the name's verbs of it
    head: str  # the object the name acts on ("" none, "?w" unknown noun)


def _verb_classes(words: tuple[str, ...], lx: Mapping[str, Any]) -> dict[int, tuple[list[str], str]]:
    """Per word index: the classes its verb gives and its kind (mirrors rego classify/mcp)."""
    out: dict[int, tuple[list[str], str]] = {}
    kinds: Mapping[str, str] = lx["operation_kinds"]
    skip: set[int] = set()
    for i, w in enumerate(words):
        if i in skip:
            continue
        pos = i == 0 or words[i - 1] in lx["conjunction_words"]
        if i + 1 < len(words) and f"{w}_{words[i + 1]}" in lx["phrase_table"]:
            phrase = f"{w}_{words[i + 1]}"
            out[i] = (list(lx["phrase_table"][phrase]), kinds.get(phrase, phrase))
            skip.add(i + 1)
            continue
        booking = lx["booking_verbs"].get(w)
        if booking == "verb" or (booking == "noun_verb" and pos):
            paid = any(x in lx["booking_paid_objects"] for x in words)
            free = any(x in lx["booking_free_objects"] for x in words)
            out[i] = (["EXTERNAL_WRITE" if free and not paid else "FINANCIAL"], kinds.get(w, w))
        elif w in lx["verb_table"]:
            out[i] = (list(lx["verb_table"][w]), kinds.get(w, w))
        elif pos and w in lx["noun_verb_table"]:
            out[i] = (list(lx["noun_verb_table"][w]), kinds.get(w, w))
    return out


@functools.lru_cache(maxsize=4096)
def profile(words: tuple[str, ...]) -> _Profile:
    lx = lexicon()
    verbs = _verb_classes(words, lx)
    writes = any(c not in ("READ", "UNKNOWN") for cs, _ in verbs.values() for c in cs)
    kinds: dict[str, set[str]] = {}
    for cs, kind in verbs.values():
        for c in cs:
            kinds.setdefault(c, set()).add(kind)
    end = next((i for i, w in enumerate(words) if i > 0 and w in lx["name_prepositions"]), len(words))
    nouns = [
        i
        for i, w in enumerate(words[:end])
        if i not in verbs and w not in lx["name_qualifiers"] and not w.isdigit()
    ]
    money = lx["money_nouns"]
    if writes and (any(words[i] in money for i in nouns[-1:]) or (end > 1 and words[end - 1] in money)):
        # the write is the payment (rego classify/verbs payment_name)
        kinds.pop("EXTERNAL_WRITE", None)
        kinds.setdefault("FINANCIAL", set()).add("pay")
    if writes and any(w in lx["permission_nouns"] for w in words):
        kinds.setdefault("PERMISSION_CHANGE", set()).add("share")
    head = ""
    if nouns:
        i = nouns[-1]
        pair = f"{words[i - 1]}_{words[i]}" if i > 0 else ""
        head = lx["compound_objects"].get(pair) or lx["object_words"].get(words[i]) or f"?{words[i]}"
    elif words:
        head = lx["implied_objects"].get(words[0], "")
    return _Profile({c: frozenset(k) for c, k in kinds.items()}, head)


# --- binding ---------------------------------------------------------------------------------------

BIND_CAPS = {
    ("EXTERNAL_WRITE", "publish"),
    ("COMMUNICATION", "send"),
    ("PERMISSION_CHANGE", "share"),
    ("FINANCIAL", "pay"),
    ("DELETE", "delete"),
}


def fits(
    cls: str, objects: list[str], operations: list[str], spec: ToolSpec, said: frozenset[str] = frozenset()
) -> bool:
    """Could a grant of this class, objects and kinds of action cover the tool, by its name?
    `said`: the owner's request verbs in the grant's quote."""
    p = profile(spec.words)
    kinds = p.kinds.get(cls)
    if not kinds:
        return False
    if cls == "COMMUNICATION" and not _says_send(spec.words, p, said):
        return False
    if operations:
        covers: Mapping[str, list[str]] = lexicon()["operation_covers"]
        granted = {k for o in operations for k in covers.get(o, [])}
        if not kinds <= granted:
            return False
    return not objects or p.head in objects


def _says_send(words: tuple[str, ...], p: _Profile, said: frozenset[str]) -> bool:
    """The name says a send (post_message, reply_to_thread), not an invite or a membership or
    permission change that shares the class (invite_to_channel), unless the owner asked for
    that very thing ("invite @marek to #design": its invite is a send too)."""
    send: Mapping[str, list[str]] = lexicon()["bind_send"]
    kinds = p.kinds.get("COMMUNICATION", frozenset())
    if kinds & set(send["not_kinds"]):
        return bool(said & set(send["invite_verbs"]))
    return any(w in send["verbs"] for w in words) and "PERMISSION_CHANGE" not in p.kinds


def server_named(server: str, names: Iterable[str]) -> bool:
    aliases: Mapping[str, list[str]] = lexicon()["bind_server_words"]
    parts = set(server.split("_")) | {server, server.replace("_", "")}
    return any(n in parts or server in aliases.get(n, ()) for n in names)


@functools.lru_cache(maxsize=64)
def service_words(catalogue: Catalogue | None) -> frozenset[str]:
    """Words that name a server of the catalogue ("opentable", "google" of google_calendar)."""
    if not catalogue:
        return frozenset()
    stop: Mapping[str, bool] = lexicon()["bind_not_servers"]
    aliases: Mapping[str, list[str]] = lexicon()["bind_server_words"]
    out = set()
    for s in catalogue.servers:
        out |= {s, s.replace("_", ""), *(p for p in s.split("_") if len(p) > 2)}
        out |= {w for w, names in aliases.items() if s in names}
    return frozenset(w for w in out if w not in stop)


def named_servers(words: Iterable[str], catalogue: Catalogue) -> list[str]:
    """The catalogue's servers the owner's words name ("on OpenTable", "in google calendar")."""
    stop: Mapping[str, bool] = lexicon()["bind_not_servers"]
    ws = [w for w in words if w and w not in stop]
    return sorted(s for s in catalogue.servers if server_named(s, ws))


@dataclass(frozen=True)
class Binding:
    tools: list[str] | None  # None: nothing in the catalogue fits, the grant stays as it is
    note: str


def bind(
    cls: str,
    cap: str,
    objects: list[str],
    operations: list[str],
    named: list[str],
    catalogue: Catalogue,
    said: frozenset[str] = frozenset(),
) -> Binding:
    """The concrete tools a grant covers: those that fit it, on the server named or the only one.
    `said`: the owner's request verbs in the grant's quote."""
    if (cls, cap) not in BIND_CAPS or not catalogue:
        return Binding(None, "")
    fitting = [t for t in catalogue.tools if fits(cls, objects, operations, t, said)]
    if not fitting:
        return Binding(None, "no tool of the session fits it")
    servers = sorted({t.server for t in fitting})
    if named:
        chosen = [s for s in servers if s in named]
        if not chosen:
            return Binding([], f"the server named ({', '.join(named)}) has no tool for it")
    elif len(servers) == 1:
        chosen = servers
    else:
        return Binding([], f"several servers fit ({', '.join(servers)}) and the owner named none")
    on = [t for t in fitting if t.server in chosen]
    # Per kind asked for, a tool whose verbs are exactly that kind wins over one the kind only
    # covers ("cancel" binds cancel_event, not update_event, where the server has both).
    picked: set[str] = set()
    for op in operations or [""]:
        mine = [t for t in on if not op or fits(cls, objects, [op], t, said)]
        exact = [t for t in mine if op and profile(t.words).kinds.get(cls, frozenset()) <= {op}]
        picked |= {t.name for t in exact or mine}
    tools = [t.name for t in on if t.name in picked]
    if not tools:
        return Binding([], "no tool of the server named fits every kind of action it asks for")
    return Binding(tools, f"bound to {', '.join(tools)}")
