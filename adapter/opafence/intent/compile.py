"""One owner message -> the task's next TaskPolicy: split, compile, harden, merge, narrow.

`compile_message` never raises: any failure yields the read-only fallback (no grants) with
the prohibitions still read from the whole message. Follow-ups (DESIGN.md, "Tasks"): grants
accumulate, each tied to its message; prohibitions accumulate and beat every grant, earlier
ones included, at once; only the task owner's messages can add grants or change bounds the
wide way; anyone else's message can only narrow."""

from __future__ import annotations

import contextlib
import logging
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Literal

from opafence import vocabulary as vocab
from opafence.config import CompilerConfig
from opafence.host import Host
from opafence.intent import delegation
from opafence.intent import harden as hd
from opafence.intent.catalogue import Catalogue, service_words
from opafence.intent.draft import Draft, DraftBounds, DraftGrant, DraftProhibition, Note, Reading
from opafence.intent.llm import LLMCompiler, LLMError
from opafence.intent.prohibit import read_prohibitions
from opafence.intent.rules.analysis import Analysis, analyze
from opafence.intent.rules.compiler import compile_rules
from opafence.intent.split import Split, split_message
from opafence.policy import Bounds, Budgets, DroppedGrant, Grant, Prohibition, TaskPolicy

log = logging.getLogger("opafence.intent")


@dataclass
class Compiled:
    """The policy plus what --explain shows: the split, and a note per decision."""

    policy: TaskPolicy
    split: Split | None
    notes: list[Note] = field(default_factory=list)
    events: list[str] = field(default_factory=list)
    error: str = ""


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def _read(message: str) -> Reading:
    try:
        return read_prohibitions(message)
    except Exception as e:  # the reader failing must narrow, never widen
        p = DraftProhibition(classes=["*"], evidence="(the prohibition reader failed)", temporary=True)
        note = Note(
            "", "error", f"prohibition reader failed ({type(e).__name__}): everything but reads is forbidden"
        )
        return Reading(prohibitions=[p], read_only=False, read_only_evidence="", confirm={}, notes=[note])


def _next_id(prefix: str, existing: list[str]) -> str:
    n = 0
    for i in existing:
        if i.startswith(prefix) and i[len(prefix) :].isdigit():
            n = max(n, int(i[len(prefix) :]))
    return f"{prefix}{n + 1}"


def _to_grant(g: DraftGrant, gid: str, message: int) -> Grant:
    return Grant.model_validate(
        {
            "id": gid,
            "class": g.class_,
            "capability": g.capability,
            "tools": g.tools,
            "recipients": g.recipients,
            "domains": g.domains,
            "paths": g.paths,
            "commands": g.commands,
            "packages": g.packages,
            "workspace": g.workspace,
            "evidence": g.evidence,
            "message": message,
            "max_calls": g.max_calls,
            "literals": g.literals,
            "objects": g.objects,
            "operations": g.operations,
            "access": g.access,
            "words": g.words,
            "conditional": g.conditional,
            "max_amount": g.max_amount,
            "days": g.days,
            "refs": g.refs,
            "scopes": g.scopes,
            "repos": g.repos,
            "states": g.states,
            "cells": g.cells,
        }
    )


def _merge_bounds(old: Bounds, new: DraftBounds, is_owner: bool, notes: list[Note]) -> Bounds:
    """The owner's latest "only ..." replaces a bound of the same kind; anyone else can only narrow."""
    out = old.model_copy(deep=True)
    for kind in ("domains", "recipients", "paths", "write_paths"):
        fresh: list[str] = getattr(new, kind)
        if not fresh:
            continue
        current: list[str] = getattr(out, kind)
        if is_owner or not current:
            setattr(out, kind, list(fresh))
        else:
            narrowed = [v for v in current if v in fresh]
            if narrowed:
                setattr(out, kind, narrowed)
            else:
                notes.append(
                    Note(", ".join(fresh), "ignored", f"a {kind} bound from someone else cannot widen")
                )
    return out


def _widen_write_bounds(bounds: Bounds, grants: list[DraftGrant], notes: list[Note]) -> None:
    """The owner's later request that names a file outside an earlier "only touch ..." ("now also
    fix README.md") widens that bound by exactly that file: only the owner's words can."""
    if not bounds.write_paths:
        return
    for g in grants:
        if g.class_ not in vocab.WRITE_BOUND_CLASSES or g.capability == "commit":
            continue
        for p in g.paths:
            if not any(p == b or p.startswith(b.rstrip("/") + "/") for b in bounds.write_paths):
                bounds.write_paths.append(p)
                notes.append(Note(g.evidence, "bound", f"the owner asked for {p}: writes there too"))


