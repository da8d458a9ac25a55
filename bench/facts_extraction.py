"""Facts extraction time per call (build_facts), over a mixed corpus of ordinary calls.

Part of every decision's cost, so the target is well under 100 µs at p50 for ordinary calls.
Prints p50 / p99 (µs) and calls per second for the whole corpus and per kind of call, as wall
time and as this thread's CPU time (the second is what the code costs when the machine is busy
with other work); `--json` prints one object instead.

    .venv/bin/python bench/facts_extraction.py [--rounds 2000] [--json]
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


def run(rounds: int) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="opafence-facts-bench-") as ws:
        for sub in ("src/app", "notes", "data"):
            os.makedirs(os.path.join(ws, sub), exist_ok=True)
        ctx = FactsContext(home=ws, cwd=ws, hermes_home=os.path.join(ws, ".hermes"))
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
    args = ap.parse_args()
    result = run(args.rounds)
    if args.json:
        print(json.dumps(result))
        return
    print(
        f"facts extraction over {result['calls']} calls ({result['corpus']} ordinary calls),"
        f" load average {result['load_average']:.2f} on {result['cpus']} CPUs"
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
