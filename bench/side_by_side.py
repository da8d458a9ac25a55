"""Two checkouts measured side by side: the same bench script run from each, alternating, in
one run, so that the load of a shared machine falls on both alike. Each checkout runs with its
virtual environment's Python (CHECKOUT/.venv/bin/python), its own code (PYTHONPATH=CHECKOUT/adapter)
and its own tools. Prints, per
checkout, the median over the rounds of every figure the script reports (a flat view of its
--json output), the ratio before/after, and the load average before and after.

    .venv/bin/python bench/side_by_side.py BEFORE AFTER [--rounds 3] [--json]
        -- decision_latency.py --calls 4000 --transport pdp

The script after `--` is run with `--json` added; its path is relative to each checkout, or
to one of them for both (`--script-from after`: the same workload, each checkout's code).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path
from typing import Any


def flat(doc: Any, prefix: str = "") -> dict[str, float]:
    """Every number of a JSON document by its dotted path (lists of rounds are left out; a
    list's items are named by their transport, else by their index)."""
    out: dict[str, float] = {}
    if isinstance(doc, dict):
        for k, v in doc.items():
            if k == "rounds":
                continue
            out.update(flat(v, f"{prefix}{k}."))
    elif isinstance(doc, list):
        for i, v in enumerate(doc):
            name = v.get("transport", i) if isinstance(v, dict) else i
            out.update(flat(v, f"{prefix}{name}."))
    elif isinstance(doc, bool):
        pass
    elif isinstance(doc, int | float):
        out[prefix.rstrip(".")] = float(doc)
    return out


def run_once(checkout: Path, script: list[str], script_dir: Path) -> dict[str, float]:
    python = checkout / ".venv" / "bin" / "python"
    env = dict(os.environ)
    # The checkout's own code, whichever install the Python's environment points at (a checkout
    # may borrow another's environment for the dependencies).
    env["PYTHONPATH"] = str(checkout / "adapter")
    opa_path = checkout / ".tools" / "opa-path"
    if opa_path.is_file():
        env["OPAFENCE_OPA_BIN"] = opa_path.read_text(encoding="utf-8").strip()
    proc = subprocess.run(
        [str(python), str(script_dir / "bench" / script[0]), *script[1:], "--json"],
        cwd=checkout,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    if proc.returncode != 0:
        raise SystemExit(f"{checkout}: {script[0]} failed:\n{proc.stderr[-2000:]}")
    return flat(json.loads(proc.stdout.strip().splitlines()[-1]))


def main() -> None:
    argv = sys.argv[1:]
    script = argv[argv.index("--") + 1 :] if "--" in argv else []
    own = argv[: argv.index("--")] if "--" in argv else argv
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("before", type=Path)
    parser.add_argument("after", type=Path)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--json", action="store_true")
    parser.add_argument(
        "--script-from",
        choices=("each", "before", "after"),
        default="each",
        help="run the bench script of each checkout (default), or this one's for both",
    )
    args = parser.parse_args(own)
    if not script:
        parser.error("name the bench script after --")
    sides = {"before": args.before.resolve(), "after": args.after.resolve()}
    load_before = os.getloadavg()
    runs: dict[str, list[dict[str, float]]] = {name: [] for name in sides}
    for r in range(args.rounds):
        order = list(sides) if r % 2 == 0 else list(reversed(sides))
        for name in order:
            source = sides[name] if args.script_from == "each" else sides[args.script_from]
            runs[name].append(run_once(sides[name], script, source))
    load_after = os.getloadavg()
    keys = sorted(set.intersection(*(set(k for run in rs for k in run) for rs in runs.values())))
    table: dict[str, dict[str, float]] = {}
    for key in keys:
        row = {}
        for name, rs in runs.items():
            values = [run[key] for run in rs if key in run]
            row[name] = round(statistics.median(values), 1)
        if row["after"]:
            row["before/after"] = round(row["before"] / row["after"], 2)
        table[key] = row
    result = {
        "script": script,
        "script_from": args.script_from,
        "rounds": args.rounds,
        "load_before": [round(x, 2) for x in load_before],
        "load_after": [round(x, 2) for x in load_after],
        "median": table,
    }
    if args.json:
        print(json.dumps(result))
        return
    print(f"{' '.join(script)} (script from {args.script_from}): {args.rounds} rounds, alternating; medians")
    print(f"load average before {result['load_before']}, after {result['load_after']}")
    print(f"{'figure':<56}{'before':>11}{'after':>11}{'ratio':>8}")
    for key, row in table.items():
        print(f"{key:<56}{row['before']:>11}{row['after']:>11}{row.get('before/after', ''):>8}")


if __name__ == "__main__":
    main()
