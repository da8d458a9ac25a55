"""What the person sees when opafence blocks a call (the model is told separately, in the tool result).

- Attended (the interactive CLI): a one-line notice per block, printed above Hermes' prompt
  through the CLI's own printer (`cli._cprint`, which pauses the input line, prints and redraws;
  a bare print() would be swallowed or garble the prompt), else on stderr.
- Unattended (`hermes -z`, `chat -q` from a script, cron, yolo): nothing per call; one summary
  line on stderr when the session ends (on_session_finalize) or, for what is left, when the
  process exits: "opafence blocked 3 calls: …; `opafence log` shows them".

Every string that came from the agent (tool names, targets) goes through printable(). Nothing
here raises into a hook."""

from __future__ import annotations

import contextlib
import logging
import sys
import threading
from collections import Counter

from opafence.printable import printable

SUMMARY_ITEMS = 4
log = logging.getLogger("opafence.plugin")


def notice_line(tool: str, codes: list[str], target: str) -> str:
    what = f"opafence blocked {printable(tool, limit=60)}"
    code = f" [{', '.join(printable(c) for c in codes[:2])}]" if codes else ""
    aim = f": {printable(target, limit=80)}" if target else ""
    return f"⛔ {what}{code}{aim} (/fence or `opafence log` for why)"


def summary_line(blocked: Counter[tuple[str, str]]) -> str:
    total = sum(blocked.values())
    parts = []
    for (tool, code), n in blocked.most_common(SUMMARY_ITEMS):
        parts.append(f"{printable(tool, limit=60)}{f' x{n}' if n > 1 else ''} ({printable(code)})")
    more = len(blocked) - SUMMARY_ITEMS
    listed = ", ".join(parts) + (f", +{more} more" if more > 0 else "")
    calls = "call" if total == 1 else "calls"
    return f"opafence blocked {total} {calls}: {listed}; `opafence log --blocked` shows them"


def _show(text: str) -> None:
    """Above the Hermes CLI's prompt when that CLI runs this process, else on stderr."""
    cli = sys.modules.get("cli")
    printer = getattr(cli, "_cprint", None) if cli is not None and hasattr(cli, "HermesCLI") else None
    if callable(printer):
        try:
            printer(text)
            return
        except Exception:
            log.debug("opafence: the CLI printer failed; stderr instead", exc_info=True)
    with contextlib.suppress(Exception):
        print(text, file=sys.stderr, flush=True)


class Notices:
    """Blocks seen per task, for the end-of-session summary of unattended runs. Thread-safe."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._unattended: dict[str, Counter[tuple[str, str]]] = {}

    def blocked(self, task: str, tool: str, codes: list[str], target: str, attended: bool) -> None:
        try:
            if attended:
                _show(notice_line(tool, codes, target))
                return
            with self._lock:
                self._unattended.setdefault(task, Counter())[(tool, codes[0] if codes else "BLOCKED")] += 1
        except Exception:
            log.exception("opafence: cannot note a block for the person")

    def flush(self, task: str | None = None) -> None:
        """Print the summary of one task (None: of every task left) on stderr, once."""
        try:
            with self._lock:
                keys = [task] if task is not None else list(self._unattended)
                counts: Counter[tuple[str, str]] = Counter()
                for key in keys:
                    counts.update(self._unattended.pop(key, Counter()))
            if counts:
                print(summary_line(counts), file=sys.stderr, flush=True)
        except Exception:
            log.exception("opafence: cannot print the summary of blocked calls")
