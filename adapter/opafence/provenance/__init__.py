"""Provenance of call targets: which values first came in through untrusted content (issue 15)."""

from opafence.provenance.ledger import ValueLedger
from opafence.provenance.record import note_message, note_result, provenance_facts

__all__ = ["ValueLedger", "note_message", "note_result", "provenance_facts"]
