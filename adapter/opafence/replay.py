"""`opafence replay`: judge recorded transcripts, one JSON line in, one JSON line out.

Input line: {"user_message": str, "calls": [{"tool": str, "args": object, "result"?: str | JSON},
...], "id"?: any, "tools"?: [...]}. A call's `result` is what the tool returned: its values are
recorded as post_tool_call records them, so later calls are judged with their provenance.
"tools" is the session's tool catalogue (names, or objects with "name" and "parameters"), which
service grants are bound to (intent/catalogue.py).
Output line: {"verdicts": [...], "policy": <the TaskPolicy as pushed>} (plus "id"), or
{"error": "..."} for a malformed line; the run goes on."""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterable, Iterator
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from opafence.intent.catalogue import parse_tools
from opafence.judge import Judge


class ReplayCall(BaseModel):
    model_config = ConfigDict(extra="ignore")
    tool: str = Field(min_length=1)
    args: dict[str, Any] = Field(default_factory=dict)
    result: Any = None


class ReplayLine(BaseModel):
    model_config = ConfigDict(extra="ignore")
    user_message: str
    calls: list[ReplayCall]
    tools: list[str | dict[str, Any]] | None = None


def _describe(err: ValidationError) -> str:
    first = err.errors()[0]
    where = ".".join(str(p) for p in first["loc"]) or "line"
    return f"{where}: {first['msg']}"


def replay_line(judge: Judge, raw: str) -> dict[str, Any]:
    try:
        obj = json.loads(raw)
    except json.JSONDecodeError as e:
        return {"error": f"not valid JSON: {e.msg} at column {e.colno}"}
    except ValueError as e:
        return {"error": f"not valid JSON: {e}"}
    if not isinstance(obj, dict):
        return {"error": "a line must be a JSON object with user_message and calls"}
    try:
        line = ReplayLine.model_validate(obj)
    except ValidationError as e:
        out: dict[str, Any] = {"error": _describe(e)}
        if "id" in obj:
            out["id"] = obj["id"]
        return out
    key = f"replay-{uuid.uuid4().hex[:12]}"
    catalogue = parse_tools(line.tools) if line.tools is not None else None
    state = judge.open_task(key, line.user_message, tools=catalogue)
    policy = state.policy.to_opa_data()
    verdicts = []
    try:
        for call in line.calls:
            judged = judge.judge(state, call.tool, call.args, result=call.result)
            d = judged.decision
            verdicts.append(
                {
                    "tool": call.tool,
                    "verdict": d.verdict,
                    "reasons": [{"code": r.code, "message": r.message} for r in d.reasons],
                    "classes": list(d.classes),
                }
            )
    finally:
        judge.close_task(state)
    result: dict[str, Any] = {"verdicts": verdicts, "policy": policy}
    if "id" in obj:
        result = {"id": obj["id"], **result}
    return result


def replay(judge: Judge, lines: Iterable[str]) -> Iterator[dict[str, Any]]:
    for raw in lines:
        if raw.strip():
            yield replay_line(judge, raw)
