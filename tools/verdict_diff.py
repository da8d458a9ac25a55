"""The verdict diff: every corpus through the whole pipeline (compile → facts → input → decide),
recorded per call, so a refactor can show it changed no decision.

tools/decision_snapshot.py compares two versions of the Rego on recorded inputs; this one runs
the Python too: each line of every corpus under tests/data goes through replay's own path
(`replay_line` on a `Judge`, the real compiler, facts builder and OPA), and each call's verdict,
reason codes and classes are written as one JSON line, with the policy each message compiled to.

    .venv/bin/python tools/verdict_diff.py record after.jsonl [--only guards/ ...]
    .venv/bin/python tools/verdict_diff.py compare before.jsonl after.jsonl [--calls-only]
    .venv/bin/python tools/verdict_diff.py against main [--keep DIR] [--only ...]

`against REF` unpacks REF's adapter/ and rego/ (git archive) into a temporary directory and
records with that code first (PYTHONPATH=<tmp>/adapter, this venv's dependencies), then with this
checkout's working tree, and compares. The corpora, the hosts they are judged on and this script
always come from this checkout, so only the code differs. Both runs use the same opa binary and,
by default, the stock opa server (`--transport pdp` uses this checkout's opafence-pdp for both).

What is recorded (tests/data/**.jsonl, by the shape of each file's lines):
- replay lines ({"user_message", "calls"}): guards/*, intent/abuse/*, intent/coverage/* (with
  <ws> filled in), provenance*/* (attended and unattended, the value bound a session asks for),
  corpus/replay_transcripts (attended and unattended); a file elsewhere gets the guard host;
- single calls under named policies (corpus/*.jsonl, corpus/policies.json);
- messages ({"m"} or {"msgs"}: intent/*.jsonl): the compiled policy, and the latency bench's
  calls (bench/decision_latency.py MIXED_CALLS) judged under it;
- the latency bench itself: its task message and its calls.
A .jsonl file of none of these shapes is named on stderr, so a new corpus is not skipped silently.

Exit status of compare and against: 1 when the snapshots differ (every difference is printed).
"""

from __future__ import annotations

import argparse
import ast
import dataclasses
import json
import os
import subprocess
import sys
import tarfile
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "tests" / "data"
BENCH = ROOT / "bench" / "decision_latency.py"
# tests.* (the corpora's hosts and named policies) and tools/ from this checkout; `opafence`
# itself comes from sys.path as it is, so PYTHONPATH can point it at another ref's adapter/.
for extra in (ROOT / "tools", ROOT):
    if str(extra) not in sys.path:
        sys.path.insert(0, str(extra))

Row = dict[str, Any]
BENCH_MESSAGE = "Fix the failing test in src/app and run the tests. Don't send email."
VOLATILE = ("created_at", "updated_at")


# --- reading the corpora ---------------------------------------------------------------------------


def read_lines(path: Path) -> list[tuple[int, dict[str, Any]]]:
    out = []
    for n, raw in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if raw.strip():
            out.append((n, json.loads(raw)))
    return out


def shape(lines: list[tuple[int, dict[str, Any]]]) -> str:
    """What a corpus file holds, from its first line: replay lines, messages or single calls."""
    if not lines:
        return "empty"
    first = lines[0][1]
    if "user_message" in first and "calls" in first:
        return "replay"
    if "m" in first or "msgs" in first:
        return "message"
    if "policy" in first and "tool" in first:
        return "call"
    return "unknown"


