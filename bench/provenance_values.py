"""The cost of recording a tool result's values (post_tool_call) and matching a call's targets.

Results shaped like what an agent reads: an inbox search as JSON (MCP), a web page as text, a
chat history, a calendar listing; each recorded N times into a fresh per-task ledger (keyed
hashes, first source kept). Then one 1 MB result (a long page with addresses, links and numbers
spread through it), and the match of a send's targets against a full ledger.

    .venv/bin/python bench/provenance_values.py [--rounds 400] [--before REV] [--json]

Times are CPU time of this process (time.process_time): on a shared machine wall time mostly
measures the neighbours. With --before REV (a git revision of this repository), the recording
code of that revision (provenance/scan.py, values.py, ledger.py, record.py) runs side by side
with this one, alternating round by round, so both see the same machine.
"""

from __future__ import annotations

import argparse
import importlib
import json
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

from opafence.facts import FactsContext, build_facts
from opafence.provenance.ledger import ValueLedger
from opafence.provenance.record import note_result, provenance_facts

CTX = FactsContext(home="/home/u", cwd="/home/u/ws", hermes_home="/home/u/.hermes")


def inbox(n: int) -> str:
    msgs = [
        {
            "id": f"m{i}",
            "from": f"Person {i} <person{i}@example{i % 7}.com>",
            "to": ["me@example.com"],
            "subject": f"Re: quarterly numbers {i}",
            "snippet": f"Hi, see https://docs.example{i % 5}.com/d/{i}?usp=sharing "
            f"or call +1 555 010 {i:04d}.",
            "body": "Thanks for the update. " * 20 + f"Ping me on #team-{i % 3} or @user{i}.",
        }
        for i in range(n)
    ]
    return json.dumps({"messages": msgs, "resultSizeEstimate": n})


