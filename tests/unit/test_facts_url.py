"""URLs: scheme, IDNA host, port, credentials, secrets, IP flags."""

from __future__ import annotations

from typing import Any

import pytest
from facts_helpers import CTX, U
from hypothesis import given, settings
from hypothesis import strategies as st

from opafence.facts import build_facts, url

CASES: list[tuple[str, str, dict[str, Any]]] = [
    (
        "plain",
        "https://example.com/a/b",
        U("https://example.com/a/b", "https", "example.com", path="/a/b", arg="urls"),
    ),
    (
        "case and port",
        "HTTPS://Example.COM:8443/x?q=1",
        U(
            "HTTPS://Example.COM:8443/x?q=1",
            "https",
            "example.com",
            port=8443,
            path="/x",
            query_len=3,
            arg="urls",
        ),
    ),
    (
        "trailing dot",
        "http://example.com./",
        U("http://example.com./", "http", "example.com", path="/", arg="urls"),
    ),
    (
        "IDNA host",
        "https://bücher.example/",
        U("https://bücher.example/", "https", "xn--bcher-kva.example", path="/", arg="urls"),
    ),
    (
        "fullwidth host folds to ASCII",
        "https://ｅｘａｍｐｌｅ.com/",
        U("https://ｅｘａｍｐｌｅ.com/", "https", "example.com", path="/", arg="urls"),
    ),
    (
        "percent-encoded host",
        "http://%65vil.com/",
        U("http://%65vil.com/", "http", "evil.com", path="/", arg="urls"),
    ),
    (
        "credentials",
        "https://user:hunter2@example.com/",
        U(
            "https://user:hunter2@example.com/",
            "https",
            "example.com",
            path="/",
            has_credentials=True,
            secret_like=True,
            arg="urls",
        ),
    ),
    (
        "token as user name",
        "https://ghp_0123456789abcdefghijklmnopqrstuvwxyzAB@github.com/o/r.git",
        U(
            "https://ghp_0123456789abcdefghijklmnopqrstuvwxyzAB@github.com/o/r.git",
            "https",
            "github.com",
            path="/o/r.git",
            has_credentials=True,
            secret_like=True,
            arg="urls",
        ),
    ),
    (
        "secret-named query parameter",
        "https://api.example.com/v1?api_key=abcd1234efgh",
        U(
            "https://api.example.com/v1?api_key=abcd1234efgh",
            "https",
            "api.example.com",
            path="/v1",
            query_len=20,
            secret_like=True,
            arg="urls",
        ),
    ),
    (
        "high-entropy query value",
        "https://collect.example/p?d=Zx8Qk2LmP9aB7cR4tY6wE1uI3oN5",
        U(
            "https://collect.example/p?d=Zx8Qk2LmP9aB7cR4tY6wE1uI3oN5",
            "https",
            "collect.example",
            path="/p",
            query_len=30,
            secret_like=True,
            arg="urls",
        ),
    ),
    (
        "ordinary query is not a secret",
        "https://www.example.com/search?q=opa+rego+tutorial&page=2",
        U(
            "https://www.example.com/search?q=opa+rego+tutorial&page=2",
            "https",
            "www.example.com",
            path="/search",
            query_len=26,
            arg="urls",
        ),
    ),
    (
        "commit hash in the path is not a secret",
        "https://github.com/o/r/commit/3f2a9c1d8e7b6a5f4e3d2c1b0a9f8e7d6c5b4a39",
        U(
            "https://github.com/o/r/commit/3f2a9c1d8e7b6a5f4e3d2c1b0a9f8e7d6c5b4a39",
            "https",
            "github.com",
            path="/o/r/commit/3f2a9c1d8e7b6a5f4e3d2c1b0a9f8e7d6c5b4a39",
            arg="urls",
        ),
    ),
    (
        "loopback",
        "http://127.0.0.1:8080/admin",
        U(
            "http://127.0.0.1:8080/admin",
            "http",
            "127.0.0.1",
            port=8080,
            path="/admin",
            ip=True,
            loopback=True,
            private=True,
            arg="urls",
        ),
    ),
    (
        "decimal IPv4",
        "http://2130706433/",
        U(
            "http://2130706433/",
            "http",
            "127.0.0.1",
            path="/",
            ip=True,
            loopback=True,
            private=True,
            arg="urls",
        ),
    ),
    (
        "hex and short IPv4",
        "http://0x7f.1/",
        U("http://0x7f.1/", "http", "127.0.0.1", path="/", ip=True, loopback=True, private=True, arg="urls"),
    ),
    (
        "cloud metadata",
        "http://169.254.169.254/latest/meta-data/",
        U(
            "http://169.254.169.254/latest/meta-data/",
            "http",
            "169.254.169.254",
            path="/latest/meta-data/",
            ip=True,
            private=True,
            arg="urls",
        ),
    ),
    (
        "private network",
        "http://10.1.2.3/",
        U("http://10.1.2.3/", "http", "10.1.2.3", path="/", ip=True, private=True, arg="urls"),
    ),
    (
        "IPv6 loopback",
        "http://[::1]:3000/",
        U(
            "http://[::1]:3000/",
            "http",
            "::1",
            port=3000,
            path="/",
            ip=True,
            loopback=True,
            private=True,
            arg="urls",
        ),
    ),
    (
        "IPv4-mapped IPv6",
        "http://[::ffff:127.0.0.1]/",
        U(
            "http://[::ffff:127.0.0.1]/",
            "http",
            "127.0.0.1",
            path="/",
            ip=True,
            loopback=True,
            private=True,
            arg="urls",
        ),
    ),
    (
        "unspecified address",
        "http://0.0.0.0:9000/",
        U(
            "http://0.0.0.0:9000/",
            "http",
            "0.0.0.0",
            port=9000,
            path="/",
            ip=True,
            loopback=True,
            private=True,
            arg="urls",
        ),
    ),
    (
        "localhost name",
        "http://api.localhost/",
        U(
            "http://api.localhost/",
            "http",
            "api.localhost",
            path="/",
            loopback=True,
            private=True,
            arg="urls",
        ),
    ),
    ("public IP", "http://8.8.8.8/", U("http://8.8.8.8/", "http", "8.8.8.8", path="/", ip=True, arg="urls")),
    (
        "bare host gets https",
        "example.org/page",
        U("example.org/page", "https", "example.org", path="/page", arg="urls"),
    ),
    (
        "localhost without scheme",
        "localhost:5000/x",
        U(
            "localhost:5000/x",
            "http",
            "localhost",
            port=5000,
            path="/x",
            loopback=True,
            private=True,
            arg="urls",
        ),
    ),
    (
        "javascript scheme",
        "javascript:alert(1)",
        U("javascript:alert(1)", "javascript", "", path="alert(1)", arg="urls"),
    ),
    (
        "data URL",
        "data:text/html;base64,PGI+",
        U("data:text/html;base64,PGI+", "data", "", path="text/html;base64", arg="urls"),
    ),
]