def bench_calls() -> list[tuple[str, dict[str, Any]]]:
    """MIXED_CALLS of the latency bench, read from its source (importing the bench would tie this
    script to the names the bench imports, which another ref's code may not have)."""
    tree = ast.parse(BENCH.read_text(encoding="utf-8"))
    for node in tree.body:
        if isinstance(node, ast.AnnAssign | ast.Assign):
            targets = [node.target] if isinstance(node, ast.AnnAssign) else node.targets
            if any(isinstance(t, ast.Name) and t.id == "MIXED_CALLS" for t in targets) and node.value:
                # Our own bench's literal (strings, lists, dicts and `"..." * 20`), no names.
                code = compile(ast.Expression(node.value), str(BENCH), "eval")
                calls: list[tuple[str, dict[str, Any]]] = eval(code, {"__builtins__": {}})  # noqa: S307
                return calls
    raise LookupError(f"{BENCH.name} has no MIXED_CALLS")


def name_of(rel: str, n: int, line: dict[str, Any]) -> str:
    return f"{rel}:{n} {line['id']}" if "id" in line else f"{rel}:{n}"


def call_row(name: str, tool: str, verdict: str, codes: list[str], classes: list[str]) -> Row:
    return {"name": name, "tool": tool, "verdict": verdict, "codes": codes, "classes": classes}


def policy_row(name: str, policy: dict[str, Any], key: str) -> Row:
    """The compiled policy without what differs from run to run (its times and task key)."""
    kept = {k: v for k, v in policy.items() if k not in VOLATILE}
    return {"name": name, "policy": json.loads(json.dumps(kept).replace(json.dumps(key)[1:-1], "<task>"))}


# --- judging ------------------------------------------------------------------------------------


class Recorder:
    """Bridges (one per configuration mode) and judges (one per host and configuration), started
    once for the whole run."""

    def __init__(self, state: Path, transport: str) -> None:
        self.state = state
        self.transport = transport
        self.bridges: dict[str, Any] = {}
        self.judges: dict[tuple[str, str, int | None], Any] = {}
        self.serial = 0

    def config(self, mode: str = "enforce", max_values: int | None = None) -> Any:
        from opafence.config import Config

        raw: dict[str, Any] = {"mode": mode, "opa": {"transport": self.transport, "timeout_ms": 30_000}}
        if self.transport == "pdp":
            raw["opa"]["pdp_binary"] = str(ROOT / ".tools" / "bin" / "opafence-pdp")
        if max_values is not None:
            raw["provenance"] = {"max_values": max_values}
        return Config.model_validate(raw)

    def bridge(self, mode: str = "enforce") -> Any:
        from opafence.opa.bridge import Bridge

        if mode not in self.bridges:
            bridge = Bridge(self.config(mode), self.state / mode)
            bridge.start()
            self.bridges[mode] = bridge
        return self.bridges[mode]

    def judge(self, host: Any, mode: str = "enforce", max_values: int | None = None) -> Any:
        from opafence.judge import Judge

        key = (repr(host), mode, max_values)
        if key not in self.judges:
            self.judges[key] = Judge(self.bridge(mode), host, self.config(mode, max_values))
        return self.judges[key]

    def close(self) -> None:
        for bridge in self.bridges.values():
            bridge.close()

    def task_key(self) -> str:
        self.serial += 1
        return f"verdict-diff-{self.serial}"


def pinned(host: Any) -> Any:
    """A host with the package and code directories of the guard corpora's fictional machine:
    their defaults are where this opafence is installed, which differs between the two runs."""
    from tests.opa.test_guard_corpora import HOST

    return dataclasses.replace(host, package_dir=HOST.package_dir, code_dirs=HOST.code_dirs)


def replay_rows(judge: Any, name: str, line: dict[str, Any]) -> Iterator[Row]:
    from opafence.replay import replay_line

    out = replay_line(judge, json.dumps(line))
    if "error" in out:
        yield {"name": name, "error": out["error"]}
        return
    yield policy_row(name, out["policy"], out["policy"]["task"])
    for i, v in enumerate(out["verdicts"]):
        codes = [r["code"] for r in v["reasons"]]
        yield call_row(f"{name} #{i}", v["tool"], v["verdict"], codes, list(v["classes"]))


