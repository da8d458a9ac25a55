"""Facts extraction time per call (build_facts), over a mixed corpus of ordinary calls.

Part of every decision's cost, so the target is well under 100 µs at p50 for ordinary calls.
Prints p50 / p99 (µs) and calls per second for the whole corpus and per kind of call, as wall
time and as this thread's CPU time (the second is what the code costs when the machine is busy
with other work); `--json` prints one object instead.

The calls are judged as the plugin judges them: with the protected places' identities kept
across calls (facts/links.py; a home with a key, cloud credentials, Hermes' config and skills,
opafence's keys, and the code this Python runs), so every named path and its parents are
stat'ed. `--no-identities` leaves that out (hard links only, as one-off facts look for them).
The index build itself is timed apart (`index_build`).

    .venv/bin/python bench/facts_extraction.py [--rounds 2000] [--no-identities] [--json]
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import tempfile
import time
from typing import Any

from opafence.facts import FactsContext, build_facts
from opafence.facts.links import Identities
from opafence.host import code_dirs

# Ordinary calls an agent makes in a working session (kind, tool, args).
CORPUS: list[tuple[str, str, dict[str, Any]]] = [
    ("terminal", "terminal", {"command": "ls -la src"}),
    ("terminal", "terminal", {"command": "git status && git diff --stat"}),
    ("terminal", "terminal", {"command": "pytest -q tests/unit -k 'not slow'"}),
    ("terminal", "terminal", {"command": "cd src && grep -rn TODO . | head -20"}),
    ("terminal", "terminal", {"command": "npm run build 2>&1 | tail -5"}),
    ("terminal", "terminal", {"command": "python3 -c 'import sys; print(sys.version)'"}),
    ("read", "read_file", {"path": "src/app/main.py"}),
    ("read", "read_file", {"path": "~/notes/todo.md", "offset": 1, "limit": 200}),
    ("read", "search_files", {"pattern": "def main", "path": "src", "file_glob": "*.py"}),
    ("write", "write_file", {"path": "notes/today.md", "content": "# Notes\n\n- fix the parser\n" * 20}),
    (
        "patch",
        "patch",
        {
            "mode": "patch",
            "patch": "*** Begin Patch\n*** Update File: src/a.py\n@@ def f():\n-    return 1\n+    return 2\n"
            "*** Add File: src/b.py\n+print('b')\n*** End Patch\n",
        },
    ),
    ("patch", "patch", {"mode": "replace", "path": "src/a.py", "old_string": "x = 1", "new_string": "x = 2"}),
    ("web", "web_extract", {"urls": ["https://docs.python.org/3/library/ast.html"]}),
    ("web", "web_search", {"query": "opa rego partial evaluation"}),
    ("web", "browser_navigate", {"url": "https://github.com/open-policy-agent/opa/releases"}),
    ("mcp_email", "mcp__gmail__search_emails", {"query": "from:alice invoice", "max_results": 10}),
    (
        "mcp_email",
        "mcp__gmail__send_email",
        {
            "to": ["john@example.com"],
            "cc": "Ann <ann@example.org>",
            "subject": "Summary",
            "body": "Hi John, ...",
        },
    ),
    (
        "execute_code",
        "execute_code",
        {
            "code": "import json\nfrom hermes_tools import terminal\n"
            "r = terminal('ls src')\nprint(json.dumps(r))\n"
        },
    ),
    (
        "execute_code",
        "execute_code",
        {"code": "import csv\nrows = list(csv.reader(open('data/in.csv')))\nprint(len(rows))\n"},
    ),
    ("other", "memory", {"action": "add", "target": "memory", "content": "user prefers tabs"}),
    ("other", "delegate_task", {"goal": "summarize the repository layout"}),
]


def percentile(sorted_values: list[float], q: float) -> float:
    idx = min(len(sorted_values) - 1, max(0, round(q * (len(sorted_values) - 1))))
    return sorted_values[idx]


def summary(samples: list[float]) -> dict[str, float]:
    s = sorted(samples)
    total = sum(s)
    return {
        "p50_us": round(percentile(s, 0.50), 1),
        "p99_us": round(percentile(s, 0.99), 1),
        "mean_us": round(total / len(s), 1),
        "per_second": round(len(s) / (total / 1e6)) if total else 0,
    }


# Protected files of the bench's home (what the identity index finds there).
PROTECTED = (
    ".ssh/id_ed25519",
    ".aws/credentials",
    ".hermes/config.yaml",
    ".hermes/skills/notes/SKILL.md",
    ".hermes/opafence/keys/audit-hmac.key",
)


def identities(ws: str) -> tuple[Identities, float]:
    """The kept index for the bench's home, and how long its first build took (ms)."""
    for rel in PROTECTED:
        os.makedirs(os.path.dirname(os.path.join(ws, rel)), exist_ok=True)
        with open(os.path.join(ws, rel), "w", encoding="utf-8") as f:
            f.write("not a real secret\n")
    hermes = os.path.join(ws, ".hermes")
    index = Identities.for_host(ws, hermes, os.path.join(hermes, "opafence"), code_dirs())
    t0 = time.perf_counter_ns()
    index.current()
    return index, (time.perf_counter_ns() - t0) / 1e6


