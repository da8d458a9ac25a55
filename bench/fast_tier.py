"""OPA's evaluation time per call kind, the two-tier entrypoint against the full policy alone,
measured side by side (interleaved, in one run) with `opa bench` on the same inputs and data.
Each figure is the fastest of --count interleaved runs (the least disturbed by other load on
the machine), beside what no load changes: memory allocations per evaluation (`opa bench
--benchmem`) and the number of expressions OPA evaluates (`opa eval --profile`), two-tier/full.

The inputs are decision_latency.py's mixed calls (in a project below the home directory) under
the same task ("Fix the failing test in src/app and run the tests. Don't send email."); `fast`
says whether the fast tier answered.
Figures are OPA's own evaluation (no transport, no Python).

    .venv/bin/python bench/fast_tier.py [--count 5] [--json]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import tempfile
from pathlib import Path
from typing import Any

from decision_latency import MIXED_CALLS, kind_of
from opafence.config import Config
from opafence.host import Host
from opafence.inputs import decision_input
from opafence.intent.compile import compile_message
from opafence.rego_files import rego_root
from opafence.session import SessionFacts

FAST = "data.opafence.fast.decision"
QUERIES = {"two_tier": "data.opafence.decision", "full": "data.opafence.full_decision"}


def opa() -> str:
    return os.environ.get("OPAFENCE_OPA_BIN") or "opa"


BENCH = [opa(), "bench", "--format", "json", "--metrics=false", "--benchmem=true"]


def bench_op(data: Path, inp: Path, query: str) -> tuple[float, int]:
    """(µs per evaluation, memory allocations per evaluation) from `opa bench`."""
    proc = subprocess.run(
        [*BENCH, "-d", str(rego_root()), "-d", str(data), "-i", str(inp), query],
        capture_output=True,
        text=True,
        check=True,
    )
    result = json.loads(proc.stdout)
    n = float(result["N"])
    return float(result["T"]) / n / 1000.0, round(float(result["MemAllocs"]) / n)


def evaluations(data: Path, inp: Path, query: str) -> int:
    proc = subprocess.run(
        [
            opa(),
            "eval",
            "--format",
            "json",
            "--profile",
            # without a limit opa reports only its top 10 expressions, a fraction of the total
            "--profile-limit",
            "1000000",
            "-d",
            str(rego_root()),
            "-d",
            str(data),
            "-i",
            str(inp),
            query,
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    return sum(int(p["num_eval"]) for p in json.loads(proc.stdout).get("profile", []))


def answered(data: Path, inp: Path) -> bool:
    proc = subprocess.run(
        [opa(), "eval", "--format", "json", "-d", str(rego_root()), "-d", str(data), "-i", str(inp), FAST],
        capture_output=True,
        text=True,
        check=True,
    )
    return bool(json.loads(proc.stdout).get("result"))


def run(count: int) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="opafence-fast-bench-") as tmp:
        ws = Path(tmp)
        # The workspace is a project below the home directory, as it usually is.
        project = str(ws / "project")
        host = Host(
            auto_approve=False,
            interactive=True,
            platform="bench",
            workspace=(project,),
            cwd=project,
            home=tmp,
        )
        message = "Fix the failing test in src/app and run the tests. Don't send email."
        policy = compile_message(message, task="bench", host=host).to_opa_data()
        data = ws / "data.json"
        data.write_text(json.dumps({"tasks": {"bench": policy}, "config": Config().to_opa_data()}))
        rows: dict[str, dict[str, Any]] = {}
        for i, (tool, args) in enumerate(MIXED_CALLS):
            inp = ws / f"input{i}.json"
            inp.write_text(json.dumps(decision_input("bench", tool, args, "", SessionFacts(), host)))
            times: dict[str, list[float]] = {name: [] for name in QUERIES}
            allocs: dict[str, int] = {}
            for _ in range(count):
                for name, query in QUERIES.items():  # interleaved, so load hits both alike
                    us, allocs[name] = bench_op(data, inp, query)
                    times[name].append(us)
            two, full = min(times["two_tier"]), min(times["full"])
            rows[kind_of(tool, args)] = {
                "fast": answered(data, inp),
                "two_tier_us": round(two, 1),
                "full_us": round(full, 1),
                "speedup": round(full / two, 2),
                "two_tier_allocs": allocs["two_tier"],
                "full_allocs": allocs["full"],
                "two_tier_evals": evaluations(data, inp, QUERIES["two_tier"]),
                "full_evals": evaluations(data, inp, QUERIES["full"]),
            }
    return {"count": count, "load_average": os.getloadavg()[0], "calls": rows}


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--count", type=int, default=5, help="interleaved repetitions per query")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    result = run(args.count)
    if args.json:
        print(json.dumps(result))
        return
    load = result["load_average"]
    print(f"OPA evaluation per call (opa bench, best of {result['count']}, load {load:.1f})")
    heads = f"{'two-tier µs':>13}{'full µs':>10}{'speedup':>9}{'allocs':>14}{'evals':>12}"
    print(f"  {'call kind':<32}{'fast':>6}{heads}")
    for kind, r in result["calls"].items():
        fast = "yes" if r["fast"] else "-"
        allocs = f"{r['two_tier_allocs']}/{r['full_allocs']}"
        evals = f"{r['two_tier_evals']}/{r['full_evals']}"
        figures = f"{r['two_tier_us']:>13}{r['full_us']:>10}{r['speedup']:>8}x{allocs:>14}{evals:>12}"
        print(f"  {kind:<32}{fast:>6}{figures}")


if __name__ == "__main__":
    main()
