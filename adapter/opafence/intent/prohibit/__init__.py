"""Read prohibitions, read-only requests and "ask me first" from the whole message.

This reader only ever narrows, so it reads everything: the instruction and the quoted,
pasted and attached material too (an owner's "don't send anything" typed after a forwarded
mail must hold even though the splitter counts the rest of the message as data), and it
runs whatever compiler made the grants, also when an LLM saw only a cut of the message.
It is deliberately eager: a false prohibition makes a call ask or block, a missed one lets
it run.

patterns (whole-sentence readings) and keywords (one negated verb and its object) -> reader."""

from opafence.intent.prohibit.reader import read_prohibitions

__all__ = ["read_prohibitions"]
