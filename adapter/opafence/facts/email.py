"""Recipients: address-valued arguments -> normalized addresses (docs/contract.md, `recipients`).

`address` is `local@domain` lower-cased, with the display name and angle brackets removed and
the domain IDNA-encoded. `mixed_script` and `confusable` use unicodedata only: a label mixing
scripts (`paypal` spelled with a Cyrillic `a`), look-alike letters from Cyrillic, Greek or Armenian in
an otherwise Latin label (or a label made only of such look-alikes), compatibility forms
(fullwidth, mathematical letters), invisible characters, and punycode labels that decode to
any of these.
"""

from __future__ import annotations

import base64
import binascii
import re
import unicodedata
from typing import Any
from urllib.parse import parse_qsl, unquote

import idna

MAX_RECIPIENTS = 100
MAX_ADDRESS = 512

# Letters that render like Latin letters (lower and upper case).
_LOOKALIKES = frozenset(
    "аеорсуххѕіјԁԛԝӏһɡԍкмнтвАВЕКМНОРСТХЅІЈԌԚԜӀҺ"  # Cyrillic
    "αοονρτικυχεΑΒΕΖΗΙΚΜΝΟΡΤΥΧϲϳ"  # Greek
    "օսհոզɑɩıʟ"  # Armenian and Latin-extended look-alikes of ASCII letters
)
_INVISIBLE = frozenset("\u200b\u200c\u200d\u200e\u200f\u2060\u2061\u2062\u2063\u2064\ufeff\u00ad\u034f\u180e")
_HAN = ("CJK", "HIRAGANA", "KATAKANA", "IDEOGRAPHIC", "BOPOMOFO")
_SCRIPTS = ("LATIN", "CYRILLIC", "GREEK", "ARMENIAN", "HEBREW", "ARABIC", "HANGUL", "THAI", "DEVANAGARI")
_LOCAL_OK = re.compile(r"^[^\s@\"(),:;<>\[\]\\]+$")
_LABEL_OK = re.compile(r"^(?!-)[a-z0-9-]{1,63}(?<!-)$")
_RECIPIENT_FIELDS = frozenset(
    {
        "to",
        "cc",
        "bcc",
        "recipient",
        "recipients",
        "receiver",
        "receivers",
        "reply_to",
        "replyto",
        "reply-to",
        "to_email",
        "to_emails",
        "to_address",
        "to_addresses",
        "email",
        "emails",
        "email_address",
        "email_addresses",
        "address",
        "addresses",
        "attendees",
        "attendee",
        "invitees",
        "participants",
        "members",
        "share_with",
        "shared_with",
        "forward_to",
        "send_to",
        "destination",
        "mail_to",
        "mailto",
    }
)
_SENDER_FIELDS = frozenset(
    {"from", "from_email", "sender", "from_address", "username", "login", "user", "owner"}
)


def recipient_field(name: str) -> bool:
    """An argument name that carries recipients (`to`, `cc`, `bcc`, `recipients`, `*_to`, ...)."""
    low = name.lower()
    if low in _SENDER_FIELDS:
        return False
    return (
        low in _RECIPIENT_FIELDS
        or low.endswith(("_to", "_cc", "_bcc", "_recipients", "_recipient", "_emails"))
        or (low.endswith("_email") and not low.startswith(("from", "sender", "user")))
    )


def sender_field(name: str) -> bool:
    return name.lower() in _SENDER_FIELDS


def _script(c: str) -> str:
    name = unicodedata.name(c, "")
    if not name:
        return "UNKNOWN"
    for s in _SCRIPTS:
        if s in name:
            return s
    if any(h in name for h in _HAN):
        return "HAN"
    return name.split(" ", 1)[0]


