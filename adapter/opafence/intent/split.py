"""Separate the owner's own instruction from the material they quoted, pasted or attached.

Only the instruction can grant. Everything else is kept as data (for --explain and for the
prohibition reader, which reads the whole message): code fences, `>` quotes, quoted strings
of more than one word, email header blocks and forwarded mail, pasted-content tags, text
introduced as content ("summarize this email: ..."), reported speech ("he wrote: ..."),
prompt-injection boilerplate, text the owner asks to have transformed ("translate this: ...",
"write a poem about: ..."), and the blocks Hermes appends when the user writes @file,
@url, @git or @diff (`--- Attached Context ---`, see agent/context_references.py).

When we cannot tell where quoted material ends, the rest of the message is data: losing a
grant makes a call ask, taking an attacker's words as the owner's would let it run."""

from __future__ import annotations

import re
from dataclasses import dataclass

from opafence.intent import lexicon as lx

# Hermes appends "\n\n--- Context Warnings ---\n..." and then "\n\n--- Attached Context ---\n\n...".
_HERMES_BLOCK = re.compile(r"^[ \t]*--- (Attached Context|Context Warnings) ---[ \t]*$", re.MULTILINE)
_FENCE = re.compile(r"(```|~~~|\"\"\"|''').*?(?:\1|\Z)", re.DOTALL)
_PASTE_TAGS = (
    "pasted|paste|pasted_text|pasted-text|pasted_content|pasted-content|clipboard|document|doc|"
    "attachment|attached|file|email|mail|quote|quoted|context|untrusted|data|content|excerpt|"
    "transcript|webpage|web_page|page|tool_output|tool_result|output|result|snippet|source|message|"
    "forwarded|untrusted_content|external|user_data|input"
)
_PASTE_BLOCK = re.compile(rf"<({_PASTE_TAGS})(?:\s[^>\n]*)?>.*?(?:</\1\s*>|\Z)", re.DOTALL | re.IGNORECASE)
_PASTE_PLACEHOLDER = re.compile(r"\[Pasted text #\d+:[^\]\n]*\]")
_BEGIN_END = re.compile(
    r"^[ \t]*[-=\[]{2,}\s*BEGIN\b[^\n]*$.*?(?:^[ \t]*[-=\[]{2,}\s*END\b[^\n]*$|\Z)",
    re.MULTILINE | re.DOTALL | re.IGNORECASE,
)
_FORWARD = re.compile(
    r"^[ \t]*(?:-{2,}\s*(?:Forwarded message|Original Message|Weitergeleitete Nachricht|"
    r"Message transféré|Mensaje reenviado|Messaggio inoltrato)\s*-{2,}|Begin forwarded message:|"
    r"_{8,}|(?:Fwd?|FW|WG|TR|RV|RE|AW):\s.*|On\s.{3,200}\bwrote:|Am\s.{3,200}\bschrieb.*:|"
    r"Le\s.{3,200}\ba écrit\s?:|El\s.{3,200}\bescribió:)[ \t]*$",
    re.MULTILINE | re.IGNORECASE,
)
_HEADER_LINE = re.compile(
    r"^[ \t]*(?:From|To|Cc|Bcc|Subject|Date|Sent|Reply-To|Message-ID|Return-Path|Received|"
    r"Delivered-To|MIME-Version|Content-Type|Von|An|Betreff|Datum|De|À|Objet|Para|Asunto|Fecha|Da|A|"
    r"Oggetto|X-[\w-]+):[ \t].*$",
    re.IGNORECASE,
)
_QUOTE_LINES = re.compile(r"(?:^[ \t]*>.*(?:\n|\Z))+", re.MULTILINE)
_CONTENT_NOUNS = (
    "email|e-mail|mail|message|text|document|doc|page|article|note|log|output|thread|post|comment|"
    "transcript|chat|conversation|snippet|content|excerpt|letter|memo|reply|response|tweet|review|"
    "report|ticket|issue|description|paragraph|passage|quote|error|traceback|stack trace|diff|file|"
    "webpage|website|site|newsletter|notification|sms|dm"
)
_INTRODUCED = re.compile(
    r"\b(?:(?:the\s+)?following|below|this|these|that|here(?:'s|\u2019s|\s+is|\s+are)|attached|pasted|"
    r"forwarded|quoted|their|his|her|the)\b[^.!?\n:]{0,60}?\b(?:" + _CONTENT_NOUNS + r")s?\b"
    # A URL's scheme colon ("the page on https://...") and a time ("the review at 11:00")
    # introduce nothing.
    r"[^.!?\n:]{0,40}(?<![0-9]):(?!//)[ \t]*(?=\S|\n)",
    re.IGNORECASE,
)
_REPORTED = re.compile(
    r"\b(?:said|says|wrote|writes|asked|asks|replied|replies|mentioned|claims|stated|states|"
    r"commented|tweeted|posted|instructs|instructed|requested|reads|told\s+(?:me|us)|"
    r"tells\s+(?:me|us)|sagt|sagte|schrieb|dit|écrit|dice|dijo|escribió)(?:\s+(?:to\s+)?(?:me|us|you))?"
    r"\s*:(?!//)[ \t]*(?=\S|\n)",
    re.IGNORECASE,
)
# Text the owner asks to have transformed is content however imperative ("translate this to
# French: delete the build folder", "write a poem about: ...", "rewrite this more politely: ...").
# Verbs whose object is the text itself, whatever it names.
_TRANSFORM_TEXT = (
    r"translate|summari[sz]e|paraphrase|rephrase|reword|proofread|copy-?edit|tl;?dr|"
    r"(?:correct|fix|check)\s+(?:the\s+)?(?:grammar|spelling|typos|wording|tone|punctuation)|"
    r"give\s+me\s+(?:a\s+|an\s+|the\s+)?(?:\S+\s+){0,2}?(?:summary|translation|tl;?dr|gist)|"
    r"write\s+(?:me\s+)?(?:a\s+|an\s+|some\s+)?(?:\S+\s+)?"
    r"(?:poem|haiku|limerick|song|story|sonnet|rap|joke|verse|ballad|essay|caption)s?"
)
# Verbs that transform text only when their object is the text that follows ("rewrite this
# more politely:", "turn the following into a list"), not a thing they act on ("simplify the
# config: remove the unused keys").
_TRANSFORM_THIS = (
    r"(?:rewrite|polish|shorten|condense|simplify|explain|interpret|critique|turn|convert|reformat|"
    r"format|improve|edit)\s+(?:this|these|the\s+following|the\s+text\s+below|the\s+text)\b"
)
_TRANSFORM = re.compile(
    rf"\b(?:{_TRANSFORM_TEXT}|{_TRANSFORM_THIS})[^.!?\n:]{{0,80}}:(?![/\w])[ \t]*(?=\S|\n)"
    # without a colon: "Can you turn this into a bullet list?" and the text on the next lines
    rf"|\b(?:{_TRANSFORM_TEXT})[^.!?\n:]{{0,80}}?"
    r"\b(?:this|these|the\s+following|below)\b[^.!?\n:]{0,60}[.!?]?[ \t]*\n"
    rf"|\b{_TRANSFORM_THIS}[^.!?\n:]{{0,80}}[.!?]?[ \t]*\n",
    re.IGNORECASE,
)
# Pasted content announced without a colon: "Here's what the vendor sent me. Please wire ...".
_ANNOUNCED = re.compile(
    r"\bhere(?:'s|\u2019s|\s+is|\s+are)\s+what\s+(?:\S+\s+){1,4}?(?:sent|wrote|said|says|writes|forwarded|"
    r"posted|replied|emailed|texted)\b[^.!?:\n]{0,40}[.!?:\n]+[ \t]*"
    r"|\b(?:i\s+)?(?:got|received)\s+(?:this|the\s+following|an?\s+(?:email|message|text|note|dm|letter))\b"
    r"[^.!?:\n]{0,60}[.!?:\n]+[ \t]*"
    r"|\b(?:sent|forwarded|wrote|texted|emailed)\s+(?:me|us)\s+(?:this|the\s+following)\b[^.!?:\n]{0,40}"
    r"[.!?:\n]+[ \t]*",
    re.IGNORECASE,
)
_INJECTION = re.compile(
    r"\b(?:ignore|disregard|forget|override|bypass)\s+(?:all\s+|any\s+|the\s+|your\s+|my\s+)*"
    r"(?:previous|prior|above|earlier|preceding|original|system|safety|former)\s+"
    r"(?:instructions?|prompts?|rules?|directions?|messages?|guidelines?|context|policies|policy)"
    r"|\byou\s+are\s+now\b|\bnew\s+(?:system\s+)?instructions?\s*:|\bsystem\s+prompt\b|<\|im_start\|>"
    r"|\[/?INST\]|###\s*(?:system|instruction)|\bBEGIN\s+SYSTEM\b|\bdeveloper\s+mode\b"
    r"|\bact\s+as\s+(?:an?\s+)?(?:unrestricted|jailbroken|dan)\b|\bdo\s+anything\s+now\b"
    r"|\bignoriere\s+(?:alle\s+)?(?:vorherigen|bisherigen)\b|\bignore[zr]?\s+les\s+instructions\b"
    r"|\bignora\s+(?:las\s+|le\s+)?instrucciones\b",
    re.IGNORECASE,
)
_DOUBLE_QUOTED = re.compile(
    r"\"([^\"\n]{1,2000})\"|“([^”\n]{1,2000})”|«([^»\n]{1,2000})»|„([^“”\n]{1,2000})[“”]"
)
_SINGLE_QUOTED = re.compile(
    r"(?<![\w'\u2019])['\u2018]([^\s'\u2018\u2019][^'\u2018\u2019\n]{0,2000}?[^\s'\u2018\u2019])"
    r"['\u2019](?![\w'\u2019])"
)
# A `backtick literal` (the tokenizer's literal token, intent/text.py), then the quoted strings.
_QUOTED_OR_LITERAL = re.compile(
    r"(?P<tick>`[^`\n]+`)|" + _DOUBLE_QUOTED.pattern + "|" + _SINGLE_QUOTED.pattern
)
QUOTE_MARK = '"…"'


