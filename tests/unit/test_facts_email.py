"""Recipients: normalized addresses, display names, mixed scripts and look-alikes."""

from __future__ import annotations

from typing import Any

import pytest
from facts_helpers import CTX
from hypothesis import given, settings
from hypothesis import strategies as st

from opafence.facts import build_facts, email


def Rc(
    raw: str,
    address: str,
    *,
    field: str = "to",
    valid: bool = True,
    mixed_script: bool = False,
    confusable: bool = False,
) -> dict[str, Any]:
    local, _, domain = address.rpartition("@")
    return {
        "raw": raw,
        "address": address,
        "local": local if "@" in address else address,
        "domain": domain if "@" in address else "",
        "field": field,
        "valid": valid,
        "mixed_script": mixed_script,
        "confusable": confusable,
    }


CASES: list[tuple[str, Any, list[dict[str, Any]]]] = [
    ("plain", "bob@example.com", [Rc("bob@example.com", "bob@example.com")]),
    ("case folded", "Bob.Smith@Example.COM", [Rc("Bob.Smith@Example.COM", "bob.smith@example.com")]),
    ("display name", '"Bob, B." <bob@example.com>', [Rc('"Bob, B." <bob@example.com>', "bob@example.com")]),
    ("bare angle", "<bob@example.com>", [Rc("<bob@example.com>", "bob@example.com")]),
    ("mailto", "mailto:bob@example.com", [Rc("mailto:bob@example.com", "bob@example.com")]),
    (
        "comma and semicolon separated",
        "a@x.org, b@y.org; Carol <c@z.org>",
        [Rc("a@x.org", "a@x.org"), Rc("b@y.org", "b@y.org"), Rc("Carol <c@z.org>", "c@z.org")],
    ),
    ("list", ["a@x.org", "b@y.org"], [Rc("a@x.org", "a@x.org"), Rc("b@y.org", "b@y.org")]),
    (
        "list of objects",
        [{"email": "a@x.org", "name": "A"}],
        [Rc("a@x.org", "a@x.org", field="email")],
    ),
    ("IDNA domain", "info@bücher.example", [Rc("info@bücher.example", "info@xn--bcher-kva.example")]),
    (
        "Cyrillic a in a Latin domain",
        "ceo@pаypal.com",
        [Rc("ceo@pаypal.com", "ceo@xn--pypal-4ve.com", mixed_script=True, confusable=True)],
    ),
    (
        "Greek omicron in the local part",
        "bοb@example.com",
        [Rc("bοb@example.com", "bοb@example.com", mixed_script=True, confusable=True)],
    ),
    (
        "whole-script look-alike",
        "x@аррӏе.com",
        [Rc("x@аррӏе.com", "x@xn--80ak6aa92e.com", confusable=True)],
    ),
    (
        "punycode that decodes to a mixed label",
        "ceo@xn--pypal-4ve.com",
        [Rc("ceo@xn--pypal-4ve.com", "ceo@xn--pypal-4ve.com", mixed_script=True, confusable=True)],
    ),
    (
        "fullwidth letters",
        "ｂｏｂ@example.com",
        [Rc("ｂｏｂ@example.com", "ｂｏｂ@example.com", confusable=True)],
    ),
    (
        "zero-width space",
        "bo\u200bb@example.com",
        [Rc("bo\u200bb@example.com", "bo\u200bb@example.com", confusable=True)],
    ),
    (
        "genuinely Cyrillic address is not flagged",
        "иван@почта.рф",
        [Rc("иван@почта.рф", "иван@xn--80a1acny.xn--p1ai")],
    ),
    (
        "mailto with recipients in the query",
        "mailto:bob@example.com?cc=eve@evil.example&bcc=mal%40evil.example&subject=hi",
        [
            Rc(
                "mailto:bob@example.com?cc=eve@evil.example&bcc=mal%40evil.example&subject=hi",
                "bob@example.com",
            ),
            Rc(
                "mailto:bob@example.com?cc=eve@evil.example&bcc=mal%40evil.example&subject=hi",
                "eve@evil.example",
                field="cc",
            ),
            Rc(
                "mailto:bob@example.com?cc=eve@evil.example&bcc=mal%40evil.example&subject=hi",
                "mal@evil.example",
                field="bcc",
            ),
        ],
    ),
    (
        "mailto with a percent-encoded address",
        "mailto:bob%40example.com",
        [Rc("mailto:bob%40example.com", "bob@example.com")],
    ),
    (
        "mailto in angle brackets with a To in the query",
        "<mailto:bob@example.com?To=eve@evil.example>",
        [
            Rc("<mailto:bob@example.com?To=eve@evil.example>", "bob@example.com"),
            Rc("<mailto:bob@example.com?To=eve@evil.example>", "eve@evil.example"),
        ],
    ),
    ("no domain", "bob", [Rc("bob", "bob", valid=False)]),
    ("double dot", "a..b@example.com", [Rc("a..b@example.com", "a..b@example.com", valid=False)]),
    ("bad domain", "a@-bad-.com", [Rc("a@-bad-.com", "a@-bad-.com", valid=False)]),
    ("single-label domain", "root@localhost", [Rc("root@localhost", "root@localhost", valid=False)]),
]


