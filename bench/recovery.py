"""Recovery after the engine is killed: how long until decisions are right again.

Four threads decide (mixed calls, each compared with the answer before any kill) while the
engine that answers is killed with SIGKILL: the primary opafence-pdp (its warm standby takes
over) or the stock opa server (restarted, the policy compiled again). For each kill: the time
from the kill to the first right decision that started after it. Before each kill the bench
waits until the engine is back to full strength (for the PDP: a standby is up again).

    .venv/bin/python bench/recovery.py [--kills 5] [--transport both] [--threads 4] [--json]
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import statistics
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from opafence.config import Config
from opafence.decision import Decision
from opafence.host import Host
from opafence.inputs import decision_input
from opafence.opa.bridge import Bridge
from opafence.policy import fallback_policy
from opafence.session import SessionFacts

HOST = Host(auto_approve=False, interactive=True, platform="bench", workspace=("/ws",), cwd="/ws")
PROBES: list[tuple[str, dict[str, Any]]] = [
    ("read_file", {"path": "/ws/a.txt"}),
    ("some_new_tool", {}),
    ("terminal", {"command": "rm -rf /"}),
    ("write_file", {"path": "/ws/notes.md", "content": "x"}),
]


def ask(b: Bridge, n: int) -> Decision:
    tool, args = PROBES[n % len(PROBES)]
    return b.decide(decision_input("t1", tool, args, f"c{n}", SessionFacts(), HOST))


def full_strength(b: Bridge) -> bool:
    standby = getattr(b.local, "standby", None)
    return b.ready and (b.transport != "pdp" or standby is not None)


def measure(transport: str, kills: int, threads: int) -> dict[str, Any]:
    config = Config.model_validate({"opa": {"transport": transport}})
    with tempfile.TemporaryDirectory(prefix="opafence-recovery-") as tmp:
        b = Bridge(config, Path(tmp) / "state")
        b.start()
        try:
            b.put_task("t1", fallback_policy("t1").to_opa_data())
            baseline = [ask(b, n) for n in range(len(PROBES))]
            done: list[tuple[float, float, bool]] = []  # (started, ended, right)
            lock = threading.Lock()
            stop = threading.Event()
            wrong = 0

            def work(t: int) -> None:
                nonlocal wrong
                n = t
                while not stop.is_set():
                    t0 = time.monotonic()
                    d = ask(b, n)
                    t1 = time.monotonic()
                    right = d == baseline[n % len(PROBES)]
                    if not right and not (d.verdict == "block" and d.reasons[0].source == "bridge"):
                        wrong += 1
                    with lock:
                        done.append((t0, t1, right))
                    if not right:
                        time.sleep(0.005)
                    n += threads

            pool = [threading.Thread(target=work, args=(t,), daemon=True) for t in range(threads)]
            for t in pool:
                t.start()
            times: list[float] = []
            for _ in range(kills):
                deadline = time.monotonic() + 60
                while not full_strength(b) and time.monotonic() < deadline:
                    time.sleep(0.05)
                time.sleep(0.5)
                pid = b.local.opa_pid() if b.local is not None else None
                if pid is None:
                    continue
                killed_at = time.monotonic()
                os.kill(pid, signal.SIGKILL)
                while time.monotonic() - killed_at < 60:
                    with lock:
                        after = [end for start, end, right in done if start >= killed_at and right]
                    if after:
                        times.append(min(after) - killed_at)
                        break
                    time.sleep(0.01)
            stop.set()
            for t in pool:
                t.join(timeout=30)
        finally:
            b.close()
    return {
        "transport": transport,
        "kills": len(times),
        "threads": threads,
        "median_s": round(statistics.median(times), 3) if times else None,
        "max_s": round(max(times), 3) if times else None,
        "each_s": [round(t, 3) for t in times],
        "decisions": len(done),
        "wrong": wrong,
    }


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--kills", type=int, default=5)
    parser.add_argument("--threads", type=int, default=4)
    parser.add_argument("--transport", choices=("pdp", "server", "both"), default="both")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    transports = ["server", "pdp"] if args.transport == "both" else [args.transport]
    results = [measure(t, args.kills, args.threads) for t in transports]
    if args.json:
        print(json.dumps(results))
        return
    for r in results:
        print(
            f"[{r['transport']}] {r['kills']} kills, {r['threads']} threads deciding: recovery median "
            f"{r['median_s']} s, max {r['max_s']} s (each {r['each_s']}); {r['decisions']} decisions, "
            f"{r['wrong']} wrong"
        )


if __name__ == "__main__":
    main()
