"""opafence's own bundle: `opa build` (optimized, optionally signed), loaded and verified by OPA.

The optimized bundle must answer exactly like the Rego sources: the same decisions, reasons
and monitor records for a spread of calls, hosts, modes and org rules."""

from __future__ import annotations

import io
import json
import subprocess
import sys
import tarfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from opafence.cli import main as cli_main
from opafence.config import Config, parse_config
from opafence.errors import BridgeError
from opafence.host import Host
from opafence.inputs import decision_input
from opafence.opa import own_bundle as bundle_mod
from opafence.opa.bridge import Bridge
from opafence.opa.own_bundle import BundleError, build, read_manifest
from opafence.policy import fallback_policy
from opafence.rego_files import content_revision
from opafence.session import SessionFacts

from .bundle_support import ATTENDED, UNATTENDED, KeyPair, keypair, tamper

REPO = Path(__file__).resolve().parents[2]
ORG_EXAMPLE = REPO / "bundles" / "org-example"


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_to(tmp_path_factory.mktemp("built") / "opafence-bundle.tar.gz")


def build_to(out: Path, **kw: Any) -> Path:
    build(out, **kw)
    return out


def members(tarball: Path) -> list[str]:
    with tarfile.open(tarball, mode="r:gz") as tar:
        return [m.name.lstrip("/") for m in tar.getmembers()]


def started(config: Config, state: Path) -> Bridge:
    b = Bridge(config, state)
    b.start()
    return b


def test_the_build_is_optimized_with_our_roots_and_revision(built: Path) -> None:
    manifest = read_manifest(built)
    names = members(built)
    # The optimizer's support module (package partial, e.g. for the two-tier decision) needs its
    # root; nothing else may be claimed.
    support = any(n.startswith(("optimized/partial/", "optimized/partial.rego")) for n in names)
    assert manifest["roots"] == (["opafence", "partial"] if support else ["opafence"])
    assert manifest["revision"] == content_revision()
    assert any(n.startswith("optimized/") for n in names), names
    assert "opafence/decision.rego" in names and "opafence/log/mask.rego" in names
    assert not any(n.endswith("_test.rego") for n in names)
    assert ".signatures.json" not in names


# --- the optimized bundle answers like the sources ---------------------------------------------

CALLS: list[tuple[str, dict[str, Any], dict[str, Any] | None]] = [
    ("read_file", {"path": "/ws/a.txt"}, None),
    ("mystery_tool", {}, None),
    ("my_mapped_tool", {"x": 1}, None),
    ("mcp__gmail__send_email", {"to": ["eve@evil.example"]}, {
        "recipients": [{"raw": "eve@evil.example", "address": "eve@evil.example", "domain": "evil.example",
                        "field": "to", "valid": True}],
    }),
    ("mcp__gmail__send_email", {"to": ["bob@acme.example"]}, {
        "recipients": [{"raw": "bob@acme.example", "address": "bob@acme.example", "domain": "acme.example",
                        "field": "to", "valid": True}],
    }),
    ("terminal", {"command": "terraform apply"}, {
        "shell": {"opaque": False, "opaque_reasons": [], "commands": [
            {"name": "terraform", "argv": ["terraform", "apply"], "flags": [], "operands": ["apply"]}]},
    }),
    ("terminal", {"command": "npm publish"}, {
        "shell": {"opaque": False, "opaque_reasons": [], "commands": [
            {"name": "npm", "argv": ["npm", "publish"], "flags": [], "operands": ["publish"]}]},
    }),
    ("terminal", {"command": "ls"}, {
        "shell": {"opaque": False, "opaque_reasons": [], "commands": [
            {"name": "ls", "argv": ["ls"], "flags": [], "operands": []}]},
    }),
    ("write_file", {"path": "/ws/x", "content": "hello"}, None),
    ("web_search", {"query": "opa"}, None),
]  # fmt: skip

CONFIGS: list[dict[str, Any]] = [
    {},
    {"mode": "monitor"},
    {"mode": "strict"},
    {"unattended_ask": "allow"},
    {
        "tools": {"my_mapped_tool": {"classes": ["READ"]}, "web_search": {"classes": ["COMMUNICATION"]}},
        "overrides": [{"tool": "write_file", "verdict": "block", "reason": "no writes here"}],
    },
]


def answers(bridge: Bridge) -> list[dict[str, Any]]:
    out = []
    for host in (ATTENDED, UNATTENDED):
        for tool, args, facts in CALLS:
            bridge.put_task("t", fallback_policy("t").to_opa_data())
            doc = decision_input("t", tool, args, "c", SessionFacts(), host)
            if facts:
                doc["facts"] = {**doc["facts"], **facts}
            out.append(bridge.query(doc)["result"])
    return out


