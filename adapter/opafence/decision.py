"""The decision answer (DESIGN.md, "The decision") as a validated model."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from opafence.errors import FIXES, BridgeError

Verdict = Literal["allow", "ask", "block"]


class Reason(BaseModel):
    model_config = ConfigDict(extra="ignore", frozen=True)

    code: str = Field(min_length=1)
    message: str = Field(min_length=1)
    source: str = "bridge"
    fix: str = ""
    always: bool = False


class Monitor(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    would: Verdict
    reasons: list[Reason]


class Decision(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    verdict: Verdict
    reasons: list[Reason]
    classes: list[str]
    monitor: Monitor | None = None
    grants: list[str] = []  # grant ids that cover the call (for per-grant max_calls)
    ingests: list[str] = []  # kinds of untrusted content the call brings in once it has run

    def summary(self) -> str:
        """One line a person can read: the verdict and why."""
        if not self.reasons:
            return self.verdict
        return f"{self.verdict}: " + "; ".join(f"{r.message} [{r.code}]" for r in self.reasons)


def block(code: str, detail: str = "") -> Decision:
    """A block for a failure on the bridge, with its stable code."""
    err = BridgeError(code, detail)
    return Decision(
        verdict="block",
        reasons=[Reason(code=err.code, message=err.sentence(), source="bridge", fix=FIXES[err.code])],
        classes=[],
    )
