"""The TaskPolicy: what one task (a Hermes session) may do, compiled from its owner's words.

`to_opa_data()` is the `data.tasks[task]` entry that Rego enforces
(rego/schemas/tasks.jsonschema, definitions.task)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

SCHEMA_VERSION = 1

GrantClass = Literal[
    "READ",
    "LOCAL_WRITE",
    "DELETE",
    "EXECUTION",
    "COMMUNICATION",
    "EXTERNAL_WRITE",
    "FINANCIAL",
    "PERMISSION_CHANGE",
    "MEMORY_WRITE",
    "SELF_MODIFICATION",
]


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


class Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Redirect(Model):
    """One redirection of a literal command, exactly as the facts show it (facts.shell)."""

    op: str
    fd: int
    raw: str
    path: str
    mode: str


class LiteralPlace(Model):
    """Where and how a literal command runs: what makes the same argv act on the same things."""

    operand_paths: list[str] = Field(default_factory=list)
    redirects: list[Redirect] = Field(default_factory=list)
    env: dict[str, str] = Field(default_factory=dict)
    wrappers: list[str] = Field(default_factory=list)
    pipe_from: str = ""


class CommandLiteral(Model):
    """One simple command of a literal the owner typed, parsed like the facts parse a call."""

    argv: list[str]
    place: LiteralPlace = Field(default_factory=LiteralPlace)
    cwd: str = ""  # the directory the literal was named in (its relative paths start there)


class Grant(Model):
    id: str
    class_: GrantClass = Field(alias="class")
    capability: str = ""
    tools: list[str] = Field(default_factory=list)
    recipients: list[str] = Field(default_factory=list)
    domains: list[str] = Field(default_factory=list)
    paths: list[str] = Field(default_factory=list)
    commands: list[str] = Field(default_factory=list)
    packages: list[str] = Field(default_factory=list)
    workspace: bool = False
    evidence: str = Field(min_length=1)
    message: int = 1
    max_calls: int | None = None
    # run_command: each simple command of the literal (Rego: its own deletes, writes, sends ...)
    literals: list[CommandLiteral] = Field(default_factory=list)
    # What the grant acts on ("issue", "pull_request", "event", ...) and the kinds of action it
    # allows ("create", "update", "close", ...): an MCP tool must name one of the objects as its
    # head noun and only verbs of those kinds (rego/opafence/lib/grants.rego).
    objects: list[str] = Field(default_factory=list)
    operations: list[str] = Field(default_factory=list)
    # Share grants: the access the recipients get ("read", "comment", "write").
    access: str = ""
    # remember / skill / schedule grants: the words of the owner's quote; the note, skill name or
    # job prompt a call writes may use only these (rego/opafence/lib/grants.rego, words_ok).
    words: list[str] = Field(default_factory=list)
    # The action of a conditional ("if it is under $200, pay it"): a DELETE, FINANCIAL or
    # PERMISSION_CHANGE grant under a condition the agent decides asks (CONDITIONAL_CONFIRM); the
    # condition's measurable part bounds it: the amount a payment may carry (`max_amount`, in the
    # currency's major unit) and the weekdays an event or booking may fall on (`days`).
    conditional: bool = False
    max_amount: float | None = None
    days: list[str] = Field(default_factory=list)
    # A refund of what the owner named ("refund charge ch_3Nq8"): the call must name one of these
    # and every charge, payment or order it names must be one of them.
    refs: list[str] = Field(default_factory=list)
    # Operate grants ("restart the api deployment in staging"): where the named objects (refs)
    # live as the owner said it; a call must name one of these scopes, and none when empty.
    scopes: list[str] = Field(default_factory=list)
    # What the owner's words name in the call's arguments (rego/opafence/lib/named): the
    # repositories ("file an issue in acme/mobile"), the states an issue goes to ("move it to In
    # Progress") and the spreadsheet cells ("set cell B7") the call may name, when they name any.
    repos: list[str] = Field(default_factory=list)
    states: list[str] = Field(default_factory=list)
    cells: list[str] = Field(default_factory=list)

    model_config = ConfigDict(extra="forbid", populate_by_name=True)


class Prohibition(Model):
    id: str
    classes: list[str]
    egress: bool = False
    # "don't @-mention anyone": binds every call whose text mentions someone (facts.mentions),
    # whatever its class (rego/opafence/task/task.rego).
    mentions: bool = False
    keywords: list[str] = Field(default_factory=list)
    evidence: str
    message: int = 1


class Delegation(Model):
    """The owner handed the choice of a target to a source ("her address is on her website",
    "the IBAN in bill.txt", "the people in the meeting notes", "reply to Ann's email"): a
    target that came from that source asks, showing the exact target, instead of blocking."""

    id: str
    targets: list[str] = Field(default_factory=list)  # provenance kinds; empty: any kind
    sources: list[str] = Field(default_factory=list)  # source labels (provenance/ledger.py)
    path: str = ""  # the file the owner named as the source ("bill.txt"), or ""
    evidence: str = Field(min_length=1)
    message: int = 1


class Request(Model):
    """A kind of action the owner asked for whose target their words do not bind ("delete
    the largest file", "pay the bill in bill.txt"): it asks with the target, never blocks."""

    class_: GrantClass = Field(alias="class")
    evidence: str = Field(min_length=1)
    message: int = 1

    model_config = ConfigDict(extra="forbid", populate_by_name=True)


class Bounds(Model):
    domains: list[str] = Field(default_factory=list)
    recipients: list[str] = Field(default_factory=list)
    paths: list[str] = Field(default_factory=list)
    # "only touch src/parser.py": writes, deletes and permission changes stay inside these paths;
    # reads are not bounded by them.
    write_paths: list[str] = Field(default_factory=list)


class Budgets(Model):
    max_calls: int | None = None
    max_external_writes: int | None = None
    max_distinct_files: int | None = None


class DroppedGrant(Model):
    """A grant (or one target of a grant) that hardening refused, and why.

    Kept for `opafence compile --explain` and the audit trail; never sent to OPA."""

    grant: dict[str, Any]
    reason: str
    message: int = 1
    # What was refused: the whole grant, or one target of it ("recipient eve@x.com").
    part: str = "grant"


class TaskPolicy(Model):
    schema_version: int = SCHEMA_VERSION
    task: str
    revision: int = Field(default=1, ge=1)
    owner: str = ""
    instruction: str = ""
    purpose: str = ""
    compiled_by: Literal["rules", "llm", "fallback"] = "fallback"
    read_only: bool = False
    grants: list[Grant] = Field(default_factory=list)
    prohibitions: list[Prohibition] = Field(default_factory=list)
    delegations: list[Delegation] = Field(default_factory=list)
    requests: list[Request] = Field(default_factory=list)
    bounds: Bounds = Field(default_factory=Bounds)
    budgets: Budgets = Field(default_factory=Budgets)
    dropped: list[DroppedGrant] = Field(default_factory=list)
    # Ids of prohibitions the owner marked as temporary ("don't send it yet", a bare "stop"):
    # a later owner message that explicitly asks for that kind of action lifts them.
    temporary: list[str] = Field(default_factory=list)
    # Temporary prohibitions a later owner message lifted (kept for --explain and the audit trail).
    lifted: list[Prohibition] = Field(default_factory=list)
    # How many of the task's messages this policy has seen (the last message_index).
    messages: int = Field(default=1, ge=1)
    created_at: str = Field(default_factory=_now)
    updated_at: str = Field(default_factory=_now)

    def to_opa_data(self) -> dict[str, Any]:
        """The data.tasks entry: everything Rego needs, nothing it does not.

        No instruction text, purpose, dropped grants or bookkeeping: those stay in Python."""
        return {
            "schema_version": self.schema_version,
            "task": self.task,
            "revision": self.revision,
            "owner": self.owner,
            "compiled_by": self.compiled_by,
            "read_only": self.read_only,
            "grants": [g.model_dump(by_alias=True) for g in self.grants],
            "prohibitions": [p.model_dump() for p in self.prohibitions],
            # Without the owner's words: Rego names the kind, the source and the target.
            "delegations": [d.model_dump(exclude={"evidence"}) for d in self.delegations],
            "requests": [r.model_dump(by_alias=True, exclude={"evidence"}) for r in self.requests],
            "bounds": self.bounds.model_dump(),
            "budgets": self.budgets.model_dump(),
            "created_at": self.created_at,
            "updated_at": self.updated_at,
        }


def fallback_policy(task: str, owner: str = "", budgets: Budgets | None = None) -> TaskPolicy:
    """Read-only: what a task gets when nothing (or nothing trustworthy) was compiled."""
    return TaskPolicy(task=task, owner=owner, compiled_by="fallback", budgets=budgets or Budgets())