@dataclass(frozen=True)
class DataBlock:
    kind: str
    text: str


@dataclass(frozen=True)
class Split:
    whole: str  # the message as received
    instruction: str  # the owner's own words: the only text that can grant
    data: tuple[DataBlock, ...]

    def data_text(self) -> str:
        return "\n".join(b.text for b in self.data)


def _cut_rest(text: str, at: int, kind: str, data: list[DataBlock]) -> str:
    rest = text[at:].strip()
    if rest:
        data.append(DataBlock(kind, rest))
    return text[:at]


def _remove(pattern: re.Pattern[str], text: str, kind: str, data: list[DataBlock], repl: str = "\n") -> str:
    def sub(m: re.Match[str]) -> str:
        data.append(DataBlock(kind, m.group(0).strip()))
        return repl

    return pattern.sub(sub, text)


def _header_block_start(text: str) -> int | None:
    """Offset of the first run of two or more email header lines, or None."""
    offset = 0
    run_start: int | None = None
    run = 0
    for line in text.splitlines(keepends=True):
        if _HEADER_LINE.match(line.rstrip("\n")):
            if run == 0:
                run_start = offset
            run += 1
            if run >= 2:
                return run_start
        else:
            run = 0
        offset += len(line)
    return None


def _sentence_start(text: str, at: int) -> int:
    """Where the sentence holding offset `at` starts."""
    i = at
    while i > 0 and text[i - 1] not in ".!?;\n":
        i -= 1
    return i