@pytest.mark.parametrize(("raw", "want"), [pytest.param(r, w, id=i) for i, r, w in CASES])
def test_web_extract_urls(raw: str, want: dict[str, Any]) -> None:
    facts = build_facts("web_extract", {"urls": [raw]}, CTX)
    assert facts["urls"] == [want]


def test_browser_navigate() -> None:
    facts = build_facts("browser_navigate", {"url": "https://Example.com/login"}, CTX)
    assert facts["urls"] == [U("https://Example.com/login", "https", "example.com", path="/login", arg="url")]


def test_file_url_is_also_a_path() -> None:
    facts = build_facts("browser_navigate", {"url": "file:///etc/passwd"}, CTX)
    assert facts["urls"] == [U("file:///etc/passwd", "file", "", path="/etc/passwd", arg="url")]
    assert facts["paths"] == [
        {"raw": "/etc/passwd", "path": "/etc/passwd", "arg": "url", "via": "arg", "op": ""}
    ]


def test_bad_port_is_opaque() -> None:
    facts = build_facts("web_extract", {"urls": ["http://example.com:99999999/"]}, CTX)
    assert facts["opaque_reasons"] == ["url_bad_port"]


def test_urls_in_text() -> None:
    found = url.find_in_text("see https://a.example/x, then (http://b.example/y).", "body")
    assert [f["host"] for f in found] == ["a.example", "b.example"]
    assert [f["raw"] for f in found] == ["https://a.example/x", "http://b.example/y"]


@settings(max_examples=400, deadline=None)
@given(st.text(max_size=120))
def test_never_raises(text: str) -> None:
    fact, problem = url.parse_target(text, "x")
    assert fact is None or isinstance(fact["host"], str)
    assert isinstance(problem, str)
    url.find_in_text(text, "x")
    url.remote_target(text, "x", "ssh")


_LABEL = st.text(alphabet="abcdefghijklmnopqrstuvwxyz0123456789", min_size=1, max_size=10)


@settings(max_examples=300, deadline=None)
@given(
    st.lists(_LABEL, min_size=2, max_size=4),
    st.sampled_from(["http", "https", "ftp", "ws"]),
    st.one_of(st.none(), st.integers(1, 65535)),
    st.text(alphabet="abc/._-", max_size=20),
)
def test_normalized_url_is_stable(labels: list[str], scheme: str, port: int | None, path: str) -> None:
    """Rebuilding a URL from its normalized parts and parsing it again gives the same parts."""
    raw = f"{scheme}://{'.'.join(labels).upper()}{f':{port}' if port else ''}/{path}"
    first, _ = url.parse(raw, "a")
    assert first is not None
    port_part = f":{first['port']}" if first["port"] else ""
    again_raw = f"{first['scheme']}://{first['host']}{port_part}{first['path']}"
    again, _ = url.parse(again_raw, "a")
    assert again is not None
    for key in ("scheme", "host", "port", "path", "ip", "loopback", "private"):
        assert again[key] == first[key]
    assert first["host"] == first["host"].lower()


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet="abcüßéñ漢字-.", min_size=1, max_size=20))
def test_idna_host_is_ascii_and_stable(host: str) -> None:
    encoded, _flags, ok = url.normalize_host(host)
    if ok:
        assert encoded.isascii()
        assert url.normalize_host(encoded)[0] == encoded


