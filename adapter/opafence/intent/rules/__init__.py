"""The offline rules compiler: the owner's instruction -> a draft, by its imperative clauses.

clause (which clauses are requests) -> objects (what their words name) -> grant, family,
dispatch (the grants a request asks for, by its verb) -> bounds, analysis (what the whole instruction
bounds or implies) -> compiler (the draft and a note per clause). Hardening (intent/harden/)
reads the same analysis."""

from opafence.intent.rules.analysis import Analysis, analyze
from opafence.intent.rules.compiler import compile_rules

__all__ = ["Analysis", "analyze", "compile_rules"]
