"""One path for every host: compile -> facts -> input -> decide -> record.

The Hermes plugin (hermes/fence.py) and replay, explain and the demo (judge.py) judge a task's
messages and calls through these functions, so both run the same compiler, facts builder,
input document (inputs.py only) and OPA query, and keep the same session facts. What differs
between the hosts is passed in: how a task's state is guarded (the plugin's SessionStore
transaction; nothing for replay, which is single-threaded per task), what the host adds to the
input before OPA sees it, and what it records beside the session facts (the plugin's execution
re-check and audit trail).

Nothing here decides: Rego does. Every failure on the way is a block."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

from opafence.config import Config
from opafence.decision import Decision, block
from opafence.facts import FactsContext, build_facts
from opafence.host import Host
from opafence.inputs import decision_input
from opafence.intent import compile_message
from opafence.intent.catalogue import Catalogue
from opafence.opa.bridge import Bridge
from opafence.policy import TaskPolicy
from opafence.provenance import note_message, note_result
from opafence.session import SessionFacts, result_holds_secret

# A guard makes a task's state private to one thread while the pipeline reads or changes it.
Guard = Callable[[], contextlib.AbstractContextManager[object]]
# What the host adds to the input document before OPA sees it; a Decision it returns is the
# answer instead of OPA's (the plugin: a task OPA does not hold yet blocks).
Prepare = Callable[[dict[str, Any]], Decision | None]


class Task(Protocol):
    """A task's state as the pipeline needs it (the plugin's TaskRecord, replay's TaskState)."""

    key: str
    policy: TaskPolicy
    messages: int

    @property
    def facts(self) -> SessionFacts: ...


@dataclass
class Judged:
    tool: str
    decision: Decision
    facts: dict[str, Any]
    input: dict[str, Any]
    call_no: int = 0
    args: dict[str, Any] = field(default_factory=dict)


def unguarded() -> contextlib.AbstractContextManager[object]:
    return contextlib.nullcontext()


def compile_turn(
    task: Task, text: str, *, owner: str, host: Host, config: Config, tools: Catalogue | None = None
) -> TaskPolicy:
    """The owner's next message: the task's next policy (compile_message falls back to the
    read-only policy, prohibitions kept, when compiling fails), and the message's own values
    and its attached text noted for provenance. Call it with the task guarded."""
    task.messages += 1
    task.policy = compile_message(
        text,
        task=task.key,
        host=host,
        owner=owner,
        previous=task.policy if task.messages > 1 else None,
        message_index=task.messages,
        config=config.compiler,
        tools=tools,
    )
    identity = [*config.provenance.identity, owner]
    note_message(task.facts.values, text, task.messages, identity, host.home)
    return task.policy


def judge_call(
    bridge: Bridge,
    task: Task,
    tool: str,
    args: Mapping[str, Any],
    call_id: str,
    host: Host,
    context: FactsContext,
    *,
    guard: Guard = unguarded,
    prepare: Prepare | None = None,
    record: Callable[[Judged], None] | None = None,
) -> Judged:
    """Decide one call: facts, the input document, OPA's answer, and the decision in the
    session history (then `record`, in the same guarded step). A facts builder that raises
    is a block (FACTS_ERROR), judged on nothing and recorded nowhere."""
    try:
        facts = build_facts(tool, args, context)
        with guard():
            call_no = task.facts.values.next_call()
            doc = decision_input(task.key, tool, args, call_id, task.facts, host, facts)
    except Exception as e:
        return Judged(tool, block("FACTS_ERROR", type(e).__name__), {}, {}, 0, dict(args))
    decision = prepare(doc) if prepare is not None else None
    if decision is None:
        decision = bridge.decide(doc)
    judged = Judged(tool, decision, facts, doc, call_no, dict(args))
    with guard():
        task.facts.record_decision(tool, decision)
        if record is not None:
            record(judged)
    return judged


def note_ran(
    session: SessionFacts,
    tool: str,
    call_no: int,
    result: Any,
    ingests: list[str] | tuple[str, ...],
    args: Mapping[str, Any],
    home: str,
    secret_read: bool,
) -> None:
    """What a call that ran brought in: the kinds of untrusted content its decision named, a
    secret read (its decision said so, or key material is in its result), and its result's
    values (owed since the decision, or given). Call it with the task guarded."""
    session.observe(ingests, secret_read=secret_read or result_holds_secret(result))
    if result is not None or call_no in session.values.awaiting:
        note_result(session.values, tool, call_no, result, ingests, args, home)
