"""One process spending against a shared ledger, for the concurrency tests and the bench.

    python ledger_worker.py DSN_FILE NAME CAP AMOUNT CALLS [--hold-s S] [--no-settle]

Each call reserves AMOUNT if spent + reserved + AMOUNT stays within CAP (the decision runs
inside the ledger's transaction, as the spend guard's does), then settles it at AMOUNT.
`--hold-s` sleeps inside the decision (holding the row lock), so a test can kill the process
mid-transaction; `--no-settle` leaves the reservation open. Prints one JSON line:
{"allowed": n, "refused": n, "latencies_us": [...]}."""

from __future__ import annotations

import argparse
import json
import sys
import time

from opafence.budget.spend_ledger import Figures, Hold
from opafence.budget.spend_ledger_pg import PgLedger, read_dsn


def main() -> int:
    p = argparse.ArgumentParser()
    p.add_argument("dsn_file")
    p.add_argument("name")
    p.add_argument("cap", type=int)
    p.add_argument("amount", type=int)
    p.add_argument("calls", type=int)
    p.add_argument("--hold-s", type=float, default=0.0)
    p.add_argument("--no-settle", action="store_true")
    a = p.parse_args()
    ledger = PgLedger(read_dsn(a.dsn_file), a.name)
    allowed = refused = 0
    latencies: list[int] = []

    def decide(f: Figures) -> tuple[bool, Hold | None]:
        if a.hold_s:
            print("holding", flush=True)
            time.sleep(a.hold_s)
        if f.spent + f.reserved + a.amount <= a.cap:
            return True, Hold(a.amount, "m", True)
        return False, None

    for _ in range(a.calls):
        t0 = time.perf_counter_ns()
        ok, rid, _ = ledger.reserve(decide)
        if ok and rid is not None:
            if not a.no_settle:
                ledger.settle(rid, a.amount)
            allowed += 1
        else:
            refused += 1
        latencies.append((time.perf_counter_ns() - t0) // 1000)
    sys.stdout.write(json.dumps({"allowed": allowed, "refused": refused, "latencies_us": latencies}) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
