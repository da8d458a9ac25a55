"""The guard corpora through replay, against the real OPA and the real facts, compiler and Rego.

`tests/data/guards/allowed*.jsonl` hold ordinary developer and office work that the user asked
for: every call must be allowed (a call that is not is a false positive).
`tests/data/guards/attacks*.jsonl` hold attack calls: each must get its expected verdict
("block", or "not_allow" where ask and block are both right); an attack that is allowed is a
miss. Run this module directly to print the false-positive and miss counts:

    .venv/bin/python -m tests.opa.test_guard_corpora
"""

from __future__ import annotations

import json
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from opafence.config import Config
from opafence.host import Host
from opafence.judge import Judge
from opafence.opa.bridge import Bridge
from opafence.replay import replay_line

CORPORA = Path(__file__).resolve().parents[1] / "data" / "guards"
VERDICTS = {"allow", "ask", "block", "not_allow"}
# Every category of issue 7 must be covered; "scope" and "code" hold task-scope escapes and
# code evasions, which issue 7 does not list but which the corpus also guards against.
CATEGORIES = {
    "self_protection",
    "secrets",
    "destruction",
    "security_settings",
    "remote_sources",
    "persistence",
    "taint",
}
EXTRA_CATEGORIES = {"scope", "code"}

# A fixed, fictional machine, so the corpus can name its paths literally.
HOME = "/home/dev"
HOST = Host(
    auto_approve=False,
    interactive=True,
    platform="replay",
    home=HOME,
    hermes_home=f"{HOME}/.hermes",
    state_dir=f"{HOME}/.hermes/opafence",
    workspace=(f"{HOME}/src/app",),
    cwd=f"{HOME}/src/app",
    opa_socket=f"{HOME}/.hermes/opafence/run/opa.sock",
    package_dir=f"{HOME}/.venv/lib/python3.11/site-packages/opafence",
    # The Python environment that runs Hermes (tests/hermes translates it to the real one).
    code_dirs=(f"{HOME}/.venv", f"{HOME}/.venv/lib/python3.11/site-packages/opafence"),
    # The managed OPA's watchdog and OPA (tests/hermes translates them to the real ones).
    opa_pids=(31337, 31338),
)


def load(pattern: str) -> list[dict[str, Any]]:
    """Every line of the corpus files matching `pattern`, in file-name order."""
    lines: list[dict[str, Any]] = []
    for path in sorted(CORPORA.glob(pattern)):
        with open(path, encoding="utf-8") as f:
            lines.extend(json.loads(raw) for raw in f if raw.strip())
    return lines


ALLOWED = load("allowed*.jsonl")
ATTACKS = load("attacks*.jsonl")

# Allowed-corpus lines that are not allowed for reasons outside the guards (no guard or taint
# reason is involved): each names the part that decides it. They stay expected "allow" and are
# strict xfails, so the run fails as soon as one of them starts passing and must be removed here.
KNOWN_ELSEWHERE: dict[str, str] = {}
# Python look-alikes run with execute_code: a computation the user asks for ("count the rows in
# data/in.csv") is granted as run_code; the other messages ask for no computation, so no grant
# covers the code (EXECUTION) and the task asks; the guards must still stay silent.
COMPUTATIONS_ASKED_FOR = {"code-ok-csv", "code-ok-thread-local"}
KNOWN_ELSEWHERE.update(
    {
        line["id"]: "task: no compiled grant covers execute_code"
        for line in ALLOWED
        if line["id"].startswith("code-ok-")
        and line["calls"][0]["tool"] == "execute_code"
        and line["id"] not in COMPUTATIONS_ASKED_FOR
    }
)


def allowed_params() -> list[Any]:
    return [
        pytest.param(
            line,
            id=line["id"],
            marks=pytest.mark.xfail(strict=True, reason=KNOWN_ELSEWHERE[line["id"]])
            if line["id"] in KNOWN_ELSEWHERE
            else (),
        )
        for line in ALLOWED
    ]


def matches(expect: str, verdict: str) -> bool:
    return verdict == expect or (expect == "not_allow" and verdict in ("ask", "block"))


def run(judge: Judge, line: dict[str, Any]) -> list[dict[str, Any]]:
    out = replay_line(judge, json.dumps(line))
    assert "error" not in out, out
    verdicts: list[dict[str, Any]] = out["verdicts"]
    return verdicts


def explain(line: dict[str, Any], got: list[dict[str, Any]]) -> str:
    rows = [f"{line['id']}: {line['user_message']!r}"]
    for call, want, v in zip(line["calls"], line["expect"], got, strict=True):
        mark = "ok  " if matches(want, v["verdict"]) else "FAIL"
        codes = ",".join(r["code"] for r in v["reasons"]) or "-"
        args = json.dumps(call["args"], ensure_ascii=False)[:140]
        rows.append(f"  {mark} want {want:9} got {v['verdict']:5} [{codes}] {call['tool']} {args}")
    return "\n".join(rows)


@pytest.fixture(scope="module")
def judge(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Judge]:
    config = Config()
    bridge = Bridge(config, tmp_path_factory.mktemp("guard-corpora-state"))
    bridge.start()
    try:
        yield Judge(bridge, HOST, config)
    finally:
        bridge.close()


# --- the corpora themselves -----------------------------------------------------------------------


def test_corpora_are_well_formed() -> None:
    for line in ALLOWED + ATTACKS:
        assert isinstance(line["id"], str)
        assert line["user_message"].strip()
        assert len(line["calls"]) == len(line["expect"]) > 0, line["id"]
        assert set(line["expect"]) <= VERDICTS, line["id"]
    assert len({line["id"] for line in ALLOWED + ATTACKS}) == len(ALLOWED) + len(ATTACKS)
    assert all(set(line["expect"]) == {"allow"} for line in ALLOWED)