def _lift_temporary(
    policy: TaskPolicy, grants: list[DraftGrant], message: int, notes: list[Note]
) -> list[Prohibition]:
    """An owner's explicit new request lifts their own earlier "not yet" of that class."""
    kept: list[Prohibition] = []
    for p in policy.prohibitions:
        lifted_by = next(
            (g for g in grants if p.id in policy.temporary and not p.keywords and hd.covers(p, g.class_)),
            None,
        )
        if lifted_by is not None:
            notes.append(
                Note(p.evidence, "lifted", f"{p.id} lifted by message {message}: {lifted_by.evidence!r}")
            )
            policy.lifted.append(p)
            continue
        kept.append(p)
    return kept


CompiledBy = Literal["rules", "llm", "fallback"]


def _draft(
    split: Split,
    analysis: Analysis,
    cfg: CompilerConfig,
    out: Compiled,
    tools: Catalogue | None = None,
) -> tuple[Draft, CompiledBy]:
    if cfg.kind == "llm":
        compiler = LLMCompiler(cfg)
        try:
            draft = compiler.draft(split.instruction)
            out.events.extend(compiler.events)
            out.notes.append(
                Note(split.instruction[:200], "draft", f"LLM draft: {len(draft.grants)} grant(s)")
            )
            return draft, "llm"
        except LLMError as e:
            out.events.extend(compiler.events)
            out.events.append(f"LLM compiler failed: {e}")
            if cfg.on_failure != "rules":
                raise
            out.events.append("falling back to the offline rules compiler")
    draft, notes = compile_rules(split, analysis, service_words(tools))
    out.notes.extend(notes)
    return draft, "rules"


def compile_explained(
    message: str,
    *,
    task: str,
    host: Host,
    owner: str = "",
    previous: TaskPolicy | None = None,
    message_index: int = 1,
    config: CompilerConfig | None = None,
    tools: Catalogue | None = None,
) -> Compiled:
    """compile_message, plus the notes --explain prints. Never raises."""
    cfg = config or CompilerConfig()
    text = message if isinstance(message, str) else ""
    reading = _read(text)
    out = Compiled(policy=TaskPolicy(task=task), split=None)
    out.notes.extend(reading.notes)
    try:
        split = split_message(text)
        out.split = split
        for block in split.data:
            out.notes.append(Note(block.text[:120], "data", f"{block.kind}: kept as data, grants nothing"))
        analysis = analyze(split.instruction)
        draft, compiled_by = _draft(split, analysis, cfg, out, tools)
        hardened = hd.harden(draft, analysis, text, reading, host, message_index, tools)
        out.notes.extend(hardened.notes)
        out.policy = _merge(
            previous,
            hardened,
            draft,
            task=task,
            owner=owner,
            message_index=message_index,
            compiled_by=compiled_by,
            split=split,
            notes=out.notes,
            workspace=tuple(host.workspace),
        )
        is_owner = previous is None or owner == previous.owner
        delegation.apply(out.policy, split.instruction, message_index, is_owner, out.notes)
    except Exception as e:
        out.error = f"{type(e).__name__}: {e}" if not isinstance(e, LLMError) else str(e)
        out.notes.append(
            Note("", "error", f"compile failed ({out.error}): read-only fallback, prohibitions kept")
        )
        out.policy = _fallback(
            previous, reading, task=task, owner=owner, message_index=message_index, notes=out.notes
        )
    return out


