"""Rules-compiler time over the intent corpus: split + compile + harden + merge, per message.

Prints p50 / p99 / max per message and messages per second (target: p50 <= 2 ms), in wall time
and in process CPU time (the CPU figures hold still when other processes load the machine).
The second block compiles the coverage corpus's messages with their sessions' tools (binding).
Usage: python bench/compile_rules.py [--rounds N]"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from pathlib import Path

from opafence.host import Host
from opafence.intent import compile_message
from opafence.intent.catalogue import Catalogue, parse_tools

DATA = Path(__file__).resolve().parents[1] / "tests" / "data" / "intent"
HOST = Host(home="/home/u", cwd="/home/u/proj", workspace=("/home/u/proj",), hermes_home="/home/u/.hermes")


def messages() -> list[str]:
    out: list[str] = []
    for f in sorted(DATA.glob("*.jsonl")):
        for line in f.read_text(encoding="utf-8").splitlines():
            if not line.strip():
                continue
            case = json.loads(line)
            out.extend([case["m"]] if "m" in case else [m for _, m in case["msgs"]])
    return out


def with_tools() -> list[tuple[str, Catalogue | None]]:
    out: list[tuple[str, Catalogue | None]] = []
    for f in sorted((DATA / "coverage").glob("*.jsonl")):
        for line in f.read_text(encoding="utf-8").splitlines():
            if line.strip():
                case = json.loads(line)
                out.append((case["user_message"], parse_tools(case["tools"]) if "tools" in case else None))
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--rounds", type=int, default=20)
    args = ap.parse_args()
    run("rules compiler", [(m, None) for m in messages()], args.rounds)
    sessions = with_tools()
    if sessions:
        run("rules compiler with the session's tools (coverage corpus)", sessions, args.rounds)


def run(title: str, corpus: list[tuple[str, Catalogue | None]], rounds: int) -> None:
    for m, tools in corpus:  # warm up caches and imports
        compile_message(m, task="bench", host=HOST, tools=tools)
    times: list[float] = []
    cpu: list[float] = []
    t0 = time.perf_counter()
    for _ in range(rounds):
        for m, tools in corpus:
            start, start_cpu = time.perf_counter_ns(), time.process_time_ns()
            compile_message(m, task="bench", host=HOST, tools=tools)
            cpu.append((time.process_time_ns() - start_cpu) / 1e6)
            times.append((time.perf_counter_ns() - start) / 1e6)
    wall = time.perf_counter() - t0
    print(f"{title}: {len(corpus)} messages x {rounds} rounds = {len(times)} compiles")
    for label, xs in (("wall", times), ("cpu ", cpu)):
        xs.sort()
        p50 = statistics.median(xs)
        p99 = xs[min(len(xs) - 1, int(len(xs) * 0.99))]
        mean = statistics.fmean(xs)
        print(f"  {label} p50 {p50:.3f} ms   p99 {p99:.3f} ms   max {xs[-1]:.3f} ms   mean {mean:.3f} ms")
    verdict = "met" if statistics.median(times) <= 2.0 else "MISSED"
    print(f"  {len(times) / wall:,.0f} messages/s   (target wall p50 <= 2 ms: {verdict})")


if __name__ == "__main__":
    main()
