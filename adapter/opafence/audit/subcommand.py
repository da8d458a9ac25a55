"""`opafence audit …`: the trail's summary, its verification, and the two recovery steps.

    opafence audit [--since today]      counts by verdict, rule and tool; spend against the caps
    opafence audit verify               every entry, link and signature, and the signed head
    opafence audit reseal --reason …    record a break a person accepted, and go on
    opafence audit rebuild-ledger       rebuild today's spend ledger from the signed trail

Exit codes: 0 fine, 1 the trail failed verification (or a recovery step failed), 2 bad usage
or configuration."""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

from opafence.audit.keys import signature_ok
from opafence.audit.report import entries_since, parse_since, render_summary, spend_lines, summarize
from opafence.audit.trail import AuditError, AuditLog, line_hash, segments
from opafence.audit.verify import public_keys, verify_trail
from opafence.budget.spend_ledger import Ledger, LedgerError, today
from opafence.budget.spend_ledger_pg import open_ledger
from opafence.config import load_config
from opafence.state_files import state_dir


def _state(args: argparse.Namespace) -> Path:
    return Path(args.state_dir).expanduser() if getattr(args, "state_dir", None) else state_dir()


def _log(args: argparse.Namespace) -> Path:
    return _state(args) / "audit.jsonl"


def _ledger(args: argparse.Namespace) -> Ledger:
    config = load_config(Path(args.config) if getattr(args, "config", None) else None)
    return open_ledger(config.budgets, _state(args) / "budget", config.task_host_id())


def cmd_summary(args: argparse.Namespace) -> int:
    config = load_config(Path(args.config) if args.config else None)
    try:
        since = parse_since(args.since)
    except ValueError as e:
        print(f"opafence: {e}", file=sys.stderr)
        return 2
    summary = summarize(entries_since(_log(args), since), since)
    try:
        figures, error = _ledger(args).snapshot(), ""
    except (LedgerError, OSError) as e:
        figures, error = None, str(e)
    if args.json:
        out: dict[str, Any] = {k: v for k, v in vars(summary).items()}
        out["spend"] = None if figures is None else {**figures.to_input(), "calls": figures.calls}
        out["spend_error"] = error or None
        out["caps"] = config.budgets.to_opa_data()
        print(json.dumps(out, default=dict, indent=2))
    else:
        print("\n".join([*render_summary(summary), *spend_lines(figures, error, config.budgets)]))
    return 0


def cmd_verify(args: argparse.Namespace) -> int:
    log = _log(args)
    extra = [Path(p).expanduser() for p in args.public_key or []]
    report = verify_trail(log, extra)
    for note in report.notes:
        print(f"note: {note}")
    for problem in report.problems:
        print(f"FAIL {problem}")
    if report.ok:
        span = f"seq {report.first_seq}..{report.last_seq}" if report.entries else "no entries yet"
        head = f"; signed head at seq {report.head.seq} (key {report.head.kid})" if report.head else ""
        print(f"OK: {report.entries} entries in {len(segments(log))} segment(s), {span}{head}")
        return 0
    print(f"the audit trail failed verification: {len(report.problems)} problem(s)", file=sys.stderr)
    return 1


def cmd_reseal(args: argparse.Namespace) -> int:
    try:
        entry = AuditLog(_log(args)).reseal(args.reason)
    except (AuditError, OSError) as e:
        print(f"opafence: cannot reseal the trail: {e}", file=sys.stderr)
        return 1
    print(f"resealed: entry seq {entry['seq']} records the break; `opafence audit verify` shows it as a note")
    return 0


def rebuild_figures(log: Path, day: str) -> tuple[int, int, int, int]:
    """(spent, calls, unpriced calls, entries skipped) of a local day, from sound entries only.

    A call decided but never settled nor released (its process died) counts at its estimate."""
    keys = public_keys(log.parent)
    spent = calls = unpriced = skipped = 0
    open_charges: dict[str, int] = {}
    start = time.mktime(time.strptime(day, "%Y-%m-%d"))
    for e in entries_since(log, start):
        if time.strftime("%Y-%m-%d", time.localtime(float(e.get("time", 0)))) != day:
            continue
        if e.get("event") != "model_call":
            continue
        key = keys.get(str(e.get("kid")))
        digest = str(e.get("hash", ""))
        if (
            key is None
            or line_hash(e) != digest
            or not signature_ok(key, digest.encode(), str(e.get("sig", "")))
        ):
            skipped += 1
            continue
        request = str(e.get("request") or "")
        phase = e.get("phase")
        if phase == "decide" and e.get("verdict") == "allow" and request:
            open_charges[request] = int(e.get("charge") or 0)
        elif phase == "settle":
            open_charges.pop(request, None)
            calls += 1
            if isinstance(e.get("cost"), int):
                spent += int(e["cost"])
            else:
                unpriced += 1
        elif phase == "release":
            open_charges.pop(request, None)
    calls += len(open_charges)
    spent += sum(open_charges.values())
    return spent, calls, unpriced, skipped


def cmd_rebuild_ledger(args: argparse.Namespace) -> int:
    day = args.day or today()
    spent, calls, unpriced, skipped = rebuild_figures(_log(args), day)
    try:
        kept = _ledger(args).rebuild(spent, calls, unpriced, day)
    except OSError as e:
        print(f"opafence: cannot write the ledger: {e}", file=sys.stderr)
        return 1
    print(f"ledger rebuilt for {day}: {calls} calls, {spent / 1e8:.4f} USD spent, {unpriced} unpriced")
    if kept:
        print(f"the old ledger is kept as {kept}")
    if skipped:
        print(f"warning: {skipped} model-call entries failed verification and were left out")
    return 0


def add_parser(sub: Any) -> None:
    """The `audit` subcommand and its own subcommands (cli.py calls this)."""
    a = sub.add_parser("audit", help="the audit trail: counts for a period and spend; verify; recover")
    a.add_argument("--since", default="today", help="today (default), yesterday, 24h, 7d, or a date")
    a.add_argument("--json", action="store_true", help="machine-readable output")
    a.add_argument("--config", help="config file (for the caps)")
    a.add_argument("--state-dir", help="opafence state directory (default: $HERMES_HOME/opafence)")
    a.set_defaults(func=cmd_summary)
    steps = a.add_subparsers(dest="audit_command")
    v = steps.add_parser("verify", help="check every entry, its signature, the links and the signed head")
    v.add_argument("--public-key", action="append", help="an extra Ed25519 public key (PEM) to accept")
    v.add_argument("--state-dir", default=argparse.SUPPRESS, help=argparse.SUPPRESS)
    v.set_defaults(func=cmd_verify)
    r = steps.add_parser("reseal", help="record a break in the trail that a person accepts, then go on")
    r.add_argument("--reason", required=True, help="why (kept in the trail)")
    r.add_argument("--state-dir", default=argparse.SUPPRESS, help=argparse.SUPPRESS)
    r.set_defaults(func=cmd_reseal)
    b = steps.add_parser("rebuild-ledger", help="rebuild a damaged spend ledger from the signed trail")
    b.add_argument("--day", help="the local day to rebuild (default: today)")
    b.add_argument("--state-dir", default=argparse.SUPPRESS, help=argparse.SUPPRESS)
    b.set_defaults(func=cmd_rebuild_ledger)