def judged_row(name: str, tool: str, judged: Any) -> Row:
    d = judged.decision
    return call_row(name, tool, d.verdict, [r.code for r in d.reasons], list(d.classes))


def fill(value: Any, workspace: str) -> Any:
    from opafence.coverage_corpus import _fill

    return _fill(value, workspace)


Prepare = Callable[[dict[str, Any]], Any]
Pick = Callable[[dict[str, Any]], Any]


def replay_runs(rec: Recorder, rel: str) -> list[tuple[str, Prepare, Pick]]:
    """(label, how a line is prepared, which judge decides it) for each way a corpus runs."""
    from tests.opa.test_guard_corpora import HOST

    def same(line: dict[str, Any]) -> Any:
        return line

    def on(host: Any) -> Pick:
        return lambda line: rec.judge(host)

    if rel.startswith("intent/coverage/"):
        ws = f"{HOST.home}/project"
        host = pinned(dataclasses.replace(HOST, workspace=(ws,), cwd=ws))
        return [("", lambda line: fill(line, ws), on(host))]
    unattended = dataclasses.replace(HOST, auto_approve=True, interactive=False, platform="cron")
    if rel.startswith("provenance"):
        from provenance_figures import host as prov_host

        def bound(attended: bool) -> Pick:
            h = pinned(prov_host(attended))
            return lambda line: rec.judge(h, max_values=1000 if line.get("max_values") else None)

        return [("", same, bound(True)), (" (unattended)", same, bound(False))]
    if rel.startswith("corpus/replay"):
        return [("", same, on(HOST)), (" (unattended)", same, on(unattended))]
    return [("", same, on(HOST))]


def record_replay(rec: Recorder, rel: str, lines: list[tuple[int, dict[str, Any]]]) -> Iterator[Row]:
    for label, prepare, pick in replay_runs(rec, rel):
        for n, line in lines:
            yield from replay_rows(pick(line), name_of(rel, n, line) + label, prepare(line))


def record_calls(rec: Recorder, rel: str, lines: list[tuple[int, dict[str, Any]]]) -> Iterator[Row]:
    """Single calls under the named policies of corpus/policies.json, as test_corpus_policies."""
    from tests.opa.test_corpus_policies import ATTENDED, POLICIES, UNATTENDED

    from opafence.judge import TaskState
    from opafence.policy import fallback_policy

    for n, line in lines:
        mode = line.get("mode", "enforce")
        host = pinned(UNATTENDED if line.get("host") == "unattended" else ATTENDED)
        judge = rec.judge(host, mode)
        key = rec.task_key()
        judge.bridge.put_task(key, {**POLICIES[line["policy"]], "task": key})
        state = TaskState(key=key, policy=fallback_policy(key))  # the pushed policy decides
        state.session.counters.update(line.get("counters", {}))
        try:
            judged = judge.judge(state, line["tool"], line["args"], "call-1", assume_executed=False)
        finally:
            judge.bridge.delete_task(key)
        yield judged_row(name_of(rel, n, line), line["tool"], judged)


def judge_under(judge: Any, state: Any, name: str) -> Iterator[Row]:
    """The bench's calls, each on a fresh session (as the bench keeps the input steady)."""
    from opafence.session import SessionFacts

    for i, (tool, args) in enumerate(bench_calls()):
        state.session = SessionFacts()
        yield judged_row(f"{name} #{i}", tool, judge.judge(state, tool, args, assume_executed=False))


