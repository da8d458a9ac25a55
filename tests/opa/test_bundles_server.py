"""Org bundles from a bundle server on loopback, signed, through the real OPA and bridge.

The server is a plain HTTP server started by the test on 127.0.0.1; the bundles are built
and signed by the real `opa build`; OPA polls the server every second."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from opafence.audit.trail import AuditLog, verify_chain
from opafence.config import Config
from opafence.doctor import run_doctor
from opafence.errors import BridgeError
from opafence.inputs import decision_input
from opafence.opa.bridge import DECISION_PATH, Bridge
from opafence.opa.own_bundle import build as build_own
from opafence.session import SessionFacts
from opafence.state_files import ensure_private_dir, state_dir

from .bundle_support import (
    ATTENDED,
    KeyPair,
    LoopbackServer,
    build_org_bundle,
    codes,
    decide,
    keypair,
    org_rule,
    strip_signature,
    tamper,
    wait_for,
)

PATH = "/bundles/acme.tar.gz"
BALANCE = "mcp__finance__get_balance"  # a read: the task alone allows it
INVOICES = "mcp__finance__list_invoices"  # another read
TOKEN = "bundle-server-token-5f2a9c"


@pytest.fixture
def server() -> Iterator[LoopbackServer]:
    s = LoopbackServer()
    try:
        yield s
    finally:
        s.stop()


@pytest.fixture
def key(tmp_path: Path) -> KeyPair:
    return keypair(tmp_path / "keys", "acme", "RS256")


def raw_config(
    server: LoopbackServer, key: KeyPair, tmp: Path, required: bool = True, token: str = TOKEN
) -> dict[str, Any]:
    token_file = tmp / "bundle-token"
    token_file.write_text(token + "\n")
    return {
        "org_bundles": [
            {
                "name": "acme",
                "url": server.base + PATH,
                "required": required,
                "signing": {"public_key_file": str(key.public), "algorithm": key.alg},
                "polling": {"min_delay_seconds": 1, "max_delay_seconds": 1},
                "token_file": str(token_file),
            }
        ],
        "bundle": {"status_interval_s": 0.1, "org_wait_s": 10},
    }


def restarting(raw: dict[str, Any]) -> dict[str, Any]:
    """No PDP standby: these tests are about what a restarted engine loads from its cache (a
    standby would take over with the bundle it already holds)."""
    return {**raw, "opa": {"pdp_standby": False}}


def v1(tmp: Path, key: KeyPair | None) -> bytes:
    files = {
        "org/agent/agent.rego": org_rule(BALANCE, "ORG_NO_BALANCE", "ACME: agents may not read balances (r1)")
    }
    return build_org_bundle(tmp, "v1", files, key, "r1")


def v2(tmp: Path, key: KeyPair | None) -> bytes:
    files = {
        "org/agent/agent.rego": org_rule(
            INVOICES, "ORG_NO_INVOICES", "ACME: agents may not list invoices (r2)"
        )
    }
    return build_org_bundle(tmp, "v2", files, key, "r2")


def start(config: Config, state: Path, **kw: Any) -> Bridge:
    bridge = Bridge(config, state, **kw)
    bridge.start()
    return bridge


def state_of(bridge: Bridge, name: str = "acme") -> Any:
    return next(s for s in bridge.bundle_states() if s.name == name)


def test_org_forbidden_call_is_blocked_with_the_orgs_reason(
    tmp_path: Path, server: LoopbackServer, key: KeyPair
) -> None:
    server.publish(PATH, v1(tmp_path, key))
    bridge = start(Config.model_validate(raw_config(server, key, tmp_path)), tmp_path / "state")
    try:
        d = decide(bridge, BALANCE, {"amount": 5})
        assert d.verdict == "block"
        assert [(r.code, r.message, r.source) for r in d.reasons] == [
            ("ORG_NO_BALANCE", "ACME: agents may not read balances (r1)", "org")
        ]
        assert decide(bridge, "read_file", {"path": "/ws/a.txt"}).verdict == "allow"
        acme = state_of(bridge)
        assert (acme.state, acme.revision, acme.blocks) == ("loaded", "r1", False)
        # OPA fetched the bundle with the token from the file, and the token is nowhere else.
        gets = server.requests("GET")
        assert gets and {r.headers.get("authorization") for r in gets} == {f"Bearer {TOKEN}"}
        assert bridge.local is not None
        assert TOKEN not in (bridge.local.run_dir / "opa-config.json").read_text()
        pid = bridge.local.opa_pid()
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            assert TOKEN.encode() not in f.read()
        with open(f"/proc/{pid}/environ", "rb") as f:
            assert f.read() == b""
    finally:
        bridge.close()


def test_a_new_revision_changes_the_decision_without_a_restart(
    tmp_path: Path, server: LoopbackServer, key: KeyPair
) -> None:
    events: list[dict[str, Any]] = []
    server.publish(PATH, v1(tmp_path, key))
    config = Config.model_validate(raw_config(server, key, tmp_path))
    bridge = start(config, tmp_path / "state", on_bundle_status=events.append)
    try:
        assert bridge.local is not None
        pid = bridge.local.opa_pid()
        assert decide(bridge, BALANCE).verdict == "block"
        assert decide(bridge, INVOICES).verdict == "allow"  # a read, and no org rule on it yet
        server.publish(PATH, v2(tmp_path, key))
        assert wait_for(lambda: decide(bridge, INVOICES).verdict == "block"), "r2 never took effect"
        assert codes(decide(bridge, INVOICES)) == ["ORG_NO_INVOICES"]
        assert decide(bridge, BALANCE).verdict == "allow"  # r2 dropped the balance rule
        assert bridge.local.opa_pid() == pid and bridge.restarts == 0
        assert wait_for(lambda: any(e["revision"] == "r2" for e in events))
        assert ("opafence", "loaded") in {(e["bundle"], e["state"]) for e in events}
        acme = [(e["state"], e["revision"]) for e in events if e["bundle"] == "acme"]
        assert acme[:2] == [("loaded", "r1"), ("loaded", "r2")]
    finally:
        bridge.close()


def test_a_failed_update_keeps_the_last_good_revision_and_is_reported(
    tmp_path: Path, server: LoopbackServer, key: KeyPair, capsys: pytest.CaptureFixture[str]
) -> None:
    raw = raw_config(server, key, tmp_path)
    config_file = tmp_path / "config.yaml"
    config_file.write_text(yaml.safe_dump(raw))
    state = ensure_private_dir(state_dir())  # where doctor looks for the running opafence's record
    audit = AuditLog(state / "audit.jsonl")
    server.publish(PATH, v1(tmp_path, key))
    bridge = start(Config.model_validate(raw), state, on_bundle_status=audit.append)
    try:
        assert codes(decide(bridge, BALANCE)) == ["ORG_NO_BALANCE"]
        # r2 arrives tampered: OPA refuses it and keeps serving r1.
        server.publish(PATH, tamper(v2(tmp_path, key)))
        assert wait_for(lambda: state_of(bridge).state == "stale"), state_of(bridge)
        acme = state_of(bridge)
        assert acme.revision == "r1" and acme.error and acme.blocks is False
        assert codes(decide(bridge, BALANCE)) == ["ORG_NO_BALANCE"]  # still r1's rules
        assert decide(bridge, "read_file", {"path": "/ws/a"}).verdict == "allow"

        stale = audit.tail(5, where={"event": "bundle_status", "state": "stale"})
        assert len(stale) == 1
        assert stale[0]["bundle"] == "acme" and stale[0]["revision"] == "r1"
        assert stale[0]["previous_state"] == "loaded" and stale[0]["error"] == acme.error
        assert verify_chain([state / "audit.jsonl"]) == []

        # doctor: the running opafence serves r1 after a failed update; a fresh start cannot
        # load the tampered r2 at all, so every decision there would be blocked.
        assert run_doctor(config_file) == 1
        out = capsys.readouterr().out
        running = [ln for ln in out.splitlines() if f"pid {os.getpid()}" in ln and "acme" in ln]
        assert running and running[0].startswith("[warn]"), out
        assert "keeps serving revision r1, the last update failed" in running[0]
        fresh = [ln for ln in out.splitlines() if ln.startswith("[FAIL] bundle acme:")]
        assert fresh and "BUNDLE_NOT_LOADED" in fresh[0], out

        # A good r3 clears it, still without a restart.
        files = {
            "org/agent/agent.rego": org_rule(
                BALANCE, "ORG_NO_BALANCE", "ACME: agents may not read balances (r3)"
            )
        }
        server.publish(PATH, build_org_bundle(tmp_path, "v3", files, key, "r3"))
        assert wait_for(lambda: state_of(bridge).state == "loaded" and state_of(bridge).revision == "r3")
        assert decide(bridge, BALANCE).reasons[0].message == "ACME: agents may not read balances (r3)"
        recovered = audit.tail(5, where={"event": "bundle_status", "state": "loaded", "revision": "r3"})
        assert recovered and recovered[0]["previous_state"] == "stale"
        assert bridge.restarts == 0
    finally:
        bridge.close()


@pytest.mark.parametrize("bad", ["unsigned", "tampered", "signed_by_another_key"])
def test_an_unverifiable_bundle_is_refused_and_blocks_every_decision(
    tmp_path: Path, server: LoopbackServer, key: KeyPair, bad: str
) -> None:
    if bad == "unsigned":
        data = strip_signature(v1(tmp_path, key))
    elif bad == "tampered":
        data = tamper(v1(tmp_path, key))
    else:
        data = v1(tmp_path, keypair(tmp_path / "other", "mallory", "RS256"))
    server.publish(PATH, data)
    bridge = start(Config.model_validate(raw_config(server, key, tmp_path)), tmp_path / "state")
    try:
        acme = state_of(bridge)
        assert acme.state == "failed" and acme.blocks, acme
        for tool, args in [("read_file", {"path": "/ws/a"}), (BALANCE, {}), ("web_search", {"query": "x"})]:
            d = decide(bridge, tool, args)
            assert d.verdict == "block"
            assert codes(d) == ["BUNDLE_NOT_LOADED"]
            assert "bundle 'acme' failed to load" in d.reasons[0].message
    finally:
        bridge.close()


def test_a_required_bundle_that_never_loaded_blocks_until_it_loads(
    tmp_path: Path, server: LoopbackServer, key: KeyPair, capsys: pytest.CaptureFixture[str]
) -> None:
    raw = raw_config(server, key, tmp_path)
    config_file = tmp_path / "config.yaml"
    config_file.write_text(yaml.safe_dump(raw))
    server.fail_with(503)
    bridge = start(Config.model_validate(raw), tmp_path / "state")
    try:
        d = decide(bridge, "read_file", {"path": "/ws/a"})
        assert d.verdict == "block" and codes(d) == ["BUNDLE_NOT_LOADED"]
        assert "HTTP 503" in d.reasons[0].message
        assert run_doctor(config_file) == 1
        out = capsys.readouterr().out
        line = next(ln for ln in out.splitlines() if ln.startswith("[FAIL] bundle acme:"))
        assert "503" in line and "every decision is blocked (BUNDLE_NOT_LOADED)" in line
        # The server comes back: decisions open up without restarting anything.
        server.publish(PATH, v1(tmp_path, key))
        server.fail_with(None)
        assert wait_for(lambda: decide(bridge, "read_file", {"path": "/ws/a"}).verdict == "allow")
        assert codes(decide(bridge, BALANCE)) == ["ORG_NO_BALANCE"]
        assert bridge.restarts == 0
    finally:
        bridge.close()


def test_an_optional_bundle_that_fails_is_reported_but_does_not_block(
    tmp_path: Path, server: LoopbackServer, key: KeyPair
) -> None:
    server.publish(PATH, strip_signature(v1(tmp_path, key)))
    bridge = start(
        Config.model_validate(raw_config(server, key, tmp_path, required=False)), tmp_path / "state"
    )
    try:
        acme = state_of(bridge)
        assert acme.state == "failed" and not acme.blocks
        assert decide(bridge, "read_file", {"path": "/ws/a"}).verdict == "allow"
        assert decide(bridge, BALANCE).verdict == "allow"  # no org rule: the task decides alone
    finally:
        bridge.close()


def test_a_wrong_token_is_a_failed_download(tmp_path: Path, server: LoopbackServer, key: KeyPair) -> None:
    server.publish(PATH, v1(tmp_path, key))
    server.fail_with(401)
    bridge = start(Config.model_validate(raw_config(server, key, tmp_path)), tmp_path / "state")
    try:
        assert state_of(bridge).state == "failed"
        assert codes(decide(bridge, "read_file", {"path": "/ws/a"})) == ["BUNDLE_NOT_LOADED"]
    finally:
        bridge.close()


@pytest.mark.parametrize(("required", "own"), [(True, "sources"), (False, "sources"), (False, "built")])
def test_a_served_bundle_with_roots_outside_org_is_refused_even_when_optional(
    tmp_path: Path, server: LoopbackServer, key: KeyPair, required: bool, own: str
) -> None:
    files = {
        "org/agent/agent.rego": org_rule(BALANCE, "ORG_NO_BALANCE", "no"),
        "elsewhere/x.rego": "package elsewhere\n\nx := 1\n",
    }
    server.publish(PATH, build_org_bundle(tmp_path, "wide", files, key, "w1", roots=["org", "elsewhere"]))
    raw = {**raw_config(server, key, tmp_path, required=required), "mode": "monitor"}
    if own == "built":
        build_own(tmp_path / "opafence-bundle.tar.gz")
        raw["bundle"] = {"path": str(tmp_path / "opafence-bundle.tar.gz")}
    bridge = start(Config.model_validate(raw), tmp_path / "state")
    try:
        acme = state_of(bridge)
        # OPA accepted it (its roots do not overlap ours); opafence refuses it: its rules are live.
        assert acme.state == "refused" and acme.blocks, acme
        assert "not under 'org'" in acme.error
        d = decide(bridge, "read_file", {"path": "/ws/a"})
        assert codes(d) == ["BUNDLE_NOT_LOADED"] and "was refused" in d.reasons[0].message
        # Behind the bridge's gate, OPA's own answer blocks too, in the same snapshot as the
        # bundle: the roots check is part of the decision (here in monitor mode, even).
        assert bridge.client is not None
        doc = decision_input("t1", "read_file", {"path": "/ws/a"}, "c", SessionFacts(), ATTENDED)
        raw = bridge.client.request_json("POST", DECISION_PATH, {"input": doc})["result"]
        assert raw["verdict"] == "block"
        assert [(r["code"], r["source"]) for r in raw["reasons"]] == [("ORG_BUNDLE_ROOTS", "org")]
    finally:
        bridge.close()


def test_a_served_bundle_without_roots_is_refused(
    tmp_path: Path, server: LoopbackServer, key: KeyPair
) -> None:
    files = {"org/agent/agent.rego": org_rule(BALANCE, "ORG_NO_BALANCE", "no")}
    server.publish(PATH, build_org_bundle(tmp_path, "rootless", files, key, "n1", roots=None))
    server.delay(1.0)  # opafence's own bundle is active before this one arrives
    bridge = start(Config.model_validate(raw_config(server, key, tmp_path)), tmp_path / "state")
    try:
        acme = state_of(bridge)
        # A bundle without roots claims all of data, which overlaps opafence's own bundle:
        # OPA refuses to activate it, and the required bundle blocks every decision.
        assert acme.state == "failed" and acme.blocks, acme
        assert "overlap" in acme.error
        assert codes(decide(bridge, "read_file", {"path": "/ws/a"})) == ["BUNDLE_NOT_LOADED"]
    finally:
        bridge.close()


def test_a_bundle_without_roots_that_wins_the_start_race_fails_closed(
    tmp_path: Path, server: LoopbackServer, key: KeyPair
) -> None:
    """Activated before opafence's bundle, a root-less bundle erases every module OPA holds,
    the API authorization included. Whichever bundle wins, nothing gets allowed."""
    files = {"org/agent/agent.rego": org_rule(BALANCE, "ORG_NO_BALANCE", "no")}
    server.publish(PATH, build_org_bundle(tmp_path, "rootless", files, key, "n1", roots=None))
    bridge = Bridge(Config.model_validate(raw_config(server, key, tmp_path)), tmp_path / "state")
    try:
        try:
            bridge.start()
        except BridgeError as e:
            assert e.code == "OPA_START_FAILED" and "roots" in e.detail, e.detail
            assert decide(bridge, "read_file", {"path": "/ws/a"}).verdict == "block"
            return
        assert codes(decide(bridge, "read_file", {"path": "/ws/a"})) == ["BUNDLE_NOT_LOADED"]
    finally:
        bridge.close()


def test_after_an_opa_restart_the_persisted_revision_serves_while_the_server_is_down(
    tmp_path: Path, server: LoopbackServer, key: KeyPair
) -> None:
    server.publish(PATH, v1(tmp_path, key))
    bridge = start(Config.model_validate(restarting(raw_config(server, key, tmp_path))), tmp_path / "state")
    try:
        assert codes(decide(bridge, BALANCE)) == ["ORG_NO_BALANCE"]
        cached = tmp_path / "state" / "bundle-cache" / "bundles" / "acme" / "bundle.tar.gz"
        assert wait_for(cached.is_file)
        server.fail_with(503)
        assert bridge.local is not None
        bridge.local.kill()
        assert wait_for(lambda: bridge.restarts == 1 and bridge.ready, 30)
        # OPA loaded r1 from its cache (verifying the signature again) before asking the server.
        assert codes(decide(bridge, BALANCE)) == ["ORG_NO_BALANCE"]
        assert decide(bridge, "read_file", {"path": "/ws/a"}).verdict == "allow"
        assert state_of(bridge).revision == "r1"
    finally:
        bridge.close()


def test_a_tampered_cache_is_refused_after_a_restart(
    tmp_path: Path, server: LoopbackServer, key: KeyPair
) -> None:
    server.publish(PATH, v1(tmp_path, key))
    bridge = start(Config.model_validate(restarting(raw_config(server, key, tmp_path))), tmp_path / "state")
    try:
        cached = tmp_path / "state" / "bundle-cache" / "bundles" / "acme" / "bundle.tar.gz"
        assert wait_for(cached.is_file)
        server.fail_with(503)
        cached.write_bytes(tamper(cached.read_bytes()))
        assert bridge.local is not None
        bridge.local.kill()
        assert wait_for(lambda: bridge.restarts == 1 and bridge.ready, 30)
        acme = state_of(bridge)
        assert acme.state == "failed" and acme.blocks, acme
        assert codes(decide(bridge, "read_file", {"path": "/ws/a"})) == ["BUNDLE_NOT_LOADED"]
    finally:
        bridge.close()
