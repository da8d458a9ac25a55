"""The Done-when figures of issue 15 on the provenance corpus, per domain.

Judges every session of tests/data/provenance/sessions.jsonl with `opafence replay`'s own path
(replay_line: compile, facts, results recorded, real OPA), attended and unattended, and counts:

- sessions in which no call the user asked for (role "task") is blocked;
- asked-for calls that run without a prompt (allow), and prompts per session;
- sessions with an injected call: in how many one is allowed (attended), and in how many every
  injected call is blocked (not asked);
- the laundering set: sessions whose injected call is blocked.

    .venv/bin/python tools/provenance_figures.py [--json]
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from collections import defaultdict
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from opafence.config import Config, ProvenanceConfig
from opafence.host import Host
from opafence.judge import Judge
from opafence.opa.bridge import Bridge
from opafence.replay import replay_line

CORPUS = Path(__file__).resolve().parent.parent / "tests" / "data" / "provenance" / "sessions.jsonl"
HOME = "/home/dev"
WS = f"{HOME}/src/app"


def host(attended: bool) -> Host:
    return Host(
        auto_approve=not attended,
        interactive=attended,
        platform="replay",
        home=HOME,
        hermes_home=f"{HOME}/.hermes",
        state_dir=f"{HOME}/.hermes/opafence",
        workspace=(WS,),
        cwd=WS,
    )


def load() -> list[dict[str, Any]]:
    return [json.loads(raw) for raw in CORPUS.read_text(encoding="utf-8").splitlines() if raw.strip()]


@contextmanager
def judges() -> Iterator[dict[tuple[bool, int | None], Judge]]:
    """Judges on one OPA: attended or not, and with the value bound a session asks for."""
    config = Config()
    with tempfile.TemporaryDirectory(prefix="opafence-prov-") as tmp:
        bridge = Bridge(config, Path(tmp) / "state")
        bridge.start()
        try:
            out: dict[tuple[bool, int | None], Judge] = {}
            for attended in (True, False):
                out[(attended, None)] = Judge(bridge, host(attended), config)
                small = config.model_copy(update={"provenance": ProvenanceConfig(max_values=1000)})
                out[(attended, 1000)] = Judge(bridge, host(attended), small)
            yield out
        finally:
            bridge.close()


def judge_session(
    js: dict[tuple[bool, int | None], Judge], s: dict[str, Any], attended: bool
) -> list[dict[str, Any]]:
    bound = s.get("max_values")
    judge = js[(attended, 1000 if bound else None)]
    out = replay_line(judge, json.dumps(s))
    if "error" in out:
        raise ValueError(f"{s['id']}: {out['error']}")
    verdicts: list[dict[str, Any]] = out["verdicts"]
    return verdicts


def figures(js: dict[tuple[bool, int | None], Judge], sessions: list[dict[str, Any]]) -> dict[str, Any]:
    per: dict[str, dict[str, Any]] = defaultdict(
        lambda: {
            "sessions": 0,
            "sessions_no_asked_blocked": 0,
            "asked_calls": 0,
            "asked_allowed": 0,
            "asked_prompts": 0,
            "injected_sessions": 0,
            "injected_allowed_attended": 0,
            "injected_allowed_unattended": 0,
            "injected_all_blocked": 0,
            "laundering": 0,
            "laundering_blocked": 0,
            "asked_actions": 0,
            "asked_actions_allowed": 0,
            "injected_calls": 0,
            "injected_by_provenance": 0,
        }
    )
    problems: list[str] = []
    prompts: dict[str, int] = {}
    for s in sessions:
        d = per[s["domain"]]
        att = judge_session(js, s, True)
        una = judge_session(js, s, False)
        roles = [c["role"] for c in s["calls"]]
        d["sessions"] += 1
        asked = [v for v, r in zip(att, roles, strict=True) if r == "task"]
        injected_att = [v for v, r in zip(att, roles, strict=True) if r == "injected"]
        injected_una = [v for v, r in zip(una, roles, strict=True) if r == "injected"]
        if all(v["verdict"] != "block" for v in asked):
            d["sessions_no_asked_blocked"] += 1
        else:
            problems.append(f"{s['id']}: an asked-for call is blocked: {_codes(asked, 'block')}")
        d["asked_calls"] += len(asked)
        actions = [v for v in asked if v["classes"] != ["READ"]]
        d["asked_actions"] += len(actions)
        d["asked_actions_allowed"] += sum(v["verdict"] == "allow" for v in actions)
        d["injected_calls"] += len(injected_att)
        d["injected_by_provenance"] += sum(
            any(r["code"] == "PROVENANCE_UNTRUSTED" for r in v["reasons"]) for v in injected_att
        )
        d["asked_allowed"] += sum(v["verdict"] == "allow" for v in asked)
        prompts[s["id"]] = sum(v["verdict"] == "ask" for v in asked)
        d["asked_prompts"] += prompts[s["id"]]
        if injected_att:
            d["injected_sessions"] += 1
            if any(v["verdict"] == "allow" for v in injected_att):
                d["injected_allowed_attended"] += 1
                problems.append(f"{s['id']}: an injected call is allowed")
            if any(v["verdict"] == "allow" for v in injected_una):
                d["injected_allowed_unattended"] += 1
            if all(v["verdict"] == "block" for v in injected_att):
                d["injected_all_blocked"] += 1
            else:
                problems.append(f"{s['id']}: an injected call asks: {_codes(injected_att, 'ask')}")
        if s["kind"] == "laundering":
            d["laundering"] += 1
            if injected_att and all(v["verdict"] == "block" for v in injected_att):
                d["laundering_blocked"] += 1
            else:
                problems.append(f"{s['id']} ({s.get('how', '')}): laundering got through")
    total: dict[str, Any] = defaultdict(int)
    for d in per.values():
        for k, n in d.items():
            total[k] += n
    return {"domains": dict(per), "total": dict(total), "problems": problems, "prompts": prompts}


def _codes(vs: list[dict[str, Any]], verdict: str) -> str:
    return "; ".join(",".join(r["code"] for r in v["reasons"]) for v in vs if v["verdict"] == verdict)


def pct(a: int, b: int) -> str:
    return f"{100.0 * a / b:.1f} %" if b else "-"


def render(f: dict[str, Any]) -> str:
    head = (
        f"{'domain':11} {'sessions':>8} {'no asked blocked':>17} {'asked run, no prompt':>21} "
        f"{'prompts/session':>15} {'injected':>8} {'inj. allowed':>12} {'inj. blocked':>13} "
        f"{'laundering blocked':>18}"
    )
    rows = [head]
    for name, d in [*sorted(f["domains"].items()), ("all", f["total"])]:
        rows.append(
            f"{name:11} {d['sessions']:>8} "
            f"{pct(d['sessions_no_asked_blocked'], d['sessions']):>17} "
            f"{pct(d['asked_allowed'], d['asked_calls']):>21} "
            f"{d['asked_prompts'] / d['sessions'] if d['sessions'] else 0:>15.2f} "
            f"{d['injected_sessions']:>8} {d['injected_allowed_attended']:>12} "
            f"{pct(d['injected_all_blocked'], d['injected_sessions']):>13} "
            f"{(str(d['laundering_blocked']) + '/' + str(d['laundering'])) if d['laundering'] else '-':>18}"
        )
    t = f["total"]
    rows += [
        "",
        f"asked-for calls that act (not READ): {t['asked_actions']}, run without a prompt: "
        f"{pct(t['asked_actions_allowed'], t['asked_actions'])}",
        f"injected calls: {t['injected_calls']}, blocked by PROVENANCE_UNTRUSTED: "
        f"{pct(t['injected_by_provenance'], t['injected_calls'])}; "
        f"sessions with an injected call allowed unattended: {t['injected_allowed_unattended']}",
    ]
    if f["problems"]:
        rows += ["", "problems:", *(f"  {p}" for p in f["problems"])]
    return "\n".join(rows)


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args()
    with judges() as js:
        f = figures(js, load())
    print(json.dumps(f, indent=2) if a.json else render(f))
    return 0


if __name__ == "__main__":
    sys.exit(main())
