"""What the audit trail says about a period, and today's spend against the caps.

Shared by `opafence audit` and `/fence budget`: decisions counted by verdict, by rule (reason
code) and by tool; model calls with what they cost, how many were stopped, downgraded or
unpriced; approval outcomes; sub-agent launches. Reads entries only; checks nothing
(`opafence audit verify` does)."""

from __future__ import annotations

import json
import re
import time
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from opafence.audit.trail import _last_line, segments
from opafence.budget.spend_ledger import Figures
from opafence.config import BudgetsConfig
from opafence.printable import lockdown_status, printable

MICRO = 1_000_000
_DURATION = re.compile(r"^(\d+)\s*([mhdw])$")
_UNITS = {"m": 60, "h": 3600, "d": 86400, "w": 7 * 86400}


def usd(micro_cents: int) -> str:
    """Dollars: cents when at least one, else to the hundredth of a cent."""
    dollars = micro_cents / (100 * MICRO)
    return f"${dollars:,.2f}" if micro_cents >= MICRO or micro_cents == 0 else f"${dollars:.4f}"


def parse_since(text: str, now: float | None = None) -> float:
    """`today`, `yesterday`, a duration (`90m`, `24h`, `7d`, `2w`), a date or a local date-time."""
    now = time.time() if now is None else now
    value = text.strip().lower()
    midnight = datetime.fromtimestamp(now).replace(hour=0, minute=0, second=0, microsecond=0).timestamp()
    if value == "today":
        return midnight
    if value == "yesterday":
        return datetime.fromtimestamp(midnight - 3600).replace(hour=0).timestamp()
    m = _DURATION.match(value)
    if m:
        return now - int(m.group(1)) * _UNITS[m.group(2)]
    try:
        return datetime.fromisoformat(text.strip()).timestamp()
    except ValueError:
        raise ValueError(
            f"--since {text!r}: use today, yesterday, a duration (90m, 24h, 7d) or a date (2026-01-31)"
        ) from None


def entries_since(log: Path, since: float) -> Iterator[dict[str, Any]]:
    """Entries with time >= since, oldest first; damaged lines are skipped."""
    for seg in segments(log):
        last = _last_line(seg)
        try:
            if last is not None and float(json.loads(last).get("time", 0)) < since:
                continue
        except (ValueError, AttributeError, TypeError):
            pass
        try:
            lines = seg.read_text(encoding="utf-8", errors="replace").splitlines()
        except FileNotFoundError:
            continue
        for raw in lines:
            try:
                entry = json.loads(raw)
            except ValueError:
                continue
            if isinstance(entry, dict) and float(entry.get("time", 0) or 0) >= since:
                yield entry


@dataclass
class Summary:
    since: float
    decisions: int = 0
    by_verdict: Counter[str] = field(default_factory=Counter)
    by_rule: Counter[str] = field(default_factory=Counter)
    by_tool: Counter[str] = field(default_factory=Counter)
    model_calls: int = 0
    model_stopped: int = 0
    model_downgraded: int = 0
    model_rules: Counter[str] = field(default_factory=Counter)
    model_cost: int = 0
    model_unpriced: int = 0
    cost_by_model: Counter[str] = field(default_factory=Counter)
    approvals: Counter[str] = field(default_factory=Counter)
    launches: int = 0
    lockdowns: int = 0
    last_lockdown: tuple[float, str] | None = None  # (time, reason)
    last_start: float | None = None


def summarize(entries: Iterable[dict[str, Any]], since: float, task: str | None = None) -> Summary:
    s = Summary(since=since)
    for e in entries:
        if task is not None and e.get("task") != task:
            continue
        event = e.get("event")
        if event == "decision":
            s.decisions += 1
            s.by_verdict[str(e.get("verdict"))] += 1
            s.by_tool[str(e.get("tool"))] += 1
            for code in e.get("reasons") or []:
                s.by_rule[str(code)] += 1
        elif event == "model_call" and e.get("phase") == "decide":
            s.model_calls += 1
            if e.get("verdict") != "allow":
                s.model_stopped += 1
            if e.get("downgraded"):
                s.model_downgraded += 1
            for code in e.get("reasons") or []:
                s.model_rules[str(code)] += 1
        elif event == "model_call" and e.get("phase") == "settle":
            cost = e.get("cost")
            if isinstance(cost, int):
                s.model_cost += cost
                s.cost_by_model[str(e.get("model"))] += cost
            else:
                s.model_unpriced += 1
        elif event == "approval":
            s.approvals[str(e.get("outcome"))] += 1
        elif event == "approval_response":
            s.approvals[str(e.get("choice"))] += 1
        elif event == "lockdown":
            s.lockdowns += 1
            s.last_lockdown = (float(e.get("time") or 0), str(e.get("reason") or "unknown"))
        elif event == "start":
            s.last_start = float(e.get("time") or 0)
        elif event == "delegation" and not e.get("error"):
            s.launches += int(e.get("launching") or 0)
    return s


