"""Tokens, sentences and clauses of a message, with offsets into the text they came from.

Deliberately small: whitespace tokens with punctuation peeled off, `backtick spans` kept as
one literal token, sentences ended by . ! ? ; : or a line break, clauses split where a
connective ("and", "then", "but", a comma) is followed by a verb or a negated verb. Offsets
let every grant quote its clause verbatim."""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache

from opafence.intent import lexicon as lx
from opafence.intent.lexicon import words

_TOKEN = re.compile(r"`[^`\n]+`|\S+")
_LEAD = "([{<\"'“\u2018«¿¡*_"
_TRAIL = ")]}>\"'”\u2019».,;:!?*_"
_ABBREV = frozenset({"e.g.", "i.e.", "etc.", "vs.", "mr.", "mrs.", "ms.", "dr.", "approx.", "no.", "st."})
_CONNECTIVES = frozenset(
    words("and then but also plus & afterwards so und dann aber et puis mais y luego pero e poi ma")
)
_EMOJI = re.compile(r"^(:[a-z0-9_+-]{1,40}:)[,.;!?]*$")
_APOSTROPHES = str.maketrans({"\u2019": "'", "\u2018": "'", "`": "`"})
EMAIL = re.compile(r"^[A-Za-z0-9._%+'-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}$")
URL = re.compile(r"^(?:https?|ftp|wss?)://[^\s/$.?#][^\s]*$", re.IGNORECASE)
DOMAIN = re.compile(r"^(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,24}$")
PHONE = re.compile(r"^\+[0-9][0-9 ().-]{6,18}[0-9]$")
# "#releases", not "#42" (an issue or pull request number).
CHANNEL = re.compile(r"^#(?![0-9]+$)[a-z0-9][a-z0-9_.-]{0,79}$")
HANDLE = re.compile(r"^@[a-z0-9][a-z0-9_.-]{0,63}$")
FILE_EXTENSIONS = frozenset(
    words(
        "py md txt json yaml yml toml cfg ini sh bash zsh js mjs cjs ts tsx jsx html htm css scss csv "
        "tsv log pdf doc docx xls xlsx ppt pptx rs go java kt c h cc cpp hpp rb php sql xml lock env "
        "conf ipynb rst tex svg png jpg jpeg gif webp mp3 mp4 zip tar gz tgz bz2 xz whl jar swift vue "
        "svelte lua pl r jl dart ex exs erl hs ml scala proto graphql tf hcl bak tmp out dat db sqlite "
        "parquet pem crt key pub gradle mk cmake dockerfile"
    )
)
KNOWN_FILES = frozenset(
    words(
        "makefile dockerfile readme license changelog gemfile procfile vagrantfile jenkinsfile rakefile "
        "justfile"
    )
)
_WORDY_SLASH = frozenset(
    words(
        "and or he she his her yes no on off in out input output read write send save true false either "
        "if him them they we you i me it this that"
    )
)


@dataclass(frozen=True)
class Token:
    raw: str  # exactly as written, punctuation included
    start: int  # offset of the token's core (punctuation peeled off) in the text
    end: int
    core: str  # the token without surrounding punctuation, case kept
    norm: str  # core, lower-cased, apostrophes straightened
    literal: bool  # a `backtick span`: the user's literal text, never parsed as words
    trail: str  # punctuation peeled off the end

    @property
    def possessive(self) -> bool:
        return self.norm.endswith("'s") and not self.literal


@dataclass(frozen=True)
class Clause:
    text: str  # verbatim slice of the source text
    start: int
    end: int
    tokens: tuple[Token, ...]
    sentence: int  # index of the sentence in the source


def tokenize(text: str) -> list[Token]:
    out: list[Token] = []
    for m in _TOKEN.finditer(text):
        raw = m.group(0)
        if raw.startswith("`") and raw.endswith("`") and len(raw) > 2:
            core = raw[1:-1].strip()
            out.append(Token(raw, m.start(), m.end(), core, core.lower(), True, ""))
            continue
        emoji = _EMOJI.match(raw)
        if emoji:  # ":tada:" is one word (its colons end no sentence)
            core = emoji.group(1)
            out.append(
                Token(raw, m.start(), m.start() + len(core), core, core.lower(), False, raw[len(core) :])
            )
            continue
        lead = 0
        while lead < len(raw) and raw[lead] in _LEAD:
            lead += 1
        end = len(raw)
        while end > lead and raw[end - 1] in _TRAIL:
            end -= 1
        core = raw[lead:end]
        trail = raw[end:]
        # "notes/today.md." and "example.com," peel the dot or comma; "e.g." keeps its own.
        if raw.lower() in _ABBREV:
            core, trail = raw, ""
        norm = core.translate(_APOSTROPHES).lower()
        if norm.endswith("'") and norm[:-1].isalpha():
            norm = norm[:-1]
        out.append(Token(raw, m.start() + lead, m.start() + end, core, norm, False, trail))
    return out


