"""End-to-end decision latency: from the Python call to the verdict, over mixed tool calls.

Prints p50/p99 (µs), decisions per second and OPA's resident memory, beside OPA's own
evaluation time (`?metrics=true`, timer_rego_query_eval_ns). `--json` prints one object.

`--rounds N` repeats the measurement N times on the same OPA and reports every round and
the median of the rounds (the top-level figures are then those medians). `--breakdown` also
times each step of a decision apart — facts, input build, JSON encode, the OPA round trip,
answer validation (decode + checks + the pydantic model) — and a round trip that evaluates
nothing: an authenticated `GET /health` on the same pooled connection. That floor is what
HTTP over the unix socket plus OPA's per-request authorizer (`system.authz`, evaluated on
every request under `--authorization=basic`) cost before any policy runs.

    .venv/bin/python bench/decision_latency.py [--calls 20000] [--rounds 3] [--breakdown] [--json]
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
from opafence.decision import Decision
from opafence.errors import BridgeError
from opafence.facts import build_facts
from opafence.host import Host
from opafence.inputs import decision_input, facts_context
from opafence.judge import Judge, TaskState
from opafence.opa.bridge import DECISION_PATH, Bridge
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

# The steps of one decision, in order, and the no-evaluation floor (see the module docstring).
STEPS = ("facts", "input", "encode", "round_trip", "validate")
FLOOR = "health_round_trip"


def percentile(sorted_values: list[float], q: float) -> float:
    idx = min(len(sorted_values) - 1, max(0, round(q * (len(sorted_values) - 1))))
    return sorted_values[idx]


def p50_p99(values: list[float]) -> dict[str, float]:
    s = sorted(values)
    return {"p50_us": round(percentile(s, 0.50), 1), "p99_us": round(percentile(s, 0.99), 1)}


def opa_rss_mb(bridge: Bridge) -> float:
    pid = bridge.local.opa_pid() if bridge.local else None
    if pid is None:
        return float("nan")
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024.0
    return float("nan")


def end_to_end(judge: Judge, state: TaskState, calls: int) -> dict[str, Any]:
    """What the plugin pays per call: Judge.judge (facts, input, OPA, validation, bookkeeping)."""
    e2e: list[float] = []
    by_kind: dict[str, list[float]] = {}
    verdicts: dict[str, int] = {}
    started = time.perf_counter()
    for i in range(calls):
        tool, args = MIXED_CALLS[i % len(MIXED_CALLS)]
        state.session = SessionFacts()  # keep the input size steady
        t0 = time.perf_counter_ns()
        judged = judge.judge(state, tool, args, assume_executed=False)
        us = (time.perf_counter_ns() - t0) / 1000.0
        e2e.append(us)
        by_kind.setdefault(kind_of(tool, args), []).append(us)
        verdicts[judged.decision.verdict] = verdicts.get(judged.decision.verdict, 0) + 1
    elapsed = time.perf_counter() - started
    return {
        **p50_p99(e2e),
        "mean_us": round(statistics.fmean(e2e), 1),
        "per_second": round(calls / elapsed, 1),
        "verdicts": verdicts,
        "by_kind": {k: p50_p99(v) for k, v in by_kind.items()},
    }


def kind_of(tool: str, args: dict[str, Any]) -> str:
    """A label for one of MIXED_CALLS: the tool, and a terminal command's first words."""
    if tool == "terminal":
        return "terminal: " + " ".join(str(args["command"]).split()[:2])
    return tool


def opa_eval(judge: Judge, state: TaskState, bridge: Bridge, calls: int) -> dict[str, float]:
    """OPA's own evaluation time for the same inputs (its metrics, not our clock)."""
    evals: list[float] = []
    for i in range(min(calls, 2000)):
        tool, args = MIXED_CALLS[i % len(MIXED_CALLS)]
        state.session = SessionFacts()
        doc = judge.judge(state, tool, args, assume_executed=False).input
        answer = bridge.query(doc, "&metrics=true")
        evals.append(answer["metrics"].get("timer_rego_query_eval_ns", 0) / 1000.0)
    s = sorted(evals)
    return {
        "opa_eval_p50_us": round(percentile(s, 0.50), 1),
        "opa_eval_p99_us": round(percentile(s, 0.99), 1),
    }