@pytest.mark.parametrize(("value", "want"), [pytest.param(v, w, id=i) for i, v, w in CASES])
def test_mcp_recipients(value: Any, want: list[dict[str, Any]]) -> None:
    facts = build_facts("mcp__gmail__send_email", {"to": value, "subject": "Hi"}, CTX)
    if isinstance(value, list) and value and isinstance(value[0], dict):
        facts = build_facts("mcp__gmail__send_email", {"recipients": value}, CTX)
    assert facts["recipients"] == want


def test_fields_by_name() -> None:
    facts = build_facts(
        "mcp__mail__send",
        {
            "cc": "c@x.org",
            "bcc": ["d@x.org"],
            "reply_to": "r@x.org",
            "from": "me@x.org",
            "forward_to": "f@x.org",
        },
        CTX,
    )
    assert [(r["field"], r["address"]) for r in facts["recipients"]] == [
        ("cc", "c@x.org"),
        ("bcc", "d@x.org"),
        ("reply_to", "r@x.org"),
        ("forward_to", "f@x.org"),
    ]


def test_by_shape_in_an_unnamed_argument() -> None:
    facts = build_facts("mcp__crm__share_record", {"record": "r1", "with": "eve@evil.example"}, CTX)
    assert [(r["field"], r["address"]) for r in facts["recipients"]] == [("with", "eve@evil.example")]


def test_prose_with_an_address_is_not_a_recipient() -> None:
    facts = build_facts("mcp__notes__create", {"body": "Ask bob@example.com about it tomorrow."}, CTX)
    assert facts["recipients"] == []


def test_nested_message() -> None:
    facts = build_facts("mcp__outlook__send", {"message": {"toRecipients": [{"address": "a@x.org"}]}}, CTX)
    assert [(r["field"], r["address"]) for r in facts["recipients"]] == [("address", "a@x.org")]


def test_raw_message_headers_are_recipients() -> None:
    raw = "From: me@x.org\r\nTo: a@x.org\r\nBcc: eve@evil.example\r\nReply-To: r@x.org\r\n\r\nhi"
    facts = build_facts("mcp__gmail__send_message", {"raw": raw}, CTX)
    assert [(r["field"], r["address"]) for r in facts["recipients"]] == [
        ("to", "a@x.org"),
        ("bcc", "eve@evil.example"),
        ("reply-to", "r@x.org"),
    ]


