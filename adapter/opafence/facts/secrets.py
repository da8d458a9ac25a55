"""Secret-shaped strings (docs/contract.md, `secrets`).

Detectors are anchored on formats that real credentials have (prefixes, fixed lengths, PEM
armour, JWT structure) so that ordinary prose and code do not match; the generic ones need an
assignment to a credential-named key *and* a literal value that looks random.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from typing import Any

MAX_SCAN = 4 << 20  # characters of one string scanned (the caller bounds the total)

_PLACEHOLDERS = frozenset(
    {
        "password",
        "passwd",
        "changeme",
        "example",
        "placeholder",
        "redacted",
        "secret",
        "your_password",
        "yourpassword",
        "your_api_key",
        "your_token",
        "mypassword",
        "none",
        "null",
        "true",
        "false",
        "undefined",
    }
)

# (kind, lower-case substrings one of which must be present, pattern): the substring test is
# a cheap prefilter so that ordinary text costs one lower() and a few `in` checks.
_DETECTORS: tuple[tuple[str, tuple[str, ...], re.Pattern[str]], ...] = (
    ("private_key", ("private key",), re.compile(r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----")),
    (
        "aws_access_key",
        ("akia", "asia", "abia", "acca", "agpa", "aida", "aroa"),
        re.compile(r"(?<![A-Z0-9])(?:AKIA|ASIA|ABIA|ACCA|AGPA|AIDA|AROA)[A-Z0-9]{16}(?![A-Z0-9])"),
    ),
    (
        "aws_access_key",
        ("aws",),
        re.compile(r"(?i)aws_?secret_?access_?key[\"']?\s*[:=]\s*[\"']?[A-Za-z0-9/+]{40}(?![A-Za-z0-9/+])"),
    ),
    (
        "github_token",
        ("ghp_", "gho_", "ghu_", "ghs_", "ghr_"),
        re.compile(r"(?<![A-Za-z0-9_])gh[pousr]_[A-Za-z0-9]{36,255}(?![A-Za-z0-9_])"),
    ),
    (
        "github_token",
        ("github_pat_",),
        re.compile(r"(?<![A-Za-z0-9_])github_pat_[A-Za-z0-9]{22}_[A-Za-z0-9]{59}(?![A-Za-z0-9_])"),
    ),
    ("gitlab_token", ("glpat-",), re.compile(r"(?<![A-Za-z0-9_])glpat-[A-Za-z0-9_-]{20,}(?![A-Za-z0-9_-])")),
    ("slack_token", ("xox",), re.compile(r"(?<![A-Za-z0-9])xox[abposre]-[A-Za-z0-9-]{10,}")),
    (
        "slack_token",
        ("hooks.slack.com",),
        re.compile(r"hooks\.slack\.com/services/T[A-Z0-9]{6,}/B[A-Z0-9]{6,}/[A-Za-z0-9]{16,}"),
    ),
    (
        "openai_key",
        ("sk-",),
        re.compile(r"(?<![A-Za-z0-9_-])sk-(?:proj-|ant-|svcacct-|admin-)?[A-Za-z0-9_-]{32,}"),
    ),
    ("google_api_key", ("aiza",), re.compile(r"(?<![A-Za-z0-9_])AIza[0-9A-Za-z_-]{35}(?![A-Za-z0-9_-])")),
    ("stripe_key", ("_live_",), re.compile(r"(?<![A-Za-z0-9_])(?:sk|rk)_live_[0-9a-zA-Z]{20,}")),
    (
        "jwt",
        ("eyj",),
        re.compile(r"(?<![A-Za-z0-9_-])eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}"),
    ),
    (
        "bearer",
        ("authorization",),
        re.compile(r"(?i)\bauthorization\s*[:=]\s*[\"']?(?:bearer|basic|token)\s+[A-Za-z0-9._~+/=-]{12,}"),
    ),
    ("bearer", ("bearer",), re.compile(r"\bBearer\s+[A-Za-z0-9._~+/-]{20,}=*")),
    # An encrypted wallet keystore (Ethereum v3 and its kin): the key, under a passphrase.
    (
        "wallet",
        ("ciphertext",),
        re.compile(r'(?is)"crypto"\s*:\s*\{.{0,400}?"ciphertext"\s*:\s*"[0-9a-f]{32,}"'),
    ),
)

# `password = "hunter22"`, `PASSWORD: s3cr3t!`, `--password=x7y8z9`; the value must be a literal
# (not a call, a variable, a template or an environment reference).
_ASSIGN = re.compile(
    r"(?i)(?<![A-Za-z0-9])(?:password|passwd|passphrase|pwd|db_pass|secret|client_secret)"
    r"[\"']?\s*(?:=|:)\s*(?P<q>[\"']?)(?P<v>[^\s\"'`$<>{}()\[\],;]{6,200})(?P=q)"
)
_GENERIC = re.compile(
    r"(?i)(?<![A-Za-z0-9])(?:api[_-]?key|apikey|api[_-]?token|access[_-]?token|auth[_-]?token|secret[_-]?key"
    r"|private[_-]?token|access[_-]?key(?:[_-]?id)?|client[_-]?secret|x-api-key)"
    r"[\"']?\s*(?:=|:)\s*(?P<q>[\"']?)(?P<v>[A-Za-z0-9_\-./+=]{16,300})(?P=q)"
)


def _trie(words: set[str]) -> str:
    """One regex for many literal words, shared prefixes factored out (Python's re tries the
    branches of a flat alternation one by one at every position; a trie is about twice as fast)."""
    tree: dict[str, Any] = {}
    for word in words:
        node = tree
        for ch in word:
            node = node.setdefault(ch, {})
        node[""] = {}

    def build(node: dict[str, Any]) -> str:
        alts = [re.escape(ch) + build(sub) for ch, sub in sorted(node.items()) if ch]
        optional = "" in node
        if not alts:
            return ""
        body = alts[0] if len(alts) == 1 and not optional else "(?:" + "|".join(alts) + ")"
        return body + ("?" if optional else "")

    return build(tree)


_ANCHORS = re.compile(
    _trie({a for _, anchors, _ in _DETECTORS for a in anchors} | {"pass", "pwd", "secret", "key", "token"})
)


def entropy(text: str) -> float:
    """Shannon entropy in bits per character."""
    if not text:
        return 0.0
    n = len(text)
    return -sum(c / n * math.log2(c / n) for c in Counter(text).values())


def looks_random(value: str, min_len: int = 20) -> bool:
    """A long token with mixed character classes and high entropy (not a word, not a hex digest)."""
    if len(value) < min_len:
        return False
    classes = sum(
        (
            any(c.islower() for c in value),
            any(c.isupper() for c in value),
            any(c.isdigit() for c in value),
        )
    )
    if classes < 3:
        return False
    return entropy(value) >= 3.5


def _literal_value(value: str) -> bool:
    low = value.lower()
    if low in _PLACEHOLDERS or low.strip("*x.") == "":
        return False
    if low.startswith(("os.", "env.", "process.", "self.", "config.", "settings.", "%(", "getpass")):
        return False
    # A bare identifier (`password=pwd`, `secret: token_value`) is a variable, not a secret.
    return not re.fullmatch(r"[A-Za-z_][A-Za-z_.]*", value)


# A long random value next to any key-like name (`signing_key: "Zq8X…"`, `"hmac_secret": …`).
_KEYLIKE = re.compile(
    r"(?i)(?<![A-Za-z0-9])[A-Za-z0-9_.-]*(?:key|token|secret|passw(?:or)?d|credential|seed|mnemonic)"
    r"[A-Za-z0-9_.-]*[\"']?\s*[:=]\s*[\"']?(?P<v>[A-Za-z0-9_\-./+=]{20,400})"
)
# Kinds of secret that are key material in a tool's result (a documented example password
# in a README is not).
_MATERIAL_EXCLUDED = frozenset({"password_assignment"})
# A Solana-style keypair file: 64 byte values in a JSON array.
_KEYPAIR = re.compile(r"\s*\[\s*(?:\d{1,3}\s*,\s*){63}\d{1,3}\s*\]\s*")


def key_material(text: str) -> list[str]:
    """The kinds of key material a tool's result holds (PEM blocks, cloud and service key
    formats, JWTs and bearer tokens, wallet files, long random values next to key-like names):
    reading it is reading a secret, whatever the path."""
    kinds = [k for k in find_kinds(text) if k not in _MATERIAL_EXCLUDED]
    if len(text) < 2048 and _KEYPAIR.fullmatch(text):
        kinds.append("wallet")
    if "generic_api_key" not in kinds and len(text) >= 24:
        low = text[:MAX_SCAN].lower()
        if any(a in low for a in ("key", "token", "secret", "passw", "credential", "seed", "mnemonic")):
            for m in _KEYLIKE.finditer(text[:MAX_SCAN]):
                if looks_random(m.group("v"), 20):
                    kinds.append("generic_api_key")
                    break
    return kinds


def find_kinds(text: str) -> list[str]:
    """The kinds of secrets in text, in detector order, without duplicates."""
    if len(text) < 12:
        return []
    sample = text[:MAX_SCAN]
    low = sample.lower()
    if not _ANCHORS.search(low):
        return []
    kinds: list[str] = []
    for kind, anchors, rx in _DETECTORS:
        if kind not in kinds and any(a in low for a in anchors) and rx.search(sample):
            kinds.append(kind)
    if any(a in low for a in ("pass", "pwd", "secret")):
        for m in _ASSIGN.finditer(sample):
            if _literal_value(m.group("v")):
                kinds.append("password_assignment")
                break
    if not any(a in low for a in ("key", "token", "secret")):
        return kinds
    for m in _GENERIC.finditer(sample):
        value = m.group("v")
        if _literal_value(value) and (looks_random(value, 16) or len(value) >= 32):
            kinds.append("generic_api_key")
            break
    return kinds