def label_flags(label: str) -> tuple[bool, bool]:
    """(mixed_script, confusable) for one label (local part or domain label)."""
    if label.isascii():
        return False, False  # ASCII letters are all Latin, and ASCII is its own NFKC form
    letters = [c for c in label if c.isalpha()]
    scripts = {_script(c) for c in letters}
    mixed = len(scripts) > 1
    confusable = False
    if any(c in _INVISIBLE for c in label) or unicodedata.normalize("NFKC", label) != label:
        confusable = True
    looks = [c for c in letters if c in _LOOKALIKES]
    if looks and ("LATIN" in scripts or len(looks) == len(letters)):
        confusable = True
    return mixed, confusable


def _decode_label(label: str) -> str | None:
    if not label.startswith("xn--"):
        return label
    try:
        return idna.decode(label)
    except (idna.IDNAError, UnicodeError, ValueError):
        try:
            return label.encode("ascii").decode("idna")
        except (UnicodeError, ValueError):
            return None


def split_addresses(text: str) -> list[str]:
    """Split `"Bob, B." <bob@x.com>; alice@y.org` on commas and semicolons outside quotes,
    angle brackets and comments."""
    parts: list[str] = []
    buf: list[str] = []
    quote = False
    angle = 0
    paren = 0
    for c in text:
        if c == '"' and not angle:
            quote = not quote
        elif not quote:
            if c == "<":
                angle += 1
            elif c == ">" and angle:
                angle -= 1
            elif c == "(":
                paren += 1
            elif c == ")" and paren:
                paren -= 1
            elif c in ",;\n" and not angle and not paren:
                parts.append("".join(buf))
                buf = []
                continue
        buf.append(c)
    parts.append("".join(buf))
    return [p.strip() for p in parts if p.strip()]


_MAILTO_FIELDS = frozenset({"to", "cc", "bcc"})


def _mailto_parts(part: str) -> list[tuple[str, str]] | None:
    """`mailto:a@x.com,b@y.com?cc=c@z.com&bcc=d@w.com&subject=hi` -> every recipient it names, each
    with the field it came from ("" for the path: the caller's own field). None when `part` is no
    mailto URL. Percent-escapes are decoded (`evil%40x.com`)."""
    text = part.strip().strip("'\"").strip()
    if "<" in text and text.endswith(">"):
        text = text[text.rfind("<") + 1 : -1].strip()
    if not text.lower().startswith("mailto:"):
        return None
    rest = text[7:]
    path, _, query = rest.partition("?")
    out = [("", unquote(a).strip()) for a in unquote(path).split(",") if unquote(a).strip()]
    for key, value in parse_qsl(query, keep_blank_values=False):
        if key.strip().lower() in _MAILTO_FIELDS:
            out.extend((key.strip().lower(), a.strip()) for a in split_addresses(value) if a.strip())
    return out


def _bare_address(part: str) -> str:
    text = part.strip()
    if "<" in text and text.rstrip().endswith(">"):
        text = text[text.rfind("<") + 1 : text.rstrip().rfind(">")]
    text = re.sub(r"\([^()]*\)", "", text).strip()
    if text.lower().startswith("mailto:"):
        text = text[7:].split("?", 1)[0]
    return text.strip().strip("'\"").strip()


def _encode_domain(domain: str) -> tuple[str, bool]:
    if not domain:
        return "", False
    if domain.isascii():
        return domain.lower(), True
    try:
        return idna.encode(domain, uts46=True).decode("ascii"), True
    except (idna.IDNAError, UnicodeError, ValueError):
        try:
            return domain.encode("idna").decode("ascii").lower(), True
        except (UnicodeError, ValueError):
            return domain.lower(), False


def _domain_valid(domain: str) -> bool:
    if domain.startswith("[") and domain.endswith("]"):
        return True
    labels = domain.split(".")
    if len(domain) > 253 or len(labels) < 2:
        return False
    return all(_LABEL_OK.match(lab) for lab in labels) and not labels[-1].isdigit()


