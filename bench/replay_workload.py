"""A replay workload timed as a whole process: `opafence replay` over N mixed lines (default
3,000, cycled from the guard corpora and the replay transcripts: reads, searches, writes,
commands, sends, attacks), once per transport, side by side in one run. Replay runs nothing:
it compiles each message, builds the facts and asks OPA.

    .venv/bin/python bench/replay_workload.py [--lines 3000] [--transport both] [--json]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
SOURCES = [
    *sorted((ROOT / "tests" / "data" / "guards").glob("*.jsonl")),
    ROOT / "tests/data/corpus/replay_transcripts.jsonl",
]


def workload(n: int) -> list[str]:
    lines: list[str] = []
    for path in SOURCES:
        for raw in path.read_text(encoding="utf-8").splitlines():
            if raw.strip():
                obj = json.loads(raw)
                lines.append(json.dumps({"user_message": obj["user_message"], "calls": obj["calls"]}))
    return [lines[i % len(lines)] for i in range(n)]


def timed(transport: str, work: Path, tmp: Path) -> dict[str, Any]:
    home = tmp / f"home-{transport}"
    (home / "opafence").mkdir(parents=True, mode=0o700)
    (home / "opafence" / "config.yaml").write_text(f"opa:\n  transport: {transport}\n  timeout_ms: 10000\n")
    env = {k: v for k, v in os.environ.items() if not k.startswith("OPAFENCE_") or k == "OPAFENCE_OPA_BIN"}
    env["HERMES_HOME"] = str(home)
    started = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, "-m", "opafence.cli", "replay", str(work)],
        cwd=tmp,
        env=env,
        capture_output=True,
        text=True,
        timeout=3600,
        check=False,
    )
    elapsed = time.perf_counter() - started
    if proc.returncode != 0:
        return {"transport": transport, "error": proc.stderr.strip()[-300:]}
    out = [json.loads(line) for line in proc.stdout.splitlines() if line.strip()]
    calls = sum(len(o.get("verdicts", [])) for o in out)
    return {"transport": transport, "lines": len(out), "calls": calls, "seconds": round(elapsed, 2)}


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--lines", type=int, default=3000)
    parser.add_argument("--transport", choices=("pdp", "server", "both"), default="both")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    transports = ["server", "pdp"] if args.transport == "both" else [args.transport]
    with tempfile.TemporaryDirectory(prefix="opafence-replay-") as raw:
        tmp = Path(raw)
        work = tmp / "workload.jsonl"
        work.write_text("\n".join(workload(args.lines)) + "\n", encoding="utf-8")
        results = [timed(t, work, tmp) for t in transports]
    if args.json:
        print(json.dumps(results))
        return
    for r in results:
        if "error" in r:
            print(f"[{r['transport']}] failed: {r['error']}")
            continue
        rate = r["calls"] / r["seconds"] if r["seconds"] else 0.0
        print(
            f"[{r['transport']}] opafence replay: {r['lines']} lines, {r['calls']} calls in {r['seconds']} s "
            f"(whole process, {rate:.0f} calls/s)"
        )
    ok = [r for r in results if "error" not in r]
    if len(ok) == 2:
        print(f"server / pdp time: {ok[0]['seconds'] / ok[1]['seconds']:.2f}x")


if __name__ == "__main__":
    main()
