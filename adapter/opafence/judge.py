"""Judge tool calls for a task the way the plugin does: compile, push, facts, decide.

Shared by `replay`, `explain` and `demo`, through the same pipeline (pipeline.py) as the
Hermes plugin, so they exercise the same compiler, facts, input document and OPA path."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from opafence.config import Config
from opafence.host import Host
from opafence.inputs import facts_context, identities_for
from opafence.intent.catalogue import Catalogue
from opafence.opa.bridge import Bridge
from opafence.pipeline import Judged, compile_turn, judge_call, note_ran
from opafence.policy import TaskPolicy, fallback_policy
from opafence.session import SessionFacts, reads_secret

__all__ = ["Judge", "Judged", "TaskState"]


@dataclass
class TaskState:
    key: str
    policy: TaskPolicy
    session: SessionFacts = field(default_factory=SessionFacts)
    messages: int = 0

    @property
    def facts(self) -> SessionFacts:
        return self.session


class Judge:
    def __init__(self, bridge: Bridge, host: Host, config: Config) -> None:
        self.bridge = bridge
        self.host = host
        self.config = config
        self.identities = identities_for(host, config)

    def open_task(self, key: str, message: str, owner: str = "", tools: Catalogue | None = None) -> TaskState:
        state = TaskState(key=key, policy=fallback_policy(key, owner))
        state.session.values.max_values = self.config.provenance.max_values
        self.add_message(state, message, tools)
        return state

    def add_message(self, state: TaskState, message: str, tools: Catalogue | None = None) -> TaskPolicy:
        owner = state.policy.owner
        policy = compile_turn(state, message, owner=owner, host=self.host, config=self.config, tools=tools)
        self.bridge.put_task(state.key, policy.to_opa_data())
        return policy

    def judge(
        self,
        state: TaskState,
        tool: str,
        args: Mapping[str, Any],
        call_id: str = "",
        assume_executed: bool = True,
        result: Any = None,
    ) -> Judged:
        """Decide one call. Replay treats every judged call as executed (the transcript ran);
        its `result`, when given, is recorded as post_tool_call records it (not for a call the
        plugin would have blocked: that one never runs)."""
        context = facts_context(self.host, self.identities)
        judged = judge_call(self.bridge, state, tool, args, call_id, self.host, context)
        if assume_executed and judged.input:
            self.ran(state, judged, result if judged.decision.verdict != "block" else None)
        return judged

    def ran(self, state: TaskState, judged: Judged, result: Any = None) -> None:
        """Account for a judged call that ran (replay reserves its counters now, not at the
        decision), and record its result's values the way post_tool_call does."""
        d = judged.decision
        state.session.reserve(judged.tool, judged.facts, d.classes, d.grants)
        note_ran(
            state.session,
            judged.tool,
            judged.call_no,
            result,
            d.ingests,
            judged.args,
            self.host.home,
            reads_secret(d),
        )

    def close_task(self, state: TaskState) -> None:
        self.bridge.delete_task(state.key)