def page(kb: int) -> str:
    para = (
        "Our office hours are 9 to 5. Write to support@vendor.example or visit "
        "https://vendor.example/help. "
        "Payments: IBAN DE89 3704 0044 0532 0130 00. Download the installer from files.vendor.example. "
        "Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor "
        "incididunt ut labore. "
    )
    return (para * (kb * 1024 // len(para) + 1))[: kb * 1024]


def prose(kb: int) -> str:
    """A long article: sentences of ordinary words, a link or an address every few KB."""
    words = [
        "the",
        "quarterly",
        "report",
        "shows",
        "revenue",
        "grew",
        "in",
        "most",
        "regions",
        "while",
        "costs",
        "stayed",
        "flat",
        "and",
        "the",
        "team",
        "expects",
        "the",
        "new",
        "product",
        "line",
        "to",
        "ship",
        "before",
        "the",
        "end",
        "of",
        "the",
        "year",
        "according",
        "to",
        "plan",
    ]
    out: list[str] = []
    size, i = 0, 0
    while size < kb * 1024:
        sentence = " ".join(words[(i * 7 + k) % len(words)] for k in range(14)).capitalize() + ". "
        if i % 40 == 0:
            sentence += f"Contact press{i}@news{i % 9}.example or see https://news{i % 9}.example/a/{i}. "
        out.append(sentence)
        size += len(sentence)
        i += 1
    return "".join(out)[: kb * 1024]


def chat(n: int) -> str:
    return json.dumps(
        {
            "channel": "#general",
            "messages": [
                {"user": f"@dev{i}", "text": f"deployed build {i}, logs at /var/log/app/{i}.log"}
                for i in range(n)
            ],
        }
    )


def calendar(n: int) -> str:
    return json.dumps(
        {
            "events": [
                {
                    "summary": f"Sync {i}",
                    "attendees": [f"a{i}@corp.example", f"b{i}@partner.example"],
                    "location": f"https://meet.example/{i:06d}",
                }
                for i in range(n)
            ]
        }
    )


def html(kb: int) -> str:
    """A web page as a fetch tool returns it: markup around short paragraphs and links."""
    rows = []
    i = 0
    while sum(len(r) for r in rows) < kb * 1024:
        rows.append(
            f'<div class="post"><h2>Item {i}</h2><p>The team shipped the update on time and '
            f'the notes are <a href="/notes/{i}">here</a>.</p></div>\n'
        )
        if i % 50 == 0:
            rows.append(f'<footer>Contact <a href="mailto:desk{i}@paper.example">the desk</a></footer>\n')
        i += 1
    return "".join(rows)[: kb * 1024]


ROOT = Path(__file__).resolve().parents[1]
_PROV = ("scan", "values", "ledger", "record")


def load_before(rev: str, into: Path) -> ModuleType:
    """The recording code of a git revision as the package `prov_before` (its record module)."""
    pkg = into / "prov_before"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    for name in _PROV:
        src = subprocess.run(
            ["git", "show", f"{rev}:adapter/opafence/provenance/{name}.py"],
            cwd=ROOT,
            check=True,
            capture_output=True,
            text=True,
        ).stdout
        for other in _PROV:
            src = src.replace(f"from opafence.provenance.{other} import", f"from prov_before.{other} import")
            src = src.replace(f"from opafence.provenance import {other}", f"from prov_before import {other}")
        (pkg / f"{name}.py").write_text(src)
    sys.path.insert(0, str(into))
    return importlib.import_module("prov_before.record")


def timed(fn: Callable[[], Any], rounds: int) -> list[float]:
    out = []
    for _ in range(rounds):
        t0 = time.process_time()
        fn()
        out.append((time.process_time() - t0) * 1e6)
    return out


def pct(xs: list[float], p: float) -> float:
    ys = sorted(xs)
    return ys[min(len(ys) - 1, int(p / 100 * len(ys)))]


def recorders(before: ModuleType | None) -> dict[str, tuple[Any, Any]]:
    """(ValueLedger class, note_result) of each side being measured."""
    sides: dict[str, tuple[Any, Any]] = {"now": (ValueLedger, note_result)}
    if before is not None:
        sides["before"] = (before.ValueLedger, before.note_result)
    return sides


def measure(sides: dict[str, tuple[Any, Any]], tool: str, result: str, rounds: int) -> dict[str, Any]:
    """Each side records the result `rounds` times into its own ledger, alternating."""
    ledgers = {name: cls() for name, (cls, _) in sides.items()}
    times: dict[str, list[float]] = {name: [] for name in sides}
    for n in range(1, rounds + 1):
        for name, (_, note) in sides.items():
            t0 = time.process_time()
            note(ledgers[name], tool, n, result, ["mcp"], {})
            times[name].append((time.process_time() - t0) * 1e6)
    out: dict[str, Any] = {"bytes": len(result)}
    for name, xs in times.items():
        out[name] = {"p50_us": pct(xs, 50), "p99_us": pct(xs, 99), "values": len(ledgers[name].untrusted)}
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=400)
    ap.add_argument("--big-rounds", type=int, default=30)
    ap.add_argument("--before", default="", help="a git revision to measure side by side")
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        sides = recorders(load_before(a.before, Path(tmp)) if a.before else None)
        rows = run(sides, a)
    if a.json:
        print(json.dumps(rows, indent=2))
        return
    names = list(sides)
    head = "".join(f" {n + ' p50':>12} {n + ' p99':>12}" for n in names)
    print(f"{'what (CPU µs per result)':44} {'bytes':>8}{head} {'values':>7}")
    for name, r in rows.items():
        cells = "".join(f" {r[n]['p50_us']:>12.0f} {r[n]['p99_us']:>12.0f}" for n in names)
        print(f"{name:44} {r['bytes']:>8}{cells} {r['now']['values']:>7}")
    median = statistics.median([r["now"]["p50_us"] for r in rows.values()])
    print(f"(median of the p50s, now: {median:.0f} µs)")


def run(sides: dict[str, tuple[Any, Any]], a: argparse.Namespace) -> dict[str, Any]:
    results = {
        "inbox search, 20 emails (JSON, 12 KB)": inbox(20),
        "web page (text, 8 KB)": page(8),
        "chat history, 50 messages (JSON)": chat(50),
        "calendar, 15 events (JSON)": calendar(15),
        "one email (JSON, 1 KB)": inbox(1),
    }
    rows: dict[str, Any] = {}
    for name, result in results.items():
        rows[name] = measure(sides, "mcp__gmail__search_emails", result, a.rounds)
    for label, big in (
        ("article, 1 MB (text, a link every 4 KB)", prose(1024)),
        ("dense page, 1 MB (a value every 60 B)", page(1024)),
        ("web page, 1 MB (HTML, a link every 150 B)", html(1024)),
        ("inbox search, 1 MB (JSON, 1,600 emails)", inbox(1600)),
    ):
        rows[label] = measure(sides, "web_extract", big, a.big_rounds)
    full = ValueLedger()
    for i in range(200):
        note_result(full, "mcp__gmail__search_emails", i, inbox(20), ["mcp"], {})
    args = {"to": ["person3@example3.com", "john@example.com"], "subject": "x", "body": "y"}
    facts = build_facts("mcp__gmail__send_email", args, CTX)
    times = timed(lambda: provenance_facts(full, "mcp__gmail__send_email", args, facts, "/home/u"), a.rounds)
    matched = {"p50_us": pct(times, 50), "p99_us": pct(times, 99), "values": len(full.untrusted)}
    rows["match a send's targets (2 recipients; now only)"] = {"bytes": 0, **{n: matched for n in sides}}
    return rows


if __name__ == "__main__":
    main()