# "1) open x 2) type y", "(2) ...": a list marker inside a line starts a new step.
_INLINE_MARKER = re.compile(r"^\(?[0-9]{1,2}[.)]$")
# A dash between two requests ("it's outdated - please upgrade it"), or a parenthesis that opens
# one ("recreate the venv (delete .venv first)").
_DASHES = frozenset(["-", "\u2013", "\u2014", "--"])


def _ends_sentence(tok: Token, nxt: Token | None, text: str) -> bool:
    if nxt is not None and "\n" in text[tok.end : nxt.start]:
        return True
    if nxt is not None and not nxt.literal and _INLINE_MARKER.match(nxt.raw):
        return True
    if tok.raw.lower() in _ABBREV:
        return False
    return any(c in tok.trail for c in ".!?;:")


def sentences(text: str, tokens: list[Token] | None = None) -> list[list[Token]]:
    toks = tokenize(text) if tokens is None else tokens
    out: list[list[Token]] = []
    cur: list[Token] = []
    for i, tok in enumerate(toks):
        cur.append(tok)
        nxt = toks[i + 1] if i + 1 < len(toks) else None
        if _ends_sentence(tok, nxt, text):
            out.append(cur)
            cur = []
    if cur:
        out.append(cur)
    # A list marker ("-", "1.", "•") on its own is not a sentence.
    return [s for s in out if any(t.norm.strip("-•*0123456789.)") for t in s)]


def is_negation(norm: str) -> bool:
    return norm in lx.NEGATIONS or norm.endswith("n't") or norm in ("dont", "cant", "wont", "shouldnt")


# Verbs that are also adjectives, and the words that make them one.
_ADJECTIVE_VERBS = frozenset(["empty"])
_BEFORE_ADJECTIVES = frozenset(
    [
        "is",
        "are",
        "was",
        "were",
        "be",
        "been",
        "being",
        "it's",
        "an",
        "a",
        "the",
        "stays",
        "left",
        "keep",
        "not",
        "all",
        "already",
        "still",
    ]
)


def verb_at(tokens: tuple[Token, ...] | list[Token], i: int) -> str:
    """The lemma if tokens[i] is a verb we know (never a literal), else ""."""
    if i >= len(tokens) or tokens[i].literal:
        return ""
    norm = tokens[i].norm
    found = lx.lemma(norm)
    if found in _ADJECTIVE_VERBS and i > 0 and tokens[i - 1].norm in _BEFORE_ADJECTIVES:
        return ""  # "whether or not it is empty", "an empty file": a state, not a request
    if not found and "-" in norm:
        # "envoie-le", "schick's": a verb with a pronoun attached
        found = lx.lemma(norm.split("-", 1)[0])
    return found


_FILLERS_BY_FIRST: dict[str, list[tuple[str, ...]]] = {}
for _phrase in lx.FILLERS:  # longest first, kept per first word
    _FILLERS_BY_FIRST.setdefault(_phrase[0], []).append(_phrase)


_PLACE_PREPOSITIONS = frozenset(words("on in at via using through inside within"))
_PLACE_FILLERS = frozenset(words("the my our your a an"))
_BRANDS = frozenset(words("google microsoft ms apple zoho"))


def place_phrase(tokens: tuple[Token, ...] | list[Token], i: int = 0) -> int:
    """The length of a place phrase starting at i ("On GitLab,", "At https://x.com", "in our Slack
    workspace,") that leads a request, or 0: a preposition, then a URL, a domain or a service
    name (with a determiner or a noun such as "workspace" around it), ending in a comma or before
    a verb."""
    n = len(tokens)
    if i >= n or tokens[i].literal or tokens[i].norm not in _PLACE_PREPOSITIONS:
        return 0
    named = False
    for k in range(i + 1, min(n, i + 6)):
        t = tokens[k]
        if t.literal:
            return 0
        norm = t.norm[:-2] if t.possessive else t.norm
        if (
            is_url(t.core)
            or is_domain(t.core)
            or norm in lx.SERVICES
            or norm in _BRANDS
            or CHANNEL.match(norm)
        ):
            named = True
        elif norm not in _PLACE_FILLERS and norm not in lx.SERVICE_NOUNS and t.core != "\u2026":
            return 0  # (a quoted name, set aside as data, is "…": "in the 'Budget 2027' sheet")
        if not named:
            continue
        if t.trail.startswith(","):
            return k + 1 - i
        if k + 1 < n and verb_at(tokens, k + 1):
            return k + 1 - i
    return 0


def skip_fillers(tokens: tuple[Token, ...] | list[Token], i: int = 0) -> int:
    """Index of the first token after politeness and sequencing words ("please", "then", ...)
    and a place phrase that leads the request ("On GitLab, comment ...")."""
    n = len(tokens)
    changed = True
    while changed and i < n:
        changed = False
        place = place_phrase(tokens, i)
        if place:
            i += place
            changed = True
            continue
        t = tokens[i]
        # list markers ("-", "1.", "•") and tokens with no letter or digit at all (emoji, arrows)
        if not t.literal and (
            t.norm.strip("-•*0123456789.)") == "" or not any(ch.isalnum() for ch in t.norm)
        ):
            i += 1
            changed = True
            continue
        if t.literal:
            break
        for phrase in _FILLERS_BY_FIRST.get(t.norm, ()):
            k = len(phrase)
            if i + k > n or not all(
                not tokens[i + j].literal and tokens[i + j].norm == phrase[j] for j in range(k)
            ):
                continue
            # "remember to", "help me", "i want to" are fillers only when a verb follows them.
            if phrase[-1] in ("to", "me") and not verb_at(tokens, i + k):
                continue
            i += k
            changed = True
            break
    return i


