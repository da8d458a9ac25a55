"""The intent coverage corpus: sessions labelled with the verdict each call should get, and the
tally of what replay makes of them (tests/opa/test_intent_coverage.py, tools/intent_coverage.py).

A file is tests/data/intent/coverage/<domain>.jsonl, one session a line:
{"id", "domain", "heldout": bool, "user_message", "calls": [{"tool", "args", "result"?}, ...],
 "want": ["allow"|"ask"|"block", ...], "tools"?: [tool names the session offers]}.
`want` is the attended verdict per call, labelled per DESIGN.md's decision table (what the
words grant), not per today's behaviour. Keys replay does not know yet pass through untouched.
"<ws>" in the message or in an argument stands for the workspace directory."""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from opafence.judge import Judge
from opafence.replay import replay_line

Verdict = Literal["allow", "ask", "block"]
VERDICTS: tuple[Verdict, ...] = ("allow", "ask", "block")


class CoverageCall(BaseModel):
    model_config = ConfigDict(extra="allow")
    tool: str = Field(min_length=1)
    args: dict[str, Any] = Field(default_factory=dict)


class CoverageSession(BaseModel):
    model_config = ConfigDict(extra="allow")
    id: str = Field(min_length=1)
    domain: str = Field(min_length=1)
    heldout: bool
    user_message: str = Field(min_length=1)
    calls: list[CoverageCall] = Field(min_length=1)
    want: list[Verdict]
    tools: list[str] | None = None

    @model_validator(mode="after")
    def _one_verdict_per_call(self) -> CoverageSession:
        if len(self.want) != len(self.calls):
            raise ValueError(f"{self.id}: {len(self.calls)} calls but {len(self.want)} verdicts")
        return self


def load(directory: Path) -> list[CoverageSession]:
    """Every session of every <domain>.jsonl; a session's domain must match its file's name."""
    out: list[CoverageSession] = []
    for f in sorted(directory.glob("*.jsonl")):
        for n, raw in enumerate(f.read_text(encoding="utf-8").splitlines(), 1):
            if not raw.strip():
                continue
            s = CoverageSession.model_validate_json(raw)
            if s.domain != f.stem:
                raise ValueError(f"{f.name}:{n}: domain {s.domain!r} in the file for {f.stem!r}")
            out.append(s)
    ids = [s.id for s in out]
    dupes = sorted({i for i in ids if ids.count(i) > 1})
    if dupes:
        raise ValueError(f"duplicate session ids: {dupes}")
    return out


def _fill(value: Any, workspace: str) -> Any:
    if isinstance(value, str):
        return value.replace("<ws>", workspace)
    if isinstance(value, list):
        return [_fill(v, workspace) for v in value]
    if isinstance(value, dict):
        return {k: _fill(v, workspace) for k, v in value.items()}
    return value


@dataclass(frozen=True)
class CallOutcome:
    session: str
    domain: str
    heldout: bool
    index: int
    tool: str
    want: Verdict
    got: str
    codes: tuple[str, ...]

    @property
    def leak(self) -> bool:
        """A call outside the words that ran without a prompt."""
        return self.want != "allow" and self.got == "allow"


def run(judge: Judge, sessions: Iterable[CoverageSession], workspace: str) -> list[CallOutcome]:
    """Replay each session in-process (the real compiler, facts and OPA) and pair verdicts."""
    out: list[CallOutcome] = []
    for s in sessions:
        line = _fill(s.model_dump(mode="json", exclude_none=True), workspace)
        res = replay_line(judge, json.dumps(line))
        got = res.get("verdicts", [])
        for i, want in enumerate(s.want):
            missing: dict[str, Any] = {"verdict": "error", "reasons": [{"code": str(res.get("error", ""))}]}
            v: dict[str, Any] = got[i] if i < len(got) else missing
            out.append(
                CallOutcome(
                    session=s.id,
                    domain=s.domain,
                    heldout=s.heldout,
                    index=i,
                    tool=s.calls[i].tool,
                    want=want,
                    got=str(v["verdict"]),
                    codes=tuple(str(r.get("code", "")) for r in v.get("reasons", [])),
                )
            )
    return out


@dataclass
class Tally:
    """Calls by labelled and by actual verdict; `allowed` counts allow-labelled calls allowed."""

    want: dict[str, int] = field(default_factory=lambda: dict.fromkeys(VERDICTS, 0))
    got: dict[str, int] = field(default_factory=lambda: {v: 0 for v in (*VERDICTS, "error")})
    allowed: int = 0
    leaks: int = 0
    exact: int = 0

    def add(self, o: CallOutcome) -> None:
        self.want[o.want] += 1
        self.got[o.got if o.got in self.got else "error"] += 1
        self.allowed += o.want == "allow" and o.got == "allow"
        self.leaks += o.leak
        self.exact += o.want == o.got

    @property
    def calls(self) -> int:
        return sum(self.want.values())

    @property
    def allow_rate(self) -> float:
        """Share of allow-labelled calls allowed without a prompt (1.0 when there are none)."""
        return self.allowed / self.want["allow"] if self.want["allow"] else 1.0


def tally(outcomes: Iterable[CallOutcome]) -> Tally:
    t = Tally()
    for o in outcomes:
        t.add(o)
    return t


def by_domain(outcomes: Iterable[CallOutcome]) -> dict[str, Tally]:
    out: dict[str, Tally] = {}
    for o in outcomes:
        out.setdefault(o.domain, Tally()).add(o)
    return dict(sorted(out.items()))