def run(rounds: int, with_identities: bool = True) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="opafence-facts-bench-") as tmp:
        ws = os.path.realpath(tmp)
        for sub in ("src/app", "notes", "data"):
            os.makedirs(os.path.join(ws, sub), exist_ok=True)
        kept, build_ms = identities(ws) if with_identities else (None, 0.0)
        hermes = os.path.join(ws, ".hermes")
        ctx = FactsContext(
            home=ws, cwd=ws, hermes_home=hermes, state_dir=os.path.join(hermes, "opafence"), identities=kept
        )
        for _, tool, args in CORPUS * 20:  # warm-up: imports, regexes, tree-sitter
            build_facts(tool, args, ctx)
        by_kind: dict[str, list[float]] = {}
        cpu_by_kind: dict[str, list[float]] = {}
        everything: list[float] = []
        cpu: list[float] = []
        gc.collect()
        for _ in range(rounds):
            for kind, tool, args in CORPUS:
                c0 = time.thread_time_ns()
                t0 = time.perf_counter_ns()
                build_facts(tool, args, ctx)
                us = (time.perf_counter_ns() - t0) / 1000.0
                cpu_us = (time.thread_time_ns() - c0) / 1000.0
                everything.append(us)
                cpu.append(cpu_us)
                by_kind.setdefault(kind, []).append(us)
                cpu_by_kind.setdefault(kind, []).append(cpu_us)
    return {
        "calls": len(everything),
        "corpus": len(CORPUS),
        "identities": with_identities,
        "index_build_ms": round(build_ms, 2),
        "index_entries": len(kept.current()[0]) if kept is not None else 0,
        "load_average": os.getloadavg()[0],
        "cpus": os.cpu_count(),
        "all": summary(everything),
        "all_cpu": summary(cpu),
        "by_kind": {k: summary(v) for k, v in sorted(by_kind.items())},
        "by_kind_cpu": {k: summary(v) for k, v in sorted(cpu_by_kind.items())},
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rounds", type=int, default=2000, help="passes over the corpus (default 2000)")
    ap.add_argument("--json", action="store_true", help="print one JSON object")
    ap.add_argument("--no-identities", action="store_true", help="without the kept identity index")
    args = ap.parse_args()
    result = run(args.rounds, not args.no_identities)
    if args.json:
        print(json.dumps(result))
        return
    print(
        f"facts extraction over {result['calls']} calls ({result['corpus']} ordinary calls),"
        f" load average {result['load_average']:.2f} on {result['cpus']} CPUs"
    )
    if result["identities"]:
        print(
            f" identity index: {result['index_entries']} entries, built in {result['index_build_ms']:.2f} ms"
        )
    for label, overall, kinds in (
        ("wall time", result["all"], result["by_kind"]),
        ("thread CPU time", result["all_cpu"], result["by_kind_cpu"]),
    ):
        print(f" {label}")
        for kind, s in [("all", overall), *kinds.items()]:
            p50, p99, rate = s["p50_us"], s["p99_us"], s["per_second"]
            print(f"  {kind:12s} p50 {p50:7.1f} µs   p99 {p99:8.1f} µs   {rate:>7} calls/s")


if __name__ == "__main__":
    main()