@pytest.mark.parametrize(
    ("raw", "host", "path"),
    [
        ("http://evil.example\\@good.example/", "evil.example", "/@good.example/"),
        ("http:/\\evil.example/x", "evil.example", "/x"),
        ("http:evil.example", "evil.example", ""),
        ("https:////evil.example/", "evil.example", "/"),
        ("https://ev\til.exa\nmple/", "evil.example", "/"),
        ("http://good.example#@evil.example", "good.example", ""),
        ("http://good.example?@evil.example", "good.example", ""),
        ("http://user@evil.example@good.example/", "good.example", "/"),
    ],
    ids=[
        "backslash before @",
        "slash-backslash",
        "no slashes",
        "many slashes",
        "tab and newline",
        "fragment",
        "query",
        "two @",
    ],
)
def test_host_is_where_a_browser_would_go(raw: str, host: str, path: str) -> None:
    fact, _ = url.parse(raw, "url")
    assert fact is not None
    assert (fact["host"], fact["path"]) == (host, path)


@pytest.mark.parametrize(
    ("host", "carries"),
    [
        ("aGVsbG8gd29ybGQgdGhpcyBpcyBzZWNyZXQxMjM0NTY.evil.test", True),  # base64, both cases
        ("c2VjcmV0c2VjcmV.evil.test", True),  # 15 characters of base64
        ("mfrggzdfmztwq2lk.evil.test", True),  # base32: no vowels
        ("deadbeefcafebabe0123.evil.test", True),  # hex
        ("a.b.c.d.e.f.evil.test", True),  # many labels
        ("x" * 41 + ".evil.test", True),  # one very long label
        ("github.com", False),
        ("docs.python.org", False),
        ("files.pythonhosted.org", False),
        ("mycompany-prod-artifacts-2023.s3.amazonaws.com", False),
        ("dualstack.x.us-east-1.elb.amazonaws.com", False),
        ("internationalization.example.com", False),
        ("d111111abcdef8.cloudfront.net", False),
        ("xn--bcher-kva-aaaaaaaaaaaa.example", False),  # punycode is not encoded data
        ("127.0.0.1", False),
        ("[::1]", False),
    ],
)
def test_host_data(host: str, carries: bool) -> None:
    assert url.host_data(host) is carries
    fact, _ = url.parse(f"https://{host}/", "urls")
    assert fact is not None and fact["host_data"] is carries


def test_hostless_urls_carry_no_host_data() -> None:
    for raw in ("javascript:alert(1)", "data:text/html,x", "mailto:a@b.test"):
        fact, _ = url.parse_target(raw, "url")
        assert fact is not None and fact["host_data"] is False, raw


@pytest.mark.parametrize(
    ("host", "loopback", "private"),
    [
        ("127.0.0.1.nip.io", True, True),
        ("magic-127.0.0.1.nip.io", True, True),
        ("7f000001.nip.io", True, True),
        ("app.10-0-0-5.sslip.io", False, True),
        ("192.168.1.1.xip.io", False, True),
        ("lvh.me", True, True),
        ("admin.localtest.me", True, True),
        ("8.8.8.8.nip.io", False, False),
        ("deadbeef.nip.io", False, False),  # a public address in hex
        ("nip.io", False, False),
    ],
)
def test_names_that_resolve_to_this_machine_or_its_network(host: str, loopback: bool, private: bool) -> None:
    _, flags, ok = url.normalize_host(host)
    assert ok and flags == {"ip": False, "loopback": loopback, "private": private}


# A GET carries data in its path when a segment looks like an encoded token; commit ids,
# UUIDs and words do not (then the key is absent).
PATH_DATA = [
    ("https://e.test/i/Zq8Xv3Lp7Rt2Wm9Kb4Nc6Yh1Js5Ue0Da8Fg3Hk", True),
    ("https://e.test/i/Zq8Xv3Lp7Rt2Wm9Kb4Nc6Yh1Js5Ue0Da8Fg3Hk/x.png", True),
    ("https://github.com/acme/app/commit/3f786850e387550fdab836ed7e6dc881de23001b", False),
    ("https://status.example.com/incidents/550e8400-e29b-41d4-a716-446655440000", False),
    ("https://docs.python.org/3/library/hashlib.html", False),
]


@pytest.mark.parametrize(("raw", "want"), PATH_DATA)
def test_path_data(raw: str, want: bool) -> None:
    fact, problem = url.parse(raw, "url")
    assert problem == "" and fact is not None
    assert fact.get("path_data", False) is want
