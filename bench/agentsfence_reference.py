"""The reference for bench/decision_latency.py: the same mixed calls through AgentsFence
0.2.0a9's in-process evaluator (PyPI `agentsfence`, Apache-2.0), timed the same way.

It runs under a Python that has agentsfence installed (kept out of opafence's own venv):

    python3 -m venv /tmp/af && /tmp/af/bin/pip install agentsfence==0.2.0a9
    .venv/bin/python bench/decision_latency.py --agentsfence /tmp/af/bin/python

decision_latency.py starts this file with that Python, the calls as JSON on stdin, and reads
one JSON object back: p50/p99 (µs) and decisions per second. Its compiler needs an LLM inside
Hermes, so the task policy is written out by hand: the same "fix the failing test and run the
tests, don't send email" task the opafence bench compiles (reads, local writes in the
workspace, execution; no communication)."""

from __future__ import annotations

import json
import sys
import tempfile
import time
from typing import Any


def main() -> None:
    calls: list[list[Any]] = json.load(sys.stdin)["calls"]
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 20_000
    import os

    os.environ["HOME"] = tempfile.mkdtemp(prefix="af-home-")  # nothing of the real home
    from agentsfence import ExecutionState, RiskClass, TaskPolicy, __version__
    from agentsfence.config import load_settings
    from agentsfence.evaluator import Evaluator
    from agentsfence.guards import Guards
    from agentsfence.risk import RiskClassifier

    s = load_settings()
    policy = TaskPolicy(
        policy_id="bench",
        purpose="fix the failing test in src/app and run the tests",
        allowed_risk_classes=[RiskClass.READ, RiskClass.LOCAL_WRITE, RiskClass.EXECUTION],
        allowed_paths=[os.getcwd()],
        allow_local_writes=True,
        allow_execution=True,
        user_prohibitions=["COMMUNICATION"],
    )
    ev = Evaluator(s, RiskClassifier(s.risk_config), Guards(s.guards, agentsfence_home=s.home))
    for tool, args in calls * 20:  # warm-up
        ev.evaluate(policy, tool, args, ExecutionState())
    times: list[float] = []
    verdicts: dict[str, int] = {}
    started = time.perf_counter()
    for i in range(n):
        tool, args = calls[i % len(calls)]
        t0 = time.perf_counter_ns()
        d = ev.evaluate(policy, tool, args, ExecutionState())
        times.append((time.perf_counter_ns() - t0) / 1000.0)
        verdict = str(getattr(d.decision, "value", d.decision))
        verdicts[verdict] = verdicts.get(verdict, 0) + 1
    elapsed = time.perf_counter() - started
    times.sort()
    pick = lambda q: round(times[min(len(times) - 1, round(q * (len(times) - 1)))], 1)  # noqa: E731
    out = {
        "version": __version__,
        "calls": n,
        "p50_us": pick(0.5),
        "p99_us": pick(0.99),
        "per_second": round(n / elapsed, 1),
        "verdicts": verdicts,
    }
    print(json.dumps(out))


if __name__ == "__main__":
    main()
