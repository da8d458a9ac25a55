"""Replay the intent coverage corpus against real OPA and print allow/ask/block counts per domain,
overall and for the held-out quarter apart (issue 14's Done-when figures).

Usage: python tools/intent_coverage.py [--dir tests/data/intent/coverage] [--misses] [--heldout]
--misses lists every call whose verdict differs from its label; exit status 1 if any call labelled
ask or block was allowed."""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path

from opafence.config import Config
from opafence.coverage_corpus import CallOutcome, Tally, by_domain, load, run, tally
from opafence.host import Host
from opafence.judge import Judge
from opafence.opa.bridge import Bridge

CORPUS = Path(__file__).resolve().parents[1] / "tests" / "data" / "intent" / "coverage"


def _row(name: str, t: Tally) -> str:
    w, g = t.want, t.got
    return (
        f"{name:<22} {t.calls:>5}  {w['allow']:>5} {w['ask']:>4} {w['block']:>5}   "
        f"{g['allow']:>5} {g['ask']:>4} {g['block']:>5} {g['error']:>3}   "
        f"{t.allowed:>5}/{w['allow']:<5} {100 * t.allow_rate:6.1f} %  {t.leaks:>5}"
    )


def _table(title: str, outs: list[CallOutcome]) -> None:
    print(f"\n{title}")
    print(
        f"{'domain':<22} {'calls':>5}  {'want: allow':>11} ask block   {'got: allow':>10} ask block err"
        "   allowed   rate    leaks"
    )
    for d, t in by_domain(outs).items():
        print(_row(d, t))
    print(_row("ALL", tally(outs)))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--dir", type=Path, default=CORPUS)
    ap.add_argument("--misses", action="store_true", help="list calls whose verdict differs from the label")
    ap.add_argument("--heldout", action="store_true", help="replay only the held-out quarter")
    args = ap.parse_args()
    sessions = [s for s in load(args.dir) if s.heldout or not args.heldout]
    with tempfile.TemporaryDirectory(prefix="opafence-coverage-") as tmp:
        root = Path(tmp)
        project = root / "project"
        project.mkdir()
        os.environ["HERMES_HOME"] = str(root / "hermes-home")  # never the real ~/.hermes
        config = Config()
        bridge = Bridge(config, root / "state")
        bridge.start()
        try:
            host = Host(
                auto_approve=False,
                interactive=True,
                platform="replay",
                workspace=(str(project),),
                cwd=str(project),
            )
            outs = run(Judge(bridge, host, config), sessions, str(project))
        finally:
            bridge.close()
    print(
        f"{len(sessions)} sessions, {len(outs)} calls ({sum(s.heldout for s in sessions)} sessions held out)"
    )
    _table("whole corpus", outs)
    _table("held-out quarter", [o for o in outs if o.heldout])
    if args.misses:
        print("\nmisses (want -> got):")
        for o in outs:
            if o.want != o.got:
                flag = "LEAK " if o.leak else ""
                print(f"  {flag}{o.session}#{o.index} {o.tool}: {o.want} -> {o.got} {list(o.codes)}")
    return 1 if any(o.leak for o in outs) else 0


if __name__ == "__main__":
    sys.exit(main())
