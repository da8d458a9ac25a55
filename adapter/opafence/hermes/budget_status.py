"""`/fence budget`: today's spend against the caps and, in the CLI, the task's own figures.

Spend is the home's (every session and process of this HERMES_HOME counts against the same
caps), so a gateway shows it too; the per-task counts by verdict, rule and tool, and the
task's sub-agent launches, are shown only where one person uses the process (the CLI)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from opafence.audit.report import entries_since, parse_since, render_summary, spend_lines, summarize
from opafence.budget.spend_ledger import LedgerError

if TYPE_CHECKING:
    from opafence.hermes.fence import Fence


def budget_status(fence: Fence, task: str | None) -> list[str]:
    budgets = fence.config.budgets
    hooks = fence.budgets
    if hooks is None or hooks.spend is None:
        return ["spend: not tracked (opafence did not start)"]
    try:
        figures, error = hooks.spend.ledger.snapshot(), ""
    except (LedgerError, OSError) as e:
        figures, error = None, str(e)
    lines = spend_lines(figures, error, budgets)
    if task is None:
        return lines
    if fence.audit is not None:
        since = parse_since("today")
        summary = summarize(entries_since(fence.audit.path, since), since, task=task)
        lines.extend(["this task today:", *("  " + line for line in render_summary(summary))])
    if hooks.delegation is not None:
        d = budgets.delegation
        short, long = hooks.delegation.counts(task)
        limits = [
            f"{short} in the last {d.short_window_minutes} active minutes"
            + (f" (limit {d.short_max})" if d.short_max is not None else ""),
            f"{long} in the last {d.long_window_minutes} active minutes"
            + (f" (limit {d.long_max})" if d.long_max is not None else ""),
        ]
        lines.append("sub-agents launched: " + ", ".join(limits))
    return lines
