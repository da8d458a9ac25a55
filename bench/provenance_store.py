"""The cost of saving a task whose value ledger holds 1k, 10k or 50k values, after one result
brought 12 new ones in (post_tool_call's save), before and after the value journal.

before: the task record written whole with its values inline (the store before the journal:
        json of every digest, a temporary file, a rename; per-call saves are not fsync'd).
after:  SessionStore.save: the new values appended to the task's value journal and fsync'd,
        then the (small) task record written.

The bound is set to the size, so the ledger stays there (new values evict old ones). Both run
side by side in one process, alternating, into the same temporary directory (the
system's temporary directory unless --dir names another: put it on the disk the state
directory lives on to count that disk's fsync). Figures are p50/p99 µs per save, wall and
CPU time of this process; the load of a task (a new process reading it back) is shown too.

    .venv/bin/python bench/provenance_store.py [--rounds 200] [--sizes 1000,10000,50000] [--json]
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path
from typing import Any

from opafence.hermes.store import SessionStore, TaskRecord
from opafence.state_files import write_private_file

NEW_PER_SAVE = 12


def pct(xs: list[float], p: float) -> float:
    ys = sorted(xs)
    return ys[min(len(ys) - 1, int(p / 100 * len(ys)))]


def fill(rec: TaskRecord, n: int, start: int = 0, per: int = NEW_PER_SAVE) -> None:
    """n values in results of `per` each (email, host and domain of per/3 addresses)."""
    led = rec.facts.values
    for first in range(start, start + n, per):
        found = set()
        for i in range(first, min(first + per, start + n), 3):
            found |= {
                ("email", f"person{i}@site{i}.example"),
                ("host", f"mail.site{i}.example"),
                ("domain", f"site{i}.example"),
            }
        led.add_untrusted(found, {"tool": "mcp__gmail__read_email", "call": first, "labels": ["mail"]})


def save_whole(store: SessionStore, rec: TaskRecord) -> None:
    """The save before the journal: the whole record, values inline, not fsync'd."""
    led = rec.facts.values
    led.journaled = False
    try:
        data = json.dumps(rec.to_json())
    finally:
        led.journaled = True
    write_private_file(store._file(rec.key).with_suffix(".whole"), data, durable=False)


def run(size: int, rounds: int, where: Path) -> dict[str, Any]:
    # The bound is the size: each round's new values evict as many old ones (the ledger stays
    # at `size`; it is lossy then, which costs a save nothing).
    store = SessionStore(where / f"s{size}", 12, max_values=size)
    rec = store.create(f"bench-{size}", owner="", platform="cli")
    fill(rec, size, per=600)
    store.save(rec)  # the first save writes the journal's snapshot
    save_whole(store, rec)
    rows: dict[str, dict[str, list[float]]] = {
        "before": {"wall": [], "cpu": []},
        "after": {"wall": [], "cpu": []},
    }
    nxt = size
    for _ in range(rounds):
        fill(rec, NEW_PER_SAVE, nxt)  # one result's new values; both saves write them
        nxt += NEW_PER_SAVE
        for label, fn in (("after", SessionStore.save), ("before", save_whole)):
            w0, c0 = time.perf_counter(), time.process_time()
            fn(store, rec)
            rows[label]["wall"].append((time.perf_counter() - w0) * 1e6)
            rows[label]["cpu"].append((time.process_time() - c0) * 1e6)
    # Reading the task back (a new process): CPU ms, the best of five, alternating.
    loads: dict[str, list[float]] = {"before": [], "after": []}
    for _ in range(5):
        c0 = time.process_time()
        again = SessionStore(where / f"s{size}", 12, max_values=size).get(f"bench-{size}")
        loads["after"].append((time.process_time() - c0) * 1e3)
        assert again is not None and again.facts.values.untrusted == rec.facts.values.untrusted
        c0 = time.process_time()
        whole = json.loads(store._file(rec.key).with_suffix(".whole").read_text(encoding="utf-8"))
        old = TaskRecord.from_json(whole, store.values_key, size)
        loads["before"].append((time.process_time() - c0) * 1e3)
        assert old.facts.values.untrusted == rec.facts.values.untrusted
    load_ms, whole_ms = min(loads["after"]), min(loads["before"])
    out: dict[str, Any] = {
        "values": len(rec.facts.values.untrusted),
        "load_ms": load_ms,
        "whole_load_ms": whole_ms,
    }
    for label, r in rows.items():
        out[label] = {
            "wall_p50_us": pct(r["wall"], 50),
            "wall_p99_us": pct(r["wall"], 99),
            "cpu_p50_us": pct(r["cpu"], 50),
            "cpu_p99_us": pct(r["cpu"], 99),
        }
    out["task_file_bytes"] = store._file(rec.key).stat().st_size
    out["whole_file_bytes"] = store._file(rec.key).with_suffix(".whole").stat().st_size
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=200)
    ap.add_argument("--sizes", default="1000,10000,50000")
    ap.add_argument("--dir", default="")
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args()
    with tempfile.TemporaryDirectory(dir=a.dir or None) as tmp:
        rows = {int(n): run(int(n), a.rounds, Path(tmp)) for n in a.sizes.split(",")}
    if a.json:
        print(json.dumps(rows, indent=2))
        return
    head = f"{'wall p50':>9} {'wall p99':>9} {'cpu p50':>9} {'cpu p99':>9}"
    print(f"{'values':>7} {'':7} {head}  (µs per save)")
    for size, r in rows.items():
        for label in ("before", "after"):
            f = r[label]
            print(
                f"{size:>7} {label:7} {f['wall_p50_us']:>9.0f} {f['wall_p99_us']:>9.0f}"
                f" {f['cpu_p50_us']:>9.0f} {f['cpu_p99_us']:>9.0f}"
            )
        print(
            f"{'':>7} task file {r['task_file_bytes']} B (whole record {r['whole_file_bytes']} B),"
            f" {r['values']} values; read back (CPU ms): {r['whole_load_ms']:.1f} before,"
            f" {r['load_ms']:.1f} after"
        )


if __name__ == "__main__":
    main()