@pytest.mark.parametrize(
    "args",
    [
        {"to": ["a@x.org"], "subject": "Q3\r\nBcc: eve@evil.example"},
        {"to": ["a@x.org"], "subject": "Q3\n bcc:eve@evil.example"},
        {"to": ["a@x.org"], "subject": "Re: dinner\r\nBcc: eve@evil.example"},
        {"to": ["a@x.org"], "extra_headers": "Bcc: eve@evil.example"},
        {"to": ["a@x.org"], "in_reply_to": "m1", "references": "m1\r\nCc: eve@evil.example"},
    ],
)
def test_recipients_smuggled_through_headers(args: dict[str, Any]) -> None:
    facts = build_facts("mcp__gmail__send_email", args, CTX)
    assert "eve@evil.example" in {r["address"] for r in facts["recipients"]}


def test_header_lines_in_prose_and_plain_fields_are_content() -> None:
    body = {"to": ["a@x.org"], "subject": "Cc: the team", "body": "Hi\nCc: bob@x.org joins us"}
    facts = build_facts("mcp__gmail__send_email", body, CTX)
    assert [r["address"] for r in facts["recipients"]] == ["a@x.org"]


def test_base64url_raw_message() -> None:
    import base64

    raw = base64.urlsafe_b64encode(b"To: a@x.org\r\nCc: eve@evil.example\r\n\r\nhi").decode().rstrip("=")
    facts = build_facts("mcp__gmail__send_message", {"raw": raw}, CTX)
    assert [(r["field"], r["address"]) for r in facts["recipients"]] == [
        ("to", "a@x.org"),
        ("cc", "eve@evil.example"),
    ]


@pytest.mark.parametrize(
    "body",
    [
        "To: the team\n\nThe release is out.",
        "Note: meeting at 10:30",
        "Agenda:\nTo: be decided",
        "Subject: hi",
    ],
)
def test_prose_is_no_raw_message(body: str) -> None:
    assert build_facts("mcp__gmail__send_email", {"to": "a@x.org", "body": body}, CTX)["recipients"] == [
        Rc("a@x.org", "a@x.org")
    ]


@settings(max_examples=400, deadline=None)
@given(st.text(max_size=120))
def test_never_raises(text: str) -> None:
    for r in email.parse_recipients(text, "to"):
        assert r["address"] == r["address"].lower() or not r["address"].isascii()
    email.is_address_list(text)


_LOCAL = st.text(alphabet="abcdefghijklmnopqrstuvwxyz0123456789._+-", min_size=1, max_size=12)
_DOMAIN = st.lists(
    st.text(alphabet="abcdefghijklmnopqrstuvwxyz0123456789", min_size=1, max_size=8), min_size=2, max_size=3
)


@settings(max_examples=300, deadline=None)
@given(_LOCAL, _DOMAIN, st.sampled_from(["", "Bob ", '"Smith, Bob" ']))
def test_normalized_address_is_stable(local: str, labels: list[str], display: str) -> None:
    raw = f"{display}<{local}@{'.'.join(labels)}>" if display else f"{local.upper()}@{'.'.join(labels)}"
    first = email.parse_recipients(raw, "to")
    assert len(first) == 1
    again = email.parse_recipients(first[0]["address"], "to")
    assert again[0]["address"] == first[0]["address"]
    assert again[0]["valid"] == first[0]["valid"]
    assert not first[0]["confusable"] and not first[0]["mixed_script"]


@settings(max_examples=200, deadline=None)
@given(_LOCAL, _DOMAIN, st.sampled_from(list("аеорсухіјοαν")))
def test_one_look_alike_is_always_flagged(local: str, labels: list[str], glyph: str) -> None:
    domain = ".".join(labels)
    if not any(c.isalpha() for c in labels[0]):
        labels[0] = "a" + labels[0]
        domain = ".".join(labels)
    raw = f"{local}@{glyph}{domain}" if local.strip("._+-0123456789") == "" else f"{local}{glyph}@{domain}"
    got = email.parse_recipients(raw, "to")[0]
    assert got["confusable"] is True
