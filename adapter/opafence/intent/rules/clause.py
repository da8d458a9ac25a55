"""A request clause and the mode of every clause.

The mode says whether a clause asks for an action: a request (an imperative, after "please",
"then", "can you", ...) does; a question, a conditional's condition, a hypothetical, reported speech
or a negated clause does not. A VerbClause is a request with its verb, its object and what
surrounds it (the condition, the clause before, the sentence after a colon)."""

from __future__ import annotations

import re
from dataclasses import dataclass

from opafence.intent import lexicon as lx
from opafence.intent import text as tx
from opafence.intent.lexicon import words

_RECIPIENT_RESET = frozenset(words("to cc bcc with an à para and"))
MONEY = re.compile(r"[$€£¥]\s?\d|\b\d+(?:[.,]\d+)?\s?(?:usd|eur|gbp|dollars?|euros?|pounds?|bucks)\b", re.I)
# Sentence openers that make the whole sentence a question, with or without "?".
_QUESTION_OPENERS = frozenset(
    words(
        "what how why where who which whose whom what's how's where's who's why's is are was were does "
        "did isn't aren't doesn't didn't"
    )
)


@dataclass
class VerbClause:
    clause: tx.Clause
    i: int  # index of the main verb
    lemma: str
    tool: str = ""  # "git", "pip", ... when the verb came after one ("git push", "pip install")
    services: frozenset[str] = frozenset()  # words naming a server of the session's tools
    # The condition of a conditional's action ("if ann@x.com replies, forward it to her"): its
    # people are whom a pronoun of the action names.
    condition: tuple[tx.Token, ...] = ()
    # The clause before it in the same sentence: what a pronoun object ("find a free room and
    # reserve it") stands for.
    before: tuple[tx.Token, ...] = ()
    # The sentence after the colon that ends this clause ("update my profile: my new email is x").
    after: tuple[tx.Token, ...] = ()

    @property
    def toks(self) -> tuple[tx.Token, ...]:
        return self.clause.tokens

    @property
    def obj(self) -> tuple[tx.Token, ...]:
        return self.clause.tokens[self.i + 1 :]

    @property
    def words(self) -> set[str]:
        return {t.norm for t in self.obj if not t.literal}

    @property
    def context_words(self) -> set[str]:
        """The object's words, and those of the clause before when the object points back to it
        ("I need the Vite dev server up; start it please")."""
        if not refers_back(self):
            return self.words
        return self.words | {t.norm for t in self.before if not t.literal}


POINTERS = frozenset(["it", "them", "that", "this", "those", "these", "one"])


def refers_back(c: VerbClause) -> bool:
    """Does the object point back to the clause before ("it", "that branch", "the same one")?"""
    toks = [t for t in c.obj if not t.literal]
    # "read me the title of the page (use the console)": a parenthesis says how to do the one before
    aside = bool(c.toks) and c.toks[0].raw.startswith("(")
    return bool(c.before) and (aside or any(t.norm in POINTERS for t in toks[:3]))


def _is_question(sent: list[tx.Token]) -> bool:
    if not sent or "?" not in sent[-1].trail:
        return False
    norms = [t.norm for t in sent[:4]]
    polite = (
        len(norms) > 1 and norms[0] in ("can", "could", "would", "will", "may") and norms[1] in ("you", "u")
    )
    return not (polite or "please" in (t.norm for t in sent))


def conditional_sentence(sent: list[tx.Token]) -> bool:
    i = tx.skip_fillers(sent, 0)
    if i >= len(sent):
        return False
    head = " ".join(t.norm for t in sent[i : i + 3])
    return (
        sent[i].norm in lx.CONDITIONAL_CUES
        or sent[i].norm in ("wenn", "falls", "si", "se")
        or any(head.startswith(p) for p in lx.CONDITIONAL_PHRASES)
    )


