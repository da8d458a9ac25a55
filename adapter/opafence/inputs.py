"""Assemble the decision input document (rego/schemas/input.jsonschema)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from opafence.config import Config, canonical_paths
from opafence.facts import FactsContext, build_facts
from opafence.facts.links import Identities
from opafence.host import Host
from opafence.provenance import provenance_facts
from opafence.session import SessionFacts


def facts_context(host: Host, identities: Identities | None = None) -> FactsContext:
    return FactsContext(
        home=host.home,
        cwd=host.cwd,
        hermes_home=host.hermes_home,
        state_dir=host.state_dir,
        identities=identities,
    )


def identities_for(host: Host, config: Config) -> Identities:
    """The protected places' identities for a host (facts/links.py): the secret places, Hermes'
    and opafence's own, the configured credential, trust and protected files, and the code
    Hermes runs."""
    return Identities.for_host(
        host.home,
        host.hermes_home,
        host.state_dir,
        (*host.code_dirs, host.package_dir),
        protected_files(config),
    )


def protected_files(config: Config) -> list[str]:
    """The files the configuration names that the agent must not read or change."""
    return [*config.credential_files(), *config.trust_files(), *canonical_paths(list(config.protected_paths))]


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
