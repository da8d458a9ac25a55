"""Judge tool calls for a task the way the plugin does: compile, push, facts, decide.

Shared by `replay`, `explain` and `demo`, so they exercise the same compiler, facts and OPA
path as the Hermes plugin."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from opafence.config import Config
from opafence.decision import Decision, block
from opafence.errors import BridgeError
from opafence.facts import build_facts
from opafence.host import Host
from opafence.inputs import decision_input, facts_context, identities_for
from opafence.intent import compile_message
from opafence.intent.catalogue import Catalogue
from opafence.opa.bridge import Bridge
from opafence.policy import TaskPolicy, fallback_policy
from opafence.provenance import note_message, note_result
from opafence.session import SessionFacts, result_holds_secret


@dataclass
class TaskState:
    key: str
    policy: TaskPolicy
    session: SessionFacts = field(default_factory=SessionFacts)
    messages: int = 0


@dataclass
class Judged:
    tool: str
    decision: Decision
    facts: dict[str, Any]
    input: dict[str, Any]
    call_no: int = 0
    args: dict[str, Any] = field(default_factory=dict)


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
        state.messages += 1
        try:
            policy = compile_message(
                message,
                task=state.key,
                host=self.host,
                owner=state.policy.owner,
                previous=state.policy if state.messages > 1 else None,
                message_index=state.messages,
                config=self.config.compiler,
                tools=tools,
            )
        except Exception:
            policy = fallback_policy(state.key, state.policy.owner)
            policy.revision = state.policy.revision + 1
        state.policy = policy
        identity = [*self.config.provenance.identity, state.policy.owner]
        note_message(state.session.values, message, state.messages, identity, self.host.home)
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
        call_no = state.session.values.next_call()
        try:
            facts = build_facts(tool, args, facts_context(self.host, self.identities))
            doc = decision_input(state.key, tool, args, call_id, state.session, self.host, facts)
        except Exception as e:
            err = BridgeError("FACTS_ERROR", type(e).__name__)
            return Judged(tool, block(err.code, err.detail), {}, {}, call_no, dict(args))
        decision = self.bridge.decide(doc)
        session = state.session
        session.record_decision(tool, decision)
        judged = Judged(tool, decision, facts, doc, call_no, dict(args))
        if assume_executed:
            self.ran(state, judged, result if decision.verdict != "block" else None)
        return judged

    def ran(self, state: TaskState, judged: Judged, result: Any = None) -> None:
        """Account for a judged call that ran, and record its result's values the way
        post_tool_call does."""
        session = state.session
        session.record_execution(judged.tool, judged.facts, judged.decision)
        if result_holds_secret(result):
            session.secret_read = True  # key material in the result, as post_tool_call sees it
        if result is not None:
            note_result(
                session.values,
                judged.tool,
                judged.call_no,
                result,
                judged.decision.ingests,
                judged.args,
                self.host.home,
            )

    def close_task(self, state: TaskState) -> None:
        self.bridge.delete_task(state.key)
