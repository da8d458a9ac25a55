"""URLs -> normalized facts (docs/contract.md, `urls`).

Host lower-cased, percent-decoded, trailing dot removed and IDNA (punycode) encoded; legacy
IPv4 spellings (`2130706433`, `0x7f.1`, `127.1`) normalized to dotted quads so that `ip`,
`loopback` and `private` cannot be dodged.
"""

from __future__ import annotations

import ipaddress
import re
import socket
from typing import Any
from urllib.parse import parse_qsl, unquote, urlsplit

import idna

from opafence.facts import secrets

MAX_URL = 16384

# scheme://... anywhere in a string (for URLs inside commands, code and free text)
URL_IN_TEXT = re.compile(r"(?i)\b[a-z][a-z0-9+.-]{1,15}://[^\s\"'<>`\\|{}^]+")
_SPACE = re.compile(r"\s")
_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]{0,31}:")
_HOSTISH = re.compile(r"^(?:[A-Za-z0-9-]{1,63}\.)+[A-Za-z]{2,63}\.?(?::\d{1,5})?(?:[/?#].*)?$")

_SECRET_PARAMS = re.compile(
    r"(?i)^(?:.*[_-])?(?:token|key|apikey|api_key|secret|password|passwd|pwd|auth|sig|signature|credential"
    r"|session|sessionid|access_token|code)$"
)
_LOCAL_TARGET = re.compile(
    r"^(?:localhost|[A-Za-z0-9-]+|\d{1,3}(?:\.\d{1,3}){3}|\[[0-9A-Fa-f:.]+\])(?::\d{1,5})(?:[/?#].*)?$"
    r"|^(?:localhost|\d{1,3}(?:\.\d{1,3}){3}|\[[0-9A-Fa-f:.]+\])(?:[/?#].*)?$"
)
_LOCAL_NAMES = ("localhost", "localhost.localdomain", "ip6-localhost", "ip6-loopback")


def is_url(text: str) -> bool:
    """A string that is exactly one URL with an authority (`scheme://...`) or a data:/mailto: URL."""
    t = text.strip()
    if not t or len(t) > MAX_URL or _SPACE.search(t):
        return False
    low = t[:12].lower()
    if low.startswith(("data:", "mailto:")):
        return True
    return "://" in t and bool(_SCHEME.match(t)) and t.index("://") == t.index(":")


def looks_like_host(text: str) -> bool:
    """`example.com`, `example.com/x`, `api.example.com:8443` (curl and wget accept these)."""
    return bool(_HOSTISH.match(text)) and not text.startswith("-")


def _legacy_ipv4(host: str) -> str | None:
    # inet_aton accepts 127.1, 0x7f.0.0.1, 017700000001 and 2130706433 like browsers and curl do.
    if not host or not all(c in "0123456789abcdefxABCDEFX." for c in host):
        return None
    if not any(c.isdigit() for c in host):
        return None
    try:
        return socket.inet_ntoa(socket.inet_aton(host))
    except (OSError, ValueError):
        return None


def _encode_host(host: str) -> tuple[str, bool]:
    """(ascii host, ok). ok is False when the host cannot be IDNA-encoded."""
    if host.isascii():
        return host.lower(), True
    try:
        return idna.encode(host, uts46=True).decode("ascii"), True
    except (idna.IDNAError, UnicodeError, ValueError):
        pass
    try:
        return host.encode("idna").decode("ascii").lower(), True
    except (UnicodeError, ValueError):
        return host.lower(), False


