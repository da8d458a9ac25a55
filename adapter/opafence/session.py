"""Per-task session facts: what ran, counters, and which untrusted content came in.

Python observes; Rego decides what these facts mean. The plugin keeps one SessionFacts per
task behind its store's lock; replay keeps one per transcript line."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from opafence.decision import Decision

HISTORY_LIMIT = 50

# Tools whose results are content from outside the user's control (DESIGN.md, trust boundary).
UNTRUSTED_SOURCES: dict[str, str] = {
    "web_search": "search",
    "web_extract": "web",
    "browser_navigate": "web",
    "browser_snapshot": "web",
    "browser_get_images": "web",
    "browser_vision": "web",
    "browser_console": "web",
    "x_search": "search",
}
EXTERNAL_CLASSES = {"EXTERNAL_WRITE", "COMMUNICATION", "FINANCIAL"}


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
        }

    def untrusted_source(self, tool: str, facts: dict[str, Any], workspace: tuple[str, ...]) -> str | None:
        """The kind of untrusted content a call brings in, if any."""
        if tool in UNTRUSTED_SOURCES:
            return UNTRUSTED_SOURCES[tool]
        if tool.startswith("mcp__"):
            return "mcp"
        if tool in ("read_file", "search_files"):
            for p in facts.get("paths", []):
                path = str(p.get("path", ""))
                if path and not any(path == w or path.startswith(w.rstrip("/") + "/") for w in workspace):
                    return "outside_file"
        return None

    def record_decision(self, tool: str, decision: Decision, untrusted: bool = False) -> None:
        self.history.append(
            {
                "tool": tool,
                "verdict": decision.verdict,
                "classes": list(decision.classes),
                "untrusted": untrusted,
            }
        )
        del self.history[:-HISTORY_LIMIT]

    def record_execution(
        self, tool: str, facts: dict[str, Any], classes: list[str], workspace: tuple[str, ...] = ()
    ) -> None:
        """Account for a call that ran: counters, files touched, untrusted content that came in."""
        c = self.counters
        c["calls"] += 1
        kinds = set(classes)
        if kinds & EXTERNAL_CLASSES:
            c["external_writes"] += 1
        if "COMMUNICATION" in kinds:
            c["communications"] += 1
        if tool == "delegate_task":
            c["delegations"] += 1
        for p in facts.get("paths", []):
            if p.get("path"):
                self.files.add(str(p["path"]))
        c["distinct_files"] = len(self.files)
        source = self.untrusted_source(tool, facts, workspace)
        if source:
            self.untrusted_sources.add(source)
