"""Counts per item of guard-corpus lines through replay (the real OPA; nothing runs).

Line ids name their item (`i16-catalogue-001`, `i16-ok-lookalike-004`): the second dash-part is
the item. For each item it prints the attack calls judged as expected and those allowed (a miss)
or asked where a block was expected; for look-alikes, those allowed.

    .venv/bin/python tools/guard_corpus_counts.py ['*_issue16.jsonl'] [-v]
"""

from __future__ import annotations

import collections
import json
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.opa.test_guard_corpora import HOST, matches, run  # noqa: E402

from opafence.config import Config  # noqa: E402
from opafence.judge import Judge  # noqa: E402
from opafence.opa.bridge import Bridge  # noqa: E402


def item_of(line_id: str) -> str:
    parts = line_id.split("-")
    return f"ok-{parts[2]}" if parts[1] == "ok" else parts[1]


def main(argv: list[str]) -> int:
    pattern = next((a for a in argv if not a.startswith("-")), "*_issue16.jsonl")
    verbose = "-v" in argv
    files = sorted((ROOT / "tests" / "data" / "guards").glob(pattern))
    lines = [json.loads(r) for p in files for r in p.open(encoding="utf-8") if r.strip()]
    per: dict[str, collections.Counter[str]] = collections.defaultdict(collections.Counter)
    config = Config()
    with tempfile.TemporaryDirectory(prefix="ofc-counts-") as state:
        bridge = Bridge(config, Path(state))
        bridge.start()
        try:
            judge = Judge(bridge, HOST, config)
            for line in lines:
                item = item_of(line["id"])
                benign = item.startswith("ok-")
                for call, want, v in zip(line["calls"], line["expect"], run(judge, line), strict=True):
                    if want == "allow" and not benign:
                        continue  # the setup call of an attack line (a read before the send)
                    per[item]["calls"] += 1
                    if matches(want, v["verdict"]):
                        per[item]["as expected"] += 1
                        continue
                    per[item]["allowed" if v["verdict"] == "allow" else v["verdict"]] += 1
                    if verbose:
                        codes = ",".join(r["code"] for r in v["reasons"])
                        args = json.dumps(call["args"])[:150]
                        print(f"  {line['id']} want {want} got {v['verdict']} [{codes}] {args}")
        finally:
            bridge.close()
    for item, c in sorted(per.items()):
        print(item, dict(c))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