# Conditions that start inside a clause with more than one word ("pay it as long as it is under 50").
_MID_CONDITIONS = (("as", "long", "as"), ("on", "condition", "that"), ("in", "case"), ("so", "long", "as"))


def condition_phrase_at(toks: tuple[tx.Token, ...] | list[tx.Token], k: int) -> bool:
    return any(
        k + len(p) <= len(toks)
        and all(not toks[k + j].literal and toks[k + j].norm == w for j, w in enumerate(p))
        for p in _MID_CONDITIONS
    )


def mode_of(sent: list[tx.Token], clause: tx.Clause, consequent: bool = False) -> tuple[str, int]:
    """("request", verb index) for an imperative clause, else (why it grants nothing, -1).
    `consequent`: the clause is the action of a conditional ("if X, do Y"), judged on its own."""
    if not consequent and conditional_sentence(sent):
        return "conditional", -1
    if any(t.norm in lx.HYPOTHETICAL_CUES and not t.literal for t in sent):
        return "hypothetical", -1
    if _is_question(sent):
        return "question", -1
    s0 = tx.skip_fillers(sent, 0)
    if s0 < len(sent) and (
        sent[s0].norm in _QUESTION_OPENERS
        or (
            s0 + 1 < len(sent)
            and sent[s0].norm in ("do", "can", "could", "should", "may", "shall", "would", "will")
            and sent[s0 + 1].norm in ("i", "we", "you", "it", "they", "he", "she", "this", "that")
            and not (sent[s0].norm in ("can", "could", "would", "will") and sent[s0 + 1].norm == "you")
        )
    ):
        return "question", -1
    toks = clause.tokens
    i = tx.skip_fillers(toks, 0)
    if i >= len(toks):
        return "no verb", -1
    if (
        i + 2 < len(toks)
        and tx.is_negation(toks[i].norm)
        and toks[i + 1].norm == "forget"
        and (toks[i + 2].norm == "that" or toks[i + 1].trail.startswith(":"))
    ):
        return "request", i + 1  # "don't forget that I'm allergic to peanuts": a note to keep
    first = toks[i].norm
    if first in lx.QUESTION_STARTS:
        return "question", -1
    if first in ("git", "gh") and tx.verb_at(toks, i + 1):
        i += 1
    # "would you mind running x", "try running x": the gerund is the request
    after_mind = i > 0 and toks[i - 1].norm in ("mind", "try")
    if first == "try" and i + 1 < len(toks) and toks[i + 1].norm.endswith("ing") and tx.verb_at(toks, i + 1):
        i, first, after_mind = i + 1, toks[i + 1].norm, True
    if (
        first.endswith("ing")
        and not after_mind
        and first not in ("bring", "ping", "ring", "string")
        and tx.verb_at(toks, i)
    ):
        return "not imperative", -1  # "Deleting files is not allowed": a gerund subject
    if not tx.verb_at(toks, i) and not (i + 1 < len(toks) and (first, toks[i + 1].norm) in lx.INSTALL_TOOLS):
        return "no verb", -1
    for k in range(i + 1, len(toks)):
        t = toks[k]
        if t.literal:
            continue
        if condition_phrase_at(toks, k) and not consequent:
            return "conditional", -1  # "delete the cache as long as nothing uses it"
        if t.norm in lx.CONDITIONAL_CUES and toks[k - 1].norm not in lx.EMBEDDED_IF_VERBS and not consequent:
            if (
                t.norm == "whether"
                and k + 2 < len(toks)
                and toks[k + 1].norm == "or"
                and toks[k + 2].norm == "not"
            ):
                continue  # "whether or not it is empty": no condition on the request
            return "conditional", -1
        if t.norm in lx.FOREIGN_NEGATIONS and t.norm not in ("no", "non", "ne"):
            return "negated", -1
    if i + 1 < len(toks) and toks[i + 1].norm in ("not", "nothing", "none", "no", "nobody"):
        return "negated", -1  # "send nothing", "delete none of them"
    return "request", i
