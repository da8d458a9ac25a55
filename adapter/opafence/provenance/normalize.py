"""One spelling of each kind of target value, shared by untrusted text and the call's own targets
(values.py, targets.py): emails, domains and hosts, numbers, IBANs, handles, paths, commands and
package names."""

from __future__ import annotations

import re

import idna

Value = tuple[str, str]

_SPACES = re.compile(r"\s+")

# Top-level domains a bare name must end in to count as a host ("report.pdf" is not one). Any
# host of a URL counts whatever its suffix.
TLDS = frozenset(
    [
        "com",
        "net",
        "org",
        "io",
        "co",
        "ai",
        "app",
        "dev",
        "me",
        "info",
        "biz",
        "xyz",
        "online",
        "site",
        "top",
        "club",
        "shop",
        "store",
        "tech",
        "cloud",
        "live",
        "email",
        "link",
        "click",
        "page",
        "blog",
        "news",
        "pro",
        "tv",
        "cc",
        "ws",
        "us",
        "uk",
        "de",
        "fr",
        "nl",
        "be",
        "es",
        "it",
        "pt",
        "pl",
        "ru",
        "cn",
        "jp",
        "kr",
        "in",
        "au",
        "ca",
        "br",
        "mx",
        "ch",
        "at",
        "se",
        "no",
        "dk",
        "fi",
        "ie",
        "cz",
        "hu",
        "ro",
        "gr",
        "tr",
        "ua",
        "il",
        "za",
        "nz",
        "sg",
        "hk",
        "tw",
        "ar",
        "cl",
        "eu",
        "asia",
        "example",
        "test",
        "invalid",
        "local",
        "zip",
        "mov",
        "sh",
        "gg",
        "ly",
        "to",
        "su",
    ]
)
# Second-level labels under country codes that are registries, not registrants (co.uk, com.au).
_SLD = frozenset(
    [
        "co",
        "com",
        "net",
        "org",
        "gov",
        "edu",
        "ac",
        "or",
        "ne",
        "go",
        "gob",
        "nic",
        "mil",
        "ltd",
        "plc",
        "sch",
    ]
)


def registrable(host: str) -> str:
    """The registrable domain of a host (approximate public-suffix rule; IPs stay whole)."""
    labels = [x for x in host.split(".") if x]
    if len(labels) <= 2 or all(x.isdigit() for x in labels):
        return ".".join(labels)
    if len(labels[-1]) == 2 and labels[-2] in _SLD:
        return ".".join(labels[-3:])
    return ".".join(labels[-2:])


def norm_domain(domain: str) -> str:
    d = domain.strip().strip(".").lower()
    if not d:
        return ""
    if not d.isascii():
        try:
            d = idna.encode(d, uts46=True).decode("ascii")
        except (idna.IDNAError, UnicodeError, ValueError):
            return ""
    return d


def norm_email(addr: str) -> str:
    a = addr.strip().strip("<>\"'").lower()
    if a.startswith("mailto:"):
        a = a[7:]
    local, sep, domain = a.rpartition("@")
    if not sep or not local or not domain:
        return ""
    d = norm_domain(domain)
    return f"{local}@{d}" if d else ""


# Every ASCII character that is no digit, deleted (ASCII text is the common case: one C call).
_ASCII_NON_DIGITS = str.maketrans("", "", "".join(chr(c) for c in range(128) if not chr(c).isdigit()))


def norm_digits(text: str) -> str:
    if text.isascii():
        return text.translate(_ASCII_NON_DIGITS)
    return "".join(c for c in text if c.isdigit())


def iban_ok(iban: str) -> bool:
    if not (15 <= len(iban) <= 34) or not iban[:2].isalpha() or not iban[2:4].isdigit():
        return False
    moved = iban[4:] + iban[:4]
    try:
        n = int("".join(str(int(c, 36)) for c in moved))
    except ValueError:
        return False
    return n % 97 == 1


def norm_iban(text: str) -> str:
    s = "".join(text.split()).upper()
    return s if iban_ok(s) else ""


def norm_handle(text: str) -> str:
    return text.strip().lstrip("#@").rstrip(".-").lower()


def norm_path(text: str, home: str = "") -> str:
    p = text.strip()
    if p.startswith("~/") and home:
        p = home.rstrip("/") + p[1:]
    while len(p) > 1 and p.endswith("/"):
        p = p[:-1]
    return p


def norm_command(text: str) -> str:
    return _SPACES.sub(" ", text.strip())


def norm_package(text: str) -> str:
    return re.sub(r"[<>=!~;\[@ ].*$", "", text.strip().lower())
