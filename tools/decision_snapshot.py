"""Record every corpus decision (tests/data/**) and compare two versions of the Rego on them.

A policy change that should not change behaviour is checked by deciding the same inputs with the
Rego before and after: the inputs are recorded once (tests/opa/decision_cases.py: the call
corpus, the guard corpora and the replay transcripts, with the task and configuration data OPA
held), then `data.opafence.decision` is evaluated under each Rego by the real opa.

    .venv/bin/python tools/decision_snapshot.py record cases.json
    .venv/bin/python tools/decision_snapshot.py decide cases.json [--rego DIR] > decisions.jsonl
    .venv/bin/python tools/decision_snapshot.py compare before.jsonl after.jsonl
    .venv/bin/python tools/decision_snapshot.py against main    # all three, against a git ref's rego/

Exit status 1 when two snapshots differ (every difference is printed).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.opa.decision_cases import Case, all_corpus_cases, evaluate  # noqa: E402
from verdict_diff import report  # noqa: E402

QUERY = "data.opafence.decision"


def decide(cases: list[Case], rego: Path | None) -> list[dict[str, Any]]:
    results = evaluate(cases, {"decision": QUERY}, rego=rego)
    return [{"name": c["name"], "decision": r["decision"]} for c, r in zip(cases, results, strict=True)]


def differences(before: list[dict[str, Any]], after: list[dict[str, Any]]) -> list[str]:
    if [b["name"] for b in before] != [a["name"] for a in after]:
        return ["the snapshots hold different cases"]
    return [
        f"{b['name']}:\n  before {show(b)}\n  after  {show(a)}"
        for b, a in zip(before, after, strict=True)
        if b["decision"] != a["decision"]
    ]


def show(row: dict[str, Any]) -> str:
    return json.dumps(row["decision"])[:300]


def export_rego(ref: str, dest: Path) -> Path:
    """The rego/ directory of a git ref, unpacked into dest."""
    archive = dest / "rego.tar"
    with open(archive, "wb") as f:
        subprocess.run(["git", "-C", str(ROOT), "archive", ref, "rego"], stdout=f, check=True)
    with tarfile.open(archive) as tar:
        tar.extractall(dest, filter="data")
    return dest / "rego"


def read_jsonl(path: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in Path(path).read_text(encoding="utf-8").splitlines() if line.strip()]


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    sub = parser.add_subparsers(dest="command", required=True)
    rec = sub.add_parser("record", help="record the corpus inputs and their data")
    rec.add_argument("cases")
    dec = sub.add_parser("decide", help="decide recorded cases (JSON lines on stdout)")
    dec.add_argument("cases")
    dec.add_argument("--rego", type=Path, help="a directory holding opafence/ (default: this checkout's)")
    cmp_ = sub.add_parser("compare", help="compare two decision snapshots")
    cmp_.add_argument("before")
    cmp_.add_argument("after")
    ref = sub.add_parser("against", help="record, decide with a git ref's rego/ and with this one, compare")
    ref.add_argument("ref")
    args = parser.parse_args()

    if args.command == "record":
        Path(args.cases).write_text(json.dumps(all_corpus_cases()), encoding="utf-8")
        return 0
    if args.command == "decide":
        cases = json.loads(Path(args.cases).read_text(encoding="utf-8"))
        for row in decide(cases, args.rego):
            print(json.dumps(row, sort_keys=True))
        return 0
    if args.command == "compare":
        diffs = differences(read_jsonl(args.before), read_jsonl(args.after))
    else:
        cases = all_corpus_cases()
        with tempfile.TemporaryDirectory(prefix="opafence-snapshot-") as tmp:
            before = decide(cases, export_rego(args.ref, Path(tmp)))
        after = decide(cases, None)
        diffs = differences(before, after)
        print(f"{len(cases)} corpus decisions, {args.ref}'s rego/ against this checkout's")
    return report(diffs)


if __name__ == "__main__":
    sys.exit(main())
