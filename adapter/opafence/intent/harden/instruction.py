"""The instruction as hardening reads it: its words and clauses, each token's canonical paths,
the record of a hardening (what survived, what was stripped or dropped and why), and the request
clauses a quote overlaps."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from opafence.host import Host
from opafence.intent import catalogue as cat
from opafence.intent import lexicon as lx
from opafence.intent import text as tx
from opafence.intent.draft import DraftBounds, DraftGrant, DraftProhibition, Note
from opafence.intent.owner_paths import canonical
from opafence.intent.rules.analysis import Analysis
from opafence.intent.rules.clause import VerbClause
from opafence.intent.rules.compiler import antecedent, following
from opafence.intent.rules.grant import instrument_literals
from opafence.policy import DroppedGrant

# A known verb form after one of these is a noun or an adjective ("my booking", "the open PR"),
# after a subject someone else's verb ("the room I reserved"), not the request's.
_DETERMINERS = frozenset(
    ["my", "the", "a", "an", "this", "that", "these", "those", "our", "your", "his", "her", "their", "its"]
)
_SUBJECTS = frozenset(["i", "we", "he", "she", "they"])
JOINING = frozenset(["and", "then", "or", "also", "plus", "&", "but"])


def _not_the_request(toks: tuple[tx.Token, ...], k: int) -> bool:
    before, word = toks[k - 1].norm, toks[k].norm
    if before in _SUBJECTS or (before in _DETERMINERS and (word.endswith("ing") or word == "open")):
        return True
    # "with a note that it was fixed by the config change": the head of a noun phrase
    for j in range(k - 1, max(-1, k - 4), -1):
        t = toks[j]
        if t.literal or t.trail or tx.verb_at(toks, j) or t.norm in JOINING:
            return False
        if t.norm in _DETERMINERS:
            return j < k - 1
    return False


@dataclass
class Hardened:
    grants: list[DraftGrant] = field(default_factory=list)  # targets canonical, evidence checked
    prohibitions: list[DraftProhibition] = field(default_factory=list)
    bounds: DraftBounds = field(default_factory=DraftBounds)  # canonical
    read_only: bool = False
    read_only_evidence: str = ""
    confirm: dict[str, str] = field(default_factory=dict)
    dropped: list[DroppedGrant] = field(default_factory=list)
    notes: list[Note] = field(default_factory=list)


def normalized(s: str) -> str:
    return " ".join(s.replace("\u2019", "'").replace("\u2018", "'").split()).lower()


class Instruction:
    """The cleaned instruction, indexed for the token checks."""

    def __init__(self, analysis: Analysis, host: Host, catalogue: cat.Catalogue | None = None) -> None:
        self.analysis = analysis
        self.catalogue = catalogue
        self.service_words = cat.service_words(catalogue)
        self.text = analysis.text
        self.norm = normalized(analysis.text)
        self.cores = {t.core for t in analysis.tokens}
        self.domains = set()
        for t in analysis.tokens:
            if tx.is_url(t.core):
                self.domains.add(tx.url_host(t.core))
            elif tx.is_domain(t.core):
                self.domains.add(t.core.lower().rstrip("."))
        self.recipients = {t.core.lower() for t in analysis.tokens if tx.is_recipient(t.core)}
        self.host = host
        self.whole = analysis.text  # the owner's message as sent (harden sets it)
        self._path_tokens: dict[str, str] | None = None

    @property
    def path_tokens(self) -> dict[str, str]:
        """Canonical path -> token, for every token that could name a path (computed on first use)."""
        if self._path_tokens is None:
            self._path_tokens = {}
            for t in self.analysis.tokens:
                if tx.is_path_like(t.core) or re.match(r"^[\w.-]+/?$", t.core):
                    c = canonical(t.core, self.host)
                    if c:
                        self._path_tokens.setdefault(c, t.core)
        return self._path_tokens

    def span(self, evidence: str) -> tuple[int, int] | None:
        """Where the evidence sits in the instruction (whitespace- and case-insensitive)."""
        ev = normalized(evidence).strip(" .,;:!?")
        if not ev:
            return None
        pattern = r"\s+".join(re.escape(w) for w in ev.split())
        m = re.search(pattern, self.text.replace("\u2019", "'").replace("\u2018", "'"), re.IGNORECASE)
        return (m.start(), m.end()) if m else None


class Tokens:
    """The tokens of the request clauses a grant quotes: its targets must be among them."""

    def __init__(self, tokens: list[tx.Token]) -> None:
        self.tokens = tokens
        self.cores = {t.core.rstrip("/") for t in tokens}
        self.lower_words = {t.core.lower() for t in tokens} | {
            w.lower() for t in tokens if t.literal for w in t.core.split()
        }
        self.domains = {tx.url_host(t.core) for t in tokens if tx.is_url(t.core)} | {
            t.core.lower().rstrip(".") for t in tokens if tx.is_domain(t.core)
        }
        self.command_text = " " + " ".join(" ".join(t.core.split()) for t in tokens) + " "

    def path_tokens(self, host: Host) -> set[str]:
        out = set()
        for t in self.tokens:
            if tx.is_path_like(t.core) or re.match(r"^[\w.-]+/?$", t.core):
                c = canonical(t.core, host)
                if c:
                    out.add(c)
        return out


def affirmative_clauses(ins: Instruction, span: tuple[int, int], verbs: frozenset[str]) -> list[VerbClause]:
    """Request clauses overlapping the span, each with the index of a verb of `verbs` in the span."""
    a, b = span
    out: list[VerbClause] = []
    for n, (clause, (mode, i)) in enumerate(zip(ins.analysis.clauses, ins.analysis.modes, strict=True)):
        if mode != "request" or clause.end <= a or clause.start >= b:
            continue
        toks = clause.tokens
        condition = ins.analysis.conditions.get(n, ())
        for k in range(i, len(toks)):
            t = toks[k]
            if t.start < a or t.end > b:
                continue
            lem = tx.verb_at(toks, k)
            if not lem or (lem not in verbs and t.norm not in verbs):
                continue
            if k > i and _not_the_request(toks, k):
                continue  # "my booking", "my open PR", "I reserved": a noun or someone else's verb
            if any(tx.is_negation(toks[j].norm) for j in range(max(i, k - 4), k)):
                continue
            if k > 0 and toks[k - 1].norm == "to" and k - 2 >= 0 and toks[k - 2].norm == "how":
                continue
            out.append(
                VerbClause(
                    clause,
                    k,
                    lem,
                    services=ins.service_words,
                    condition=condition,
                    before=antecedent(ins.analysis, n),
                    after=following(ins.analysis, n),
                )
            )
    return out


def instrument_clauses(ins: Instruction, span: tuple[int, int], commands: list[str]) -> list[VerbClause]:
    """Request clauses in the span that ask for an action (not a read) and name every one of
    the commands as the way to do it ("clear the cache with `rm -rf .cache`")."""
    a, b = span
    wanted = {" ".join(c.split()) for c in commands}
    out: list[VerbClause] = []
    for clause, (mode, i) in zip(ins.analysis.clauses, ins.analysis.modes, strict=True):
        if mode != "request" or clause.end <= a or clause.start >= b:
            continue
        toks = clause.tokens
        verb = i + 1 if toks[i].norm in ("git", "gh") and tx.verb_at(toks, i + 1) else i
        lem = tx.verb_at(toks, verb)
        if not lem or lem in lx.READ_VERBS or lem not in lx.ACTION_VERBS:
            continue
        if wanted and wanted <= set(instrument_literals(toks, verb)):
            out.append(VerbClause(clause, verb, lem))
    return out