def _counts(counter: Counter[str], limit: int = 8) -> str:
    top = counter.most_common(limit)
    more = len(counter) - len(top)
    return ", ".join(f"{k} {v}" for k, v in top) + (f" (+{more} more)" if more > 0 else "")


def render_summary(s: Summary) -> list[str]:
    when = datetime.fromtimestamp(s.since).strftime("%Y-%m-%d %H:%M")
    lines = []
    if s.last_lockdown is not None:
        at, reason = s.last_lockdown
        stamp = datetime.fromtimestamp(at).strftime("%Y-%m-%d %H:%M")
        if s.last_start is None or s.last_start < at:
            # No good start since: the latest Hermes is (or was, when it stopped) locked down.
            lines.append(f"{lockdown_status(reason)} (since {stamp})")
        else:
            lines.append(
                f"locked down {s.lockdowns} time(s) in this period; the last, at {stamp}: {printable(reason)}"
            )
    lines.append(f"since {when}: {s.decisions} tool decisions")
    if s.decisions:
        lines.append(f"  by verdict: {_counts(s.by_verdict)}")
        if s.by_rule:
            lines.append(f"  by rule:    {_counts(s.by_rule)}")
        lines.append(f"  by tool:    {_counts(s.by_tool)}")
    lines.append(
        f"model calls: {s.model_calls} ({s.model_stopped} stopped, {s.model_downgraded} downgraded), "
        f"cost {usd(s.model_cost)}" + (f", {s.model_unpriced} unpriced" if s.model_unpriced else "")
    )
    if s.model_rules:
        lines.append(f"  by rule:    {_counts(s.model_rules)}")
    if s.cost_by_model:
        lines.append("  by model:   " + ", ".join(f"{m} {usd(c)}" for m, c in s.cost_by_model.most_common(8)))
    if s.approvals:
        lines.append(f"approvals: {_counts(s.approvals)}")
    if s.launches:
        lines.append(f"sub-agents launched: {s.launches}")
    return lines


def spend_lines(figures: Figures | None, error: str, budgets: BudgetsConfig) -> list[str]:
    """Today's spend against the caps, from the ledger."""
    caps = []
    if budgets.daily_soft_cents is not None:
        caps.append(f"soft {usd(budgets.daily_soft_cents * MICRO)}")
    if budgets.daily_hard_cents is not None:
        caps.append(f"hard {usd(budgets.daily_hard_cents * MICRO)}")
    cap_text = f" of {' / '.join(caps)}" if caps else " (no daily cap)"
    if figures is None:
        return [f"spend: unknown: {error}"]
    lines = [
        f"spend today ({figures.day}): {usd(figures.spent)} settled + {usd(figures.reserved)} reserved"
        f"{cap_text}; {figures.calls} calls"
        + (
            f", {figures.unpriced_calls} unpriced (not counted in the spend)"
            if figures.unpriced_calls
            else ""
        )
    ]
    if budgets.per_minute_cents is not None:
        lines.append(
            f"last minute: {usd(figures.minute)} of {usd(budgets.per_minute_cents * MICRO)} per minute"
        )
    if (
        budgets.daily_soft_cents is not None
        and figures.spent + figures.reserved >= budgets.daily_soft_cents * MICRO
    ):
        cheaper = budgets.cheaper_model or "no cheaper model configured"
        lines.append(f"the soft cap is reached: calls use {cheaper} when it is cheaper")
    if (
        budgets.daily_hard_cents is not None
        and figures.spent + figures.reserved >= budgets.daily_hard_cents * MICRO
    ):
        lines.append("the hard cap is reached: model calls are stopped until local midnight")
    return lines
