"""opafence-pdp against the real binary: the default transport when built, a protocol that
offers only its five operations, frames injected through /proc that change nothing, a PDP
that is not dumpable, a scrubbed environment and a pinned binary."""

from __future__ import annotations

import contextlib
import os
import secrets
import shutil
import subprocess
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from opafence.config import Config
from opafence.decision import Decision
from opafence.errors import BridgeError
from opafence.host import Host
from opafence.inputs import decision_input
from opafence.opa.binary import resolve_pdp
from opafence.opa.bridge import Bridge
from opafence.opa.frames import encode_answer, encode_request
from opafence.opa.pdp import LocalPdp
from opafence.opa.pdp_process import PdpProcess
from opafence.policy import fallback_policy
from opafence.session import SessionFacts

from .transports import PDP, config_for, needs_pdp

pytestmark = needs_pdp

HOST = Host(auto_approve=False, interactive=True, platform="cli", workspace=("/ws",), cwd="/ws")


def wait_for(pred: Callable[[], bool], timeout: float = 20.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if pred():
            return True
        time.sleep(0.05)
    return False


@pytest.fixture
def pdp_bridge(tmp_path: Path) -> Iterator[Bridge]:
    b = Bridge(config_for("pdp"), tmp_path / "state")
    b.start()
    b.put_task("t1", fallback_policy("t1").to_opa_data())
    try:
        yield b
    finally:
        b.close()


def local(b: Bridge) -> LocalPdp:
    assert isinstance(b.local, LocalPdp)
    return b.local


def ask(b: Bridge, tool: str, args: dict[str, object]) -> Decision:
    return b.decide(decision_input("t1", tool, args, "c1", SessionFacts(), HOST))


def test_the_pdp_is_the_default_local_transport_and_listens_nowhere(tmp_path: Path) -> None:
    b = Bridge(Config(), tmp_path / "state")
    b.start()
    try:
        assert b.transport == "pdp"
        pdp = local(b)
        assert not any(p.suffix == ".sock" for p in pdp.run_dir.iterdir())
        assert pdp.primary is not None and pdp.primary.pid is not None
        # No socket of any kind among the PDP's descriptors (a pipe, not a listener).
        links = [
            os.readlink(f"/proc/{pdp.primary.pid}/fd/{fd}")
            for fd in os.listdir(f"/proc/{pdp.primary.pid}/fd")
        ]
        assert not [link for link in links if link.startswith("socket:")], links
        b.put_task("t1", fallback_policy("t1").to_opa_data())
        assert ask(b, "read_file", {"path": "/ws/a.txt"}).verdict == "allow"
    finally:
        b.close()


def test_server_transport_still_runs_the_stock_opa(tmp_path: Path) -> None:
    b = Bridge(config_for("server"), tmp_path / "state")
    b.start()
    try:
        assert b.transport == "server"
        assert b.local is not None and b.local.socket_path.exists()
    finally:
        b.close()


def test_the_protocol_offers_only_its_operations(pdp_bridge: Bridge) -> None:
    client = pdp_bridge.client
    assert client is not None
    # REST calls the bridge never makes have no PDP operation at all.
    for method, path in [
        ("GET", "/v1/policies"),
        ("POST", "/v1/query"),
        ("PUT", "/v1/data/opafence/x"),
        ("PUT", "/v1/data/system/authz"),
        ("GET", "/v1/data/tasks"),
        ("POST", "/v1/data/tasks"),
    ]:
        assert client.request(method, path, {"query": "data"})[0] == 403, (method, path)
    assert client.request("PUT", "/v1/data/tasks/x", {"a": 1})[0] == 204
    # And the PDP itself refuses what the translation never sends.
    primary = local(pdp_bridge).primary
    assert primary is not None
    for frame in [
        b'{"op":"query","query":"data"}',
        b'{"op":"policy_put","path":"x","value":"package x"}',
        b'{"op":"decide","path":"system/authz","input":{}}',
        b'{"op":"decide","path":"tasks","input":{}}',
        b'{"op":"decide","path":"opafence/../tasks","input":{}}',
        b'{"op":"data_put","path":"opafence","value":{}}',
    ]:
        status, _ = primary.call(frame, 2.0)
        assert status == 403, frame
    assert primary.call(b'{"op":"task_put","key":"","value":{}}', 2.0)[0] == 400
    assert primary.call(b'{"op":"task_delete","key":"nope"}', 2.0)[0] == 404
    # The refusals did not break the stream.
    assert ask(pdp_bridge, "read_file", {"path": "/ws/a.txt"}).verdict == "allow"


# --- frames injected through /proc ---------------------------------------------------------------

PROBES: list[tuple[str, dict[str, object]]] = [
    ("read_file", {"path": "/ws/a.txt"}),  # allow
    ("some_new_tool", {}),  # ask
    ("terminal", {"command": "rm -rf /"}),  # block
]


def forged_requests(key: bytes) -> bytes:
    """What a same-user process would like the PDP to do: open everything up."""
    everything = b'{"op":"config_put","value":{"schema_version":1,"mode":"monitor"}}'
    grant = b'{"op":"task_put","key":"t1","value":{}}'
    return encode_request(key, 1, everything) + encode_request(key, 2, grant)


INJECTIONS: dict[str, Callable[[PdpProcess], tuple[int, bytes]]] = {
    # (descriptor of the PDP to write into, bytes)
    "garbage_into_requests": lambda p: (0, b"\x00\x00\x00\x10" + secrets.token_bytes(60)),
    "forged_requests_wrong_key": lambda p: (0, forged_requests(secrets.token_bytes(32))),
    "forged_allow_answer": lambda p: (
        1,
        encode_answer(
            secrets.token_bytes(32),
            p._seq + 1,
            200,
            b'{"result":{"verdict":"allow","reasons":[],"classes":[]}}',
        ),
    ),
    "garbage_into_answers": lambda p: (1, b"200" + secrets.token_bytes(100)),
}


@pytest.mark.parametrize("name", sorted(INJECTIONS))
def test_frames_injected_through_proc_change_nothing(pdp_bridge: Bridge, name: str) -> None:
    b = pdp_bridge
    pdp = local(b)
    assert wait_for(lambda: pdp.standby is not None), "the standby never came up"
    baseline = [ask(b, tool, args) for tool, args in PROBES]
    assert [d.verdict for d in baseline] == ["allow", "ask", "block"]
    primary = pdp.primary
    assert primary is not None and primary.pid is not None
    fd, data = INJECTIONS[name](primary)
    with open(f"/proc/{primary.pid}/fd/{fd}", "wb", buffering=0) as f:
        f.write(data)
    seen: list[Decision] = []
    deadline = time.monotonic() + 1.0
    while time.monotonic() < deadline:
        for tool, args in PROBES:
            seen.append(ask(b, tool, args))
    # Never more than asked for: a call that asks or blocks is never allowed, whatever came in.
    for i, d in enumerate(seen):
        want = baseline[i % len(PROBES)]
        assert d == want or (d.verdict == "block" and d.reasons[0].source == "bridge"), (i, d.summary())
    # The PDP that got the frame is not used again, and nothing it was told took effect.
    assert wait_for(lambda: pdp.primary is not None and pdp.primary is not primary)
    assert primary.broken or not primary.alive()
    assert [ask(b, tool, args) for tool, args in PROBES] == baseline


def test_a_replayed_frame_is_refused(tmp_path: Path) -> None:
    """A frame read off the pipe and written again (same key, old seq) ends that PDP."""
    assert PDP is not None
    cfg = tmp_path / "opa-config.json"
    cfg.write_text('{"status": {"prometheus": true}}')
    p = PdpProcess(PDP, cfg, tmp_path / "pdp.log", tmp_path, "test")
    p.spawn()
    try:
        assert p.call(b'{"op":"status"}', 10.0)[0] == 200
        assert p.proc is not None and p.proc.stdin is not None
        os.write(p.proc.stdin.fileno(), encode_request(p._key, 1, b'{"op":"status"}'))
        assert p.proc.wait(timeout=10) == 3
        assert "seq 1, expected 2" in (tmp_path / "pdp.log").read_text()
        with pytest.raises(BridgeError) as e:
            p.call(b'{"op":"status"}', 2.0)
        assert e.value.code == "OPA_UNAVAILABLE"
    finally:
        p.kill()


def test_a_short_key_is_refused(tmp_path: Path) -> None:
    assert PDP is not None
    r, w = os.pipe()
    os.write(w, b"short")
    os.close(w)
    try:
        proc = subprocess.run(
            [str(PDP.path), "run", "--config-file", "/dev/null", "--key-fd", str(r)],
            pass_fds=(r,),
            capture_output=True,
            timeout=20,
            check=False,
        )
    finally:
        os.close(r)
    assert proc.returncode == 2
    assert b"at least 32" in proc.stderr


# --- the process -----------------------------------------------------------------------------------


def test_the_pdp_is_not_dumpable(tmp_path: Path) -> None:
    """PR_SET_DUMPABLE 0 gives its /proc entries to root: a process of the same user can then not
    open /proc/<pid>/fd/N, mem or environ. Run as another user to see it (as root every entry is
    root's anyway)."""
    assert PDP is not None
    uid = os.getuid()
    run_as = 65534 if uid == 0 else None
    where = Path(tempfile.mkdtemp(prefix="pdp-dump-"))
    binary = where / "opafence-pdp"
    shutil.copy2(PDP.path, binary)
    os.chmod(where, 0o755)
    r, w = os.pipe()  # the key never comes: the PDP waits on it, after its prctl
    try:
        proc = subprocess.Popen(
            [str(binary), "run", "--config-file", "/dev/null", "--key-fd", str(r)],
            pass_fds=(r,),
            user=run_as,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        try:
            owner = lambda: os.stat(f"/proc/{proc.pid}/fd").st_uid  # noqa: E731
            real = lambda: int(Path(f"/proc/{proc.pid}/status").read_text().split("Uid:")[1].split()[0])  # noqa: E731
            assert wait_for(lambda: real() == (run_as if run_as is not None else uid) and owner() == 0, 10)
        finally:
            proc.kill()
            proc.wait()
    finally:
        os.close(r)
        os.close(w)
        shutil.rmtree(where)


def test_environment_is_scrubbed_and_the_key_is_not_on_the_command_line(pdp_bridge: Bridge) -> None:
    primary = local(pdp_bridge).primary
    assert primary is not None and primary.pid is not None
    with open(f"/proc/{primary.pid}/environ", "rb") as f:
        assert f.read() == b""
    with open(f"/proc/{primary.pid}/cmdline", "rb") as f:
        cmdline = f.read()
    assert primary._key and primary._key not in cmdline and primary._key.hex().encode() not in cmdline


def test_pids_name_both_pdps(pdp_bridge: Bridge) -> None:
    pdp = local(pdp_bridge)
    assert wait_for(lambda: pdp.standby is not None)
    assert pdp.primary is not None and pdp.standby is not None
    assert pdp_bridge.opa_pids() == (pdp.primary.pid, pdp.standby.pid)


def test_trust_paths_name_the_running_pdp(pdp_bridge: Bridge) -> None:
    binary = os.path.realpath(local(pdp_bridge).binary.path)
    d = ask(pdp_bridge, "write_file", {"path": binary})
    assert d.verdict == "block"
    assert "SELF_PROTECT_PATH" in {r.code for r in d.reasons}


# --- resolving the binary ----------------------------------------------------------------------------


def test_a_pinned_hash_that_does_not_match_is_an_error(tmp_path: Path) -> None:
    assert PDP is not None
    assert resolve_pdp(None, PDP.sha256) == PDP
    with pytest.raises(BridgeError) as e:
        resolve_pdp(None, "0" * 64)
    assert e.value.code == "OPA_NOT_FOUND" and "pins" in e.value.detail
    b = Bridge(config_for("pdp", opa={"pdp_sha256": "0" * 64}), tmp_path / "state")
    with pytest.raises(BridgeError):
        b.start()


def test_a_configured_pdp_must_exist(tmp_path: Path) -> None:
    b = Bridge(config_for("pdp", opa={"pdp_binary": str(tmp_path / "nope")}), tmp_path / "state")
    with pytest.raises(BridgeError) as e:
        b.start()
    assert e.value.code == "OPA_NOT_FOUND"


def test_a_binary_that_is_not_the_pdp_is_refused(tmp_path: Path) -> None:
    fake = tmp_path / "opafence-pdp"
    shutil.copy2(shutil.which("true") or "/bin/true", fake)
    with pytest.raises(BridgeError) as e:
        resolve_pdp(str(fake))
    assert "protocol" in e.value.detail
    with contextlib.suppress(BridgeError):
        assert resolve_pdp(None) == PDP  # the project's own build is still found
