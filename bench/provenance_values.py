"""The cost of recording a tool result's values (post_tool_call) and matching a call's targets.

Results shaped like what an agent reads: an inbox search as JSON (MCP), a web page as text, a
chat history, a calendar listing; each recorded N times into a fresh per-task ledger (keyed
hashes, first source kept). Then one 1 MB result (a long page with addresses, links and numbers
spread through it), and the match of a send's targets against a full ledger.

    .venv/bin/python bench/provenance_values.py [--rounds 400] [--before REV] [--only "1 MB"] [--json]

Times are CPU time of this process (time.process_time): on a shared machine wall time mostly
measures the neighbours. With --before REV (a git revision of this repository), the recording
code of that revision (provenance/scan.py, values.py and the modules split out of it, ledger.py,
record.py) runs side by side with this one, alternating round by round, so both see the same
machine.
"""

from __future__ import annotations

import argparse
import importlib
import json
import resource
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


def records(kb: int) -> str:
    """An API listing as JSON (under 1 MB, so it is parsed): many short fields per record, a
    few of them target-like (an address, a phone, a link), the rest ids, dates, amounts, flags."""
    out: list[dict[str, Any]] = []
    size, i = 2, 0
    while True:
        rec = {
            "id": f"cus_{i:08d}",
            "name": f"Customer {i}",
            "email": f"buyer{i}@shop{i % 11}.example",
            "phone": f"+44 20 7946 {i % 10000:04d}",
            "created_at": f"2026-{1 + i % 12:02d}-{1 + i % 28:02d}T10:{i % 60:02d}:00Z",
            "status": ("active", "past_due", "canceled")[i % 3],
            "plan": {"name": "pro", "amount": 1900 + i % 7, "currency": "eur", "interval": "month"},
            "tags": ["vip", "newsletter"][: i % 3],
            "metadata": {"source": "import", "note": "renewed after the trial"},
            "portal": f"https://billing.example/p/{i}",
            "delinquent": i % 5 == 0,
        }
        size += len(json.dumps(rec)) + 2
        if size > kb * 1024 - 64:
            break
        out.append(rec)
        i += 1
    return json.dumps({"object": "list", "data": out, "has_more": True})


def logs(kb: int) -> str:
    """Application log lines: timestamps, levels, request paths and ids, durations; now and
    then an address, an IP or a host."""
    lines: list[str] = []
    size, i = 0, 0
    while size < kb * 1024:
        line = (
            f"2026-12-02T13:{i // 600 % 60:02d}:{i // 10 % 60:02d}.{i % 1000:03d}Z INFO  [worker-{i % 8}] "
            f"GET /api/v1/items/{i % 500} 200 {i % 97}ms req={i * 2654435761 % 2**32:08x}\n"
        )
        if i % 50 == 0:
            line += (
                f"2026-12-02T13:{i // 600 % 60:02d}:{i // 10 % 60:02d}.{i % 1000:03d}Z WARN  [mailer] "
                f"bounce for user{i % 40}@corp.example from 10.0.{i % 4}.{i % 250} via smtp.relay.example\n"
            )
        lines.append(line)
        size += len(line)
        i += 1
    return "".join(lines)[: kb * 1024]


def site(kb: int) -> str:
    """A web page as a fetch tool returns it, shaped like a real one: a head of styles and
    scripts, navigation, markup-heavy paragraphs, a link every KB or so, a footer address."""
    head = (
        '<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>Notes</title>'
        '<link rel="stylesheet" href="/static/css/main.4f2a.css">'
        "<style>.post{margin:0 auto;max-width:42rem}.post h2{font-size:1.4rem}</style>"
        "<script>window.dataLayer=window.dataLayer||[];function gtag(){dataLayer.push(arguments)}</script>"
        '</head><body><nav><a href="/">Home</a> <a href="/about">About</a></nav>\n'
    )
    rows = [head]
    size, i = len(head), 0
    while size < kb * 1024:
        row = (
            f'<article class="post post-{i % 5}" id="p{i}"><h2 class="title">Update {i}</h2>'
            '<p class="lead">The team shipped the update on time; the notes cover what changed, '
            "what broke and what comes next. Thanks to everyone who tested the beta.</p>"
            "<p>Most of the work went into the importer and the settings page, which now load "
            "faster and keep their state.</p>"
        )
        if i % 3 == 0:
            row += f'<p>Read <a href="https://blog.example/{i}" rel="noopener">the full post</a>.</p>'
        row += "</article>\n"
        if i % 100 == 0:
            row += '<footer>Contact <a href="mailto:desk@paper.example">the desk</a></footer>\n'
        rows.append(row)
        size += len(row)
        i += 1
    return "".join(rows)[: kb * 1024]