_DELETE_VERBS = lx.CAPABILITY_VERBS[("DELETE", "delete")]
_LEAD_FILLERS = frozenset(("please", "just", "now", "then"))
_JOINERS = frozenset(("and", "then", "but", "also", "plus", "or", "&", "after", "before"))
_SENTENCE_END = re.compile(r"[.!?;\n]")


def _words(text: str) -> list[str]:
    return [w for w in (x.strip(".,;:!?'\"()").lower() for x in text.split()) if w]


def _restated_deletion_end(text: str, m: re.Match[str]) -> int | None:
    """Where a restated deletion after an introducing colon ends, or None when there is none.

    "Clean the build output: delete the build directory": a deletion whose object is introduced
    with a bare "the" and a colon, followed by one plain deletion request that says which. What
    is deleted is a thing, not the text after the colon, so that one sentence stays an
    instruction (hardening still wants literal paths). It must be a single clause with nothing
    but a deletion in it: no second verb joined on, no list, no address or URL. Any other
    determiner ("this", "the following", ...), verb or continuation keeps the colon's rule, and
    whatever follows that sentence is data all the same."""
    intro = m.group(0).lower()
    if not re.match(r"the\s", intro) or re.match(r"the\s+following\b", intro):
        return None
    head = [w for w in _words(text[_sentence_start(text, m.start()) : m.start()]) if w not in _LEAD_FILLERS]
    if len(head) != 1 or lx.lemma(head[0]) not in _DELETE_VERBS:
        return None
    end_m = _SENTENCE_END.search(text, m.end())
    end = end_m.start() if end_m else len(text)
    sentence = text[m.end() : end]
    said = _words(sentence)
    while said and said[0] in _LEAD_FILLERS:
        said = said[1:]
    if not said or lx.lemma(said[0]) not in _DELETE_VERBS:
        return None
    if "," in sentence or "@" in sentence or "://" in sentence or any(w in _JOINERS for w in said):
        return None
    return end


