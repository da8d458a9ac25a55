"""Narrowing over the whole task (`apply_narrowing`): prohibitions, read-only and bounds beat
every grant, earlier messages' grants included; and the summary of a grant for --explain."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from typing import Any

from opafence.intent import lexicon as lx
from opafence.intent.draft import Note
from opafence.policy import Bounds, DroppedGrant, Grant, Prohibition

# --- narrowing over the whole task --------------------------------------------------------


def covers(p: Prohibition, cls: str) -> bool:
    classes = set(p.classes) | (set(lx.EGRESS_CLASSES) if p.egress else set())
    return "*" in classes or cls in classes


def _matches_keyword(value: str, keywords: Iterable[str]) -> bool:
    """Rego's rule for a grant target: every word of a keyword is a word, segment or label of it."""
    low = value.lower()
    parts = {p for p in re.split(r"[/\s]+", low) if p} | {low}
    parts |= {w for w in re.split(r"[^0-9a-z]+", low) if len(w) >= 2}
    return any(all(w in parts for w in k.split()) for k in keywords if k.split())


def apply_narrowing(
    grants: list[Grant],
    prohibitions: list[Prohibition],
    read_only: bool,
    read_only_evidence: str,
    confirm: dict[str, str],
    bounds: Bounds,
    message: int,
    workspace: tuple[str, ...] = (),
) -> tuple[list[Grant], list[DroppedGrant], list[Note]]:
    """Prohibitions, read-only, "ask me first" and bounds beat every grant: drop or strip it."""
    kept: list[Grant] = []
    dropped: list[DroppedGrant] = []
    notes: list[Note] = []

    def drop(g: Grant, reason: str, part: str = "grant") -> None:
        dropped.append(DroppedGrant(grant=grant_summary(g), reason=reason, message=message, part=part))
        notes.append(
            Note(
                g.evidence,
                "dropped" if part == "grant" else "stripped",
                f"{g.class_}/{g.capability}{'' if part == 'grant' else ' ' + part}: {reason}",
            )
        )

    for g in grants:
        if read_only:
            drop(g, f"the task is read-only ({read_only_evidence!r})")
            continue
        if g.class_ in confirm:
            drop(g, f"the owner asked to be asked first ({confirm[g.class_]!r})")
            continue
        g = g.model_copy(deep=True)  # noqa: PLW2901 - stripped targets must not touch the caller's grant
        blocked = False
        for p in prohibitions:
            if not covers(p, g.class_):
                continue
            if not p.keywords:
                drop(g, f"overridden by prohibition {p.id} ({p.evidence!r})")
                blocked = True
                break
            for attr in ("recipients", "paths", "domains", "packages", "commands"):
                values: list[str] = getattr(g, attr)
                hit = [v for v in values if _matches_keyword(v, p.keywords)]
                if hit:
                    for v in hit:
                        drop(g, f"forbidden by prohibition {p.id} ({p.evidence!r})", f"{attr[:-1]} {v}")
                    setattr(g, attr, [v for v in values if v not in hit])
                    if not getattr(g, attr):
                        drop(g, f"nothing left after prohibition {p.id} ({p.evidence!r})")
                        blocked = True
                        break
            if blocked:
                break
        if blocked:
            continue
        # A literal whose command a prohibition struck goes with it.
        g.literals = [x for x in g.literals if " ".join(" ".join(x.argv).split()) in g.commands]
        if not _within_bounds(g, bounds, drop):
            continue
        if not _within_write_bounds(g, bounds.write_paths, workspace, drop):
            continue
        if any(_same_targets(g, k) for k in kept):
            continue  # the same authority twice (a repeated request, or one narrowed onto another)
        kept.append(g)
    return kept, dropped, notes


def _same_targets(a: Grant, b: Grant) -> bool:
    skip = {"id", "evidence", "message"}
    return a.model_dump(exclude=skip) == b.model_dump(exclude=skip)


def _inside_recipient(v: str, b: str) -> bool:
    return v.lower() == b.lower()


def _inside_domain(v: str, b: str) -> bool:
    return v == b or v.endswith("." + b)


def _inside_path(v: str, b: str) -> bool:
    return v == b or v.startswith(b.rstrip("/") + "/")


def _within_bounds(g: Grant, bounds: Bounds, drop: Callable[..., None]) -> bool:
    checks: tuple[tuple[str, list[str], Callable[[str, str], bool]], ...] = (
        ("recipients", bounds.recipients, _inside_recipient),
        ("domains", bounds.domains, _inside_domain),
        ("paths", bounds.paths, _inside_path),
    )
    for attr, allowed, inside in checks:
        if not allowed:
            continue
        values: list[str] = getattr(g, attr)
        outside = [v for v in values if not any(inside(v, b) for b in allowed)]
        if not outside:
            continue
        for v in outside:
            drop(g, f"outside the task's bounds ({', '.join(allowed)})", f"{attr[:-1]} {v}")
        setattr(g, attr, [v for v in values if v not in outside])
        if not getattr(g, attr):
            drop(g, "nothing left inside the task's bounds")
            return False
    return True


_WRITE_BOUND_CLASSES = frozenset({"LOCAL_WRITE", "DELETE", "PERMISSION_CHANGE"})


def _within_write_bounds(
    g: Grant, write_paths: list[str], workspace: tuple[str, ...], drop: Callable[..., None]
) -> bool:
    """Narrow a grant of files to the write bound ("only touch src/parser.py"): its paths inside
    the bound stay, a bound path inside one of its paths (or its workspace) replaces it."""
    # the classes whose targets are files a write bound narrows (git bookkeeping records, it
    # edits nothing)
    if not write_paths or g.class_ not in _WRITE_BOUND_CLASSES or g.capability == "commit":
        return True
    if not g.paths and not g.workspace:
        return True  # a pathless grant (a delete of emails) acts on no file
    area = g.paths or list(workspace)
    narrowed = [p for p in g.paths if any(_inside_path(p, b) for b in write_paths)]
    narrowed += [b for b in write_paths if b not in narrowed and any(_inside_path(b, p) for p in area)]
    if narrowed == g.paths:
        return True
    for v in g.paths or ["the workspace"]:
        if v not in narrowed:
            drop(g, f"outside the task's write bounds ({', '.join(write_paths)})", f"path {v}")
    if not narrowed:
        drop(g, "nothing left inside the task's write bounds")
        return False
    g.paths = narrowed
    return True


def grant_summary(g: Grant) -> dict[str, Any]:
    data = g.model_dump(by_alias=True)
    return {k: v for k, v in data.items() if v not in ([], None, False) or k in ("class", "capability")}