def test_known_failures_name_real_lines() -> None:
    assert set(KNOWN_ELSEWHERE) <= {line["id"] for line in ALLOWED}


def test_corpora_sizes_and_coverage() -> None:
    assert len(ALLOWED) >= 80
    attack_calls = [e for line in ATTACKS for e in line["expect"] if e != "allow"]
    assert len(attack_calls) >= 150
    assert CATEGORIES <= {line["category"] for line in ATTACKS} <= CATEGORIES | EXTRA_CATEGORIES
    for category in CATEGORIES:
        assert sum(1 for line in ATTACKS if line["category"] == category) >= 10, category


# --- through replay -------------------------------------------------------------------------------


@pytest.mark.parametrize("line", allowed_params())
def test_allowed_work_is_allowed(judge: Judge, line: dict[str, Any]) -> None:
    got = run(judge, line)
    assert all(matches(w, v["verdict"]) for w, v in zip(line["expect"], got, strict=True)), explain(line, got)


@pytest.mark.parametrize("line", ATTACKS, ids=[line["id"] for line in ATTACKS])
def test_attack_is_not_allowed(judge: Judge, line: dict[str, Any]) -> None:
    got = run(judge, line)
    assert all(matches(w, v["verdict"]) for w, v in zip(line["expect"], got, strict=True)), explain(line, got)


# Reason codes of the always-on guards and the taint rules (rego/opafence/guards, taint).
GUARD_CODE_PREFIXES = (
    "SELF_PROTECT_",
    "SECRET_",
    "DESTRUCTIVE_DELETE",
    "FIND_DELETE",
    "RAW_DISK_WRITE",
    "DATABASE_WIPE",
    "CLOUD_DELETE",
    "GIT_HISTORY",
    "FIREWALL_OFF",
    "SECURITY_",
    "WORLD_WRITABLE",
    "SETUID",
    "TLS_VERIFY_OFF",
    "REMOTE_PACKAGE_SOURCE",
    "PIPE_TO_SHELL",
    "DECODE_AND_RUN",
    "REVERSE_SHELL",
    "PERSISTENCE",
    "TAINT_",
    "MEMORY_AUTHORIZATION",
    "MEMORY_PROCEDURE_SOURCE",
    "PROVENANCE_",
    "AGENT_INSTRUCTIONS",
)


@pytest.mark.parametrize("line", ALLOWED, ids=[line["id"] for line in ALLOWED])
def test_allowed_work_raises_no_guard(judge: Judge, line: dict[str, Any]) -> None:
    """Never xfailed: whatever other parts decide, no guard or taint rule objects to ordinary work."""
    got = run(judge, line)
    codes = {r["code"] for v in got for r in v["reasons"]}
    assert not {c for c in codes if c.startswith(GUARD_CODE_PREFIXES)}, explain(line, got)


GUARDED = [line for line in ATTACKS if line["category"] != "scope"]

# Attack lines whose blocks come from elsewhere than a guard, each with why (strict xfails: the
# run fails once a guard gives the reason, so the entry goes then). None today.
GUARD_SOURCE_GAPS: dict[str, str] = {}


def guarded_params() -> list[Any]:
    return [
        pytest.param(
            line,
            id=line["id"],
            marks=pytest.mark.xfail(strict=True, reason=GUARD_SOURCE_GAPS[line["id"]])
            if line["id"] in GUARD_SOURCE_GAPS
            else (),
        )
        for line in GUARDED
    ]


@pytest.mark.parametrize("line", guarded_params())
def test_attack_blocks_come_from_guards(judge: Judge, line: dict[str, Any]) -> None:
    """The corpus tests the guards: every expected block carries a guard or taint reason
    (task-scope escapes are blocked by the task's own rules instead)."""
    got = run(judge, line)
    for want, v in zip(line["expect"], got, strict=True):
        if want == "block":
            assert any(r["code"].startswith(GUARD_CODE_PREFIXES) for r in v["reasons"]), explain(line, got)


# --- counts for the report -------------------------------------------------------------------------


def counts(judge: Judge) -> dict[str, list[str]]:
    """Per call: false positives (allowed-corpus calls not allowed), misses (attack calls
    allowed) and attack calls with another verdict than expected; each entry explains its line."""
    result: dict[str, list[str]] = {"false_positives": [], "misses": [], "mismatches": []}
    for line in ALLOWED + ATTACKS:
        got = run(judge, line)
        for want, v in zip(line["expect"], got, strict=True):
            if matches(want, v["verdict"]):
                continue
            kind = (
                "false_positives"
                if line in ALLOWED
                else "misses"
                if v["verdict"] == "allow"
                else "mismatches"
            )
            result[kind].append(explain(line, got))
    return result


def main() -> int:
    config = Config()
    with tempfile.TemporaryDirectory(prefix="opafence-corpora-") as state:
        bridge = Bridge(config, Path(state))
        bridge.start()
        try:
            result = counts(Judge(bridge, HOST, config))
        finally:
            bridge.close()
    for kind, texts in result.items():
        for text in dict.fromkeys(texts):
            print(f"[{kind}]\n{text}")
    allowed_calls = sum(len(line["calls"]) for line in ALLOWED)
    attack_calls = sum(1 for line in ATTACKS for e in line["expect"] if e != "allow")
    fps, misses, other = (len(result[k]) for k in ("false_positives", "misses", "mismatches"))
    print(f"allowed corpus: {len(ALLOWED)} lines, {allowed_calls} calls; false positives: {fps} calls")
    print(f"attack corpus: {len(ATTACKS)} lines, {attack_calls} attack calls; misses: {misses} calls")
    print(f"attack calls with another verdict than expected (ask for block): {other}")
    return 0 if not any(result.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
