"""The fast tier against the full policy, on the real opa: wherever the fast tier answers, the
full policy gives the identical decision (verdict, reasons, classes, monitor, grants, ingests).

Over every corpus (tests/data/**, decision_cases.py) and over generated inputs (hypothesis) that
vary what the fast tier must notice: the path (workspace or not, dot-files, secret names, globs,
opafence's and Hermes' own places), the shell program, the grants and prohibitions, bounds and
budgets, taint and provenance, the mode, overrides and tool mappings, org rules and bundles.
Each test prints how often the fast tier answered and asserts it answers often enough to mean
something. The generated tables must match their sources (tools/fast_tables.py --check)."""

from __future__ import annotations

import json
import random
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from opafence.config import Config
from opafence.facts import build_facts
from opafence.host import Host
from opafence.inputs import decision_input, facts_context
from opafence.intent.compile import compile_message
from opafence.policy import TaskPolicy
from opafence.session import SessionFacts
from tests.opa.decision_cases import Case, all_corpus_cases, evaluate

ROOT = Path(__file__).resolve().parents[2]
FAST = "data.opafence.fast.decision"
FULL = "data.opafence.full_decision"
GENERATED = int(__import__("os").environ.get("FAST_EQ_N", "10000"))


def compare(cases: list[Case]) -> tuple[int, list[str]]:
    """(how many the fast tier answered, a description of each disagreement)."""
    fast = evaluate(cases, {"fast": FAST}, batch=5000)
    answered = [i for i, r in enumerate(fast) if r["fast"] is not None]
    full = evaluate([cases[i] for i in answered], {"full": FULL})
    bad = []
    for i, r in zip(answered, full, strict=True):
        if fast[i]["fast"] != r["full"]:
            call = cases[i]["input"]["call"]
            bad.append(
                f"{cases[i]['name']}: {call['tool']} {json.dumps(call['args'])[:200]}\n"
                f"  fast {json.dumps(fast[i]['fast'])[:400]}\n  full {json.dumps(r['full'])[:400]}"
            )
    return len(answered), bad


