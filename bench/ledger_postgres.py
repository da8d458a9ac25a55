"""The shared spend ledger on a real PostgreSQL server: reserve + settle, from several processes.

    python bench/ledger_postgres.py [--workers 4] [--calls 200]

Starts a private server (tests/pg/pg_server.py: unix socket only), runs WORKERS processes that
each make CALLS reserve+settle pairs against one ledger row with no cap in reach, and prints
the pairs per second over all processes and the p50/p99 of one pair."""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from tests.pg import pg_server  # noqa: E402


def main() -> int:
    p = argparse.ArgumentParser()
    p.add_argument("--workers", type=int, default=4)
    p.add_argument("--calls", type=int, default=200)
    a = p.parse_args()
    why = pg_server.available()
    if why:
        print(f"no PostgreSQL server can be started here: {why}")
        return 1
    with tempfile.TemporaryDirectory() as tmp:
        server = pg_server.start(Path(tmp))
        try:
            env = {**os.environ, "PYTHONPATH": f"{REPO / 'adapter'}{os.pathsep}{REPO}"}
            worker = REPO / "tests" / "pg" / "ledger_worker.py"
            argv = [sys.executable, str(worker), str(server.dsn_file), "bench", str(10**15), "1"]
            argv.append(str(a.calls))
            t0 = time.perf_counter()
            procs = [
                subprocess.Popen(argv, stdout=subprocess.PIPE, text=True, env=env) for _ in range(a.workers)
            ]
            outs = [json.loads(proc.communicate()[0]) for proc in procs]
            wall = time.perf_counter() - t0
        finally:
            server.stop()
    lat = sorted(x for o in outs for x in o["latencies_us"])
    total = sum(o["allowed"] for o in outs)
    p99 = lat[min(len(lat) - 1, int(len(lat) * 0.99))]
    print(f"workers {a.workers}, reserve+settle pairs {total}, wall {wall:.2f} s (incl. process start)")
    p50 = statistics.median(lat) / 1000
    print(f"pairs/s {total / wall:,.0f}; one pair p50 {p50:.2f} ms, p99 {p99 / 1000:.2f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