ROOT = Path(__file__).resolve().parents[1]
# (normalize, obfuscated and result_text were split out of values.py: an older revision has none)
_PROV = ("scan", "normalize", "obfuscated", "result_text", "values", "ledger", "record")


def load_before(rev: str, into: Path) -> ModuleType:
    """The recording code of a git revision as the package `prov_before` (its record module)."""
    pkg = into / "prov_before"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    for name in _PROV:
        shown = subprocess.run(
            ["git", "show", f"{rev}:adapter/opafence/provenance/{name}.py"],
            cwd=ROOT,
            check=False,
            capture_output=True,
            text=True,
        )
        if shown.returncode != 0:
            continue
        src = shown.stdout
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
    ap.add_argument("--only", default="", help="only the results whose label holds this text")
    a = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        sides = recorders(load_before(a.before, Path(tmp)) if a.before else None)
        rows = run(sides, a)
    if a.json:
        print(json.dumps(rows, indent=2))
        return
    names = list(sides)
    head = "".join(f" {n + ' p50':>12} {n + ' p99':>12} {n + ' /s':>9}" for n in names)
    print(f"{'what (CPU µs per result)':44} {'bytes':>8}{head} {'values':>7}")
    for name, r in rows.items():
        cells = "".join(
            f" {r[n]['p50_us']:>12.0f} {r[n]['p99_us']:>12.0f} {1e6 / max(r[n]['p50_us'], 1e-3):>9.0f}"
            for n in names
        )
        print(f"{name:44} {r['bytes']:>8}{cells} {r['now']['values']:>7}")
    median = statistics.median([r["now"]["p50_us"] for r in rows.values()])
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"(median of the p50s, now: {median:.0f} µs; /s: results per CPU second at p50)")
    print(f"(max RSS of this process: {rss:.0f} MB)")


# The 1 MB results: the four realistic shapes first, then the stress shapes (one value every
# 60 or 150 bytes, mostly distinct: their cost is the per-value work, hashing included).
BIG: tuple[tuple[str, Callable[[], str]], ...] = (
    ("article, 1 MB (text, a link every 4 KB)", lambda: prose(1024)),
    ("API listing, 1 MB (JSON, 2,400 records)", lambda: records(1024)),
    ("web page, 1 MB (HTML, a link every 1.4 KB)", lambda: site(1024)),
    ("log lines, 1 MB (12,000 lines)", lambda: logs(1024)),
    ("dense page, 1 MB (a value every 60 B)", lambda: page(1024)),
    ("link farm, 1 MB (HTML, a link every 150 B)", lambda: html(1024)),
    ("inbox search, 1.1 MB (JSON, cut to text)", lambda: inbox(1600)),
    ("API listing in MCP text, 1 MB (JSON in JSON)", lambda: mcp_text(records(880))),
    ("API listing in HTTP in MCP, 1 MB (3 levels)", lambda: mcp_text(http_body(records(690)))),
)


def mcp_text(text: str) -> str:
    """A result as an MCP server returns it: `text` (itself JSON) as the text content."""
    return json.dumps({"content": [{"type": "text", "text": text}], "isError": False})


def http_body(text: str) -> str:
    """An HTTP tool's answer holding `text` as its body."""
    return json.dumps({"status": 200, "headers": {"content-type": "application/json"}, "body": text})


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
        if a.only in name:
            rows[name] = measure(sides, "mcp__gmail__search_emails", result, a.rounds)
    for label, big in BIG:
        if a.only in label:
            rows[label] = measure(sides, "web_extract", big(), a.big_rounds)
    if a.only:
        return rows
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
