"""The user's words -> a hardened TaskPolicy (DESIGN.md, "The TaskPolicy").

split (instruction vs quoted/pasted/attached data) -> rules or LLM compiler (a draft) ->
hardening (evidence, targets, vocabulary) -> merge with the task's earlier messages ->
prohibitions, read-only and bounds over every grant. `compile_message` never raises."""

from __future__ import annotations

from opafence.intent.compile import Compiled, compile_explained, compile_message
from opafence.intent.draft import Draft, DraftBounds, DraftGrant, DraftProhibition, Note
from opafence.intent.prohibit import read_prohibitions
from opafence.intent.rules import compile_rules
from opafence.intent.split import DataBlock, Split, split_message

__all__ = [
    "Compiled",
    "DataBlock",
    "Draft",
    "DraftBounds",
    "DraftGrant",
    "DraftProhibition",
    "Note",
    "Split",
    "compile_explained",
    "compile_message",
    "compile_rules",
    "read_prohibitions",
    "split_message",
]
