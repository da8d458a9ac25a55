"""A kill storm: four threads decide while the engine (the primary PDP, or OPA) is killed every
few seconds. Every decision is the one the policy gives or a block from the bridge, never
another answer (0 wrong allows) and never an exception; afterwards decisions are right again.
The figures are printed (-s): how many decisions were right, blocked by the bridge, wrong."""

from __future__ import annotations

import contextlib
import os
import signal
import threading
import time
from pathlib import Path

import pytest

from opafence.decision import Decision
from opafence.host import Host
from opafence.inputs import decision_input
from opafence.opa.bridge import Bridge
from opafence.policy import fallback_policy
from opafence.session import SessionFacts

from ..opa.transports import TRANSPORTS, config_for

HOST = Host(auto_approve=False, interactive=True, platform="cli", workspace=("/ws",), cwd="/ws")
PROBES: list[tuple[str, dict[str, object]]] = [
    ("read_file", {"path": "/ws/a.txt"}),  # allow
    ("some_new_tool", {}),  # ask
    ("terminal", {"command": "rm -rf /"}),  # block
    ("write_file", {"path": "/ws/notes.md", "content": "x"}),
]
THREADS = 4
KILLS = 4
EVERY_S = 3.0


def ask(b: Bridge, n: int) -> Decision:
    tool, args = PROBES[n % len(PROBES)]
    return b.decide(decision_input("t1", tool, args, f"c{n}", SessionFacts(), HOST))


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_kill_storm_gives_no_wrong_answer(tmp_path: Path, transport: str) -> None:
    b = Bridge(config_for(transport, opa={"timeout_ms": 2000}), tmp_path / "state")
    b.start()
    try:
        b.put_task("t1", fallback_policy("t1").to_opa_data())
        baseline = [ask(b, n) for n in range(len(PROBES))]
        assert [d.verdict for d in baseline][:3] == ["allow", "ask", "block"]
        counts = {"right": 0, "bridge_block": 0, "wrong": 0, "wrong_allow": 0, "exception": 0}
        wrong: list[str] = []
        lock = threading.Lock()
        stop = threading.Event()

        def decide_forever(t: int) -> None:
            n = t
            while not stop.is_set():
                try:
                    d = ask(b, n)
                except Exception as e:  # the bridge must never raise
                    with lock:
                        counts["exception"] += 1
                        wrong.append(repr(e))
                    continue
                want = baseline[n % len(PROBES)]
                blocked = False
                with lock:
                    if d == want:
                        counts["right"] += 1
                    elif d.verdict == "block" and d.reasons[0].source == "bridge":
                        counts["bridge_block"] += 1
                        blocked = True
                    else:
                        counts["wrong"] += 1
                        counts["wrong_allow"] += d.verdict == "allow"
                        wrong.append(d.summary())
                n += THREADS
                if blocked:
                    time.sleep(0.005)  # an agent does not retry a blocked call in a tight loop

        threads = [threading.Thread(target=decide_forever, args=(t,)) for t in range(THREADS)]
        for t in threads:
            t.start()
        killed = 0
        try:
            for _ in range(KILLS):
                time.sleep(EVERY_S)
                # Whatever answers now (a restart may still be under way: then as soon as it is up).
                deadline = time.monotonic() + 30
                pid = None
                while pid is None and time.monotonic() < deadline:
                    pid = b.local.opa_pid() if b.local is not None and b.ready else None
                    if pid is None:
                        time.sleep(0.05)
                if pid is not None:
                    with contextlib.suppress(ProcessLookupError):
                        os.kill(pid, signal.SIGKILL)
                        killed += 1
            time.sleep(EVERY_S)
        finally:
            stop.set()
            for t in threads:
                t.join(timeout=30)
        print(f"\n[{transport}] kills {killed}, restarts {b.restarts}, decisions {counts}")
        assert killed == KILLS
        assert counts["exception"] == 0, wrong[:5]
        assert counts["wrong_allow"] == 0 and counts["wrong"] == 0, wrong[:5]
        assert counts["right"] > 0
        # Right again afterwards, with the data.
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and [ask(b, n) for n in range(len(PROBES))] != baseline:
            time.sleep(0.1)
        assert [ask(b, n) for n in range(len(PROBES))] == baseline
    finally:
        b.close()