def breakdown(judge: Judge, state: TaskState, bridge: Bridge, calls: int) -> dict[str, dict[str, float]]:
    """Each step of the decision path timed apart, the way Bridge.decide does them."""
    client = bridge.client
    assert client is not None
    ctx = facts_context(judge.host)
    times: dict[str, list[float]] = {name: [] for name in (*STEPS, FLOOR)}
    clock = time.perf_counter_ns
    for i in range(calls):
        tool, args = MIXED_CALLS[i % len(MIXED_CALLS)]
        session = SessionFacts()
        t0 = clock()
        facts = build_facts(tool, args, ctx)
        t1 = clock()
        doc = decision_input(state.key, tool, args, "", session, judge.host, facts)
        t2 = clock()
        payload = json.dumps({"input": doc}, separators=(",", ":")).encode()
        t3 = clock()
        status, data = client.request_raw("POST", DECISION_PATH, payload)
        t4 = clock()
        answer = json.loads(data)
        if status >= 300 or not isinstance(answer, dict) or "result" not in answer:
            raise BridgeError("OPA_BAD_RESULT", f"HTTP {status}")
        Decision.model_validate(answer["result"])
        t5 = clock()
        status, _ = client.request_raw("GET", "/health")
        t6 = clock()
        if status != 200:
            raise BridgeError("OPA_HTTP_ERROR", f"GET /health answered HTTP {status}")
        marks = (t0, t1, t2, t3, t4, t5, t6)
        for name, start, end in zip((*STEPS, FLOOR), marks[:-1], marks[1:], strict=True):
            times[name].append((end - start) / 1000.0)
    return {name: p50_p99(values) for name, values in times.items()}


def one_round(judge: Judge, state: TaskState, bridge: Bridge, calls: int, steps: bool) -> dict[str, Any]:
    result: dict[str, Any] = {"calls": calls, **end_to_end(judge, state, calls)}
    result.update(opa_eval(judge, state, bridge, calls))
    if steps:
        result["breakdown"] = breakdown(judge, state, bridge, calls)
    return result


def median_of(rounds: list[dict[str, Any]]) -> dict[str, Any]:
    """The median of every figure over the rounds (verdicts are the same every round)."""
    keys = ("p50_us", "p99_us", "mean_us", "per_second", "opa_eval_p50_us", "opa_eval_p99_us")
    out: dict[str, Any] = {k: round(statistics.median(r[k] for r in rounds), 1) for k in keys}
    out["verdicts"] = rounds[-1]["verdicts"]
    out["by_kind"] = {
        kind: {
            q: round(statistics.median(r["by_kind"][kind][q] for r in rounds), 1)
            for q in ("p50_us", "p99_us")
        }
        for kind in rounds[0]["by_kind"]
    }
    if "breakdown" in rounds[0]:
        out["breakdown"] = {
            name: {
                q: round(statistics.median(r["breakdown"][name][q] for r in rounds), 1)
                for q in ("p50_us", "p99_us")
            }
            for name in rounds[0]["breakdown"]
        }
    return out


def run(calls: int, rounds: int = 1, steps: bool = False) -> dict[str, Any]:
    # A generous timeout: on a loaded machine a slow answer is a figure to report, not a crash
    # (the plugin's default 250 ms would turn it into a block and stop --breakdown's raw loop).
    config = Config.model_validate({"opa": {"timeout_ms": 10_000}})
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
            results = [one_round(judge, state, bridge, calls, steps) for _ in range(rounds)]
            rss = opa_rss_mb(bridge)
        finally:
            bridge.close()
    out: dict[str, Any] = {"calls": calls, **median_of(results), "opa_rss_mb": round(rss, 1)}
    if rounds > 1:
        out["rounds"] = results
    return out


def describe(result: dict[str, Any], indent: str = "  ") -> list[str]:
    lines = [
        f"{indent}end-to-end p50 {result['p50_us']} µs, p99 {result['p99_us']} µs, "
        f"mean {result['mean_us']} µs",
        f"{indent}throughput {result['per_second']} decisions/s (one thread)",
        f"{indent}OPA eval   p50 {result['opa_eval_p50_us']} µs, p99 {result['opa_eval_p99_us']} µs",
    ]
    kinds = result.get("by_kind", {})
    if kinds:
        lines.append(f"{indent}{'call kind':<34}{'p50 µs':>9}{'p99 µs':>9}")
        for kind, figures in kinds.items():
            lines.append(f"{indent}{kind:<34}{figures['p50_us']:>9}{figures['p99_us']:>9}")
    steps = result.get("breakdown")
    if steps:
        lines.append(f"{indent}{'step':<20}{'p50 µs':>9}{'p99 µs':>9}")
        for name, figures in steps.items():
            label = "GET /health (floor)" if name == FLOOR else name
            lines.append(f"{indent}{label:<20}{figures['p50_us']:>9}{figures['p99_us']:>9}")
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--calls", type=int, default=20_000)
    parser.add_argument("--rounds", type=int, default=1, help="repeat N times; report the median too")
    parser.add_argument("--breakdown", action="store_true", help="time each step of a decision apart")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    if args.calls < 1 or args.rounds < 1:
        parser.error("--calls and --rounds must be at least 1")
    result = run(args.calls, args.rounds, args.breakdown)
    if args.json:
        print(json.dumps(result))
        return
    print(f"decisions: {result['calls']} mixed calls (facts + input + OPA + validation)")
    for i, r in enumerate(result.get("rounds", [])):
        print(f" round {i + 1}:")
        print("\n".join(describe(r, "    ")))
    if "rounds" in result:
        print(f" median of {len(result['rounds'])} rounds:")
    print("\n".join(describe(result)))
    print(f"  OPA RSS    {result['opa_rss_mb']} MB")
    print(f"  verdicts   {result['verdicts']}")


if __name__ == "__main__":
    main()