def parse_address(part: str, field: str) -> dict[str, Any]:
    """One address (possibly with a display name) -> recipient fact."""
    bare = _bare_address(part)[:MAX_ADDRESS]
    local, at, domain_raw = bare.rpartition("@")
    if not at:
        local, domain_raw = bare, ""
    domain_raw = domain_raw.rstrip(".")
    domain, encoded_ok = _encode_domain(domain_raw)
    local_low = local.lower()
    valid = (
        bool(at)
        and encoded_ok
        and 0 < len(local) <= 64
        and bool(_LOCAL_OK.match(local))
        and not local.startswith(".")
        and not local.endswith(".")
        and ".." not in local
        and _domain_valid(domain)
    )
    mixed = False
    confusable = False
    labels = [local, *domain_raw.split(".")] + [d for d in (_decode_label(x) for x in domain.split(".")) if d]
    for lab in labels:
        m, c = label_flags(lab)
        mixed = mixed or m
        confusable = confusable or c
    if any(_decode_label(x) is None for x in domain.split(".")):
        valid = False
        confusable = True
    return {
        "raw": part,
        "address": f"{local_low}@{domain}" if at else local_low,
        "local": local_low,
        "domain": domain,
        "field": field,
        "valid": valid,
        "mixed_script": mixed,
        "confusable": confusable,
    }


def parse_recipients(text: str, field: str) -> list[dict[str, Any]]:
    """Every address in a comma/semicolon-separated string; a mailto URL gives every recipient
    in it, its query's `to`, `cc` and `bcc` included."""
    out: list[dict[str, Any]] = []
    # One past the bound is enough for the caller to see that there were too many.
    for p in split_addresses(text)[: MAX_RECIPIENTS + 1]:
        mailto = _mailto_parts(p) if "ailto:" in p or "AILTO:" in p.upper() else None
        if mailto is None:
            out.append(parse_address(p, field))
            continue
        if not mailto:
            out.append(parse_address(p, field))  # "mailto:" with no address: an invalid recipient
        for sub_field, address in mailto:
            out.append(parse_address(address, sub_field or field) | {"raw": p})
        if len(out) > MAX_RECIPIENTS:
            break
    return out[: MAX_RECIPIENTS + 1]


_SHAPE = re.compile(r"[^\s@<>,;]+@[^\s@<>,;]+\.[^\s@<>,;]+")


def is_address_list(text: str) -> bool:
    """The whole string is one or more addresses (so `body` prose with an address in it is not)."""
    t = text.strip()
    if "@" not in t or len(t) > MAX_RECIPIENTS * MAX_ADDRESS or "\n\n" in t:
        return False
    if "://" in t:
        return False
    parts = split_addresses(t)
    if not parts or len(parts) > MAX_RECIPIENTS:
        return False
    for p in parts:
        bare = _bare_address(p)
        if not _SHAPE.fullmatch(bare):
            return False
        if "<" not in p and bare != p.strip().strip("'\"") and not p.lower().startswith("mailto:"):
            return False
    return True


# --- raw messages -------------------------------------------------------------------------------

_HEADER_LINE = re.compile(r"^[A-Za-z][A-Za-z0-9-]{0,75}:")
_HEADER_START = re.compile(r"[\r\n]*[A-Za-z][A-Za-z0-9-]{0,75}:[^\n]*\n")


def may_be_message(text: str, key: str) -> bool:
    """Cheap first look: could `text` be a raw message (a header line first, or a raw-named key;
    `key` lower-case)?"""
    return key in _RAW_KEYS or ("\n" in text and bool(_HEADER_START.match(text)))


_ADDRESS_HEADERS = frozenset({"to", "cc", "bcc", "reply-to", "resent-to", "resent-cc", "resent-bcc"})
_MESSAGE_HEADERS = frozenset(
    {"from", "subject", "date", "message-id", "mime-version", "content-type", "sender"}
)
_RAW_KEYS = frozenset({"raw", "mime", "raw_message", "message_raw", "rfc822", "eml", "mime_message"})
_BASE64ISH = re.compile(r"^[A-Za-z0-9+/_=\-\s]{16,}$")
MAX_RAW = 1 << 20