def normalize_host(raw_host: str) -> tuple[str, dict[str, bool], bool]:
    """(host, flags, ok) with flags ip / loopback / private."""
    host = unquote(raw_host).strip().rstrip(".")
    flags = {"ip": False, "loopback": False, "private": False}
    if host.startswith("[") and host.endswith("]"):
        host = host[1:-1]
    zone = host.find("%")
    bare = host[:zone] if zone >= 0 else host
    addr: ipaddress.IPv4Address | ipaddress.IPv6Address | None = None
    try:
        addr = ipaddress.ip_address(bare)
    except ValueError:
        legacy = _legacy_ipv4(bare)
        if legacy is not None:
            addr = ipaddress.ip_address(legacy)
    if addr is not None:
        if isinstance(addr, ipaddress.IPv6Address) and addr.ipv4_mapped is not None:
            addr = addr.ipv4_mapped
        flags["ip"] = True
        flags["loopback"] = addr.is_loopback or addr.is_unspecified
        flags["private"] = addr.is_private or addr.is_link_local or addr.is_reserved or flags["loopback"]
        return str(addr), flags, True
    encoded, ok = _encode_host(host)
    if encoded in _LOCAL_NAMES or encoded.endswith(".localhost") or _loopback_alias(encoded):
        flags["loopback"] = True
        flags["private"] = True
    elif encoded.endswith((".local", ".internal", ".lan", ".home.arpa")):
        flags["private"] = True
    else:
        embedded = _wildcard_dns_address(encoded)
        if embedded is not None:
            flags["loopback"] = embedded.is_loopback or embedded.is_unspecified
            flags["private"] = embedded.is_private or embedded.is_link_local or flags["loopback"]
    return encoded, flags, ok


# Public names that resolve to this machine, and wildcard DNS services that answer with the
# address written in the name (`127.0.0.1.nip.io`, `10-0-0-5.sslip.io`, `7f000001.nip.io`).
_LOOPBACK_ALIASES = ("lvh.me", "localtest.me", "vcap.me")
_WILDCARD_DNS = re.compile(
    r"(?:^|[.-])((?:\d{1,3}[.-]){3}\d{1,3}|[0-9a-f]{8})\.(?:nip\.io|sslip\.io|xip\.io|traefik\.me|nip\.direct)$"
)


def _loopback_alias(host: str) -> bool:
    return any(host == a or host.endswith("." + a) for a in _LOOPBACK_ALIASES)


def _wildcard_dns_address(host: str) -> ipaddress.IPv4Address | None:
    m = _WILDCARD_DNS.search(host)
    if m is None:
        return None
    text = m.group(1)
    try:
        if len(text) == 8 and "." not in text and "-" not in text:
            return ipaddress.IPv4Address(int(text, 16))
        return ipaddress.IPv4Address(text.replace("-", "."))
    except ValueError:
        return None


_LABEL_FILLER = str.maketrans("", "", "-_")
_VOWELS = frozenset("aeiouyAEIOUY")


_HEX = frozenset("0123456789abcdefABCDEF")


def _encoded_label(label: str) -> bool:
    """A host label that looks like encoded data (hex, base32, base64) rather than a name."""
    core = label.translate(_LABEL_FILLER)
    if len(core) < 12 or label.lower().startswith("xn--"):
        return False
    letters = [c for c in core if c.isalpha()]
    digits = len(core) - len(letters)
    if digits and any(c.isupper() for c in letters) and any(c.islower() for c in letters):
        return True  # base64: both cases and digits
    if len(core) < 16:
        return False
    if digits * 4 >= len(core) or (digits and all(c in _HEX for c in core)):
        return True
    return not letters or sum(c in _VOWELS for c in letters) * 5 < len(letters)


def host_data(raw_host: str) -> bool:
    """True when a host name could carry data to whoever answers for its domain (DNS
    exfiltration): a label that looks encoded, a very long label, or very many labels. Judged
    on the name as written (before lower-casing), so base64's mixed case still shows."""
    host = (unquote(raw_host) if "%" in raw_host else raw_host).strip().rstrip(".")
    if len(host) < 12 or host.startswith("["):
        return False
    labels = host.split(".")
    if len(labels) >= 7 or len(host) - len(labels[-1]) - len(labels[-2] if len(labels) > 1 else "") >= 50:
        return not _legacy_ipv4(host)
    return any(len(x) >= 12 and (len(x) >= 40 or _encoded_label(x)) for x in labels)


