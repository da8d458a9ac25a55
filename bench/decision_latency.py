"""End-to-end decision latency: from the Python call to the verdict, over mixed tool calls.

Prints p50/p99 (µs), decisions per second and OPA's resident memory, beside OPA's own
evaluation time (`?metrics=true`, timer_rego_query_eval_ns). `--json` prints one object.

    .venv/bin/python bench/decision_latency.py [--calls 20000] [--json]
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from opafence.config import Config
from opafence.host import Host
from opafence.judge import Judge
from opafence.opa.bridge import Bridge
from opafence.session import SessionFacts

MIXED_CALLS: list[tuple[str, dict[str, Any]]] = [
    ("read_file", {"path": "src/app/main.py"}),
    ("search_files", {"pattern": "TODO", "path": "src"}),
    ("terminal", {"command": "pytest -q tests/unit"}),
    ("terminal", {"command": "git status && git diff --stat"}),
    ("terminal", {"command": "rm -rf build/ && make"}),
    ("terminal", {"command": "curl -s https://api.example.com/v1/items | jq '.items[0]'"}),
    ("write_file", {"path": "notes/today.md", "content": "# Notes\n" * 20}),
    (
        "patch",
        {
            "mode": "patch",
            "patch": "*** Begin Patch\n*** Update File: src/a.py\n@@\n-x = 1\n+x = 2\n*** End Patch\n",
        },
    ),
    ("web_extract", {"urls": ["https://docs.python.org/3/library/ast.html"]}),
    ("web_search", {"query": "opa rego partial evaluation"}),
    ("mcp__gmail__search_emails", {"query": "from:alice invoice"}),
    ("mcp__gmail__send_email", {"to": ["john@example.com"], "subject": "Summary", "body": "Hi John, ..."}),
    ("execute_code", {"code": "import json\nprint(json.dumps({'a': 1}))\n"}),
    ("memory", {"action": "add", "target": "memory", "content": "user prefers tabs"}),
    ("delegate_task", {"goal": "summarize the repo"}),
]


def percentile(sorted_values: list[float], q: float) -> float:
    idx = min(len(sorted_values) - 1, max(0, round(q * (len(sorted_values) - 1))))
    return sorted_values[idx]


def opa_rss_mb(bridge: Bridge) -> float:
    pid = bridge.local.opa_pid() if bridge.local else None
    if pid is None:
        return float("nan")
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024.0
    return float("nan")


def run(calls: int) -> dict[str, Any]:
    config = Config()
    with tempfile.TemporaryDirectory(prefix="opafence-bench-") as tmp:
        bridge = Bridge(config, Path(tmp))
        bridge.start()
        try:
            host = Host(
                auto_approve=False, interactive=True, platform="bench", workspace=(tmp,), cwd=tmp, home=tmp
            )
            judge = Judge(bridge, host, config)
            state = judge.open_task(
                "bench", "Fix the failing test in src/app and run the tests. Don't send email."
            )
            for tool, args in MIXED_CALLS * 20:  # warm-up
                judge.judge(state, tool, args, assume_executed=False)
            e2e: list[float] = []
            verdicts: dict[str, int] = {}
            started = time.perf_counter()
            for i in range(calls):
                tool, args = MIXED_CALLS[i % len(MIXED_CALLS)]
                state.session = SessionFacts()  # keep the input size steady
                t0 = time.perf_counter_ns()
                judged = judge.judge(state, tool, args, assume_executed=False)
                e2e.append((time.perf_counter_ns() - t0) / 1000.0)
                verdicts[judged.decision.verdict] = verdicts.get(judged.decision.verdict, 0) + 1
            elapsed = time.perf_counter() - started
            # OPA's own evaluation time for the same inputs.
            evals: list[float] = []
            for i in range(min(calls, 2000)):
                tool, args = MIXED_CALLS[i % len(MIXED_CALLS)]
                doc = judge.judge(state, tool, args, assume_executed=False).input
                answer = bridge.query(doc, "&metrics=true")
                evals.append(answer["metrics"].get("timer_rego_query_eval_ns", 0) / 1000.0)
            rss = opa_rss_mb(bridge)
        finally:
            bridge.close()
    e2e.sort()
    evals.sort()
    return {
        "calls": calls,
        "p50_us": round(percentile(e2e, 0.50), 1),
        "p99_us": round(percentile(e2e, 0.99), 1),
        "mean_us": round(statistics.fmean(e2e), 1),
        "per_second": round(calls / elapsed, 1),
        "opa_eval_p50_us": round(percentile(evals, 0.50), 1),
        "opa_eval_p99_us": round(percentile(evals, 0.99), 1),
        "opa_rss_mb": round(rss, 1),
        "verdicts": verdicts,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--calls", type=int, default=20_000)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    result = run(args.calls)
    if args.json:
        print(json.dumps(result))
        return
    print(f"decisions: {result['calls']} mixed calls (facts + input + OPA + validation)")
    print(f"  end-to-end p50 {result['p50_us']} µs, p99 {result['p99_us']} µs, mean {result['mean_us']} µs")
    print(f"  throughput {result['per_second']} decisions/s (one thread)")
    print(f"  OPA eval   p50 {result['opa_eval_p50_us']} µs, p99 {result['opa_eval_p99_us']} µs")
    print(f"  OPA RSS    {result['opa_rss_mb']} MB")
    print(f"  verdicts   {result['verdicts']}")


if __name__ == "__main__":
    main()
