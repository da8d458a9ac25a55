"""The cost of recording a tool result's values (post_tool_call) and matching a call's targets.

Results shaped like what an agent reads: an inbox search as JSON (MCP), a web page as text, a
chat history, a calendar listing; each recorded N times into a fresh per-task ledger (keyed
hashes, first source kept). Then one 1 MB result (a long page with addresses, links and numbers
spread through it), and the match of a send's targets against a full ledger.

    .venv/bin/python bench/provenance_values.py [--rounds 400] [--json]

Times are CPU time of this process (time.process_time): on a shared machine wall time mostly
measures the neighbours.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from collections.abc import Callable
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


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=400)
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args()
    results = {
        "inbox search, 20 emails (JSON, 12 KB)": inbox(20),
        "web page (text, 8 KB)": page(8),
        "chat history, 50 messages (JSON)": chat(50),
        "calendar, 15 events (JSON)": calendar(15),
        "one email (JSON, 1 KB)": inbox(1),
    }
    rows: dict[str, Any] = {}
    for name, result in results.items():
        led = ValueLedger()
        calls = iter(range(1, 10**9))
        times = timed(
            lambda r=result, led=led, calls=calls: note_result(
                led, "mcp__gmail__search_emails", next(calls), r, ["mcp"], {}
            ),
            a.rounds,
        )
        rows[name] = {
            "bytes": len(result),
            "p50_us": pct(times, 50),
            "p99_us": pct(times, 99),
            "values": len(led.untrusted),
        }
    for label, big in (
        ("article, 1 MB (text, a link every 4 KB)", prose(1024)),
        ("dense page, 1 MB (a value every 60 B)", page(1024)),
    ):
        led = ValueLedger()
        times = timed(lambda b=big, led=led: note_result(led, "web_extract", 1, b, ["web"], {}), 10)
        rows[label] = {
            "bytes": len(big),
            "p50_us": pct(times, 50),
            "p99_us": max(times),
            "values": len(led.untrusted),
        }
    full = ValueLedger()
    for i in range(200):
        note_result(full, "mcp__gmail__search_emails", i, inbox(20), ["mcp"], {})
    args = {"to": ["person3@example3.com", "john@example.com"], "subject": "x", "body": "y"}
    facts = build_facts("mcp__gmail__send_email", args, CTX)
    times = timed(lambda: provenance_facts(full, "mcp__gmail__send_email", args, facts, "/home/u"), a.rounds)
    rows["match a send's targets (2 recipients)"] = {
        "bytes": 0,
        "p50_us": pct(times, 50),
        "p99_us": pct(times, 99),
        "values": len(full.untrusted),
    }
    if a.json:
        print(json.dumps(rows, indent=2))
        return
    print(f"{'what':42} {'bytes':>9} {'p50 µs':>10} {'p99 µs':>10} {'values':>7}")
    for name, r in rows.items():
        print(f"{name:42} {r['bytes']:>9} {r['p50_us']:>10.0f} {r['p99_us']:>10.0f} {r['values']:>7}")
    print(f"(median of all recordings: {statistics.median([r['p50_us'] for r in rows.values()]):.0f} µs)")


if __name__ == "__main__":
    main()