# Nouns a verb-like word can name a kind of ("the dist and build directories", "test files").
_KIND_NOUNS = frozenset(
    words(
        "directories directory folders folder dirs dir files file output outputs artifacts artefacts "
        "cache caches logs log scripts script steps step results"
    )
)


def _verb_follows(tokens: list[Token], j: int) -> bool:
    """Does a clause that starts at tokens[j] start with a verb, or a negated verb?"""
    j = skip_fillers(tokens, j)
    if j >= len(tokens):
        return False
    if verb_at(tokens, j):
        nxt = tokens[j + 1] if j + 1 < len(tokens) else None
        # "check the logs, email, and calendar": a bare noun-like verb in a list is not a clause;
        # nor is "build" in "the dist and build directories".
        return not (
            tokens[j].trail.startswith(",")
            or (nxt is not None and nxt.norm in ("and", "or"))
            or (nxt is not None and not nxt.literal and nxt.norm in _KIND_NOUNS and not tokens[j].trail)
        )
    if is_negation(tokens[j].norm) or tokens[j].norm in ("do", "please"):
        for k in range(j + 1, min(j + 5, len(tokens))):
            if verb_at(tokens, k):
                return True
    return False


def clauses(text: str, tokens: list[Token] | None = None) -> list[Clause]:
    """Sentences split further at connectives that start a new verb phrase."""
    out: list[Clause] = []
    for si, sent in enumerate(sentences(text, tokens)):
        start = 0
        for j in range(1, len(sent)):
            prev, tok = sent[j - 1], sent[j]
            boundary = False
            if (not tok.literal and tok.norm in _CONNECTIVES and _verb_follows(sent, j + 1)) or (
                prev.trail.startswith(",") and _verb_follows(sent, j) and not place_phrase(sent, start)
            ):
                boundary = True
            elif not tok.literal and tok.raw in _DASHES and _verb_follows(sent, j + 1):
                boundary = True  # "pip is outdated - please upgrade it"
            elif not tok.literal and tok.raw.startswith("(") and _verb_follows(sent, j):
                boundary = True  # "recreate the venv (delete .venv first)"
            if boundary and j > start:
                out.append(_clause(text, sent[start:j], si))
                start = j
        out.append(_clause(text, sent[start:], si))
    return out


def _clause(text: str, toks: list[Token], si: int) -> Clause:
    a, b = toks[0].start, toks[-1].end
    return Clause(text[a:b], a, b, tuple(toks), si)


# --- what a token is -----------------------------------------------------------------


def is_email(s: str) -> bool:
    return bool(EMAIL.match(s))


def is_url(s: str) -> bool:
    return bool(URL.match(s))


def url_host(s: str) -> str:
    m = re.match(r"^[a-z]+://(?:[^@/]*@)?([^/:?#]+)", s, re.IGNORECASE)
    return m.group(1).lower().rstrip(".") if m else ""


@cache
def is_domain(s: str) -> bool:
    low = s.lower().rstrip(".")
    if not DOMAIN.match(low) or is_email(low):
        return False
    ext = low.rsplit(".", 1)[-1]
    # "notes.md", "config.example.yaml": a file, not a host (.md and .py are also country
    # domains; a host with such a name is still recognized inside a URL).
    return ext not in FILE_EXTENSIONS


def is_recipient(s: str) -> bool:
    low = s.lower()
    return is_email(low) or bool(PHONE.match(s) or CHANNEL.match(low) or HANDLE.match(low))


@cache
def is_path_like(core: str) -> bool:
    """A token that names a file or directory: has a slash, starts with ~ . /, or has a file extension."""
    s = core.strip()
    if not s or is_email(s) or is_url(s) or "://" in s or s.startswith(("@", "#")):
        return False
    if any(c in s for c in "<>|\"'`") or (s.startswith("$") and "/" not in s):
        return False
    if s.startswith(("/", "~", "./", "../")) or s in (".", ".."):
        return True
    if "/" in s:
        parts = [p for p in s.split("/") if p]
        if not parts:
            return False
        if len(parts) == 2 and not s.endswith("/") and all(p.lower() in _WORDY_SLASH for p in parts):
            return False
        return all(re.match(r"^[\w.@+*?{}\[\],=-]+$", p) for p in parts)
    if s.lower() in KNOWN_FILES:
        return True
    if s.startswith(".") and re.match(r"^\.[\w.-]+$", s) and len(s) > 2:
        return True  # dotfiles: .env, .gitignore
    m = re.match(r"^[\w.*?-]+\.([A-Za-z0-9]{1,10})$", s)
    return bool(m and m.group(1).lower() in FILE_EXTENSIONS and not is_domain(s))


def normalize_space(s: str) -> str:
    return " ".join(s.split())