def test_tables_are_fresh() -> None:
    proc = subprocess.run(
        [sys.executable, str(ROOT / "tools" / "fast_tables.py"), "--check"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr


# Thousands of decisions on a shared machine: a hang guard, not a time limit.
@pytest.mark.timeout(1800)
def test_fast_tier_matches_the_full_policy_on_every_corpus() -> None:
    cases = all_corpus_cases()
    assert len(cases) > 1500
    answered, bad = compare(cases)
    rate = 100 * answered / len(cases)
    print(f"\nfast tier answered {answered} of {len(cases)} corpus decisions ({rate:.1f} %)")
    assert not bad, "\n".join(bad[:20])
    assert answered >= 50


# --- generated inputs -------------------------------------------------------------------------------

HOME = "/home/dev"
HERMES = f"{HOME}/.hermes"


def host_for(workspace: str, auto: bool, cwd: str, socket: bool) -> Host:
    return Host(
        auto_approve=auto,
        interactive=not auto,
        platform="cli",
        home=HOME,
        hermes_home=HERMES,
        state_dir=f"{HERMES}/opafence",
        workspace=(workspace,) if workspace else (),
        cwd=cwd,
        opa_socket=f"{HERMES}/opafence/run/opa.sock" if socket else "",
        package_dir=f"{HOME}/.venv/lib/python3.11/site-packages/opafence",
        opa_pids=(31337, 31338),
    )


WORKSPACES = ["/srv/app", f"{HOME}/src/app", HOME, "/", "", f"{HERMES}/work", "/etc/app"]

# Path components: ordinary ones, and every kind the guards' tables name.
ORDINARY = [
    "src",
    "app",
    "main.py",
    "README.md",
    "notes",
    "docs",
    "tests",
    "a.txt",
    "data.csv",
    "lib",
    "util.go",
]
SENSITIVE = [
    ".env", "prod.env", ".ssh", "id_rsa", "server.pem", "Library", "site-packages", "AGENTS.md", "Makefile",
    "config.yaml", "credentials.json", ".git", "hooks", "package.json", ".github", "workflows", "secrets",
    "x.pth", "opa.sock", "*.py", "s?c", "~", "$HOME", "..", "snap", "cookies",
]  # fmt: skip
BASES = [
    "",
    "",
    "",
    "/srv/app/",
    f"{HOME}/src/app/",
    f"{HOME}/",
    f"{HERMES}/",
    f"{HERMES}/opafence/",
    "/etc/",
    "/proc/1/",
    "/tmp/",
]


def path_text(rnd: random.Random, clean: bool) -> str:
    """A path as a tool argument or a command operand gives it: ordinary, or (unless clean) with
    the places and names the guards care about."""
    n = rnd.randint(1, 3)
    if clean:
        base = rnd.choice(["", "", "/srv/app/", f"{HOME}/src/app/"])
        return base + "/".join(rnd.choice(ORDINARY) for _ in range(n))
    parts = [rnd.choice(ORDINARY) if rnd.random() < 0.6 else rnd.choice(SENSITIVE) for _ in range(n)]
    return rnd.choice(BASES) + "/".join(parts)


READ_PROGRAMS = [
    "ls",
    "cat",
    "head -5",
    "tail -n 3",
    "wc -l",
    "grep -rn TODO",
    "du -sh",
    "stat",
    "file",
    "diff",
]
CLEAN_PROGRAMS = [*READ_PROGRAMS, "git status", "git log --oneline -3", "git diff --stat", "pwd"]
OTHER_PROGRAMS = [
    "git status", "git log --oneline -3", "git diff --stat", "git diff --output=x.txt", "git show HEAD",
    "git stash list", "pytest -q", "make", "sort -o out.txt", "python -c pass", "tee out.txt", "echo hi",
    "printenv", "curl -s https://example.com", "sudo cat", "env", "pwd", "true",
]  # fmt: skip


def command_text(rnd: random.Random, clean: bool) -> str:
    words = []
    for _ in range(rnd.randint(1, 3)):
        prog = rnd.choice(CLEAN_PROGRAMS if clean else rnd.choice([READ_PROGRAMS, OTHER_PROGRAMS]))
        words.append(" ".join([prog, *(path_text(rnd, clean) for _ in range(rnd.randint(0, 2)))]))
    if clean:
        return rnd.choice([" && ", " | "]).join(words)
    joiner = rnd.choice([" && ", " | ", "; ", " || "])
    return joiner.join(words) + rnd.choice(["", "", "", " > out.txt", " 2>&1", " # 31337", " &"])


PATCH = "*** Begin Patch\n*** {op} File: {path}\n@@\n-x = 1\n+x = 2\n*** End Patch\n"


def call_for(kind: str, path: str, cmd: str, content: str, op: str) -> tuple[str, dict[str, Any]]:
    if kind == "read_file":
        return kind, {"path": path}
    if kind == "search_files":
        return kind, {"pattern": content or "TODO", "path": path, "target": "content"}
    if kind == "write_file":
        return kind, {"path": path, "content": content}
    if kind == "patch_replace":
        return "patch", {"mode": "replace", "path": path, "old_string": "a", "new_string": content}
    if kind == "patch":
        return "patch", {"mode": "patch", "patch": PATCH.format(op=op, path=path)}
    if kind == "terminal":
        return kind, {"command": cmd}
    if kind == "terminal_workdir":
        return "terminal", {"command": cmd, "workdir": "/srv/app"}
    if kind == "send":
        return "mcp__gmail__send_email", {"to": ["john@example.com"], "subject": "s", "body": content}
    return "web_search", {"query": content or "x"}


CALL_KINDS = [
    "read_file",
    "search_files",
    "write_file",
    "patch_replace",
    "patch",
    "terminal",
    "terminal_workdir",
]
CONTENTS = [
    "",
    "hello",
    "see /home/dev/.hermes/opafence/run for the socket",
    "AKIAIOSFODNN7EXAMPLE",
    "token sk-live-0000",
]

MESSAGES = [
    "Fix the failing test in src/app and run the tests.",
    "Update the README and the notes.",
    "Edit src/main.py only.",
    "Read the docs; don't change anything.",
    "Create notes/today.md with a summary.",
    "Send John (john@example.com) the summary. Don't delete anything.",
    "What does this project do?",
    "Refactor lib/util.go, don't touch the tests.",
]


def policy_pool() -> list[dict[str, Any]]:
    from tests.opa.test_corpus_policies import POLICIES

    pool = [dict(p) for p in POLICIES.values()]
    for ws in ("/srv/app", f"{HOME}/src/app"):
        host = host_for(ws, False, ws, True)
        for m in MESSAGES:
            pool.append(compile_message(m, task="t", host=host).to_opa_data())
    pool.append(TaskPolicy(task="t").to_opa_data())
    return pool


POLICIES = [json.dumps(p) for p in policy_pool()]

GRANT_TWEAKS = [
    {},
    {"max_calls": 1},
    {"tools": ["write_*"]},
    {"tools": ["terminal"]},
    {"paths": ["/srv/app/src"]},
    {"paths": [f"{HOME}/src/app/notes"]},
    {"capability": "commit"},
    {"commands": ["make"]},
    {"class": "READ"},
]

PROHIBITIONS = [
    None,
    {"classes": ["READ"], "keywords": ["secret"], "evidence": "don't read the secrets", "egress": False},
    {"classes": ["LOCAL_WRITE"], "keywords": [], "evidence": "don't change files", "egress": False},
    {"classes": ["*"], "keywords": ["tests"], "evidence": "don't touch the tests", "egress": False},
    {"classes": [], "keywords": [], "evidence": "send nothing", "egress": True},
]

CONFIGS = [
    {},
    {},
    {},
    {"mode": "monitor"},
    {"mode": "strict"},
    {"overrides": [{"tool": "write_file", "verdict": "ask"}]},
    {"overrides": [{"tool": "*", "class": "READ", "verdict": "block"}]},
    {"tools": {"read_file": {"classes": ["LOCAL_WRITE"]}}},
    {"tools": {"mcp__*": {"classes": ["READ"]}}},
    {"protected_paths": ["/srv/app/notes"]},
    {"unattended_ask": "allow"},
]

# The configurations as OPA holds them, serialized once (copied per input).
CONFIG_DATA = [json.dumps(Config(**c).to_opa_data()) for c in CONFIGS]

ORGS = [None, None, None, {"agent": {"deny": [{"code": "ORG_X", "message": "no"}]}}, {"agent": {"ask": []}}]
BUNDLES = [
    None,
    None,
    {"opafence": {"manifest": {"roots": ["opafence"]}}},
    {"evil": {"manifest": {"roots": ["tasks"]}}},
]
TAINTS = [
    {},
    {},
    {},
    {"untrusted": True, "sources": ["web"]},
    {"untrusted": False, "sources": ["mcp"]},
    {"secret_read": True},
]
PROVENANCE = [
    None,  # what Python records for the call (decision_input)
    None,
    {"lossy": True, "why": "the record was cut short", "targets": []},
    {
        "lossy": False,
        "targets": [
            {
                "kind": "email", "value": "john@example.com", "arg": "to", "user": False, "untrusted": True,
                "source": {"tool": "web_extract", "call": 1, "labels": ["web"]},
            }
        ],
    },
    {
        "lossy": False,
        "targets": [
            {"kind": "path", "value": "/srv/app/notes/a.md", "arg": "path", "user": True, "untrusted": False}
        ],
    },
]  # fmt: skip


@st.composite
def generated_case(draw: st.DrawFn) -> Case:
    # Hypothesis draws one seeded Random per input and the choices come from it: ten thousand
    # inputs in seconds, reproducible from hypothesis' own seed.
    rnd = draw(st.randoms(use_true_random=False))
    # Three in four inputs are plain (each condition the fast tier checks holds, but for one in
    # fifteen), so the fast tier answers often and the near misses are many; the rest vary freely.
    plain = rnd.random() < 0.75

    def pick(options: list[Any], clean: Any = None) -> Any:
        if plain and rnd.random() < 14 / 15:
            return clean
        return rnd.choice(options)

    ws = pick(WORKSPACES, "/srv/app")
    cwd = pick([ws or "/srv/app", HOME, "/tmp"], ws or "/srv/app")
    host = host_for(ws, rnd.random() < 0.5, cwd, rnd.random() < 0.5)
    kind = rnd.choice([*CALL_KINDS, "send", "other"])
    clean = plain and rnd.random() < 0.75
    tool, args = call_for(
        kind,
        path_text(rnd, clean),
        command_text(rnd, clean),
        pick(CONTENTS, "hello"),
        rnd.choice(["Update", "Add", "Update", "Delete"]),
    )
    facts = build_facts(tool, args, facts_context(host))
    provenance = pick(PROVENANCE)
    if provenance is not None:
        facts["provenance"] = provenance
    doc = decision_input("t1", tool, args, "c1", SessionFacts(), host, facts)
    doc["session"]["taint"].update(pick(TAINTS, {}))
    if pick([True, False], False):
        doc["session"]["delegation"] = {"launching": 1, "short": 0, "long": 0, "error": ""}
    policy = json.loads(rnd.choice(POLICIES))
    for g in policy.get("grants", []):
        g.update(pick(GRANT_TWEAKS, {}))
        doc["session"]["counters"]["by_grant"][g["id"]] = pick([0, 1, 5], 0)
    prohibition = pick(PROHIBITIONS)
    if prohibition is not None:
        policy["prohibitions"] = [*policy.get("prohibitions", []), prohibition]
    if pick([True, False], False):
        policy["read_only"] = True
    if pick([True, False], False):
        policy["bounds"] = {**policy.get("bounds", {}), "paths": ["/srv/app/src"]}
    if pick([True, False], False):
        policy["budgets"] = {**policy.get("budgets", {}), "max_calls": 3}
        doc["session"]["counters"]["calls"] = rnd.choice([0, 5])
    tasks = {} if rnd.random() < 0.05 else {"t1": {**policy, "task": "t1"}}
    config = json.loads(pick(CONFIG_DATA, CONFIG_DATA[0]))
    case: Case = {"name": f"generated/{kind}", "input": doc, "tasks": tasks, "config": config}
    if (org := pick(ORGS)) is not None:
        case["org"] = org
    if (bundles := pick(BUNDLES)) is not None:
        case["bundles"] = bundles
    return case


def generate(n: int) -> list[Case]:
    out: list[Case] = []

    @settings(
        max_examples=n,
        database=None,
        phases=[Phase.generate],
        deadline=None,
        suppress_health_check=list(HealthCheck),
    )
    @given(generated_case())
    def collect(case: Case) -> None:
        out.append(case)

    collect()
    return out


@pytest.mark.timeout(1800)
def test_fast_tier_matches_the_full_policy_on_generated_inputs() -> None:
    cases = generate(GENERATED)
    assert len(cases) >= GENERATED
    answered, bad = compare(cases)
    rate = 100 * answered / len(cases)
    print(f"\nfast tier answered {answered} of {len(cases)} generated inputs ({rate:.1f} %)")
    kinds = sorted({c["name"] for c in cases})
    print("  kinds:", ", ".join(kinds))
    assert not bad, f"{len(bad)} disagreements:\n" + "\n".join(bad[:15])
    assert answered >= len(cases) // 20


def test_the_entrypoint_takes_the_fast_answer_else_the_full_one() -> None:
    # The same input, once decided fast, once not (a tainted session): data.opafence.decision is
    # the fast answer in the first and the full one in the second, and both allow the read.
    with tempfile.TemporaryDirectory() as tmp:
        host = host_for(tmp, False, tmp, False)
        facts = build_facts("read_file", {"path": "src/main.py"}, facts_context(host))
        doc = decision_input("t1", "read_file", {"path": "src/main.py"}, "c1", SessionFacts(), host, facts)
        tainted = json.loads(json.dumps(doc))
        tainted["session"]["taint"].update({"untrusted": True, "sources": ["web"]})
        base = {"tasks": {}, "config": Config().to_opa_data()}
        cases: list[Case] = [
            {"name": "plain", "input": doc, **base},
            {"name": "tainted", "input": tainted, **base},
        ]
        got = evaluate(cases, {"fast": FAST, "full": FULL, "decision": "data.opafence.decision"})
    assert got[0]["fast"] is not None and got[0]["decision"] == got[0]["fast"] == got[0]["full"]
    assert got[1]["fast"] is None and got[1]["decision"] == got[1]["full"]
    assert got[0]["decision"]["verdict"] == "allow"
