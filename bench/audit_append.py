"""The cost of a signed receipt and of verifying the trail.

Appends N decision receipts shaped like the plugin's (keyed argument digests included) to a
fresh trail and times each: the keyed digests, the append (chain, two Ed25519 signatures,
the line, the head record, the file lock), and both together, which is what a receipt adds
to a decision. Then the same with two writers taking turns (each append re-reads the tail and
checks the head another process wrote). Then `verify` over the whole trail, and, for
reference, one model call's ledger reservation and settlement (fsynced).

    .venv/bin/python bench/audit_append.py [--entries 10000] [--json]
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from opafence.audit.trail import AuditLog
from opafence.audit.verify import verify_trail
from opafence.budget.spend_ledger import Hold, Ledger

ARGS: list[dict[str, Any]] = [
    {"path": "src/app/main.py"},
    {"command": "pytest -q tests/unit", "timeout": 300},
    {"to": ["john@example.com"], "subject": "Summary", "body": "Hi John, " * 40},
    {"mode": "patch", "patch": "*** Begin Patch\n*** Update File: src/a.py\n-x = 1\n+x = 2\n*** End Patch\n"},
]


def record(i: int, digests: dict[str, Any]) -> dict[str, Any]:
    return {
        "event": "decision",
        "session": "s-8f3a2c1d",
        "task": "s-8f3a2c1d",
        "call": f"call_{i:08x}",
        "tool": ("read_file", "terminal", "mcp__gmail__send_email", "patch")[i % 4],
        "classes": ["READ"] if i % 4 == 0 else ["EXECUTION"],
        "verdict": ("allow", "ask", "block")[i % 3],
        "reasons": [] if i % 3 == 0 else ["NOT_AUTHORIZED"],
        "monitor": None,
        "args": digests,
        "host": {"auto_approve": False, "yolo": False, "subagent": False},
    }


def pct(values: list[float], q: float) -> float:
    s = sorted(values)
    return s[min(len(s) - 1, max(0, round(q * (len(s) - 1))))]


def summary(us: list[float]) -> dict[str, float]:
    return {
        "p50_us": round(pct(us, 0.50), 1),
        "p99_us": round(pct(us, 0.99), 1),
        "mean_us": round(statistics.fmean(us), 1),
        "per_s": round(1e6 / statistics.fmean(us)),
    }


def run(entries: int) -> dict[str, Any]:
    out: dict[str, Any] = {"entries": entries}
    with tempfile.TemporaryDirectory(prefix="opafence-bench-audit-") as tmp:
        log = AuditLog(Path(tmp) / "audit.jsonl")
        for i in range(50):  # warm-up: keys created, caches filled
            log.append(record(i, log.arg_digests(ARGS[i % 4])))
        digest_us: list[float] = []
        append_us: list[float] = []
        total_us: list[float] = []
        for i in range(entries - 50):
            t0 = time.perf_counter_ns()
            digests = log.arg_digests(ARGS[i % 4])
            t1 = time.perf_counter_ns()
            log.append(record(i, digests))
            t2 = time.perf_counter_ns()
            digest_us.append((t1 - t0) / 1e3)
            append_us.append((t2 - t1) / 1e3)
            total_us.append((t2 - t0) / 1e3)
        out["digests"] = summary(digest_us)
        out["append"] = summary(append_us)
        out["receipt"] = summary(total_us)

        t0 = time.perf_counter()
        report = verify_trail(log.path)
        elapsed = time.perf_counter() - t0
        assert report.ok and report.entries == entries, [str(p) for p in report.problems[:3]]
        out["verify"] = {
            "entries": report.entries,
            "seconds": round(elapsed, 3),
            "entries_per_s": round(report.entries / elapsed),
        }
        out["log_bytes"] = sum(p.stat().st_size for p in Path(tmp).glob("audit.jsonl*") if p.is_file())

    with tempfile.TemporaryDirectory(prefix="opafence-bench-audit2-") as tmp:
        a, b = AuditLog(Path(tmp) / "audit.jsonl"), AuditLog(Path(tmp) / "audit.jsonl")
        a.append({"event": "start"})
        shared_us: list[float] = []
        for i in range(min(entries, 2000)):
            writer = a if i % 2 else b
            digests = writer.arg_digests(ARGS[i % 4])
            t0 = time.perf_counter_ns()
            writer.append(record(i, digests))
            shared_us.append((time.perf_counter_ns() - t0) / 1e3)
        out["append_two_writers"] = summary(shared_us)

    with tempfile.TemporaryDirectory(prefix="opafence-bench-ledger-") as tmp:
        ledger = Ledger(Path(tmp) / "ledger.json")
        ledger_us: list[float] = []
        for _ in range(200):
            t0 = time.perf_counter_ns()
            _, rid, _ = ledger.reserve(lambda f: (None, Hold(1000, "m", True)))
            assert rid is not None
            ledger.settle(rid, 900)
            ledger_us.append((time.perf_counter_ns() - t0) / 1e3)
        out["ledger_reserve_settle"] = summary(ledger_us)
    return out


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--entries", type=int, default=10_000)
    p.add_argument("--json", action="store_true")
    args = p.parse_args()
    r = run(max(args.entries, 100))
    if args.json:
        print(json.dumps(r))
        return
    print(f"signed receipts, {r['entries']} entries ({r['log_bytes'] / 1e6:.1f} MB)")
    for key, label in (
        ("digests", "keyed argument digests"),
        ("append", "append (sign, chain, head)"),
        ("receipt", "receipt = digests + append"),
        ("append_two_writers", "append, two writers"),
        ("ledger_reserve_settle", "ledger reserve+settle"),
    ):
        s = r[key]
        print(f"  {label:30s} p50 {s['p50_us']:8.1f} µs   p99 {s['p99_us']:8.1f} µs   {s['per_s']:>7,}/s")
    v = r["verify"]
    print(f"  verify {v['entries']} entries: {v['seconds']:.3f} s ({v['entries_per_s']:,} entries/s)")
    budget = "within" if r["receipt"]["p50_us"] <= 1000 else "OVER"
    added = r["receipt"]["p50_us"] / 1000
    print(f"  a receipt adds {added:.3f} ms to a decision at p50 ({budget} the 1 ms budget)")


if __name__ == "__main__":
    main()