def record_messages(rec: Recorder, rel: str, lines: list[tuple[int, dict[str, Any]]]) -> Iterator[Row]:
    """Each message compiled as test_intent_corpus compiles it (a follow-up message by message,
    with its sender), then the bench's calls judged under the policy."""
    from tests.unit.test_intent_corpus import HOST

    from opafence.intent import compile_message
    from opafence.judge import TaskState

    host = pinned(HOST)
    judge = rec.judge(host)
    for n, line in lines:
        name = name_of(rel, n, line)
        key = rec.task_key()
        msgs = line["msgs"] if "msgs" in line else [[line.get("owner", ""), line["m"]]]
        policy = None
        for index, (sender, message) in enumerate(msgs, start=1):
            owner = line.get("owner", "") if policy is None else sender
            policy = compile_message(
                message, task=key, host=host, owner=owner, previous=policy, message_index=index
            )
        assert policy is not None
        data = policy.to_opa_data()
        yield policy_row(name, data, key)
        judge.bridge.put_task(key, data)
        try:
            yield from judge_under(judge, TaskState(key=key, policy=policy), name)
        finally:
            judge.bridge.delete_task(key)


def record_bench(rec: Recorder) -> Iterator[Row]:
    """The latency bench's task and calls, on a fixed host like the bench's own."""
    from opafence.host import Host

    home = "/home/dev"
    host = pinned(
        Host(
            auto_approve=False,
            interactive=True,
            platform="bench",
            workspace=(f"{home}/project",),
            cwd=f"{home}/project",
            home=home,
            hermes_home=f"{home}/.hermes",
            state_dir=f"{home}/.hermes/opafence",
        )
    )
    judge = rec.judge(host)
    state = judge.open_task(rec.task_key(), BENCH_MESSAGE)
    try:
        yield policy_row("bench/decision_latency.py", state.policy.to_opa_data(), state.key)
        yield from judge_under(judge, state, "bench/decision_latency.py")
    finally:
        judge.close_task(state)


RECORDERS = {"replay": record_replay, "call": record_calls, "message": record_messages}


def corpus_files(only: list[str]) -> list[Path]:
    files = sorted(DATA.rglob("*.jsonl"))
    return [p for p in files if not only or any(o in p.relative_to(DATA).as_posix() for o in only)]


def record(out: Path, only: list[str], transport: str) -> int:
    import opafence

    rows = 0
    with tempfile.TemporaryDirectory(prefix="opafence-verdicts-state-") as tmp, open(out, "w") as f:
        rec = Recorder(Path(tmp), transport)
        try:
            for path in corpus_files(only):
                rel = path.relative_to(DATA).as_posix()
                lines = read_lines(path)
                kind = shape(lines)
                if kind not in RECORDERS:
                    print(f"not recorded: tests/data/{rel} ({kind})", file=sys.stderr)
                    continue
                for row in RECORDERS[kind](rec, rel, lines):
                    f.write(json.dumps(row, sort_keys=True) + "\n")
                    rows += 1
            if not only or any(o in "bench/decision_latency.py" for o in only):
                for row in record_bench(rec):
                    f.write(json.dumps(row, sort_keys=True) + "\n")
                    rows += 1
        finally:
            rec.close()
    print(f"{rows} rows recorded with opafence from {Path(opafence.__file__).parent}", file=sys.stderr)
    return 0


# --- comparing ----------------------------------------------------------------------------------


def read_jsonl(path: Path) -> list[Row]:
    return [json.loads(raw) for raw in path.read_text(encoding="utf-8").splitlines() if raw.strip()]


def differences(before: list[Row], after: list[Row], calls_only: bool = False) -> list[str]:
    """Every row that is in one snapshot only or differs between them, in the snapshots' order."""

    def keyed(rows: list[Row]) -> dict[str, Row]:
        return {r["name"]: r for r in rows if not (calls_only and "policy" in r)}

    b, a = keyed(before), keyed(after)
    out = []
    for name in [*b, *(n for n in a if n not in b)]:
        if name not in a:
            out.append(f"{name}: only before {show(b[name])}")
        elif name not in b:
            out.append(f"{name}: only after {show(a[name])}")
        elif a[name] != b[name]:
            fields = sorted(k for k in {*a[name], *b[name]} if a[name].get(k) != b[name].get(k))
            was, now = show(b[name], fields), show(a[name], fields)
            out.append(f"{name}: {', '.join(fields)}\n  before {was}\n  after  {now}")
    return out