def _secret_like(raw: str, query: str, fragment: str, has_credentials: bool) -> bool:
    if has_credentials or secrets.find_kinds(unquote(raw)):
        return True
    for part in (query, fragment):
        if not part:
            continue
        for key, value in parse_qsl(part, keep_blank_values=True):
            if _SECRET_PARAMS.match(key) and len(value) >= 8:
                return True
            if secrets.looks_random(value):
                return True
        if "=" not in part and secrets.looks_random(part):
            return True
    return False


_SPECIAL_SCHEMES = ("http", "https", "ws", "wss", "ftp", "file")
_STRIPPED = str.maketrans("", "", "\t\n\r")


def _whatwg(text: str) -> str:
    """Read a URL the way browsers and curl-like clients do, not only the way urlsplit does:
    tabs and newlines are dropped, and for http(s)/ws(s)/ftp/file a backslash is a slash and
    any run of slashes after the scheme starts the host (`http:/\\evil.com`, and
    `http://evil.com\\@good.com` goes to evil.com)."""
    text = text.translate(_STRIPPED)
    colon = text.find(":")
    if colon <= 0 or text[:colon].lower() not in _SPECIAL_SCHEMES:
        return text
    rest = text[colon + 1 :].replace("\\", "/")
    stripped = rest.lstrip("/")
    if text[:colon].lower() == "file":
        return f"{text[:colon]}://{rest[2:] if rest.startswith('//') else rest}"
    return f"{text[:colon]}://{stripped}"


def parse(raw: str, arg: str, default_scheme: str = "") -> tuple[dict[str, Any] | None, str]:
    """One URL -> (facts, problem). facts is None when the text is not a URL at all;
    problem is a reason code when it is one but could not be fully understood."""
    text = raw.strip()
    if text[:5].lower() == "data:":
        # Inline content, not a place: no host, nothing fetched. Its size is not the query.
        return _data_url(raw, arg), ""
    if not text or len(text) > MAX_URL:
        return None, ""
    text = _whatwg(text)
    if "://" not in text and not text.lower().startswith(("data:", "mailto:")):
        if not default_scheme:
            return None, ""
        text = f"{default_scheme}://{text}"
    try:
        parts = urlsplit(text)
    except ValueError:
        return None, "url_unparsable"
    scheme = parts.scheme.lower()
    netloc = parts.netloc
    userinfo, _, hostport = netloc.rpartition("@")
    user, has_pw, _password = userinfo.partition(":")
    host = hostport
    port: int | None = None
    problem = ""
    if hostport.startswith("["):
        close = hostport.find("]")
        host = hostport[: close + 1] if close >= 0 else hostport
        rest = hostport[close + 1 :] if close >= 0 else ""
        if rest.startswith(":") and rest[1:].isdigit():
            port = int(rest[1:])
    elif ":" in hostport:
        host, _, port_text = hostport.rpartition(":")
        if port_text.isdigit() and len(port_text) <= 5:
            port = int(port_text)
        elif port_text:
            problem = "url_bad_port"
    norm_host, flags, ok = normalize_host(host)
    if not ok:
        problem = "url_bad_host"
    has_credentials = bool(has_pw) or (bool(user) and scheme in ("http", "https", "ftp", "ftps", "ws", "wss"))
    fact = {
        "raw": raw,
        "scheme": scheme,
        "host": norm_host,
        "port": port,
        "path": parts.path,
        "query_len": len(parts.query),
        "has_credentials": has_credentials,
        "secret_like": _secret_like(text, parts.query, parts.fragment, has_credentials),
        "ip": flags["ip"],
        "loopback": flags["loopback"],
        "private": flags["private"],
        "arg": arg,
        "host_data": not flags["ip"] and host_data(host),
    }
    if path_data(parts.path):
        fact["path_data"] = True  # only when true: most URLs carry none
    return fact, problem


