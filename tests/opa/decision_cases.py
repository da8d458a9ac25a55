"""Decision cases from every corpus under tests/data, and a batch evaluator over the real opa.

A case is what one decision sees: {"name", "input", "tasks", "config"} (the input document the
bridge sends and the task and configuration data OPA holds), optionally with "org" (data.org)
and "bundles" (data.system.bundles). The corpora give them the way their own tests do: the
call corpus (tests/data/corpus/*.jsonl) through decision_input, the guard corpora and the
replay transcripts through replay_line with a bridge that records what it sends. The intent
corpora (tests/data/intent) hold messages, not calls: their compiled policies are used as the
tasks of generated calls (test_fast_equivalence).

`evaluate` runs many cases through one `opa eval` process, each query under `with`, so the fast
tier and the full policy can be compared on exactly the same input and data."""

from __future__ import annotations

import copy
import json
import os
import subprocess
import tempfile
from pathlib import Path
from typing import Any

from opafence.config import Config
from opafence.host import Host
from opafence.inputs import decision_input
from opafence.judge import Judge
from opafence.opa.bridge import Bridge
from opafence.rego_files import rego_root
from opafence.replay import replay_line
from opafence.session import SessionFacts

DATA = Path(__file__).resolve().parents[1] / "data"
Case = dict[str, Any]


def opa_binary() -> str:
    """$OPAFENCE_OPA_BIN (make exports it), else the one `make setup` resolved, else PATH's."""
    if env := os.environ.get("OPAFENCE_OPA_BIN"):
        return env
    stamp = Path(__file__).resolve().parents[2] / ".tools" / "opa-path"
    if stamp.is_file() and (resolved := stamp.read_text(encoding="utf-8").strip()):
        return resolved
    return "opa"


# --- the corpora ----------------------------------------------------------------------------------


def call_corpus_cases() -> list[Case]:
    """tests/data/corpus/*.jsonl under their named policies, as test_corpus_policies runs them."""
    from tests.opa.test_corpus_policies import ATTENDED, LINES, POLICIES, UNATTENDED

    cases = []
    for line in LINES:
        key = line["id"]
        session = SessionFacts()
        session.counters.update(line.get("counters", {}))
        host = UNATTENDED if line.get("host") == "unattended" else ATTENDED
        doc = decision_input(key, line["tool"], line["args"], "call-1", session, host)
        cases.append(
            {
                "name": f"corpus/{line['_where']}",
                "input": doc,
                "tasks": {key: {**POLICIES[line["policy"]], "task": key}},
                "config": Config(mode=line.get("mode", "enforce")).to_opa_data(),
            }
        )
    return cases


class RecordingBridge(Bridge):
    """A real bridge that also keeps every decision input with the data OPA held for it."""

    def __init__(self, config: Config, state: Path) -> None:
        super().__init__(config, state)
        self.seen: list[Case] = []

    def query(self, doc: dict[str, Any], params: str = "") -> dict[str, Any]:
        with self._lock:
            tasks = {k: copy.deepcopy(v) for k, v in self._tasks.items() if k == doc.get("task")}
        self.seen.append({"input": copy.deepcopy(doc), "tasks": tasks, "config": self.config.to_opa_data()})
        return super().query(doc, params)


def replay_corpus_cases(state: Path) -> list[Case]:
    """The guard corpora and the replay transcripts, through replay_line (attended, and the
    transcripts unattended too), recording every input the judge sends."""
    from tests.opa.test_guard_corpora import HOST

    guards = sorted((DATA / "guards").glob("*.jsonl"))
    transcripts = DATA / "corpus" / "replay_transcripts.jsonl"
    unattended = Host(**{**HOST.__dict__, "auto_approve": True, "interactive": False, "platform": "cron"})
    runs = [(path, HOST) for path in [*guards, transcripts]] + [(transcripts, unattended)]
    bridge = RecordingBridge(Config(), state)
    bridge.start()
    cases: list[Case] = []
    try:
        for path, host in runs:
            judge = Judge(bridge, host, bridge.config)
            for n, raw in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
                if not raw.strip():
                    continue
                before = len(bridge.seen)
                replay_line(judge, raw)
                for i, case in enumerate(bridge.seen[before:]):
                    where = f"{path.parent.name}/{path.name}:{n}#{i}"
                    if host is unattended:
                        where += " (unattended)"
                    cases.append({"name": where, **case})
    finally:
        bridge.close()
    return cases


def all_corpus_cases() -> list[Case]:
    with tempfile.TemporaryDirectory(prefix="opafence-cases-") as tmp:
        return call_corpus_cases() + replay_corpus_cases(Path(tmp))


# --- evaluation -----------------------------------------------------------------------------------


def _module(queries: dict[str, str], with_org: bool) -> str:
    withs = "with input as c.input with data.tasks as c.tasks with data.config as c.config"
    withs += " with data.system.bundles as c.bundles"
    if with_org:
        withs += " with data.org as c.org"
    lines = ["package fastcheck", ""]
    for name, query in queries.items():
        lines += [f"q_{name}(c) := x if {{", f"\tx := {query} {withs}", "} else := null", ""]
    fields = ", ".join(f'"{name}": q_{name}(c)' for name in queries)
    lines += ["results := [r |", "\tsome c in data.fastcheck_cases", f"\tr := {{{fields}}}", "]", ""]
    return "\n".join(lines)


def evaluate(
    cases: list[Case], queries: dict[str, str], batch: int = 2000, rego: Path | None = None
) -> list[dict[str, Any]]:
    """For each case, the value of each query (a data reference) or None where it is undefined,
    under the Rego in `rego` (a directory holding opafence/; this installation's by default)."""
    out: list[dict[str, Any] | None] = [None] * len(cases)
    for with_org in (False, True):
        chosen = [i for i, c in enumerate(cases) if ("org" in c) == with_org]
        for start in range(0, len(chosen), batch):
            idx = chosen[start : start + batch]
            part = [{**cases[i], "bundles": cases[i].get("bundles", {})} for i in idx]
            for i, r in zip(idx, _run(part, queries, with_org, rego or rego_root()), strict=True):
                out[i] = r
    return [r if r is not None else {} for r in out]


def _run(cases: list[Case], queries: dict[str, str], with_org: bool, root: Path) -> list[dict[str, Any]]:
    with tempfile.TemporaryDirectory(prefix="opafence-eval-") as tmp:
        data = Path(tmp) / "cases.json"
        data.write_text(json.dumps({"fastcheck_cases": cases}), encoding="utf-8")
        module = Path(tmp) / "fastcheck.rego"
        module.write_text(_module(queries, with_org), encoding="utf-8")
        argv = [opa_binary(), "eval", "--format", "json", "--strict-builtin-errors", "-d", str(root)]
        argv += ["-d", str(module), "-d", str(data), "data.fastcheck.results"]
        proc = subprocess.run(
            argv,
            capture_output=True,
            text=True,
            timeout=1800,
            check=False,
        )
        if proc.returncode != 0:
            raise RuntimeError(f"opa eval failed: {proc.stderr[:2000] or proc.stdout[:2000]}")
        answer = json.loads(proc.stdout)
        results: list[dict[str, Any]] = answer["result"][0]["expressions"][0]["value"]
        return results
