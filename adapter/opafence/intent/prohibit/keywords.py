"""One negated verb and its object -> a prohibition: the classes the verb forbids and the keywords
its object narrows them to (addresses, distinctive words, a command's program, package names)."""

from __future__ import annotations

import re

from opafence.intent import lexicon as lx
from opafence.intent import text as tx
from opafence.intent.draft import DraftProhibition
from opafence.intent.lexicon import words

_MULTIPLEXERS = frozenset(
    words("git npm npx yarn pnpm make python python3 cargo go docker kubectl sudo uv poetry bash sh node")
)
_STOP_OBJECT = frozenset(
    words(
        "until till before yet unless without because since so when while after for now right at this "
        "moment point then and but or if"
    )
)
_STRAIGHTEN = str.maketrans("\u2019\u2018", "''")


def lowered(s: str) -> str:
    return s.translate(_STRAIGHTEN).lower()


def keywords_of(tokens: list[tx.Token], mode: str, lemma_: str) -> list[str]:
    """The words that narrow a prohibition to one object, or [] for the whole class."""
    if mode in {"none", "egress"}:
        return []
    if mode == "fixed":
        return [lemma_]
    if mode == "recipients":
        return sorted({keyword(t.norm) for t in tokens if tx.is_recipient(t.core) and not t.possessive})
    if mode == "command":
        lits = [t for t in tokens if t.literal]
        out: list[str] = []
        for lit in lits:
            words = [w for w in lit.norm.split() if not w.startswith("-")]
            pick = next((w for w in words if w not in _MULTIPLEXERS), words[0] if words else "")
            if pick:
                out.append(pick)
        return sorted(set(out))
    if mode == "packages":
        names = [
            t.norm
            for t in tokens
            if re.match(r"^[a-z0-9][a-z0-9._\-\[\]]*$", t.norm)
            and t.norm not in lx.GENERIC_OBJECTS
            and t.norm
            not in (
                "package",
                "packages",
                "library",
                "libraries",
                "dependency",
                "dependencies",
                "deps",
                "new",
                "more",
                "extra",
                "additional",
                "modules",
                "module",
                "pip",
                "npm",
            )
        ]
        return sorted(set(names)) or ["install"]
    # "words": the distinctive words of the object ("the prod database" -> ["prod"]).
    out_words: list[str] = []
    for t in tokens:
        w = t.norm
        if tx.is_path_like(t.core) and not t.literal:
            out_words.append(keyword(_path_keyword(w)))
            continue
        if tx.is_recipient(t.core) or tx.is_domain(t.core):
            out_words.append(keyword(w))
            continue
        if t.literal:
            out_words.append(w.rstrip("/") or w)
            continue
        w = w.strip("'")
        if (
            len(w) < 2
            or w in lx.GENERIC_OBJECTS
            or w in _STOP_OBJECT
            or w in lx.FOLDER_WORDS
            or tx.is_negation(w)
            or not re.match(r"^[a-z0-9][a-z0-9_.-]*$", w)
        ):
            continue
        out_words.append(w)
    return sorted(set(out_words))[:5]


def keyword(value: str) -> str:
    """A keyword in the contract's form: words that must all appear in the call (facts.words, path
    segments, domain labels), space-separated. "build/cache" -> "build cache", "alice@example.com"
    -> "alice example com"; a file name keeps its dot ("main.py" is one path segment)."""
    low = value.lower().strip()
    if "/" in low:
        return " ".join(seg for seg in low.split("/") if seg)
    if "@" in low:
        local = re.split(r"[^0-9a-z]+", low.split("@", 1)[0])
        if all(len(w) >= 2 for w in local if w):
            return " ".join(w for w in re.split(r"[^0-9a-z]+", low) if len(w) >= 2)
    # A word too short to be one of facts.words ("a@x.com") stays whole: Python still strips it
    # from grants exactly; Rego's word match cannot express it.
    return low


def _path_keyword(w: str) -> str:
    """'./build/', '/data', '~/secrets' -> 'build', 'data', 'secrets': how a path reads as words."""
    for prefix in ("~/", "./", "/"):
        if w.startswith(prefix):
            w = w[len(prefix) :]
    return w.rstrip("/") or w


def object_tokens(tokens: tuple[tx.Token, ...], start: int) -> list[tx.Token]:
    """The words a verb governs: up to a stop word, a closing quote or a clause mark."""
    out: list[tx.Token] = []
    for t in tokens[start:]:
        if not t.literal and (t.norm in _STOP_OBJECT or not t.core.strip("\u2014\u2013-")):
            break
        out.append(t)
        if any(ch in t.trail for ch in '"\u201d\u00bb),;:'):
            break
    return out


def is_temporary(text: str) -> bool:
    low = lowered(text)
    return any(re.search(rf"\b{re.escape(c)}\b", low) for c in (*lx.TEMPORARY_CUES, *lx.FOREIGN_TEMPORARY))


def verb_classes(lemma_: str, obj: list[tx.Token]) -> tuple[tuple[str, ...], str] | None:
    """Classes a negated verb forbids, refined by its object where the verb alone is ambiguous."""
    words = {t.norm for t in obj}
    if lemma_ in ("create", "open", "file", "make", "add") and words & (lx.EXTERNAL_OBJECTS | lx.SERVICES):
        return ("EXTERNAL_WRITE",), "none"
    if lemma_ == "merge" and words & {"pr", "prs", "pull", "mr"}:
        return ("EXTERNAL_WRITE",), "none"
    if lemma_ in ("save", "store", "add", "update") and "memory" in words:
        return ("MEMORY_WRITE",), "none"
    if lemma_ in ("make", "do") and words & {"changes", "change", "edits", "modifications"}:
        return ("LOCAL_WRITE", "DELETE"), "words"
    if lemma_ in ("make", "spend") and words & {"purchase", "purchases", "payment", "payments", "money"}:
        return ("FINANCIAL",), "none"
    if lemma_ in ("send", "forward", "share", "email", "mail", "post") and words & {
        "out",
        "outside",
        "externally",
    }:
        return lx.EGRESS_CLASSES, "egress"
    return lx.PROHIBIT_VERBS.get(lemma_)


def make_prohibition(
    lemma_: str, obj: list[tx.Token], clause: tx.Clause, sentence_text: str
) -> DraftProhibition | None:
    found = verb_classes(lemma_, obj)
    if found is None:
        return None
    classes, mode = found
    if mode == "egress":
        return DraftProhibition(
            classes=list(lx.EGRESS_CLASSES),
            egress=True,
            evidence=clause.text,
            temporary=is_temporary(clause.text),
        )
    # "Don't email anyone except bob@x.com": the exception is a bound, not a prohibition of bob.
    norms = [t.norm for t in obj]
    if any(w in ("outside", "beyond") for w in norms) and any(
        w in ("anything", "everything", "files", "file", "nothing") for w in norms
    ):
        return None
    if mode == "recipients" and any(w in ("except", "but", "other", "besides") for w in norms):
        head = norms[: next(i for i, w in enumerate(norms) if w in ("except", "but", "other", "besides"))]
        if any(w in ("anyone", "anybody", "everyone", "anything", "emails", "messages") for w in head):
            return None
    keywords = keywords_of(obj, mode, lemma_)
    besides = bool({"else", "other", "others", "more"} & set(norms)) and not keywords
    return DraftProhibition(
        classes=list(classes),
        keywords=keywords,
        evidence=clause.text,
        temporary=is_temporary(sentence_text),
        besides_granted=besides,
    )
