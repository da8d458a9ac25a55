"""The fleet topology end to end (docs/fleet.md): a PDP per host, one organization's policy.

Three hosts, each with its own OPA, state and host id, load the organization's signed bundle
from one bundle server on loopback and send their decision logs to one collector: a new
revision reaches all three without a restart; each host's events arrive tagged with its host
id and with argument contents masked; a bad new revision keeps the last good one serving on
every host and is reported; a host whose required bundle never loaded blocks everything."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from opafence.config import Config
from opafence.errors import BridgeError
from opafence.opa.bridge import Bridge

from .bundle_support import (
    KeyPair,
    LoopbackServer,
    build_org_bundle,
    codes,
    decide,
    keypair,
    org_rule,
    tamper,
    wait_for,
)

pytestmark = pytest.mark.opa

PATH = "/bundles/acme.tar.gz"
BALANCE = "mcp__finance__get_balance"
INVOICES = "mcp__finance__list_invoices"
HOSTS = ("laptop-ann", "ci-runner-3", "team-gateway")
SECRET = "S3CRET-FLEET-BODY"


@pytest.fixture
def server() -> Iterator[LoopbackServer]:
    s = LoopbackServer()
    try:
        yield s
    finally:
        s.stop()


def _revision(tmp: Path, key: KeyPair, name: str, tool: str, code: str) -> bytes:
    files = {"org/agent/agent.rego": org_rule(tool, code, f"ACME: not {tool} ({name})")}
    return build_org_bundle(tmp, name, files, key, name)


def _config(server: LoopbackServer, key: KeyPair, tmp: Path, host: str, path: str = PATH) -> Config:
    return Config.model_validate(
        {
            "host_id": host,
            "org_bundles": [
                {
                    "name": "acme",
                    "url": server.base + path,
                    "required": True,
                    "signing": {"public_key_file": str(key.public), "algorithm": key.alg},
                    "polling": {"min_delay_seconds": 1, "max_delay_seconds": 1},
                }
            ],
            "bundle": {"status_interval_s": 0.1, "org_wait_s": 10},
            "decision_logs": {
                "url": server.base + "/v1/logs",
                "min_delay_seconds": 1,
                "max_delay_seconds": 1,
            },
        }
    )


def _verdict_now(bridge: Bridge, tool: str) -> str:
    """The verdict, or "" while OPA is busy activating a revision (a task write can wait for it)."""
    try:
        return str(decide(bridge, tool).verdict)
    except BridgeError:
        return ""


def _state(bridge: Bridge) -> Any:
    return next(s for s in bridge.bundle_states() if s.name == "acme")


def test_three_hosts_one_policy_one_collector(tmp_path: Path, server: LoopbackServer) -> None:
    key = keypair(tmp_path / "keys", "acme")
    server.publish(PATH, _revision(tmp_path, key, "r1", BALANCE, "ORG_NO_BALANCE"))
    bridges: dict[str, Bridge] = {}
    try:
        for host in HOSTS:
            bridges[host] = Bridge(_config(server, key, tmp_path, host), tmp_path / f"state-{host}")
            bridges[host].start()
        for b in bridges.values():
            assert codes(decide(b, BALANCE)) == ["ORG_NO_BALANCE"]
            assert decide(b, INVOICES).verdict == "allow"

        # A new revision reaches every host without a restart.
        server.publish(PATH, _revision(tmp_path, key, "r2", INVOICES, "ORG_NO_INVOICES"))
        for host, b in bridges.items():
            assert wait_for(lambda b=b: _verdict_now(b, INVOICES) == "block", timeout_s=30), host
            assert codes(decide(b, INVOICES)) == ["ORG_NO_INVOICES"]
            assert b.restarts == 0

        # Each host's decisions reach the collector tagged with its host id, contents masked.
        for host, b in bridges.items():
            decide(
                b, "mcp__gmail__send_email", {"to": ["bob@acme.example"], "body": SECRET}, task=f"{host}-t"
            )

        def tagged() -> dict[str, list[dict[str, Any]]]:
            by_host: dict[str, list[dict[str, Any]]] = {}
            for e in server.decision_events():
                by_host.setdefault((e.get("labels") or {}).get("opafence_host", ""), []).append(e)
            return by_host

        def tasks_of(host: str) -> set[str]:
            return {str((e.get("input") or {}).get("task")) for e in tagged().get(host, [])}

        assert wait_for(lambda: all(f"{h}-t" in tasks_of(h) for h in HOSTS), timeout_s=30), tagged().keys()
        for host in HOSTS:
            assert not any(f"{other}-t" in tasks_of(host) for other in HOSTS if other != host)
        assert SECRET not in json.dumps(server.decision_events())

        # A tampered revision is refused everywhere; r2 keeps serving and each host reports it.
        server.publish(PATH, tamper(_revision(tmp_path, key, "r3", BALANCE, "ORG_R3")))
        for host, b in bridges.items():
            assert wait_for(lambda b=b: _state(b).state == "stale", timeout_s=20), (host, _state(b))
            assert _state(b).revision == "r2" and _state(b).error
            assert codes(decide(b, INVOICES)) == ["ORG_NO_INVOICES"]
    finally:
        for b in bridges.values():
            b.close()


def test_a_host_whose_required_bundle_never_loaded_blocks(tmp_path: Path, server: LoopbackServer) -> None:
    key = keypair(tmp_path / "keys", "acme")
    config = _config(server, key, tmp_path, "new-host", path="/bundles/never-published.tar.gz")
    config = config.model_copy(update={"bundle": config.bundle.model_copy(update={"org_wait_s": 1})})
    bridge = Bridge(config, tmp_path / "state")
    bridge.start()
    try:
        for tool, args in [("read_file", {"path": "/ws/a"}), (BALANCE, {})]:
            d = decide(bridge, tool, args)
            assert d.verdict == "block" and codes(d) == ["BUNDLE_NOT_LOADED"]
    finally:
        bridge.close()