def show(row: Row, fields: list[str] | None = None) -> str:
    picked = {k: v for k, v in row.items() if k != "name" and (fields is None or k in fields or k == "tool")}
    return json.dumps(picked, sort_keys=True)[:600]


# --- against a git ref --------------------------------------------------------------------------


def export(ref: str, dest: Path) -> None:
    """REF's adapter/ and rego/ (and what the adapter reads beside them) unpacked into dest."""
    archive = dest / "ref.tar"
    with open(archive, "wb") as f:
        subprocess.run(
            ["git", "-C", str(ROOT), "archive", ref, "adapter", "rego", "bundles", "pyproject.toml"],
            stdout=f,
            check=True,
        )
    with tarfile.open(archive) as tar:
        tar.extractall(dest, filter="data")


def opa_env() -> dict[str, str]:
    """This checkout's opa for both runs (another ref's tree has no .tools/)."""
    from opafence.opa.binary import resolve

    env = dict(os.environ)
    env["OPAFENCE_OPA_BIN"] = str(resolve(None, None).path)
    return env


def record_with(out: Path, adapter: Path | None, passthrough: list[str]) -> None:
    env = opa_env()
    if adapter is not None:
        env["PYTHONPATH"] = os.pathsep.join([str(adapter), *filter(None, [env.get("PYTHONPATH")])])
    argv = [sys.executable, str(Path(__file__).resolve()), "record", str(out), *passthrough]
    subprocess.run(argv, env=env, check=True)


def against(ref: str, keep: Path | None, passthrough: list[str], calls_only: bool) -> int:
    with tempfile.TemporaryDirectory(prefix="opafence-verdicts-") as tmp:
        where = keep or Path(tmp)
        where.mkdir(parents=True, exist_ok=True)
        export(ref, Path(tmp))
        before, after = where / "before.jsonl", where / "after.jsonl"
        record_with(before, Path(tmp) / "adapter", passthrough)
        record_with(after, None, passthrough)
        old, new = read_jsonl(before), read_jsonl(after)
        diffs = differences(old, new, calls_only)
    calls = sum(1 for r in new if "verdict" in r)
    print(f"{len(new)} rows ({calls} calls), {ref} against this checkout")
    return report(diffs)


def report(diffs: list[str]) -> int:
    """Print every difference, then their count; the exit status: 1 when there is any."""
    for d in diffs:
        print(d)
    print(f"{len(diffs)} differences")
    return 1 if diffs else 0


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    sub = parser.add_subparsers(dest="command", required=True)
    rec = sub.add_parser("record", help="record every corpus's decisions as JSON lines")
    rec.add_argument("out", type=Path)
    cmp_ = sub.add_parser("compare", help="print every difference of two snapshots")
    cmp_.add_argument("before", type=Path)
    cmp_.add_argument("after", type=Path)
    ref = sub.add_parser("against", help="record with a git ref's code and with this checkout's, compare")
    ref.add_argument("ref")
    ref.add_argument("--keep", type=Path, help="write before.jsonl and after.jsonl into this directory")
    for p in (rec, ref):
        p.add_argument("--only", action="append", default=[], help="corpora whose tests/data path has this")
        p.add_argument("--transport", choices=["server", "pdp"], default="server")
    for p in (cmp_, ref):
        p.add_argument("--calls-only", action="store_true", help="ignore the compiled policies")
    args = parser.parse_args()

    if args.command == "record":
        return record(args.out, args.only, args.transport)
    if args.command == "against":
        passthrough = [x for o in args.only for x in ("--only", o)] + ["--transport", args.transport]
        return against(args.ref, args.keep, passthrough, args.calls_only)
    return report(differences(read_jsonl(args.before), read_jsonl(args.after), args.calls_only))


if __name__ == "__main__":
    sys.exit(main())
