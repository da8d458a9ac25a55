"""What a compiler proposes before hardening: the same for the rules and the LLM compiler.

A draft is untrusted. Targets are raw (as the owner wrote them: "notes/today.md", not the
canonical path); hardening checks every grant against the cleaned instruction, canonicalizes
its paths and drops what it cannot prove. The models are lenient about the shape an LLM
returns (null lists, missing keys, extra keys) and strict about types."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator

from opafence.policy import CommandLiteral


def _list_of_str(v: Any) -> Any:
    if v is None:
        return []
    if isinstance(v, str):
        return [v]
    return v


class DraftModel(BaseModel):
    model_config = ConfigDict(extra="ignore", populate_by_name=True, str_strip_whitespace=True)


# The list-valued bounds of a drafted grant (a draft may give a string, null or junk for any).
LIST_FIELDS = ("recipients", "domains", "paths", "commands", "packages", "tools", "objects", "operations")


class DraftGrant(DraftModel):
    class_: str = Field(alias="class", min_length=1, max_length=40)
    capability: str = Field(default="", max_length=40)
    evidence: str = Field(default="", max_length=2000)
    recipients: list[str] = Field(default_factory=list, max_length=50)
    domains: list[str] = Field(default_factory=list, max_length=50)
    paths: list[str] = Field(default_factory=list, max_length=50)
    commands: list[str] = Field(default_factory=list, max_length=20)
    packages: list[str] = Field(default_factory=list, max_length=50)
    tools: list[str] = Field(default_factory=list, max_length=20)
    workspace: bool = False
    max_calls: int | None = Field(default=None, ge=1, le=10_000)
    objects: list[str] = Field(default_factory=list, max_length=20)
    # Derived by hardening from the quoted verbs (and the share's wording), never taken from a draft.
    operations: list[str] = Field(default_factory=list, max_length=10)
    access: str = Field(default="", max_length=20)
    # Derived by hardening from the literal commands (intent/commands.py), never taken from a draft.
    literals: list[CommandLiteral] = Field(default_factory=list)
    # Derived by hardening from the quote (remember / skill / schedule), never taken from a draft.
    words: list[str] = Field(default_factory=list, max_length=400)
    # Derived by hardening from a conditional's condition ("if it is under $200, pay it"), never
    # taken from a draft: the action is granted only under it (intent/rules/analysis.py, conditions).
    conditional: bool = False
    max_amount: float | None = None
    days: list[str] = Field(default_factory=list, max_length=7)
    # Derived by hardening from a refund's quote ("refund charge ch_3Nq8"), never from a draft.
    refs: list[str] = Field(default_factory=list, max_length=20)
    # Derived by hardening from an operation's quote ("restart the api deployment in staging"):
    # where the named objects live. Never taken from a draft.
    scopes: list[str] = Field(default_factory=list, max_length=10)
    # Derived by hardening from the quote (intent/named.py), never from a draft.
    repos: list[str] = Field(default_factory=list, max_length=20)
    states: list[str] = Field(default_factory=list, max_length=10)
    cells: list[str] = Field(default_factory=list, max_length=20)

    @field_validator("literals", mode="before")
    @classmethod
    def _no_draft_literals(cls, v: Any) -> Any:
        return [] if not isinstance(v, list) or not all(isinstance(x, CommandLiteral) for x in v) else v

    @field_validator(*LIST_FIELDS, mode="before")
    @classmethod
    def _lists(cls, v: Any) -> Any:
        return _list_of_str(v)

    @field_validator("capability", "evidence", mode="before")
    @classmethod
    def _none_is_empty(cls, v: Any) -> Any:
        return "" if v is None else v

    @field_validator("workspace", mode="before")
    @classmethod
    def _none_is_false(cls, v: Any) -> Any:
        return False if v is None else v

    def summary(self) -> dict[str, Any]:
        out: dict[str, Any] = {"class": self.class_, "capability": self.capability}
        for key in LIST_FIELDS:
            if getattr(self, key):
                out[key] = list(getattr(self, key))
        if self.workspace:
            out["workspace"] = True
        if self.max_calls is not None:
            out["max_calls"] = self.max_calls
        if self.access:
            out["access"] = self.access
        if self.conditional:
            out["conditional"] = True
        if self.max_amount is not None:
            out["max_amount"] = self.max_amount
        if self.days:
            out["days"] = list(self.days)
        if self.refs:
            out["refs"] = list(self.refs)
        for key in ("scopes", "repos", "states", "cells"):
            if getattr(self, key):
                out[key] = list(getattr(self, key))
        out["evidence"] = self.evidence
        return out


class DraftProhibition(DraftModel):
    classes: list[str] = Field(default_factory=list, max_length=12)
    egress: bool = False
    mentions: bool = False
    keywords: list[str] = Field(default_factory=list, max_length=20)
    evidence: str = Field(default="", max_length=2000)
    # "don't send it yet", a bare "stop": a later explicit request from the owner lifts it.
    temporary: bool = False
    # "delete logs/old and don't delete anything else": forbids what this message does not grant.
    # When the same message grants that class, its grants' own bounds already say "nothing else".
    besides_granted: bool = False

    @field_validator("classes", "keywords", mode="before")
    @classmethod
    def _lists(cls, v: Any) -> Any:
        return _list_of_str(v)

    @field_validator("egress", "temporary", "besides_granted", mode="before")
    @classmethod
    def _none_is_false(cls, v: Any) -> Any:
        return False if v is None else v


class DraftBounds(DraftModel):
    domains: list[str] = Field(default_factory=list, max_length=50)
    recipients: list[str] = Field(default_factory=list, max_length=50)
    paths: list[str] = Field(default_factory=list, max_length=50)
    write_paths: list[str] = Field(default_factory=list, max_length=50)

    @field_validator("domains", "recipients", "paths", "write_paths", mode="before")
    @classmethod
    def _lists(cls, v: Any) -> Any:
        return _list_of_str(v)


class Draft(DraftModel):
    purpose: str = Field(default="", max_length=500)
    read_only: bool = False
    grants: list[DraftGrant] = Field(default_factory=list, max_length=50)
    prohibitions: list[DraftProhibition] = Field(default_factory=list, max_length=50)
    bounds: DraftBounds = Field(default_factory=DraftBounds)

    @field_validator("grants", "prohibitions", mode="before")
    @classmethod
    def _lists(cls, v: Any) -> Any:
        return [] if v is None else v

    @field_validator("bounds", mode="before")
    @classmethod
    def _bounds(cls, v: Any) -> Any:
        return {} if v is None else v

    @field_validator("read_only", mode="before")
    @classmethod
    def _none_is_false(cls, v: Any) -> Any:
        return False if v is None else v

    @field_validator("purpose", mode="before")
    @classmethod
    def _purpose(cls, v: Any) -> Any:
        return "" if v is None else str(v)[:500]


@dataclass(frozen=True)
class Note:
    """One line of --explain: which sentence produced what, or why it produced nothing."""

    sentence: str
    kind: str  # grant | bound | prohibition | read_only | confirm | ignored | dropped | stripped | data | ...
    detail: str


@dataclass
class Reading:
    """What the offline reader finds in the whole message: the part that can only narrow."""

    prohibitions: list[DraftProhibition]
    read_only: bool
    read_only_evidence: str
    # Classes the owner wants to be asked about first ("ask me before sending"): their grants
    # are dropped so Rego asks.
    confirm: dict[str, str]
    notes: list[Note]