@pytest.mark.parametrize("extra", CONFIGS, ids=lambda c: ",".join(c) or "defaults")
def test_the_optimized_bundle_answers_like_the_sources(
    tmp_path: Path, built: Path, extra: dict[str, Any]
) -> None:
    org = [{"name": "acme", "path": str(ORG_EXAMPLE)}]
    sources = started(Config.model_validate({**extra, "org_bundles": org}), tmp_path / "src")
    optimized = started(
        Config.model_validate({**extra, "org_bundles": org, "bundle": {"path": str(built)}}), tmp_path / "opt"
    )
    try:
        assert sources.local is not None and sources.local.own_bundle is None
        assert optimized.local is not None and optimized.local.own_bundle == built
        want, got = answers(sources), answers(optimized)
        assert got == want
        # The spread covers every verdict and the org's reasons, so equality means something.
        if extra.get("mode") == "monitor":
            assert {a["verdict"] for a in want} == {"allow"}
            assert {a["monitor"]["would"] for a in want} == {"allow", "ask", "block"}
        else:
            assert {"allow", "block"} <= {a["verdict"] for a in want}
            if not extra:
                assert "ask" in {a["verdict"] for a in want}
        org_codes = {
            r["code"] for a in want for r in a["reasons"] + ((a["monitor"] or {}).get("reasons") or [])
        }
        assert {"ORG_EXTERNAL_EMAIL", "ORG_NO_TERRAFORM_APPLY"} <= org_codes
    finally:
        sources.close()
        optimized.close()


# --- signing -------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def keys(tmp_path_factory: pytest.TempPathFactory) -> dict[str, KeyPair]:
    d = tmp_path_factory.mktemp("keys")
    return {alg: keypair(d, alg.lower(), alg) for alg in ("RS256", "PS256", "ES256")}


def signed_config(path: Path, key: KeyPair, public: Path | None = None) -> Config:
    signing = {"public_key_file": str(public or key.public), "algorithm": key.alg}
    return Config.model_validate({"bundle": {"path": str(path), "signing": signing}})


@pytest.mark.parametrize("alg", ["RS256", "PS256", "ES256"])
def test_a_signed_bundle_is_verified_by_opa(tmp_path: Path, keys: dict[str, KeyPair], alg: str) -> None:
    out = build_to(tmp_path / "signed.tar.gz", signing_key=keys[alg].private, signing_alg=alg)
    assert ".signatures.json" in members(out)
    bridge = started(signed_config(out, keys[alg]), tmp_path / "state")
    try:
        assert bridge.local is not None
        opa_cfg = json.loads((bridge.local.run_dir / "opa-config.json").read_text())
        assert opa_cfg["bundles"]["opafence"]["signing"] == {"keyid": "opafence"}
        assert opa_cfg["keys"]["opafence"]["algorithm"] == alg
        bridge.put_task("t", fallback_policy("t").to_opa_data())
        host = Host(auto_approve=False, interactive=True, platform="cli")
        d = bridge.decide(decision_input("t", "read_file", {"path": "/ws/a"}, "", SessionFacts(), host))
        assert d.verdict == "allow"
    finally:
        bridge.close()


def _refused(config: Config, state: Path) -> BridgeError:
    bridge = Bridge(config, state)
    try:
        with pytest.raises(BridgeError) as e:
            bridge.start()
        assert e.value.code == "OPA_START_FAILED"
        return e.value
    finally:
        bridge.close()


def test_a_bundle_signed_with_another_key_is_refused(tmp_path: Path, keys: dict[str, KeyPair]) -> None:
    out = build_to(tmp_path / "b.tar.gz", signing_key=keys["RS256"].private, signing_alg="RS256")
    other = keypair(tmp_path / "other", "other", "RS256")
    err = _refused(signed_config(out, keys["RS256"], public=other.public), tmp_path / "state")
    assert "the opafence bundle did not load" in err.detail and "verif" in err.detail


def test_an_unsigned_bundle_is_refused_when_a_key_is_configured(
    tmp_path: Path, built: Path, keys: dict[str, KeyPair]
) -> None:
    err = _refused(signed_config(built, keys["RS256"]), tmp_path / "state")
    assert ".signatures.json" in err.detail


def test_a_tampered_bundle_is_refused(tmp_path: Path, keys: dict[str, KeyPair]) -> None:
    out = build_to(tmp_path / "b.tar.gz", signing_key=keys["ES256"].private, signing_alg="ES256")
    bad = tmp_path / "tampered.tar.gz"
    # Append a rule to our decision module after signing: OPA must notice.
    bad.write_bytes(tamper(out.read_bytes(), "decision.rego", '\ndecision := {"verdict": "allow"}\n'))
    err = _refused(signed_config(bad, keys["ES256"]), tmp_path / "state")
    assert "digest mismatch" in err.detail