def _merge(
    previous: TaskPolicy | None,
    h: hd.Hardened,
    draft: Draft,
    *,
    task: str,
    owner: str,
    message_index: int,
    compiled_by: CompiledBy,
    split: Split,
    notes: list[Note],
    workspace: tuple[str, ...] = (),
) -> TaskPolicy:
    base = previous or TaskPolicy(task=task, owner=owner, created_at=_now())
    is_owner = previous is None or owner == previous.owner
    policy = base.model_copy(deep=True)
    policy.task = task
    policy.revision = (previous.revision + 1) if previous else 1
    policy.messages = max(message_index, 1)
    policy.updated_at = _now()
    policy.instruction = split.instruction
    if previous is None or not policy.purpose:
        policy.purpose = draft.purpose if is_owner else policy.purpose
    policy.compiled_by = compiled_by if is_owner or previous is None else previous.compiled_by
    policy.dropped = [*base.dropped, *h.dropped]

    new_grants = list(h.grants)
    if not is_owner:
        for g in new_grants:
            policy.dropped.append(
                DroppedGrant(
                    grant=g.summary(),
                    reason="only the task owner's messages can grant",
                    message=message_index,
                )
            )
            notes.append(
                Note(g.evidence, "dropped", f"{g.class_}/{g.capability}: not the task owner ({owner!r})")
            )
        new_grants = []
    else:
        policy.prohibitions = _lift_temporary(policy, new_grants, message_index, notes)
        policy.temporary = [t for t in policy.temporary if any(p.id == t for p in policy.prohibitions)]

    for p in h.prohibitions:
        if p.besides_granted and is_owner:
            by = next((g for g in new_grants if "*" in p.classes or g.class_ in p.classes), None)
            if by is not None:
                notes.append(
                    Note(
                        p.evidence,
                        "ignored",
                        f"'... else': the grants of this message already bound {by.class_} ({by.evidence!r})",
                    )
                )
                continue
        if any(
            sorted(p.classes) == sorted(q.classes)
            and p.egress == q.egress
            and p.mentions == q.mentions
            and sorted(p.keywords) == sorted(q.keywords)
            for q in policy.prohibitions
        ):
            continue
        pid = _next_id("p", [q.id for q in [*policy.prohibitions, *policy.lifted]])
        policy.prohibitions.append(
            Prohibition(
                id=pid,
                classes=p.classes,
                egress=p.egress,
                mentions=p.mentions,
                keywords=p.keywords,
                evidence=p.evidence,
                message=message_index,
            )
        )
        if p.temporary:
            policy.temporary.append(pid)

    for g in new_grants:
        gid = _next_id(
            "g", [x.id for x in policy.grants] + [str(d.grant.get("id", "")) for d in policy.dropped]
        )
        policy.grants.append(_to_grant(g, gid, message_index))

    policy.read_only = policy.read_only or h.read_only
    policy.bounds = _merge_bounds(policy.bounds, h.bounds, is_owner, notes)
    if previous is not None and is_owner and not h.bounds.write_paths:
        _widen_write_bounds(policy.bounds, new_grants, notes)
    grants, dropped, more = hd.apply_narrowing(
        policy.grants,
        policy.prohibitions,
        policy.read_only,
        h.read_only_evidence or "read only",
        h.confirm,
        policy.bounds,
        message_index,
        workspace,
    )
    policy.grants = grants
    policy.dropped.extend(dropped)
    notes.extend(more)
    return policy


def _fallback(
    previous: TaskPolicy | None,
    reading: Reading,
    *,
    task: str,
    owner: str,
    message_index: int,
    notes: list[Note],
) -> TaskPolicy:
    """No grants; every prohibition the whole message holds, and every earlier one."""
    try:
        base = previous.model_copy(deep=True) if previous else TaskPolicy(task=task, owner=owner)
        policy = base
        policy.task = task
        policy.revision = previous.revision + 1 if previous else 1
        policy.messages = max(message_index, 1)
        policy.compiled_by = "fallback"
        policy.updated_at = _now()
        for g in policy.grants:
            policy.dropped.append(
                DroppedGrant(
                    grant=hd.grant_summary(g),
                    reason="the compile failed: read-only fallback",
                    message=message_index,
                )
            )
        policy.grants = []
        for p in reading.prohibitions:
            pid = _next_id("p", [q.id for q in [*policy.prohibitions, *policy.lifted]])
            policy.prohibitions.append(
                Prohibition(
                    id=pid,
                    classes=p.classes,
                    egress=p.egress,
                    mentions=p.mentions,
                    keywords=p.keywords,
                    evidence=p.evidence,
                    message=message_index,
                )
            )
            if p.temporary:
                policy.temporary.append(pid)
        policy.read_only = policy.read_only or reading.read_only
        return policy
    except Exception:
        return _last_resort(previous, task=task, owner=owner)


def _last_resort(previous: TaskPolicy | None, *, task: str, owner: str) -> TaskPolicy:
    """Even the fallback failed: the bare read-only policy, with only the earlier prohibitions
    carried over (if even they cannot be, none: it grants nothing either way)."""
    log.exception("opafence: compiling the task policy failed; using the read-only fallback")
    policy = TaskPolicy(task=task, owner=owner, compiled_by="fallback", budgets=Budgets())
    if previous is not None:
        policy.revision = previous.revision + 1
        with contextlib.suppress(Exception):
            policy.prohibitions = list(previous.prohibitions)
    return policy


def compile_message(
    message: str,
    *,
    task: str,
    host: Host,
    owner: str = "",
    previous: TaskPolicy | None = None,
    message_index: int = 1,
    config: CompilerConfig | None = None,
    tools: Catalogue | None = None,
) -> TaskPolicy:
    """The policy after the owner's message number message_index (1-based), its service grants
    bound to the session's tools when they are known (intent/catalogue.py). Never raises: this
    is the one place a failure turns into the read-only fallback (the plugin and replay both
    call it through pipeline.py)."""
    try:
        return compile_explained(
            message,
            task=task,
            host=host,
            owner=owner,
            previous=previous,
            message_index=message_index,
            config=config,
            tools=tools,
        ).policy
    except Exception:
        return _last_resort(previous, task=task, owner=owner)


__all__ = ["Compiled", "compile_explained", "compile_message"]
