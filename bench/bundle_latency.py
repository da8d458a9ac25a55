"""What bundles cost on the decision path, and what watching their status costs beside it.

Variants, each with a fresh OPA, the same mixed calls as decision_latency.py:
  sources        our Rego staged as a directory bundle (the default)
  optimized      the `make bundle` tarball (opa build --optimize=1)
  optimized-O2   the same with --optimize=2 (more inlining; for comparison only)
  signed         the same, signed (ES256) and verified by OPA at load
  +org           sources plus bundles/org-example (org rules and the bundle-roots check run)
  +decision-logs sources plus decision logs to a collector on loopback (masking runs per decision)
Then the background watcher's requests: GET /v1/status and GET /v1/data/system/bundles.

Prints p50/p99 (µs) end to end and OPA's own evaluation time; `--json` prints one object.

    .venv/bin/python bench/bundle_latency.py [--calls 5000] [--rounds 3] [--json]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec

from opafence.config import Config
from opafence.host import Host
from opafence.judge import Judge
from opafence.opa.bridge import Bridge
from opafence.opa.own_bundle import build
from opafence.session import SessionFacts

sys.path.insert(0, str(Path(__file__).resolve().parent))
from decision_latency import MIXED_CALLS, percentile

REPO = Path(__file__).resolve().parents[1]


class _Sink(BaseHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        pass

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        self.send_response(200)
        self.send_header("Content-Length", "0")
        self.end_headers()


def measure(config: Config, calls: int, tmp: Path) -> dict[str, Any]:
    bridge = Bridge(config, tmp)
    bridge.start()
    try:
        host = Host(
            auto_approve=False, interactive=True, platform="bench", workspace=(str(tmp),), cwd=str(tmp)
        )
        judge = Judge(bridge, host, config)
        state = judge.open_task(
            "bench", "Fix the failing test in src/app and run the tests. Don't send email."
        )
        for tool, args in MIXED_CALLS * 20:
            judge.judge(state, tool, args, assume_executed=False)
        e2e: list[float] = []
        evals: list[float] = []
        for i in range(calls):
            tool, args = MIXED_CALLS[i % len(MIXED_CALLS)]
            state.session = SessionFacts()
            t0 = time.perf_counter_ns()
            judged = judge.judge(state, tool, args, assume_executed=False)
            e2e.append((time.perf_counter_ns() - t0) / 1000.0)
            if i < 2000:
                answer = bridge.query(judged.input, "&metrics=true")
                evals.append(answer["metrics"].get("timer_rego_query_eval_ns", 0) / 1000.0)
        status = watcher_costs(bridge) if bridge.bundles is not None else {}
    finally:
        bridge.close()
    e2e.sort()
    evals.sort()
    return {
        "p50_us": round(percentile(e2e, 0.5), 1),
        "p99_us": round(percentile(e2e, 0.99), 1),
        "mean_us": round(statistics.fmean(e2e), 1),
        "opa_eval_p50_us": round(percentile(evals, 0.5), 1),
        "opa_eval_p99_us": round(percentile(evals, 0.99), 1),
        **status,
    }


def watcher_costs(bridge: Bridge, n: int = 500) -> dict[str, Any]:
    """What one poll of the bundle watcher costs (it runs in the background, not per decision)."""
    assert bridge.client is not None
    out: dict[str, Any] = {}
    for name, path in [("status", "/v1/status"), ("manifests", "/v1/data/system/bundles")]:
        times = []
        size = 0
        for _ in range(n):
            t0 = time.perf_counter_ns()
            status, body = bridge.client.request("GET", path, timeout_s=2.0)
            times.append((time.perf_counter_ns() - t0) / 1000.0)
            size = len(body)
            assert status == 200, (path, status)
        times.sort()
        out[f"{name}_p50_us"] = round(percentile(times, 0.5), 1)
        out[f"{name}_p99_us"] = round(percentile(times, 0.99), 1)
        out[f"{name}_bytes"] = size
    return out


def es256_key(directory: Path) -> tuple[Path, Path]:
    key = ec.generate_private_key(ec.SECP256R1())
    private, public = directory / "k.pem", directory / "k.pub.pem"
    private.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
        )
    )
    public.write_bytes(
        key.public_key().public_bytes(
            serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
        )
    )
    return private, public


def run(calls: int, rounds: int = 3) -> dict[str, Any]:
    results: dict[str, Any] = {"calls": calls, "rounds": rounds}
    sink = ThreadingHTTPServer(("127.0.0.1", 0), _Sink)
    threading.Thread(target=sink.serve_forever, daemon=True).start()
    try:
        with tempfile.TemporaryDirectory(prefix="opafence-bench-bundles-") as t:
            tmp = Path(t)
            optimized = tmp / "opt.tar.gz"
            build(optimized)
            optimized2 = tmp / "opt2.tar.gz"
            build(optimized2, optimize=2)
            private, public = es256_key(tmp)
            signed = tmp / "signed.tar.gz"
            build(signed, signing_key=private, signing_alg="ES256")
            org = [{"name": "acme", "path": str(REPO / "bundles" / "org-example")}]
            collector = f"http://127.0.0.1:{sink.server_address[1]}/logs"
            variants: dict[str, dict[str, Any]] = {
                "sources": {},
                "optimized": {"bundle": {"path": str(optimized)}},
                "optimized-O2": {"bundle": {"path": str(optimized2)}},
                "signed": {
                    "bundle": {
                        "path": str(signed),
                        "signing": {"public_key_file": str(public), "algorithm": "ES256"},
                    }
                },
                "+org": {"org_bundles": org},
                "optimized+org": {"org_bundles": org, "bundle": {"path": str(optimized)}},
                "+decision-logs": {
                    "decision_logs": {"url": collector, "min_delay_seconds": 1, "max_delay_seconds": 2}
                },
            }
            # Rounds interleave the variants, so a noisy moment hits all of them alike; each
            # figure is the median over the rounds.
            runs: dict[str, list[dict[str, Any]]] = {name: [] for name in variants}
            for r in range(rounds):
                for name, raw in variants.items():
                    # A generous timeout: a noisy machine must not turn a slow answer into a block.
                    config = Config.model_validate({**raw, "opa": {"timeout_ms": 5000}})
                    runs[name].append(measure(config, calls, tmp / f"{name}-{r}"))
            for name, measured in runs.items():
                results[name] = {k: statistics.median(m[k] for m in measured) for k in measured[0]}
    finally:
        sink.shutdown()
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--calls", type=int, default=5000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    result = run(args.calls, args.rounds)
    if args.json:
        print(json.dumps(result))
        return
    print(
        f"decisions: {result['calls']} mixed calls per variant and round, median of {result['rounds']} "
        "rounds "
        "(facts + input + OPA + validation)"
    )
    print(f"  {'variant':<16} {'e2e p50':>9} {'e2e p99':>9} {'eval p50':>9} {'eval p99':>9}   (µs)")
    for name, r in result.items():
        if name in {"calls", "rounds"}:
            continue
        row = [r["p50_us"], r["p99_us"], r["opa_eval_p50_us"], r["opa_eval_p99_us"]]
        print(f"  {name:<16} " + " ".join(f"{v:>9}" for v in row))
    org = result["+org"]
    print("bundle watcher, per poll (background thread, default every 2 s; never per decision):")
    print(f"  GET /v1/status               p50 {org['status_p50_us']} µs, p99 {org['status_p99_us']} µs, "
          f"{org['status_bytes']} bytes")  # fmt: skip
    print(f"  GET /v1/data/system/bundles  p50 {org['manifests_p50_us']} µs, "
          f"p99 {org['manifests_p99_us']} µs (only after an activation)")  # fmt: skip


if __name__ == "__main__":
    main()
