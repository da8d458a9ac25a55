"""Remote mode on a real shared OPA: two hosts, each with its own token, cannot cross.

The shared OPA runs our bundle and the authorization module `opafence fleet authz` generates
from the hosts' token digests (docs/fleet.md). Host A can neither write nor read host B's
tasks or configuration, nor decide on them; each host is judged under its own configuration."""

from __future__ import annotations

import json
import socket
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from opafence.cli import main
from opafence.config import Config, OpaConfig
from opafence.host import Host
from opafence.inputs import decision_input
from opafence.opa.binary import resolve
from opafence.opa.bridge import Bridge
from opafence.opa.client import Endpoint, OpaClient
from opafence.opa.server import opa_config
from opafence.policy import fallback_policy
from opafence.rego_files import stage_bundle
from opafence.session import SessionFacts

pytestmark = pytest.mark.opa

HOST = Host(auto_approve=False, interactive=True, platform="cli", workspace=("/ws",), cwd="/ws")
WRITE = ("write_file", {"path": "/ws/notes.md", "content": "x"})


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def fleet(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    """`opafence fleet …` as a user runs it: exit code, standard output, standard error."""
    capsys.readouterr()
    code = main(["fleet", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def _token(capsys: pytest.CaptureFixture[str], tmp: Path, host_id: str) -> tuple[Path, str]:
    """A host token file made by `opafence fleet token`, and the digest it printed."""
    path = tmp / f"{host_id}.token"
    code, out, _ = fleet(capsys, "token", str(path))
    assert code == 0
    assert oct(path.stat().st_mode & 0o777) == "0o600"
    return path, out.strip().splitlines()[-1]


@pytest.fixture
def shared(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Iterator[tuple[str, dict[str, Path]]]:
    tokens = {h: _token(capsys, tmp_path, h) for h in ("alpha", "beta")}
    authz = tmp_path / "fleet-authz.rego"
    code, _, _ = fleet(capsys, "authz", *(f"{h}={d}" for h, (_, d) in tokens.items()), "--out", str(authz))
    assert code == 0
    bundle = tmp_path / "bundle"
    stage_bundle(bundle)
    port = _free_port()
    # Started the way docs/fleet.md starts a shared OPA: our bundle through OPA's bundle
    # configuration, the generated authorization module as a plain file beside it.
    cfg = tmp_path / "opa-config.json"
    cfg.write_text(json.dumps(opa_config(bundle)))
    argv = [str(resolve().path), "run", "--server", "--skip-version-check", "--addr", f"127.0.0.1:{port}"]
    argv += ["--authentication=token", "--authorization=basic", "--log-level", "error"]
    proc = subprocess.Popen(
        [*argv, "--config-file", str(cfg), str(authz)], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
    )
    url = f"http://127.0.0.1:{port}"
    probe = OpaClient(Endpoint.parse(url), tokens["alpha"][0].read_text().strip(), 2.0)
    try:
        for _ in range(200):
            try:
                if probe.request("GET", "/health?bundles")[0] == 200:
                    break
            except Exception:
                pass
            if proc.poll() is not None:
                raise AssertionError(proc.stderr.read().decode() if proc.stderr else "opa exited")
            time.sleep(0.05)
        else:
            raise AssertionError("the shared OPA did not come up")
        yield url, {h: p for h, (p, _) in tokens.items()}
    finally:
        probe.close()
        proc.terminate()
        proc.wait(10)


def _bridge(url: str, token_file: Path, host_id: str, tmp: Path, mode: str = "enforce") -> Bridge:
    config = Config(mode=mode, host_id=host_id, opa=OpaConfig(url=url, token_file=str(token_file)))
    b = Bridge(config, tmp / f"state-{host_id}")
    b.start()
    return b


def _decide(b: Bridge, key: str) -> str:
    return b.decide(decision_input(key, *WRITE, "c1", SessionFacts(), HOST)).verdict


def test_each_host_stays_inside_its_own_tasks_and_config(
    shared: tuple[str, dict[str, Path]], tmp_path: Path
) -> None:
    url, token_files = shared
    a = _bridge(url, token_files["alpha"], "alpha", tmp_path, mode="monitor")
    b = _bridge(url, token_files["beta"], "beta", tmp_path)
    try:
        a.put_task("alpha:s1", fallback_policy("alpha:s1").to_opa_data())
        b.put_task("beta:s1", fallback_policy("beta:s1").to_opa_data())
        # Each host under its own configuration: alpha monitors, beta enforces (an unasked
        # write asks), although both share one OPA.
        assert _decide(a, "alpha:s1") == "allow"
        assert _decide(b, "beta:s1") == "ask"

        raw = OpaClient(Endpoint.parse(url), token_files["alpha"].read_text().strip(), 2.0)
        try:
            beta_task = fallback_policy("beta:s1").to_opa_data()
            # alpha cannot write, patch or delete beta's task, nor write beta's config or the
            # global one, nor read any task or config.
            assert raw.request("PUT", "/v1/data/tasks/beta:s1", beta_task)[0] == 401
            assert raw.request("DELETE", "/v1/data/tasks/beta:s1")[0] == 401
            assert raw.request("PUT", "/v1/data/tasks/beta:s2", beta_task)[0] == 401
            assert raw.request("PUT", "/v1/data/hosts/beta/config", {"mode": "monitor"})[0] == 401
            assert raw.request("PUT", "/v1/data/config", {"mode": "monitor"})[0] == 401
            assert raw.request("PUT", "/v1/data/hosts", {})[0] == 401
            assert raw.request("GET", "/v1/data/tasks")[0] == 401
            assert raw.request("GET", "/v1/data/tasks/beta:s1")[0] == 401
            assert raw.request("GET", "/v1/data/hosts/beta/config")[0] == 401
            # alpha cannot decide on beta's task, claim beta's id, or use the entrypoint
            # that reads the global configuration.
            doc = decision_input("beta:s1", *WRITE, "c1", SessionFacts(), HOST)
            as_alpha = {**doc, "host": {**doc["host"], "id": "alpha"}}
            as_beta = {**doc, "host": {**doc["host"], "id": "beta"}}
            assert raw.request("POST", "/v1/data/opafence/remote/decision", {"input": as_alpha})[0] == 401
            assert raw.request("POST", "/v1/data/opafence/remote/decision", {"input": as_beta})[0] == 401
            assert raw.request("POST", "/v1/data/opafence/decision", {"input": as_alpha})[0] == 401
            assert raw.request("POST", "/v1/policies/x", {})[0] == 401
            # Its own task and config it may write.
            assert raw.request("PUT", "/v1/data/tasks/alpha:s2", beta_task)[0] == 204
            assert raw.request("PUT", "/v1/data/hosts/alpha/config", {"mode": "monitor"})[0] == 204
        finally:
            raw.close()
        # beta's task and config are untouched: still enforced, still its own policy.
        assert _decide(b, "beta:s1") == "ask"
        # A token nobody registered gets nothing at all.
        stranger = OpaClient(Endpoint.parse(url), "not-a-registered-token", 2.0)
        try:
            assert stranger.request("GET", "/health")[0] == 401
            assert stranger.request("PUT", "/v1/data/tasks/x:s1", {})[0] == 401
        finally:
            stranger.close()
    finally:
        a.close()
        b.close()


def test_fleet_authz_refuses_bad_hosts(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    digest = "0" * 64
    for argv, said in [
        (["authz", "alpha=nothex"], "not a SHA-256"),
        (["authz", f"alpha={digest}", f"beta={digest}"], "share one token"),
        (["authz", f"al:pha={digest}"], "HOST_ID=SHA256"),
        (["authz", f"alpha={digest}", f"alpha={'1' * 64}"], "given twice"),
    ]:
        code, out, err = fleet(capsys, *argv)
        assert (code, out) == (2, "")
        assert said in err
    token = tmp_path / "t"
    token.write_text("keep me")
    code, _, err = fleet(capsys, "token", str(token))
    assert code == 2
    assert "never overwritten" in err
    assert token.read_text() == "keep me"