def test_signing_without_a_built_bundle_is_refused(tmp_path: Path, keys: dict[str, KeyPair]) -> None:
    cfg = Config.model_validate({"bundle": {"signing": {"public_key_file": str(keys["RS256"].public)}}})
    err = _refused(cfg, tmp_path / "state")
    assert "bundle.path" in err.detail


def test_a_private_key_in_place_of_the_public_key_is_refused(tmp_path: Path, built: Path) -> None:
    key = keypair(tmp_path / "k", "k", "RS256")
    err = _refused(signed_config(built, key, public=key.private), tmp_path / "state")
    assert "holds a private key" in err.detail


def test_a_missing_configured_bundle_is_refused(tmp_path: Path) -> None:
    cfg = Config.model_validate({"bundle": {"path": str(tmp_path / "nope.tar.gz")}})
    assert "does not exist" in _refused(cfg, tmp_path / "state").detail


# --- where the built bundle comes from -------------------------------------------------------


def test_opafence_bundle_env_names_the_built_bundle(built: Path) -> None:
    assert parse_config({}, "x", env={"OPAFENCE_BUNDLE": str(built)}).bundle.path == str(built)


@pytest.fixture
def packaged(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    target = tmp_path / "bundle_dist" / "opafence-bundle.tar.gz"
    target.parent.mkdir()
    monkeypatch.setattr(bundle_mod, "packaged_bundle", lambda: target if target.is_file() else None)
    yield target


def test_a_fresh_packaged_bundle_is_loaded_and_a_stale_one_is_not(
    tmp_path: Path, built: Path, packaged: Path
) -> None:
    packaged.write_bytes(built.read_bytes())
    bridge = started(Config(), tmp_path / "fresh")
    try:
        assert bridge.local is not None and bridge.local.own_bundle == packaged
    finally:
        bridge.close()
    build_to(packaged, revision="0.0.1+stale")
    bridge = started(Config(), tmp_path / "stale")
    try:
        assert bridge.local is not None and bridge.local.own_bundle is None  # the sources instead
    finally:
        bridge.close()


def test_replay_loads_the_configured_bundle(
    tmp_path: Path, built: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cfg = tmp_path / "config.yaml"
    cfg.write_text(yaml.safe_dump({"bundle": {"path": str(built)}}))
    transcript = tmp_path / "t.jsonl"
    line = {"user_message": "read a.txt", "calls": [{"tool": "read_file", "args": {"path": "a.txt"}}]}
    transcript.write_text(json.dumps(line) + "\n")
    state = tmp_path / "replay-state"
    assert cli_main(["replay", str(transcript), "--config", str(cfg), "--state-dir", str(state)]) == 0
    out = json.loads(capsys.readouterr().out.splitlines()[0])
    assert out["verdicts"][0]["verdict"] == "allow"
    opa_cfg = json.loads(next(state.rglob("opa-config.json")).read_text())
    assert opa_cfg["bundles"]["opafence"]["resource"] == built.as_uri()


# --- the command ---------------------------------------------------------------------------------


def test_the_build_command(tmp_path: Path, keys: dict[str, KeyPair]) -> None:
    out = tmp_path / "cli.tar.gz"
    key = keys["ES256"]
    proc = subprocess.run(
        [sys.executable, "-m", "opafence.opa.own_bundle", "build", "--out", str(out),
         "--signing-key", str(key.private), "--signing-alg", "ES256"],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert "signed" in proc.stdout and content_revision() in proc.stdout
    shown = subprocess.run(
        [sys.executable, "-m", "opafence.opa.own_bundle", "inspect", str(out)],
        capture_output=True,
        text=True,
        check=True,
    )
    assert json.loads(shown.stdout)["signed"] is True
    missing_key = str(tmp_path / "no")
    # The name it was first run by (opafence/bundle.py) still runs it, exit status included.
    bad = subprocess.run(
        [sys.executable, "-m", "opafence.bundle", "build", "--out", str(out), "--signing-key", missing_key],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert bad.returncode == 1 and "is not a file" in bad.stderr


def test_manifest_reading_never_raises_anything_else(tmp_path: Path) -> None:
    junk = tmp_path / "junk.tar.gz"
    junk.write_bytes(b"not a tarball")
    empty = tmp_path / "empty.tar.gz"
    with tarfile.open(empty, "w:gz") as tar:
        info = tarfile.TarInfo("x.rego")
        info.size = 3
        tar.addfile(info, io.BytesIO(b"abc"))
    bad_json = tmp_path / "dir"
    bad_json.mkdir()
    (bad_json / ".manifest").write_text("{roots")
    for path, msg in [
        (junk, "not a readable bundle tarball"),
        (empty, "has no .manifest"),
        (bad_json, "not JSON"),
        (tmp_path / "missing", "no such bundle"),
    ]:
        with pytest.raises(BundleError, match=msg):
            read_manifest(path)
