"""End-to-end decision latency: from the Python call to the verdict, over mixed tool calls.

Per transport (`--transport pdp|server|both`: opafence-pdp over its pipe, the stock opa server
over the unix socket), in the same run: p50/p99 (µs), decisions per second with one thread
and with two, the engine's resident memory with `--tasks` live tasks (default 1,000; for the
PDP the primary's and its standby's), beside OPA's own evaluation time (`?metrics=true`,
timer_rego_query_eval_ns). `--json` prints one object.

`--rounds N` repeats the measurement N times on the same OPA and reports every round and
the median of the rounds (the top-level figures are then those medians). `--breakdown` also
times each step of a decision apart — facts, input build, JSON encode, the OPA round trip,
answer validation (decode + checks + the pydantic model) — and a round trip that evaluates
nothing: an authenticated `GET /health` on the same pooled connection. That floor is what
HTTP over the unix socket plus OPA's per-request authorizer (`system.authz`, evaluated on
every request under `--authorization=basic`) cost before any policy runs. On the PDP the
floor is its `status` operation (a framed round trip that evaluates no policy).

    .venv/bin/python bench/decision_latency.py [--calls 20000] [--rounds 3] [--breakdown]
        [--transport both] [--tasks 1000] [--workspace project|home] [--agentsfence PYTHON] [--json]

`--agentsfence PYTHON` also runs the same calls through AgentsFence 0.2.0a9's in-process
evaluator under that Python (bench/agentsfence_reference.py) and prints the ratios.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from opafence.config import Config
from opafence.decision import Decision
from opafence.errors import BridgeError
from opafence.facts import build_facts
from opafence.host import Host, canonical
from opafence.inputs import decision_input, facts_context
from opafence.judge import Judge, TaskState
from opafence.opa.bridge import DECISION_PATH, Bridge
from opafence.policy import fallback_policy
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


def rss_mb(pid: int | None) -> float:
    if pid is None:
        return float("nan")
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024.0
    return float("nan")


def opa_rss_mb(bridge: Bridge) -> float:
    """The engine that answers: OPA, or the primary PDP."""
    return rss_mb(bridge.local.opa_pid() if bridge.local else None)


def standby_rss_mb(bridge: Bridge) -> float | None:
    standby = getattr(bridge.local, "standby", None)
    return None if standby is None else rss_mb(standby.pid)


def threaded(judge: Judge, threads: int, calls: int) -> dict[str, float]:
    """Decisions per second (and p50/p99) with `threads` threads deciding at once, each on its
    own task, `calls` decisions in all."""
    states = [
        judge.open_task(f"bench-t{i}", "Fix the failing test in src/app and run the tests.")
        for i in range(threads)
    ]
    times: list[list[float]] = [[] for _ in range(threads)]
    barrier = threading.Barrier(threads + 1)

    def work(n: int) -> None:
        state = states[n]
        barrier.wait()
        for i in range(calls // threads):
            tool, args = MIXED_CALLS[(i + n * 7) % len(MIXED_CALLS)]
            state.session = SessionFacts()
            t0 = time.perf_counter_ns()
            judge.judge(state, tool, args, assume_executed=False)
            times[n].append((time.perf_counter_ns() - t0) / 1000.0)

    pool = [threading.Thread(target=work, args=(n,)) for n in range(threads)]
    for t in pool:
        t.start()
    barrier.wait()
    started = time.perf_counter()
    for t in pool:
        t.join()
    elapsed = time.perf_counter() - started
    for state in states:
        judge.close_task(state)
    done = [v for per in times for v in per]
    return {**p50_p99(done), "per_second": round(len(done) / elapsed, 1)}


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
    floor_path = "/health" if bridge.transport != "pdp" else "/v1/status"
    ctx = facts_context(judge.host, judge.identities)
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
        status, _ = client.request_raw("GET", floor_path)
        t6 = clock()
        if status != 200:
            raise BridgeError("OPA_HTTP_ERROR", f"GET {floor_path} answered HTTP {status}")
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


def bench_host(bridge: Bridge, home: Path, workspace: str) -> Host:
    """The host as the plugin describes it (hermes/fence.py Host): the engine's socket path and
    process ids, and the workspace a project below the home directory, as it usually is (the
    plugin's default workspace is never the home directory itself). `--workspace home` makes
    the workspace the home directory, as this bench did before."""
    project = home / "project" if workspace == "project" else home
    project.mkdir(parents=True, exist_ok=True)
    local = bridge.local
    return Host(
        auto_approve=False,
        interactive=True,
        platform="bench",
        workspace=(str(project),),
        cwd=str(project),
        home=str(home),
        opa_socket=canonical(str(local.socket_path)) if local is not None else "",
        opa_pids=bridge.opa_pids(),
    )


class Subject:
    """One transport under test: its bridge, judge and task, started once for the whole run."""

    def __init__(self, transport: str, tmp: Path, tasks: int, workspace: str = "project") -> None:
        # A generous timeout: on a loaded machine a slow answer is a figure to report, not a crash
        # (the plugin's default 250 ms would turn it into a block and stop --breakdown's raw loop).
        self.config = Config.model_validate({"opa": {"timeout_ms": 10_000, "transport": transport}})
        self.bridge = Bridge(self.config, tmp)
        self.bridge.start()
        host = bench_host(self.bridge, tmp, workspace)
        self.judge = Judge(self.bridge, host, self.config)
        self.state = self.judge.open_task(
            "bench", "Fix the failing test in src/app and run the tests. Don't send email."
        )
        for n in range(tasks):  # live tasks beside the bench's own (memory, and data size)
            self.bridge.put_task(f"live-{n}", fallback_policy(f"live-{n}").to_opa_data())
        for tool, args in MIXED_CALLS * 20:  # warm-up
            self.judge.judge(self.state, tool, args, assume_executed=False)
        self.rounds: list[dict[str, Any]] = []
        self.two: list[dict[str, float]] = []

    def summary(self, calls: int, tasks: int) -> dict[str, Any]:
        bridge = self.bridge
        if bridge.transport == "pdp":  # the standby is started in the background
            deadline = time.monotonic() + 30
            while standby_rss_mb(bridge) is None and time.monotonic() < deadline:
                time.sleep(0.1)
        out: dict[str, Any] = {"transport": bridge.transport, "calls": calls, "tasks": tasks}
        out.update(median_of(self.rounds))
        out["two_threads"] = {
            k: round(statistics.median(t[k] for t in self.two), 1) for k in ("p50_us", "p99_us", "per_second")
        }
        out["opa_rss_mb"] = round(opa_rss_mb(bridge), 1)
        standby = standby_rss_mb(bridge)
        if standby is not None:
            out["standby_rss_mb"] = round(standby, 1)
        if len(self.rounds) > 1:
            out["rounds"] = self.rounds
        return out


def run_all(
    transports: list[str],
    calls: int,
    rounds: int = 1,
    steps: bool = False,
    tasks: int = 0,
    workspace: str = "project",
) -> dict[str, dict[str, Any]]:
    """Every transport started at once and measured in alternating rounds, so that the load of
    a shared machine falls on each alike (side by side, not one after the other)."""
    subjects: dict[str, Subject] = {}
    results: dict[str, dict[str, Any]] = {}
    with tempfile.TemporaryDirectory(prefix="opafence-bench-") as tmp:
        try:
            for transport in transports:
                try:
                    subjects[transport] = Subject(transport, Path(tmp) / transport, tasks, workspace)
                except BridgeError as e:
                    results[transport] = {"error": e.sentence()}
            for _ in range(rounds):
                for sub in subjects.values():
                    sub.rounds.append(one_round(sub.judge, sub.state, sub.bridge, calls, steps))
                    sub.two.append(threaded(sub.judge, 2, calls))
            for transport, sub in subjects.items():
                results[transport] = sub.summary(calls, tasks)
        finally:
            for sub in subjects.values():
                sub.bridge.close()
    return results


def run(
    calls: int, rounds: int = 1, steps: bool = False, transport: str = "auto", tasks: int = 0
) -> dict[str, Any]:
    """One transport alone (bench/bundle_latency.py and others import this)."""
    return run_all([transport], calls, rounds, steps, tasks)[transport]


def describe(result: dict[str, Any], indent: str = "  ") -> list[str]:
    lines = [
        f"{indent}end-to-end p50 {result['p50_us']} µs, p99 {result['p99_us']} µs, "
        f"mean {result['mean_us']} µs",
        f"{indent}throughput {result['per_second']} decisions/s (one thread)",
        *(
            [
                f"{indent}2 threads  {result['two_threads']['per_second']} decisions/s, "
                f"p50 {result['two_threads']['p50_us']} µs, p99 {result['two_threads']['p99_us']} µs"
            ]
            if "two_threads" in result
            else []
        ),
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
            label = "no-eval floor" if name == FLOOR else name
            lines.append(f"{indent}{label:<20}{figures['p50_us']:>9}{figures['p99_us']:>9}")
    return lines


def agentsfence(python: str, calls: int) -> dict[str, Any]:
    """The reference figures from bench/agentsfence_reference.py under `python`."""
    script = Path(__file__).with_name("agentsfence_reference.py")
    proc = subprocess.run(
        [python, str(script), str(calls)],
        input=json.dumps({"calls": MIXED_CALLS}),
        capture_output=True,
        text=True,
        timeout=1800,
        check=False,
        cwd=tempfile.gettempdir(),
    )
    if proc.returncode != 0:
        return {
            "error": proc.stderr.strip().splitlines()[-1]
            if proc.stderr.strip()
            else f"exit {proc.returncode}"
        }
    result: dict[str, Any] = json.loads(proc.stdout.strip().splitlines()[-1])
    return result


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--calls", type=int, default=20_000)
    parser.add_argument("--rounds", type=int, default=1, help="repeat N times; report the median too")
    parser.add_argument("--breakdown", action="store_true", help="time each step of a decision apart")
    parser.add_argument("--transport", choices=("pdp", "server", "both", "auto"), default="both")
    parser.add_argument("--tasks", type=int, default=1000, help="live tasks held while measuring")
    parser.add_argument(
        "--workspace",
        choices=("project", "home"),
        default="project",
        help="the workspace: a project below the home directory (default), or the home itself",
    )
    parser.add_argument("--agentsfence", metavar="PYTHON", help="a Python with agentsfence 0.2.0a9 installed")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    if args.calls < 1 or args.rounds < 1:
        parser.error("--calls and --rounds must be at least 1")
    transports = ["server", "pdp"] if args.transport == "both" else [args.transport]
    results = run_all(transports, args.calls, args.rounds, args.breakdown, args.tasks, args.workspace)
    if args.agentsfence:
        ref = agentsfence(args.agentsfence, args.calls)
        for result in list(results.values()):
            if "error" not in result and "error" not in ref:
                result["vs_agentsfence"] = {
                    "p50_ratio": round(result["p50_us"] / ref["p50_us"], 2),
                    "per_second_ratio": round(result["per_second"] / ref["per_second"], 3),
                }
        results["agentsfence"] = ref
    if args.json:
        print(json.dumps(results))
        return
    for transport, result in results.items():
        if "error" in result:
            print(f"[{transport}] not measured: {result['error']}")
            continue
        if transport == "agentsfence":
            print(
                f"[agentsfence {result['version']}] in-process evaluator, {result['calls']} calls: "
                f"p50 {result['p50_us']} µs, p99 {result['p99_us']} µs, {result['per_second']} decisions/s "
                f"(one thread); verdicts {result['verdicts']}"
            )
            continue
        print(
            f"[{result['transport']}] {result['calls']} mixed calls (facts + input + OPA + validation), "
            f"{result['tasks']} live tasks"
        )
        for i, r in enumerate(result.get("rounds", [])):
            print(f" round {i + 1}:")
            print("\n".join(describe(r, "    ")))
        if "rounds" in result:
            print(f" median of {len(result['rounds'])} rounds:")
        print("\n".join(describe(result)))
        rss = f"  engine RSS {result['opa_rss_mb']} MB"
        if "standby_rss_mb" in result:
            rss += f" (standby {result['standby_rss_mb']} MB)"
        print(rss)
        print(f"  verdicts   {result['verdicts']}")
        if "vs_agentsfence" in result:
            vs = result["vs_agentsfence"]
            print(
                f"  vs AgentsFence: p50 {vs['p50_ratio']}x its p50, {vs['per_second_ratio']}x its decisions/s"
            )


if __name__ == "__main__":
    main()
