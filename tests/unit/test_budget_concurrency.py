"""Concurrent model calls, from threads of one process and from several processes, cannot spend
the same remaining budget: each decision and its reservation happen under the ledger's lock.

The documented bound: the day's settled spend never exceeds the hard cap by more than what the
settled calls cost above their estimates. Here calls cost at most their estimate, so the bound is
the cap itself, and every process appends to the one signed audit trail."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
import textwrap
import threading
from pathlib import Path
from typing import Any

from opafence.audit.trail import AuditLog
from opafence.audit.verify import verify_trail
from opafence.budget.spend import CallInfo, SpendGuard
from opafence.budget.spend_ledger import Ledger
from opafence.config import Config
from opafence.opa.bridge import Bridge

CAP_CENTS = 40
BUDGETS = {"daily_hard_cents": CAP_CENTS, "prices": {"big": {"input": "10", "output": "30"}}}
# ~1.6k input tokens and 1k output tokens at $10/$30 per million: about 4.6 cents per call
REQUEST = {"model": "big", "messages": [{"role": "user", "content": "x" * 5000}], "max_tokens": 1000}


def run_calls(guard: SpendGuard, tag: str, attempts: int, seed: int) -> dict[str, int]:
    """Make calls until blocked `attempts` times; settle some at their estimate, some below,
    fail some. Returns what this worker believes it spent."""
    from openai.types.chat import ChatCompletion

    rnd = random.Random(seed)
    out = {"allowed": 0, "blocked": 0, "failed": 0, "spent": 0}
    n = 0
    while out["blocked"] < attempts:
        n += 1
        plan = guard.decide(REQUEST, "big", CallInfo(task=tag, request_id=f"{tag}-{n}"))
        if not plan.allowed:
            assert "[SPEND_HARD_CAP]" in plan.message, plan.message
            out["blocked"] += 1
            continue
        out["allowed"] += 1
        roll = rnd.random()
        if roll < 0.2:
            guard.release(plan, RuntimeError("provider error"))
            out["failed"] += 1
            continue
        cost = plan.charge if roll < 0.6 else plan.charge // 2
        usage = {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2, "cost": cost / 1e8}
        response = ChatCompletion.model_validate(
            {
                "id": "c",
                "object": "chat.completion",
                "created": 0,
                "model": "big",
                "choices": [
                    {"index": 0, "message": {"role": "assistant", "content": "ok"}, "finish_reason": "stop"}
                ],
                "usage": usage,
            }
        )
        guard.settle(plan, response, "chat_completions")
        out["spent"] += cost
    return out


def test_threads_never_overspend(tmp_path: Path) -> None:
    config = Config.model_validate({"budgets": BUDGETS})
    bridge = Bridge(config, tmp_path / "state")
    bridge.start()
    try:
        guard = SpendGuard(
            config.budgets,
            Ledger(tmp_path / "ledger.json"),
            bridge,
            AuditLog(tmp_path / "audit.jsonl"),
            lambda: None,
        )
        results: list[dict[str, int]] = []
        errors: list[BaseException] = []

        def worker(i: int) -> None:
            try:
                results.append(run_calls(guard, f"t{i}", attempts=3, seed=i))
            except BaseException as e:
                errors.append(e)

        threads = [threading.Thread(target=worker, args=(i,)) for i in range(12)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(120)
        assert not errors, errors
        f = guard.ledger.snapshot()
        assert f.in_flight == 0 and f.reserved == 0
        assert f.spent == sum(r["spent"] for r in results)
        assert f.spent <= CAP_CENTS * 1_000_000
        assert sum(r["allowed"] for r in results) >= 8  # the budget was really used, not refused
        assert verify_trail(tmp_path / "audit.jsonl").ok
    finally:
        bridge.close()


WORKER = textwrap.dedent(
    """
    import json, sys
    from pathlib import Path
    sys.path.insert(0, sys.argv[4])
    from test_budget_concurrency import BUDGETS, run_calls
    from opafence.audit.trail import AuditLog
    from opafence.budget.spend_ledger import Ledger
    from opafence.budget.spend import SpendGuard
    from opafence.config import Config
    from opafence.opa.bridge import Bridge

    shared, state, tag = Path(sys.argv[1]), Path(sys.argv[2]), sys.argv[3]
    config = Config.model_validate({"budgets": BUDGETS})
    bridge = Bridge(config, state)
    bridge.start()
    try:
        guard = SpendGuard(config.budgets, Ledger(shared / "ledger.json"), bridge,
                           AuditLog(shared / "audit.jsonl"), lambda: None)
        sys.stdin.readline()  # start together
        print(json.dumps(run_calls(guard, tag, attempts=3, seed=hash(tag) & 0xffff)))
    finally:
        bridge.close()
    """
)


def test_processes_never_overspend_and_share_one_signed_trail(tmp_path: Path) -> None:
    shared = tmp_path / "home"
    shared.mkdir()
    script = tmp_path / "worker.py"
    script.write_text(WORKER)
    here = str(Path(__file__).parent)
    env = {**os.environ, "PYTHONHASHSEED": "0"}
    procs = [
        subprocess.Popen(
            [sys.executable, str(script), str(shared), str(tmp_path / f"state{i}"), f"p{i}", here],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
        )
        for i in range(4)
    ]
    results: list[dict[str, Any]] = []
    for p in procs:
        assert p.stdin is not None
        p.stdin.write("go\n")
        p.stdin.flush()
    for p in procs:
        out, err = p.communicate(timeout=180)
        assert p.returncode == 0, err
        results.append(json.loads(out.strip().splitlines()[-1]))
    f = Ledger(shared / "ledger.json").snapshot()
    assert f.in_flight == 0
    assert f.spent == sum(r["spent"] for r in results)
    assert f.spent <= CAP_CENTS * 1_000_000
    assert sum(r["allowed"] for r in results) >= 8
    report = verify_trail(shared / "audit.jsonl")
    assert report.ok, [str(p) for p in report.problems]
    assert report.entries == 2 * sum(r["allowed"] for r in results) + sum(r["blocked"] for r in results)