def path_data(path: str) -> bool:
    """A path segment that looks like an encoded token rather than a name (`/i/Zq8Xv3Lp…`):
    a GET carries data in it. Hex digests, UUIDs and words are not random enough to count."""
    if len(path) < 21:
        return False
    text = unquote(path) if "%" in path else path
    return any(secrets.looks_random(seg, 20) for seg in text.split("/") if len(seg) >= 20)


def _data_url(raw: str, arg: str) -> dict[str, Any]:
    head = raw.strip()[5:].split(",", 1)[0][:200]
    return {
        "raw": raw if len(raw) <= 256 else raw[:256],
        "scheme": "data",
        "host": "",
        "port": None,
        "path": head,
        "query_len": 0,
        "has_credentials": False,
        "secret_like": False,
        "ip": False,
        "loopback": False,
        "private": False,
        "arg": arg,
        "host_data": False,
    }


def remote_target(text: str, arg: str, scheme: str) -> tuple[dict[str, Any] | None, str]:
    """`user@host:path` (scp, rsync, git) or `user@host` / `host` (ssh, nc) as a URL fact."""
    t = text.strip()
    if not t or t.startswith(("-", "/", ".")) or _SPACE.search(t):
        return None, ""
    if "://" in t:
        return parse(t, arg)
    host_part = t
    path = ""
    if ":" in t and not t.startswith("["):
        host_part, _, path = t.partition(":")
    user, _, host = host_part.rpartition("@")
    if not host or not re.fullmatch(r"[A-Za-z0-9._\-\[\]%:]+", host):
        return None, ""
    if not ("." in host or host in _LOCAL_NAMES or _legacy_ipv4(host) or user):
        return None, ""
    norm_host, flags, ok = normalize_host(host)
    return {
        "raw": text,
        "scheme": scheme,
        "host": norm_host,
        "port": None,
        "path": path,
        "query_len": 0,
        "has_credentials": False,
        "secret_like": bool(secrets.find_kinds(t)),
        "ip": flags["ip"],
        "loopback": flags["loopback"],
        "private": flags["private"],
        "arg": arg,
        "host_data": not flags["ip"] and host_data(host),
    }, ("" if ok else "url_bad_host")


def find_in_text(text: str, arg: str, limit: int = 257) -> list[dict[str, Any]]:
    """Every scheme:// URL inside a longer text (code, JS, free-form arguments)."""
    found: list[dict[str, Any]] = []
    for m in URL_IN_TEXT.finditer(text[: secrets.MAX_SCAN]):
        fact, _ = parse(m.group(0).rstrip(".,;:)]}"), arg)
        if fact is not None:
            found.append(fact)
            if len(found) >= limit:
                break
    return found


def parse_target(raw: str, arg: str) -> tuple[dict[str, Any] | None, str]:
    """An argument that names a place to go (browser_navigate `url`, web_extract `urls`):
    a URL, a bare host (https assumed, as browsers do), or any `scheme:` (javascript:, about:)."""
    text = raw.strip()
    if is_url(text) or text[:5].lower() == "data:":
        return parse(text, arg)
    if looks_like_host(text):
        return parse(text, arg, default_scheme="https")
    if _LOCAL_TARGET.match(text):
        return parse(text, arg, default_scheme="http")
    m = _SCHEME.match(text)
    if m and len(text) <= MAX_URL:
        scheme = m.group(0)[:-1].lower()
        return {
            "raw": raw,
            "scheme": scheme,
            "host": "",
            "port": None,
            "path": text[len(m.group(0)) :][:1024],
            "query_len": 0,
            "has_credentials": False,
            "secret_like": bool(secrets.find_kinds(text)),
            "ip": False,
            "loopback": False,
            "private": False,
            "arg": arg,
            "host_data": False,
        }, ""
    return None, ("url_unparsable" if text else "")
