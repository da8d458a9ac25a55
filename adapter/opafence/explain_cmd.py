"""`opafence explain`: one tool call judged the way the plugin judges it, with what Rego saw.

The user's message is compiled into the task's policy, the call is turned into facts, and the
decision is asked of a real OPA; the answer shows the verdict, the reasons, the classes, the
policy and the facts (and, with a trace, OPA's own explanation of the evaluation)."""

from __future__ import annotations

import json
import uuid
from collections.abc import Mapping, Sequence
from typing import Any, Literal

from pydantic import ValidationError

from opafence.decision import Decision, block
from opafence.errors import BridgeError
from opafence.inputs import facts_context
from opafence.judge import Judge
from opafence.pipeline import judge_call
from opafence.provenance.record import describe_target

TraceLevel = Literal["notes", "fails", "full"]
TRACE_TIMEOUT_S = 30.0
BOUND_FIELDS = ("recipients", "domains", "paths", "commands", "packages", "tools")


def trace_params(level: TraceLevel | None) -> str:
    """Query parameters for OPA's explanation (appended to the decision path's own query)."""
    return "" if level is None else f"&explain={level}&pretty=true"


def explain_call(
    judge: Judge,
    message: str,
    tool: str,
    args: Mapping[str, Any],
    trace: TraceLevel | None = None,
    before: Sequence[Mapping[str, Any]] = (),
) -> dict[str, Any]:
    """The verdict for one call, with the policy, facts and input it was decided on. Never raises
    for a bad call: failures are blocks with their reason, like in the plugin. `before` are the
    calls that ran first ({"tool", "args", "result"?}, as in a replay line): their results give
    the call's targets their provenance."""
    state = judge.open_task(f"explain-{uuid.uuid4().hex[:12]}", message)
    out: dict[str, Any] = {"tool": tool, "policy": state.policy.to_opa_data()}
    explanation: dict[str, Any] = {}

    def traced(doc: dict[str, Any]) -> Decision:
        # A trace is for a person reading it, not the hot path: OPA may take its time.
        try:
            answer = judge.bridge.query(doc, trace_params(trace), TRACE_TIMEOUT_S if trace else None)
            decision = Decision.model_validate(answer["result"])
        except BridgeError as e:
            return block(e.code, e.detail)
        except ValidationError as e:
            return block("OPA_BAD_RESULT", str(e.errors()[0]["msg"]))
        if trace is not None:
            explanation["explanation"] = answer.get("explanation", [])
        return decision

    try:
        for c in before:
            judge.judge(state, str(c.get("tool", "")), dict(c.get("args", {})), result=c.get("result"))
        context = facts_context(judge.host, judge.identities)
        judged = judge_call(judge.bridge, state, tool, args, "", judge.host, context, prepare=traced)
        out.update(facts=judged.facts, input=judged.input, **explanation)
        out.update(_decision(judged.decision))
        return out
    finally:
        judge.close_task(state)


def _decision(d: Decision) -> dict[str, Any]:
    return {
        "verdict": d.verdict,
        "reasons": [r.model_dump() for r in d.reasons],
        "classes": list(d.classes),
        "monitor": d.monitor.model_dump() if d.monitor else None,
    }


def render(result: dict[str, Any]) -> str:
    """A readable form of explain_call's answer."""
    lines = [f"verdict: {result['verdict']}"]
    monitor = result.get("monitor")
    if monitor:
        lines.append(f"monitor mode: enforce would {monitor['would']}")
    lines.append("classes: " + (", ".join(result.get("classes", [])) or "(none)"))
    reasons = result.get("reasons", [])
    lines.append("reasons:" if reasons else "reasons: (none)")
    for r in reasons:
        lines.append(f"  - [{r['code']}] {r['message']} ({r.get('source', '')})")
        if r.get("fix"):
            lines.append(f"    fix: {r['fix']}")
    policy = result.get("policy", {})
    lines.append(
        f"policy: compiled by {policy.get('compiled_by', '?')}"
        f"{', read-only' if policy.get('read_only') else ''};"
        f" {len(policy.get('grants', []))} grant(s), {len(policy.get('prohibitions', []))} prohibition(s)"
    )
    for g in policy.get("grants", []):
        bounds = {k: g[k] for k in BOUND_FIELDS if g.get(k)}
        where = " workspace" if g.get("workspace") else ""
        lines.append(
            f"  grant {g['id']}: {g['class']} {g.get('capability') or ''}{where} "
            f"{json.dumps(bounds) if bounds else ''} — “{g.get('evidence', '')}”".rstrip()
        )
    for p in policy.get("prohibitions", []):
        what = ", ".join(p["classes"]) or "egress"
        lines.append(f"  prohibition {p['id']}: {what} — “{p.get('evidence', '')}”")
    prov = result.get("facts", {}).get("provenance", {})
    targets = prov.get("targets", [])
    lines.append("targets:" if targets else "targets: (none)")
    lines.extend(f"  - {describe_target(t)}" for t in targets)
    if prov.get("lossy"):
        lines.append(f"  the record of untrusted values is incomplete ({prov.get('why', '')})")
    lines.append("facts:")
    facts = json.dumps(result.get("facts", {}), indent=2, sort_keys=True)
    lines.extend("  " + line for line in facts.splitlines())
    if "explanation" in result:
        lines.append("OPA explanation:")
        explanation = result["explanation"]
        if isinstance(explanation, list):
            lines.extend("  " + str(line) for line in explanation)
        else:
            lines.append("  " + json.dumps(explanation))
    return "\n".join(lines)
