"""Assemble the decision input document (rego/schemas/input.jsonschema)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from opafence.facts import FactsContext, build_facts
from opafence.host import Host
from opafence.provenance import provenance_facts
from opafence.session import SessionFacts


def facts_context(host: Host) -> FactsContext:
    return FactsContext(home=host.home, cwd=host.cwd, hermes_home=host.hermes_home, state_dir=host.state_dir)


def decision_input(
    task: str,
    tool: str,
    args: Mapping[str, Any],
    call_id: str,
    session: SessionFacts,
    host: Host,
    facts: dict[str, Any] | None = None,
) -> dict[str, Any]:
    if facts is None:
        facts = build_facts(tool, args, facts_context(host))
    if "provenance" not in facts:
        # Only the records of this call's own targets go to Rego, never the task's values.
        facts["provenance"] = provenance_facts(session.values, tool, args, facts, host.home)
    return {
        "task": task,
        "call": {"tool": tool, "args": dict(args), "id": call_id},
        "facts": facts,
        "session": session.to_input(),
        "host": host.to_input(),
    }
