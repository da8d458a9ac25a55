"""`opafence log`: the last decisions, one line each, from the audit trail.

    opafence log [-n 20] [--blocked] [--since 1h] [--follow] [--json]

Each line: local time, session, tool, verdict, reason codes and what the call was aimed at
(the target summary `audit.targets` keeps: redacted by default). A lockdown shows as its own
line. Everything printed went through printable(): tool names, targets and reasons can carry
what the agent wrote. Reads entries only; `opafence audit verify` checks them."""

from __future__ import annotations

import argparse
import collections
import json
import sys
import time
from collections.abc import Iterable, Iterator
from datetime import datetime
from pathlib import Path
from typing import Any

from opafence.audit.redaction import one_line
from opafence.audit.report import entries_since, parse_since
from opafence.printable import lockdown_status, printable
from opafence.state_files import state_dir

SHOWN = ("decision", "lockdown", "approval")
FOLLOW_POLL_S = 0.5


def wanted(entry: dict[str, Any], blocked: bool) -> bool:
    event = entry.get("event")
    if event not in SHOWN:
        return False
    # A lockdown is why every call after it is blocked, and a denied ask did not run either:
    # --blocked shows both.
    if event == "approval":
        return not blocked or entry.get("outcome") == "denied"
    return not blocked or event == "lockdown" or entry.get("verdict") == "block"


def render(entry: dict[str, Any]) -> str:
    when = datetime.fromtimestamp(float(entry.get("time") or 0)).strftime("%Y-%m-%d %H:%M:%S")
    if entry.get("event") == "lockdown":
        return f"{when}  {lockdown_status(str(entry.get('reason') or 'unknown'))}"
    session = printable(entry.get("session") or entry.get("task") or "-", limit=24)
    tool = printable(entry.get("tool") or "?", limit=48)
    if entry.get("event") == "approval":
        outcome = printable(entry.get("outcome") or "?")
        return "  ".join((when, session, tool, f"asked: {outcome} by the user"))
    verdict = printable(entry.get("verdict") or "?")
    monitor = entry.get("monitor")
    if monitor:
        verdict += f" (would {printable(monitor)})"
    reasons = ",".join(printable(r) for r in entry.get("reasons") or []) or "-"
    target = entry.get("target")
    summary = printable(one_line(target if isinstance(target, dict) else None), limit=160)
    return "  ".join(p for p in (when, session, tool, verdict, reasons, summary) if p)


def select(entries: Iterable[dict[str, Any]], n: int, blocked: bool) -> list[dict[str, Any]]:
    last: collections.deque[dict[str, Any]] = collections.deque(maxlen=max(1, n))
    for e in entries:
        if wanted(e, blocked):
            last.append(e)
    return list(last)


def _emit(entry: dict[str, Any], as_json: bool) -> None:
    line = json.dumps(entry, ensure_ascii=True) if as_json else render(entry)
    sys.stdout.write(line + "\n")


def follow(log: Path, after_seq: int, since: float, blocked: bool, as_json: bool) -> Iterator[None]:
    """New entries as they are appended (across rotation: by sequence number), until interrupted."""
    last_seq, last_time = after_seq, since
    while True:
        for e in entries_since(log, last_time - 1):
            seq = int(e.get("seq") or 0)
            if seq <= last_seq:
                continue
            last_seq, last_time = seq, float(e.get("time") or last_time)
            if wanted(e, blocked):
                _emit(e, as_json)
        sys.stdout.flush()
        yield
        time.sleep(FOLLOW_POLL_S)


def cmd_log(args: argparse.Namespace) -> int:
    try:
        since = parse_since(args.since) if args.since else 0.0
    except ValueError as e:
        print(f"opafence: {e}", file=sys.stderr)
        return 2
    state = Path(args.state_dir).expanduser() if args.state_dir else state_dir()
    log = state / "audit.jsonl"
    every = list(entries_since(log, since))
    shown = select(every, args.n, args.blocked)
    for entry in shown:
        _emit(entry, args.json)
    if not shown and not args.json and not args.follow:
        what = "blocked calls" if args.blocked else "decisions"
        print(f"no {what} in {log}" + (f" since {args.since}" if args.since else ""))
    if args.follow:
        last_seq = max((int(x.get("seq") or 0) for x in every), default=0)
        last_time = max((float(x.get("time") or 0) for x in every), default=since)
        for _ in follow(log, last_seq, last_time, args.blocked, args.json):
            pass
    return 0


def add_parser(sub: Any) -> None:
    """The `log` subcommand (cli.py calls this)."""
    p = sub.add_parser("log", help="the last decisions: time, session, tool, verdict, reasons, target")
    p.add_argument("-n", type=int, default=20, help="how many (default 20)")
    p.add_argument("--blocked", action="store_true", help="only blocked calls (and lockdowns)")
    p.add_argument("--since", help="today, yesterday, a duration (90m, 24h, 7d) or a date")
    p.add_argument("--follow", "-f", action="store_true", help="keep printing new decisions as they come")
    p.add_argument("--json", action="store_true", help="the entries as JSON lines")
    p.add_argument("--state-dir", help="opafence state directory (default: $HERMES_HOME/opafence)")
    p.set_defaults(func=cmd_log)
