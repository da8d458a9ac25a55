"""The intent corpus: every message compiles to exactly the expected policy (rules compiler).

Load the intent corpus (tests/data/intent/*.jsonl) and compare policies with expectations.

A case: {"id", "m": message, "g": grants, "p": prohibitions, "b": bounds, "ro": read_only,
"dropped": substrings of drop reasons, "data": kinds the splitter must keep as data}.
A follow-up case has "msgs": [[sender, message], ...] and "owner" instead of "m".
Grants: {"c": "CLASS/capability", "recipients"|"domains"|"paths"|"commands"|"packages"|"tools"|
"objects"|"operations"|"repos"|"states"|"cells": [...], "workspace": bool, "max_calls": int,
"access": str, "conditional": bool, "max_amount": number, "days": [...], "refs": [...], "message": int};
"<cwd>" and "<home>" in paths. Bounds: {"domains"|"recipients"|"paths"|"write_paths": [...]}.
Prohibitions: "CLASS[,CLASS][:kw,kw]", "*", "*:prod", "egress" or "mentions".
Grants, prohibitions, bounds and read_only are compared exactly; absent means none.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from opafence.host import Host
from opafence.intent import compile_explained
from opafence.policy import TaskPolicy

DATA = Path(__file__).resolve().parents[1] / "data" / "intent"
CWD = "/home/u/proj"
HOME = "/home/u"
HOST = Host(
    auto_approve=False,
    interactive=True,
    platform="cli",
    home=HOME,
    hermes_home=f"{HOME}/.hermes",
    state_dir=f"{HOME}/.hermes/opafence",
    workspace=(CWD,),
    cwd=CWD,
)
EGRESS = ("COMMUNICATION", "EXTERNAL_WRITE", "FINANCIAL")
TARGETS = (
    "recipients",
    "domains",
    "paths",
    "commands",
    "packages",
    "tools",
    "objects",
    "operations",
    "repos",
    "states",
    "cells",
)
BOUNDS = ("domains", "recipients", "paths", "write_paths")


def load(name: str | None = None) -> list[dict[str, Any]]:
    files = [DATA / name] if name else sorted(p for p in DATA.glob("*.jsonl") if p.name != "followups.jsonl")
    cases: list[dict[str, Any]] = []
    for f in files:
        for n, line in enumerate(f.read_text(encoding="utf-8").splitlines(), start=1):
            if line.strip():
                case = json.loads(line)
                case["_where"] = f"{f.name}:{n}"
                cases.append(case)
    return cases


def _sub(v: str) -> str:
    return v.replace("<cwd>", CWD).replace("<home>", HOME)


def grant_key(g: dict[str, Any], with_message: bool) -> tuple[Any, ...]:
    cls, _, cap = g["c"].partition("/")
    return (
        cls,
        cap,
        *(tuple(sorted(_sub(v) for v in g.get(t, []))) for t in TARGETS),
        bool(g.get("workspace", False)),
        g.get("max_calls"),
        g.get("access", ""),
        bool(g.get("conditional", False)),
        g.get("max_amount"),
        tuple(g.get("days", [])),
        tuple(sorted(g.get("refs", []))),
        g.get("message") if with_message else None,
    )


def actual_grants(policy: TaskPolicy, with_message: bool) -> list[tuple[Any, ...]]:
    out = []
    for g in policy.grants:
        d: dict[str, Any] = {
            "c": f"{g.class_}/{g.capability}",
            "workspace": g.workspace,
            "max_calls": g.max_calls,
            "access": g.access,
            "conditional": g.conditional,
            "max_amount": g.max_amount,
            "days": g.days,
            "refs": g.refs,
        }
        for t in TARGETS:
            d[t] = getattr(g, t)
        d["message"] = g.message
        out.append(grant_key(d, with_message))
    return sorted(out, key=repr)


def expected_grants(case: dict[str, Any]) -> tuple[list[tuple[Any, ...]], bool]:
    gs = case.get("g", [])
    with_message = any("message" in g for g in gs)
    return sorted((grant_key(g, with_message) for g in gs), key=repr), with_message


def prohibition_key(p: str | dict[str, Any]) -> tuple[Any, ...]:
    if isinstance(p, dict):
        return (
            tuple(sorted(p["classes"])),
            bool(p.get("egress")),
            bool(p.get("mentions")),
            tuple(sorted(p.get("keywords", []))),
        )
    if p == "egress":
        return (tuple(sorted(EGRESS)), True, False, ())
    if p == "mentions":
        return ((), False, True, ())
    classes, _, kws = p.partition(":")
    return (tuple(sorted(classes.split(","))), False, False, tuple(sorted(k for k in kws.split(",") if k)))


def actual_prohibitions(policy: TaskPolicy) -> list[tuple[Any, ...]]:
    return sorted(
        (
            (tuple(sorted(p.classes)), p.egress, p.mentions, tuple(sorted(p.keywords)))
            for p in policy.prohibitions
        ),
        key=repr,
    )


def expected_bounds(case: dict[str, Any]) -> dict[str, list[str]]:
    b = case.get("b", {})
    return {k: sorted(_sub(v) for v in b.get(k, [])) for k in BOUNDS}


def actual_bounds(policy: TaskPolicy) -> dict[str, list[str]]:
    return {k: sorted(getattr(policy.bounds, k)) for k in BOUNDS}


def mismatches(case: dict[str, Any], policy: TaskPolicy, data_kinds: list[str]) -> list[str]:
    """What differs between the expectation and the policy ([] when the case passes)."""
    out = []
    want_g, with_message = expected_grants(case)
    got_g = actual_grants(policy, with_message)
    if got_g != want_g:
        out.append(f"grants: want {want_g}, got {got_g}")
    want_p = sorted((prohibition_key(p) for p in case.get("p", [])), key=repr)
    if actual_prohibitions(policy) != want_p:
        out.append(f"prohibitions: want {want_p}, got {actual_prohibitions(policy)}")
    if actual_bounds(policy) != expected_bounds(case):
        out.append(f"bounds: want {expected_bounds(case)}, got {actual_bounds(policy)}")
    if policy.read_only != bool(case.get("ro", False)):
        out.append(f"read_only: want {bool(case.get('ro', False))}, got {policy.read_only}")
    reasons = [d.reason for d in policy.dropped]
    for want in case.get("dropped", []):
        if not any(want in r for r in reasons):
            out.append(f"dropped: no reason contains {want!r} (reasons: {reasons})")
    for kind in case.get("data", []):
        if kind not in data_kinds:
            out.append(f"data: the splitter kept no {kind!r} block (kinds: {data_kinds})")
    if "revision" in case and policy.revision != case["revision"]:
        out.append(f"revision: want {case['revision']}, got {policy.revision}")
    return out


CASES = load()
FOLLOWUPS = load("followups.jsonl")


def test_corpus_is_large_enough() -> None:
    ids = [c["id"] for c in CASES + FOLLOWUPS]
    assert len(CASES) >= 150
    assert len(ids) == len(set(ids)), "corpus ids must be unique"


@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in CASES])
def test_single_message(case: dict[str, Any]) -> None:
    compiled = compile_explained(case["m"], task="t1", host=HOST)
    assert compiled.error == ""
    assert compiled.policy.compiled_by == "rules"
    kinds = [b.kind for b in compiled.split.data] if compiled.split else []
    problems = mismatches(case, compiled.policy, kinds)
    assert not problems, f"{case['_where']} {case['m']!r}:\n  " + "\n  ".join(problems)


@pytest.mark.parametrize("case", FOLLOWUPS, ids=[c["id"] for c in FOLLOWUPS])
def test_followups(case: dict[str, Any]) -> None:
    policy: TaskPolicy | None = None
    kinds: list[str] = []
    for index, (sender, message) in enumerate(case["msgs"], start=1):
        compiled = compile_explained(
            message,
            task="t1",
            host=HOST,
            owner=case["owner"] if policy is None else sender,
            previous=policy,
            message_index=index,
        )
        assert compiled.error == ""
        policy = compiled.policy
        kinds += [b.kind for b in compiled.split.data] if compiled.split else []
    assert policy is not None
    assert policy.owner == case["owner"]
    problems = mismatches(case, policy, kinds)
    assert not problems, f"{case['_where']}:\n  " + "\n  ".join(problems)
