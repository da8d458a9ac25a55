"""Per-task session facts: what ran, counters, and which untrusted content came in.

Python observes; Rego decides what these facts mean. The plugin keeps one SessionFacts per
task behind its store's lock; replay keeps one per transcript line."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from opafence.decision import Decision
from opafence.facts.secrets import key_material
from opafence.provenance.ledger import ValueLedger

HISTORY_LIMIT = 50

EXTERNAL_CLASSES = {"EXTERNAL_WRITE", "COMMUNICATION", "FINANCIAL"}
# Reason codes by which Rego says a call reads secret material (guards issue).
SECRET_READ_PREFIX = "SECRET_READ"  # noqa: S105 - a reason code, not a password


@dataclass
class SessionFacts:
    history: list[dict[str, Any]] = field(default_factory=list)
    counters: dict[str, Any] = field(
        default_factory=lambda: {
            "calls": 0,
            "external_writes": 0,
            "communications": 0,
            "distinct_files": 0,
            "delegations": 0,
            "by_grant": {},
        }
    )
    files: set[str] = field(default_factory=set)
    untrusted_sources: set[str] = field(default_factory=set)
    secret_read: bool = False
    subagent: bool = False
    # The host of the page the browser was last sent to ("" when not known): clicks and typing act
    # on it, so a grant for the page the owner named can cover them (classify.rego).
    browser_page: str = ""
    # Target-like values of untrusted content, as keyed hashes with their source (provenance/).
    values: ValueLedger = field(default_factory=ValueLedger)

    def to_input(self) -> dict[str, Any]:
        return {
            "history": list(self.history[-HISTORY_LIMIT:]),
            "counters": {**self.counters, "by_grant": dict(self.counters["by_grant"])},
            "taint": {
                "untrusted": bool(self.untrusted_sources),
                "sources": sorted(self.untrusted_sources),
                "secret_read": self.secret_read,
            },
            "subagent": self.subagent,
            "browser": {"page": self.browser_page},
        }

    def record_decision(self, tool: str, decision: Decision) -> None:
        """A decided call in the history; `untrusted` marks a call that brings content in
        (Rego says which: the decision's `ingests`)."""
        self.history.append(
            {
                "tool": tool,
                "verdict": decision.verdict,
                "classes": list(decision.classes),
                "untrusted": bool(decision.ingests),
            }
        )
        del self.history[:-HISTORY_LIMIT]

    def reserve(
        self, tool: str, facts: dict[str, Any], classes: list[str], grants: Sequence[str] = ()
    ) -> None:
        """Count a call at decision time: calls of one concurrent batch are all decided before
        any runs, so budgets must be reserved then, not after execution."""
        self._count(tool, classes, +1)
        self._count_grants(grants, +1)
        if tool == "browser_navigate":
            hosts = [str(u.get("host", "")) for u in facts.get("urls", []) if u.get("host")]
            self.browser_page = hosts[0].lower() if hosts else ""
        elif tool in ("browser_back", "browser_cdp"):
            self.browser_page = ""  # another page, or one we cannot tell
        for p in facts.get("paths", []):
            if p.get("path"):
                self.files.add(str(p["path"]))
        self.counters["distinct_files"] = len(self.files)

    def release(self, tool: str, classes: list[str], grants: Sequence[str] = ()) -> None:
        """Give a reservation back: the call did not run (denied, blocked later, cancelled)."""
        self._count(tool, classes, -1)
        self._count_grants(grants, -1)

    def _count_grants(self, grants: Sequence[str], step: int) -> None:
        used = self.counters["by_grant"]
        for g in grants:
            used[g] = max(0, int(used.get(g, 0)) + step)

    def _count(self, tool: str, classes: list[str], step: int) -> None:
        c = self.counters
        kinds = set(classes)
        c["calls"] = max(0, c["calls"] + step)
        if kinds & EXTERNAL_CLASSES:
            c["external_writes"] = max(0, c["external_writes"] + step)
        if "COMMUNICATION" in kinds:
            c["communications"] = max(0, c["communications"] + step)
        if tool == "delegate_task":
            c["delegations"] = max(0, c["delegations"] + step)

    def observe(self, ingests: Sequence[str], secret_read: bool) -> None:
        """What a call that ran brought into the session, as its decision said: the kinds of
        untrusted content (`ingests`) and whether it read secret material."""
        self.untrusted_sources.update(ingests)
        if secret_read:
            self.secret_read = True

    def record_execution(self, tool: str, facts: dict[str, Any], decision: Decision) -> None:
        """Account for a call that ran (replay's view: reserve and observe at once)."""
        self.reserve(tool, facts, decision.classes, decision.grants)
        self.observe(decision.ingests, reads_secret(decision))


RESULT_SCAN = 1 << 20  # characters of a tool result scanned for key material


def result_holds_secret(result: Any) -> bool:
    """Does a tool's result hold key material (facts/secrets.py, `key_material`)? Never raises;
    a result that cannot be scanned counts as holding some (the stricter rule then applies). A
    very long result is scanned at its head and its tail."""
    if result is None:
        return False
    try:
        if not isinstance(result, str):
            result = json.dumps(result, default=str)  # a plugin may hand over an object
        if len(result) < 24:
            return False
        if len(result) <= RESULT_SCAN:
            return bool(key_material(result))
        return bool(key_material(result[: RESULT_SCAN // 2]) or key_material(result[-RESULT_SCAN // 2 :]))
    except Exception:
        return True


def reads_secret(decision: Decision) -> bool:
    """Did Rego flag this call as reading secret material?"""
    reasons = list(decision.reasons) + (list(decision.monitor.reasons) if decision.monitor else [])
    return any(r.code.startswith(SECRET_READ_PREFIX) for r in reasons)
