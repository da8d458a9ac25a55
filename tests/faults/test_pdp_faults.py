"""Fault injection on the PDP transport: every failure is a block with the right code, never an
exception; a killed, hung or out-of-step PDP is replaced (by its standby at once, or by a full
restart) with its data; a swapped binary is never run; the PDP dies with its host."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from opafence.decision import Decision
from opafence.host import Host
from opafence.inputs import decision_input
from opafence.opa.bridge import Bridge
from opafence.opa.pdp import LocalPdp
from opafence.policy import fallback_policy
from opafence.session import SessionFacts

from ..opa.transports import PDP, config_for, needs_pdp
from .fake_pdp import install

pytestmark = needs_pdp

HOST = Host(auto_approve=False, interactive=True, platform="cli", cwd="/ws", workspace=("/ws",))


def ask(bridge: Bridge, tool: str = "read_file") -> Decision:
    return bridge.decide(decision_input("t1", tool, {"path": "/ws/a"}, "c", SessionFacts(), HOST))


def wait_for(pred: Callable[[], bool], timeout: float = 20.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if pred():
            return True
        time.sleep(0.05)
    return False


def local(b: Bridge) -> LocalPdp:
    assert isinstance(b.local, LocalPdp)
    return b.local


def strict(tmp_path: Path, standby: bool) -> Bridge:
    """A real PDP whose config (strict mode) tells us whether a replacement got the data."""
    b = Bridge(config_for("pdp", mode="strict", opa={"pdp_standby": standby}), tmp_path / "state")
    b.start()
    b.put_task("t1", fallback_policy("t1").to_opa_data())
    return b


@pytest.fixture
def with_standby(tmp_path: Path) -> Iterator[Bridge]:
    b = strict(tmp_path, standby=True)
    try:
        assert wait_for(lambda: local(b).standby is not None), "the standby never came up"
        yield b
    finally:
        b.close()


@pytest.fixture
def alone(tmp_path: Path) -> Iterator[Bridge]:
    b = strict(tmp_path, standby=False)
    try:
        yield b
    finally:
        b.close()


def test_killed_pdp_is_replaced_by_its_standby_with_the_data(with_standby: Bridge) -> None:
    b = with_standby
    pdp = local(b)
    assert ask(b).verdict == "allow"
    assert pdp.primary is not None and pdp.standby is not None
    old, standby = pdp.primary.pid, pdp.standby.pid
    assert old is not None
    os.kill(old, signal.SIGKILL)
    started = time.monotonic()
    d = ask(b)
    took = time.monotonic() - started
    # Answered by the standby at once: the same decision, not a block.
    assert d.verdict == "allow", d.summary()
    assert took < 0.5, took
    again = ask(b, "mystery")
    assert again.verdict == "block" and again.reasons[0].code == "UNKNOWN_TOOL"  # still strict
    assert pdp.failovers == 1 and b.full_restarts == 0 and b.restarts == 1
    assert pdp.opa_pid() == standby
    # ...and a new standby follows, fed the same data.
    assert wait_for(lambda: pdp.standby is not None and pdp.standby.pid not in (old, standby))
    assert pdp.standby is not None
    pdp.kill()
    assert wait_for(lambda: pdp.failovers == 2)
    assert ask(b, "mystery").reasons[0].code == "UNKNOWN_TOOL"


def test_killed_pdp_without_standby_blocks_then_restarts_with_data(alone: Bridge) -> None:
    b = alone
    assert ask(b).verdict == "allow"
    pid = local(b).opa_pid()
    assert pid is not None
    os.kill(pid, signal.SIGKILL)
    d = ask(b)
    assert d.verdict == "block"
    assert d.reasons[0].code == "OPA_UNAVAILABLE"
    assert wait_for(lambda: b.restarts == 1 and b.ready, 20), "the PDP was not restarted"
    assert local(b).opa_pid() not in (None, pid)
    assert ask(b).verdict == "allow"
    again = ask(b, "mystery")
    assert again.verdict == "block" and again.reasons[0].code == "UNKNOWN_TOOL"


@pytest.mark.parametrize("standby", [True, False], ids=["standby", "alone"])
def test_hung_pdp_times_out_then_recovers(tmp_path: Path, standby: bool) -> None:
    b = strict(tmp_path, standby)
    try:
        pdp = local(b)
        if standby:
            assert wait_for(lambda: pdp.standby is not None)
        pid = pdp.opa_pid()
        assert pid is not None
        os.kill(pid, signal.SIGSTOP)
        try:
            for _ in range(2):  # one slow answer is a timeout; a second one in a row is a hang
                d = ask(b)
                assert d.verdict == "block"
                assert d.reasons[0].code == "OPA_TIMEOUT"
        finally:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGCONT)
        # A hung PDP is killed and never asked again.
        assert wait_for(lambda: ask(b).verdict == "allow")
        assert pdp.opa_pid() != pid
        assert wait_for(lambda: not alive(pid), 5)
    finally:
        b.close()


def test_a_slow_answer_is_a_timeout_and_the_stream_stays_in_step(alone: Bridge) -> None:
    """The late answer is read and dropped by the next call, which gets its own answer."""
    b = alone
    pdp = local(b)
    pid = pdp.opa_pid()
    assert pid is not None
    os.kill(pid, signal.SIGSTOP)
    try:
        d = ask(b)
        assert d.verdict == "block" and d.reasons[0].code == "OPA_TIMEOUT"
    finally:
        os.kill(pid, signal.SIGCONT)
    assert ask(b, "mystery").reasons[0].code == "UNKNOWN_TOOL"  # its own answer, not the late one
    assert ask(b).verdict == "allow"
    assert pdp.opa_pid() == pid and b.restarts == 0


def test_restart_refuses_a_pdp_binary_that_changed(tmp_path: Path) -> None:
    """Checked once at start; a restart or a new standby runs exactly that binary or nothing."""
    import shutil

    assert PDP is not None
    copy = tmp_path / "opafence-pdp"
    shutil.copy2(PDP.path, copy)
    b = Bridge(config_for("pdp", opa={"pdp_binary": str(copy)}), tmp_path / "state")
    try:
        b.start()
        pdp = local(b)
        assert pdp.binary.path == copy
        assert wait_for(lambda: pdp.standby is not None)
        swapped = copy.with_name("opafence-pdp.new")
        swapped.write_bytes(copy.read_bytes() + b"\0tampered")
        swapped.chmod(0o755)
        os.replace(swapped, copy)
        for _ in range(2):  # the standby takes over; then nothing may replace either
            pid = pdp.opa_pid()
            if pid is not None:
                os.kill(pid, signal.SIGKILL)
            time.sleep(0.3)
        assert wait_for(lambda: b.last_error is not None and "changed since" in b.last_error.sentence(), 15)
        assert not b.ready
        assert ask(b).verdict == "block"
        assert pdp.standby is None
    finally:
        b.close()


# --- a fake PDP, for answers the real one never gives ------------------------------------------------


@pytest.mark.parametrize(
    ("mode", "code"),
    [
        ("garbage", "OPA_BAD_RESULT"),
        ("http500", "OPA_HTTP_ERROR"),
        ("undefined", "OPA_UNDEFINED"),
        ("wrong_shape", "OPA_BAD_RESULT"),
        ("not_object", "OPA_BAD_RESULT"),
        ("result_string", "OPA_BAD_RESULT"),
        ("slow", "OPA_TIMEOUT"),
        ("badmac", "OPA_BAD_RESULT"),
        ("badseq", "OPA_BAD_RESULT"),
        ("torn", "OPA_UNAVAILABLE"),
    ],
)
def test_fake_pdp_faults_block(tmp_path: Path, mode: str, code: str) -> None:
    fake = install(tmp_path)
    b = Bridge(config_for("pdp", opa={"pdp_binary": str(fake), "pdp_standby": False}), tmp_path / "state")
    b.start()
    try:
        mode_file = local(b).run_dir / "mode"
        mode_file.write_text(mode)
        d = ask(b)
        assert d.verdict == "block"
        assert d.reasons[0].code == code, d.summary()
        assert d.reasons[0].source == "bridge"
        # ...and a good answer afterwards is taken again (from a new PDP when the stream broke).
        mode_file.write_text("good")
        assert wait_for(lambda: ask(b).verdict == "allow")
    finally:
        b.close()


# --- the host goes away ------------------------------------------------------------------------------

HOST_SCRIPT = textwrap.dedent(
    """
    import json, sys, threading, time
    from pathlib import Path
    from opafence.config import Config
    from opafence.opa.bridge import Bridge

    holder = {}

    def start():
        # Started from a worker thread that exits right after, as Hermes hooks do.
        b = Bridge(Config.model_validate({"opa": {"transport": "pdp"}}), Path(sys.argv[1]))
        b.start()
        holder["b"] = b

    t = threading.Thread(target=start)
    t.start()
    t.join()
    b = holder["b"]
    deadline = time.monotonic() + 30
    while b.local.standby is None and time.monotonic() < deadline:
        time.sleep(0.05)
    print(json.dumps({"pids": list(b.opa_pids()), "ready": b.ready}), flush=True)
    time.sleep(300)
    """
)


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
        state = Path(f"/proc/{pid}/stat").read_text().split()[2]
    except (ProcessLookupError, OSError):
        return False
    return state != "Z"


def test_pdps_die_with_a_killed_host(tmp_path: Path) -> None:
    host = subprocess.Popen(
        [sys.executable, "-c", HOST_SCRIPT, str(tmp_path / "state")], stdout=subprocess.PIPE, text=True
    )
    try:
        assert host.stdout is not None
        info = json.loads(host.stdout.readline())
        assert info["ready"] is True and len(info["pids"]) == 2, info
        assert all(alive(pid) for pid in info["pids"]), "a PDP died when the starting thread exited"
        os.kill(host.pid, signal.SIGKILL)
        host.wait()
        assert wait_for(lambda: not any(alive(pid) for pid in info["pids"]), 10), "a PDP outlived its host"
    finally:
        if host.poll() is None:
            host.kill()