def _header_block(text: str) -> list[str] | None:
    """The header lines of an RFC 5322 message (continuations unfolded), or None when the text
    does not start with a header block."""
    text = text.lstrip("\r\n")
    if not _HEADER_LINE.match(text):
        return None
    head = re.split(r"\r?\n\r?\n", text, maxsplit=1)[0]
    lines: list[str] = []
    for line in re.split(r"\r?\n", head):
        if line[:1] in (" ", "\t") and lines:
            lines[-1] += " " + line.strip()
        elif _HEADER_LINE.match(line):
            lines.append(line)
        else:
            return None
    return lines or None


# A header line after a line break inside one field ("Q3\r\nBcc: eve@x"), or at the start of
# an argument that holds header lines (`extra_headers: "Bcc: eve@x"`).
_INJECTED_HEADER = re.compile(r"(?:^|[\r\n])[ \t]*([A-Za-z][A-Za-z0-9-]{0,75})[ \t]*:[ \t]*([^\r\n]*)")
# Fields whose text is prose: a line "Cc: ann@x.com" there is content, not a header.
_PROSE_KEYS = frozenset(
    {
        "body",
        "text",
        "content",
        "message",
        "html",
        "html_body",
        "body_html",
        "text_body",
        "plain",
        "description",
        "notes",
        "note",
        "comment",
        "summary",
        "markdown",
        "snippet",
    }
)


def injected_recipients(text: str, key: str) -> list[dict[str, Any]]:
    """Recipients smuggled into a field through CR/LF ("Subject: Q3\\r\\nBcc: eve@x") or through
    an argument of raw header lines (`headers`, `extra_headers`): every To, Cc, Bcc, Reply-To
    and Resent-* line in it. [] for prose fields (body, text, ...), which hold content."""
    low = key.lower()
    if low in _PROSE_KEYS or low in _RAW_KEYS:
        return []
    header_key = "header" in low
    if not header_key and "\n" not in text and "\r" not in text:
        return []
    out: list[dict[str, Any]] = []
    for m in _INJECTED_HEADER.finditer(text[:MAX_RAW]):
        if m.start() == 0 and not header_key and text[:1] not in ("\r", "\n"):
            continue  # the field's own first line ("Re: dinner" in a subject) is its value
        name = m.group(1).lower()
        if name in _ADDRESS_HEADERS and m.group(2).strip():
            out.extend(parse_recipients(m.group(2).strip(), name))
        if len(out) > MAX_RECIPIENTS:
            break
    return out[: MAX_RECIPIENTS + 1]


def message_recipients(text: str, key: str) -> list[dict[str, Any]]:
    """Recipients of a raw message passed as an argument (`raw: "To: a@x.com\r\nBcc: ..."`, or
    base64url-encoded as Gmail's API takes it under `raw`): every To, Cc, Bcc, Reply-To and
    Resent-* header. [] when the text is no such message."""
    body = text[:MAX_RAW]
    lines = _header_block(body) if _HEADER_START.match(body) else None
    if lines is None and key.lower() in _RAW_KEYS and _BASE64ISH.match(body[:4096]):
        try:
            compact = re.sub(r"\s+", "", body)
            decoded = base64.urlsafe_b64decode(compact.replace("+", "-").replace("/", "_") + "==")
            lines = _header_block(decoded.decode("utf-8", errors="replace"))
        except (binascii.Error, ValueError):
            lines = None
    # Prose may start with "To: the team"; a message's header block has the headers every
    # message has (an argument named raw, mime ... is a message whatever it holds).
    names = {line.partition(":")[0].strip().lower() for line in lines or []}
    if not lines or (key.lower() not in _RAW_KEYS and not names & _MESSAGE_HEADERS):
        return []
    out: list[dict[str, Any]] = []
    for line in lines:
        name, _, value = line.partition(":")
        if name.strip().lower() in _ADDRESS_HEADERS and value.strip():
            out.extend(parse_recipients(value.strip(), name.strip().lower()))
    return out[: MAX_RECIPIENTS + 1]
