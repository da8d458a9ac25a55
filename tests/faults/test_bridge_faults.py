"""Fault injection on the real bridge: every failure is a block with the right code, never an
exception, and decisions recover once OPA is back. The local tests here run the stock opa
server (transport "server"); test_pdp_faults.py does the same for opafence-pdp."""

from __future__ import annotations

import os
import signal
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from opafence.config import Config, OpaConfig
from opafence.decision import Decision
from opafence.host import Host
from opafence.inputs import decision_input
from opafence.opa.bridge import Bridge
from opafence.policy import fallback_policy
from opafence.session import SessionFacts

from .fake_opa import FakeOpa

HOST = Host(auto_approve=False, interactive=True, platform="cli", cwd="/ws", workspace=("/ws",))


def ask(bridge: Bridge, tool: str = "read_file") -> Decision:
    return bridge.decide(decision_input("t1", tool, {"path": "/ws/a"}, "c", SessionFacts(), HOST))


def wait_for(pred: object, timeout: float = 15.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if pred():  # type: ignore[operator]
            return True
        time.sleep(0.05)
    return False


@pytest.fixture
def strict_bridge(tmp_path: Path) -> Iterator[Bridge]:
    """A real local OPA whose config (strict mode) tells us whether a restart re-pushed it."""
    b = Bridge(Config(mode="strict", opa=OpaConfig(transport="server")), tmp_path / "state")
    b.start()
    b.put_task("t1", fallback_policy("t1").to_opa_data())
    try:
        yield b
    finally:
        b.close()


def test_opa_killed_blocks_then_recovers_with_data_repushed(strict_bridge: Bridge) -> None:
    b = strict_bridge
    assert ask(b).verdict == "allow"
    assert ask(b, "mystery").verdict == "block"  # strict: unknown blocks
    assert b.local is not None
    pid = b.local.opa_pid()
    assert pid is not None
    os.kill(pid, signal.SIGKILL)
    d = ask(b)
    assert d.verdict == "block"
    assert d.reasons[0].code == "OPA_UNAVAILABLE"
    assert wait_for(lambda: b.restarts == 1 and b.ready, 20), "OPA was not restarted"
    assert b.local.opa_pid() not in (None, pid)
    assert ask(b).verdict == "allow"
    # Config re-pushed: still strict, so the unknown tool blocks instead of asking.
    again = ask(b, "mystery")
    assert again.verdict == "block" and again.reasons[0].code == "UNKNOWN_TOOL"
    assert b.restarts == 1


def test_opa_stopped_times_out_then_recovers(strict_bridge: Bridge) -> None:
    b = strict_bridge
    assert b.local is not None
    pid = b.local.opa_pid()
    assert pid is not None
    os.kill(pid, signal.SIGSTOP)
    try:
        d = ask(b)
        assert d.verdict == "block"
        assert d.reasons[0].code == "OPA_TIMEOUT"
    finally:
        os.kill(pid, signal.SIGCONT)
    assert wait_for(lambda: ask(b).verdict == "allow")


def test_socket_removed_blocks_then_recovers(strict_bridge: Bridge) -> None:
    b = strict_bridge
    assert b.local is not None and b.client is not None
    b.local.socket_path.unlink()
    b.client.close()  # pooled connections would otherwise keep working
    d = ask(b)
    assert d.verdict == "block"
    assert d.reasons[0].code == "OPA_UNAVAILABLE"
    # The bridge notices the socket is gone and restarts OPA.
    assert wait_for(lambda: ask(b).verdict == "allow", 20)


def test_wrong_token_blocks(strict_bridge: Bridge) -> None:
    b = strict_bridge
    assert b.client is not None
    b.client.set_token("wrong")
    b.client.close()
    d = ask(b)
    assert d.verdict == "block"
    assert d.reasons[0].code == "OPA_HTTP_ERROR"
    assert "401" in d.reasons[0].message


def test_decide_before_start_blocks(tmp_path: Path) -> None:
    d = ask(Bridge(Config(), tmp_path))
    assert d.verdict == "block" and d.reasons[0].code == "OPA_UNAVAILABLE"


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
    ],
)
def test_fake_server_faults_block(tmp_path: Path, mode: str, code: str) -> None:
    sock = tmp_path / "fake.sock"
    token = tmp_path / "token"
    token.write_text("tok\n")
    with FakeOpa(sock) as fake:
        b = Bridge(Config(opa=OpaConfig(url=f"unix://{sock}", token_file=str(token))), tmp_path / "state")
        b.start()
        fake.set_mode(mode)
        d = ask(b)
        assert d.verdict == "block"
        assert d.reasons[0].code == code
        assert d.reasons[0].source == "bridge"
        # ...and a good answer afterwards is taken again.
        fake.set_mode("good")
        assert ask(b).verdict == "allow"
        b.close()


def test_remote_without_token_file_fails_to_start(tmp_path: Path) -> None:
    from opafence.errors import BridgeError

    b = Bridge(Config(opa=OpaConfig(url=f"unix://{tmp_path}/x.sock")), tmp_path)
    with pytest.raises(BridgeError) as e:
        b.start()
    assert e.value.code == "OPA_START_FAILED"
    assert "TOKEN_FILE" in e.value.sentence()


def test_restart_refuses_a_binary_that_changed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The binary is checked once at start; a restart runs exactly that binary or nothing."""
    import shutil

    from opafence.opa.binary import resolve

    copy = tmp_path / "opa"
    shutil.copy2(resolve().path, copy)
    monkeypatch.delenv("OPAFENCE_OPA_BIN", raising=False)
    b = Bridge(Config(opa=OpaConfig(binary=str(copy), transport="server")), tmp_path / "state")
    try:
        b.start()
        assert b.local is not None and b.local.binary.path == copy
        swapped = copy.with_name("opa.new")  # swap the file at the path (it is busy while it runs)
        swapped.write_bytes(copy.read_bytes() + b"\0tampered")
        swapped.chmod(0o755)
        os.replace(swapped, copy)
        pid = b.local.opa_pid()
        assert pid is not None
        os.kill(pid, signal.SIGKILL)
        assert wait_for(lambda: b.last_error is not None and "changed since" in b.last_error.sentence(), 10)
        assert not b.ready
        assert ask(b).verdict == "block"
    finally:
        b.close()
