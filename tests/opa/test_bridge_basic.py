"""The bridge against the real opa binary: start, push, decide, lock-down of the API. The
`bridge` fixture runs the default local transport (opafence-pdp when built); the lock-down of
the stock server's HTTP API is tested on the server transport (test_pdp_transport.py does the
PDP's)."""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest

from opafence.host import Host
from opafence.inputs import decision_input
from opafence.opa.bridge import Bridge
from opafence.opa.client import OpaClient
from opafence.policy import fallback_policy
from opafence.session import SessionFacts

from .transports import config_for

HOST = Host(auto_approve=False, interactive=True, platform="cli", workspace=("/ws",), cwd="/ws")


def decide(bridge: Bridge, tool: str, args: dict[str, object], host: Host = HOST) -> str:
    bridge.put_task("t1", fallback_policy("t1").to_opa_data())
    return bridge.decide(decision_input("t1", tool, args, "c1", SessionFacts(), host)).verdict


def test_read_allows_unknown_asks(bridge: Bridge) -> None:
    assert decide(bridge, "read_file", {"path": "/ws/a.txt"}) == "allow"
    assert decide(bridge, "some_new_tool", {}) == "ask"


def test_unattended_ask_becomes_block(bridge: Bridge) -> None:
    host = Host(auto_approve=True, interactive=False, platform="cron")
    bridge.put_task("t1", fallback_policy("t1").to_opa_data())
    d = bridge.decide(decision_input("t1", "some_new_tool", {}, "", SessionFacts(), host))
    assert d.verdict == "block"
    assert d.reasons[0].code == "NOBODY_TO_ASK"


@pytest.fixture
def server(tmp_path: Path) -> Iterator[Bridge]:
    b = Bridge(config_for("server"), tmp_path / "state")
    b.start()
    try:
        yield b
    finally:
        b.close()


def test_socket_and_dirs_are_private(server: Bridge) -> None:
    bridge = server
    assert bridge.local is not None
    sock = bridge.local.socket_path
    assert stat.S_IMODE(os.stat(sock).st_mode) == 0o600
    assert stat.S_IMODE(os.stat(sock.parent).st_mode) == 0o700
    assert stat.S_IMODE(os.stat(bridge.state).st_mode) == 0o700


def test_api_is_locked_down(server: Bridge) -> None:
    bridge = server
    assert bridge.local is not None
    good = OpaClient(bridge.local.endpoint(), bridge.local.token, 2.0)
    bad = OpaClient(bridge.local.endpoint(), "not-the-token", 2.0)
    try:
        # Wrong token: nothing, not even the decision.
        assert bad.request("POST", "/v1/data/opafence/decision", {"input": {}})[0] == 401
        # Right token: no policy API, no ad-hoc queries, no writes outside tasks/config.
        assert good.request("GET", "/v1/policies")[0] == 401
        assert good.request("POST", "/v1/query", {"query": "data"})[0] == 401
        assert good.request("PUT", "/v1/data/opafence/x", {})[0] == 401
        assert good.request("PUT", "/v1/data/system/authz", {})[0] == 401
        assert good.request("GET", "/v1/data/tasks")[0] == 401
        assert good.request("PUT", "/v1/data/tasks/x", {"a": 1})[0] == 204
    finally:
        good.close()
        bad.close()


def test_opa_pids_name_the_watchdog_and_opa(server: Bridge) -> None:
    bridge = server
    """The host input carries them, so the guards can block signals to OPA by pid."""
    assert bridge.local is not None and bridge.local.proc is not None
    assert bridge.opa_pids() == (bridge.local.proc.pid, bridge.local.opa_pid())
    host = Host(opa_pids=bridge.opa_pids())
    assert host.to_input()["opa_pids"] == list(bridge.opa_pids())


def test_trust_paths_name_the_running_binary(bridge: Bridge) -> None:
    assert bridge.local is not None
    # data.config is written, never read back through the API: judge a write to the binary.
    bridge.put_task("t1", fallback_policy("t1").to_opa_data())
    binary = os.path.realpath(bridge.local.binary.path)
    d = bridge.decide(decision_input("t1", "write_file", {"path": binary}, "c1", SessionFacts(), HOST))
    assert d.verdict == "block"
    assert "SELF_PROTECT_PATH" in {r.code for r in d.reasons}


def test_opa_environment_is_scrubbed(server: Bridge) -> None:
    bridge = server
    assert bridge.local is not None
    pid = bridge.local.opa_pid()
    assert pid is not None
    with open(f"/proc/{pid}/environ", "rb") as f:
        assert f.read() == b""
    with open(f"/proc/{pid}/cmdline", "rb") as f:
        assert bridge.local.token.encode() not in f.read()
