"""Verb lemmas: every inflected form ("sending", "deleted", "emails") of a verb the lexicon
knows maps back to it."""

from __future__ import annotations

from functools import cache

from opafence.intent.lexicon.negated import PROHIBIT_VERBS
from opafence.intent.lexicon.verbs import CAPABILITY_VERBS, READ_VERBS, words

_IRREGULAR: dict[str, tuple[str, ...]] = {
    "send": ("sent",),
    "buy": ("bought",),
    "pay": ("paid",),
    "run": ("ran",),
    "rerun": ("reran",),
    "write": ("wrote", "written"),
    "rewrite": ("rewrote", "rewritten"),
    "make": ("made",),
    "tell": ("told",),
    "build": ("built",),
    "rebuild": ("rebuilt",),
    "get": ("got", "gotten"),
    "do": ("did", "done"),
    "go": ("went", "gone"),
    "take": ("took", "taken"),
    "give": ("gave", "given"),
    "keep": ("kept",),
    "leave": ("left",),
    "spend": ("spent",),
    "find": ("found",),
    "read": ("read",),
    "set": ("set",),
    "put": ("put",),
    "forget": ("forgot", "forgotten"),
    "see": ("saw", "seen"),
    "think": ("thought",),
}
_DOUBLE = frozenset(
    words(
        "commit stop tag ship drop submit plan chat dm wrap zip set cut put run rerun forget begin "
        "admit permit omit scan skip trim log flag grab shop rid spin"
    )
)


def _inflections(verb: str) -> set[str]:
    out = {verb}
    if " " in verb or not verb.isascii():
        return out
    if verb.endswith(("s", "sh", "ch", "x", "z", "o")):
        out.add(verb + "es")
    elif len(verb) > 2 and verb.endswith("y") and verb[-2] not in "aeiou":
        out.add(verb[:-1] + "ies")
    else:
        out.add(verb + "s")
    stem = verb + verb[-1] if verb in _DOUBLE else verb
    if verb.endswith("ee"):
        out |= {verb + "d", verb + "ing"}
    elif verb.endswith("e"):
        out |= {verb + "d", verb[:-1] + "ing"}
    elif len(verb) > 2 and verb.endswith("y") and verb[-2] not in "aeiou":
        out |= {verb[:-1] + "ied", verb + "ing"}
    else:
        out |= {stem + "ed", stem + "ing"}
    out.update(_IRREGULAR.get(verb, ()))
    return out


def _all_verbs() -> set[str]:
    verbs: set[str] = set(READ_VERBS)
    for row in CAPABILITY_VERBS.values():
        verbs |= row
    verbs |= {"touch", "alter", "leave", "do", "keep", "stop", "wait", "ask", "go", "let", "mess", "spend"}
    verbs |= set(PROHIBIT_VERBS)
    return verbs


_LEMMAS: dict[str, str] = {}
for _verb in sorted(_all_verbs()):
    for _form in _inflections(_verb):
        _LEMMAS.setdefault(_form, _verb)


@cache
def lemma(word: str) -> str:
    """The lemma of an inflected verb form, or "" when the word is not a verb we know."""
    return _LEMMAS.get(word, "")