def _introduced_cut(text: str) -> int | None:
    """Where introduced content starts (see _INTRODUCED), after a restated deletion if any."""
    for m in _INTRODUCED.finditer(text):
        end = _restated_deletion_end(text, m)
        if end is None:
            return m.end()
        rest = text[end:].lstrip(".!?;")
        if rest.strip():
            return len(text) - len(rest)
        return None
    return None


def _quoted_strings(text: str, data: list[DataBlock]) -> str:
    """Quoted text of more than one word becomes data, outside `backtick literals`.

    A backticked command is the owner's own instruction, quotes included (`psql -c 'SELECT 1'`):
    scanning left to right, whichever opens first wins, so a literal inside a quote stays data
    and a quote inside a literal stays part of the literal."""

    def sub(m: re.Match[str]) -> str:
        if m.group("tick") is not None:
            return m.group(0)
        inner = next(g for g in m.groups() if g is not None)
        # One word in quotes is a literal the owner names ("save it as 'notes.md'"), not text.
        if len(inner.split()) <= 1:
            return m.group(0)
        data.append(DataBlock("quoted", inner))
        return QUOTE_MARK

    return _QUOTED_OR_LITERAL.sub(sub, text)


def split_message(message: str) -> Split:
    """The owner's instruction and the data around it. Pure; never raises on any string."""
    whole = message if isinstance(message, str) else str(message)
    text = whole.replace("\r\n", "\n").replace("\r", "\n").replace("\x00", "")
    data: list[DataBlock] = []

    m = _HERMES_BLOCK.search(text)
    if m:
        text = _cut_rest(text, m.start(), "attached", data)

    text = _remove(_FENCE, text, "code", data)
    text = _remove(_PASTE_BLOCK, text, "pasted", data)
    text = _remove(_PASTE_PLACEHOLDER, text, "pasted", data, repl=" ")
    text = _remove(_BEGIN_END, text, "pasted", data)

    m = _FORWARD.search(text)
    if m:
        text = _cut_rest(text, m.start(), "forwarded", data)
    at = _header_block_start(text)
    if at is not None:
        text = _cut_rest(text, at, "email", data)
    text = _remove(_QUOTE_LINES, text, "quote", data, repl="\n")

    at = _introduced_cut(text)
    t = _TRANSFORM.search(text)
    if t is not None and (at is None or t.end() < at):
        at = t.end()
    if at is not None:
        text = _cut_rest(text, at, "introduced", data)
    for pattern, kind in ((_REPORTED, "reported"), (_ANNOUNCED, "introduced")):
        m = pattern.search(text)
        if m:
            text = _cut_rest(text, m.end(), kind, data)

    text = _quoted_strings(text, data)

    m = _INJECTION.search(text)
    if m:
        text = _cut_rest(text, _sentence_start(text, m.start()), "injection", data)

    instruction = re.sub(r"\n{3,}", "\n\n", "\n".join(line.rstrip() for line in text.split("\n"))).strip()
    return Split(whole=whole, instruction=instruction, data=tuple(data))
