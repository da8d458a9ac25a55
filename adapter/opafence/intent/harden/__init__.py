"""Hardening: the deterministic checks every draft grant must pass, whoever wrote the draft.

A grant survives only if:
- its class and capability are in the contract's vocabulary (docs/contract.md) and the class
  can be granted by words at all (never READ, which needs no grant, or SELF_MODIFICATION);
- its evidence is a verbatim quote of the cleaned instruction, overlapping a clause that is a
  request (not a question, conditional, hypothetical or negation) and holding an affirmative
  verb of *that* capability's own list: a request to send does not authorize a CRM update;
- every recipient is the object of a send verb in that clause (not a sender, not excluded,
  not a bare name, not an address seen only in quoted material);
- every domain, path, command and package is a whole token (or literal) of the instruction;
  paths are made canonical and `/`, `~`, home directories, top-level directories and
  wildcards are refused as path bounds;
- the targets its capability needs are there (a send needs a recipient, a delete a path, ...).
Targets that fail are stripped one by one; a grant left without the targets it needs is
dropped. Every strip and drop is recorded with its reason. Prohibitions, read-only and bounds
are applied afterwards over the whole task (`apply_narrowing`), so they beat every grant,
earlier messages' grants included.

instruction (the words and clauses a quote is checked against) -> target_checks (each kind of
target) -> grants (one grant, then the draft) -> narrowing (over the whole task)."""

from opafence.intent.harden.grants import harden
from opafence.intent.harden.instruction import Hardened
from opafence.intent.harden.narrowing import apply_narrowing, covers, grant_summary

__all__ = ["Hardened", "apply_narrowing", "covers", "grant_summary", "harden"]
