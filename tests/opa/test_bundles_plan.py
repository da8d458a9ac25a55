"""Pure parts of the bundle machinery: configuration, OPA's bundle config, status to state."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from opafence.config import Config, ConfigError, parse_config
from opafence.errors import BridgeError
from opafence.opa.bundle_status import BundleWatcher, gate_error, summarize
from opafence.opa.bundles import (
    DECISION_LOG_SERVICE,
    DROP_DECISION,
    MASK_DECISION,
    BundleSpec,
    plan_bundles,
)
from opafence.opa.own_bundle import org_roots_problem
from opafence.opa.server import opa_config

from .bundle_support import keypair, write_bundle_dir

# --- configuration -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("bundle", "error"),
    [
        ({"name": "a"}, "exactly one of path"),
        ({"name": "a", "path": "/x", "url": "https://h/x"}, "exactly one of path"),
        ({"name": "a", "url": "http://bundles.example.com/x"}, "https://"),
        ({"name": "a", "url": "https://user:pw@h.example/x"}, "credentials"),
        ({"name": "opafence", "path": "/x"}, "opafence's own bundle"),
        ({"name": "a b", "path": "/x"}, "name"),
        ({"name": "a", "path": "/x", "token_file": "/t"}, "only apply to a bundle server"),
        (
            {"name": "a", "url": "https://h/x", "polling": {"min_delay_seconds": 9, "max_delay_seconds": 3}},
            "max_delay",
        ),
        (
            {"name": "a", "path": "/x", "signing": {"public_key_file": "/k", "algorithm": "HS256"}},
            "algorithm",
        ),
        (
            {"name": "a", "path": "/x", "signing": {"public_key_file": "/k", "algorithm": "EdDSA"}},
            "algorithm",
        ),
        ({"name": "a", "path": "/x", "sign": {}}, "unknown key 'org_bundles.0.sign'"),
    ],
)
def test_bad_org_bundle_config_names_the_problem(bundle: dict[str, Any], error: str) -> None:
    with pytest.raises(ConfigError, match=error.replace(".", r"\.").replace("(", r"\(")):
        parse_config({"org_bundles": [bundle]}, "c.yaml", env={})


def test_org_bundle_names_are_unique() -> None:
    with pytest.raises(ConfigError, match="two org bundles are named 'a'"):
        parse_config({"org_bundles": [{"name": "a", "path": "/x"}, {"name": "a", "path": "/y"}]}, "c", env={})


def test_loopback_http_and_env_bundles() -> None:
    cfg = parse_config(
        {},
        "c",
        env={
            "OPAFENCE_ORG_BUNDLES": "/srv/org.tar.gz, http://127.0.0.1:8000/b/acme.tar.gz,https://b.example/x"
        },
    )
    assert [(b.name, b.path, b.url, b.required) for b in cfg.org_bundles] == [
        ("org0", "/srv/org.tar.gz", None, True),
        ("org1", None, "http://127.0.0.1:8000/b/acme.tar.gz", True),
        ("org2", None, "https://b.example/x", True),
    ]


def test_decision_logs_config() -> None:
    with pytest.raises(ConfigError, match=r"decision_logs\.url"):
        parse_config({"decision_logs": {"url": "http://collector.example/logs"}}, "c", env={})
    cfg = parse_config({"decision_logs": {"url": "https://c.example/v1/logs"}}, "c", env={})
    assert cfg.decision_logs is not None and cfg.decision_logs.min_delay_seconds == 60


# --- OPA's configuration -------------------------------------------------------------------------


def test_a_bundle_server_becomes_a_service_with_a_token_file(tmp_path: Path) -> None:
    token = tmp_path / "token"
    token.write_text("secret-token-value")
    key = keypair(tmp_path / "k", "acme", "ES256")
    cfg = Config.model_validate(
        {
            "org_bundles": [
                {
                    "name": "acme",
                    "url": "https://bundles.example.com:8443/v1/acme.tar.gz?ref=main",
                    "token_file": str(token),
                    "signing": {"public_key_file": str(key.public), "algorithm": "ES256", "scope": "write"},
                    "polling": {"min_delay_seconds": 10, "max_delay_seconds": 20},
                }
            ]
        }
    )
    plan = plan_bundles(cfg, tmp_path / "staged", tmp_path / "cache")
    opa = opa_config(tmp_path / "staged", plan.opa)
    assert opa["services"]["org-bundle-acme"] == {
        "url": "https://bundles.example.com:8443",
        "credentials": {"bearer": {"token_path": str(token.resolve()), "scheme": "Bearer"}},
    }
    assert opa["bundles"]["acme"] == {
        "service": "org-bundle-acme",
        "resource": "/v1/acme.tar.gz?ref=main",
        "persist": True,
        "polling": {"min_delay_seconds": 10, "max_delay_seconds": 20},
        "signing": {"keyid": "acme", "scope": "write"},
    }
    assert opa["keys"]["acme"] == {"algorithm": "ES256", "key": key.public.read_text()}
    assert opa["persistence_directory"] == str(tmp_path / "cache")
    assert opa["bundles"]["opafence"] == {"resource": (tmp_path / "staged").as_uri(), "persist": False}
    # The status plugin reports to nobody; no secret is in OPA's config.
    assert opa["status"] == {"prometheus": True}
    assert "secret-token-value" not in json.dumps(opa)


def test_decision_logs_go_to_their_own_service_masked(tmp_path: Path) -> None:
    cfg = Config.model_validate(
        {
            "decision_logs": {
                "url": "https://collector.example/logs/v1",
                "min_delay_seconds": 5,
                "max_delay_seconds": 9,
            }
        }
    )
    opa = plan_bundles(cfg, tmp_path / "staged").opa
    assert opa["services"][DECISION_LOG_SERVICE] == {"url": "https://collector.example"}
    assert opa["decision_logs"] == {
        "service": DECISION_LOG_SERVICE,
        "resource": "/logs/v1",
        "reporting": {"min_delay_seconds": 5, "max_delay_seconds": 9},
        "mask_decision": MASK_DECISION,
        "drop_decision": DROP_DECISION,
    }


def test_a_missing_token_file_refuses_the_bundle_not_the_start(tmp_path: Path) -> None:
    cfg = Config.model_validate(
        {
            "org_bundles": [
                {"name": "acme", "url": "https://h.example/b", "token_file": str(tmp_path / "none")}
            ]
        }
    )
    plan = plan_bundles(cfg, tmp_path / "staged")
    spec = plan.spec("acme")
    assert spec is not None and "token file" in spec.refused
    assert "acme" not in plan.opa["bundles"] and "services" not in plan.opa


def test_one_key_id_cannot_name_two_keys(tmp_path: Path) -> None:
    a, b = keypair(tmp_path / "a", "a"), keypair(tmp_path / "b", "b")
    src = write_bundle_dir(tmp_path / "src", {}, {"roots": ["org"]})
    cfg = Config.model_validate(
        {
            "org_bundles": [
                {"name": "x", "path": str(src), "signing": {"public_key_file": str(a.public), "key_id": "k"}},
                {"name": "y", "path": str(src), "signing": {"public_key_file": str(b.public), "key_id": "k"}},
            ]
        }
    )
    plan = plan_bundles(cfg, tmp_path / "staged")
    assert plan.spec("x") is not None and not plan.spec("x").refused  # type: ignore[union-attr]
    assert "names two different keys" in plan.spec("y").refused  # type: ignore[union-attr]


def test_own_signing_problems_stop_the_start(tmp_path: Path) -> None:
    cfg = Config.model_validate({"bundle": {"signing": {"public_key_file": str(tmp_path / "missing.pem")}}})
    with pytest.raises(BridgeError, match=r"bundle\.path"):
        plan_bundles(cfg, tmp_path / "staged")
    with pytest.raises(BridgeError, match="cannot read the public key"):
        plan_bundles(cfg, tmp_path / "b.tar.gz", own_built=True)


@pytest.mark.parametrize(
    ("manifest", "problem"),
    [
        ({"roots": ["org"]}, ""),
        ({"roots": ["org/agent", "org/acme/"]}, ""),
        ({"roots": ["/org"]}, ""),
        ({}, "has no roots"),
        ({"roots": "org"}, "non-empty list"),
        ({"roots": [1]}, "non-empty list"),
        ({"roots": [""]}, "not under 'org'"),
        ({"roots": ["orgs"]}, "not under 'org'"),
        ({"roots": ["org", "system"]}, "not under 'org'"),
    ],
)
def test_org_roots(manifest: dict[str, Any], problem: str) -> None:
    got = org_roots_problem(manifest)
    assert (problem in got) if problem else got == ""


# --- status to state -----------------------------------------------------------------------------

LOADED = {"last_successful_activation": "2026-11-30T10:00:00Z", "active_revision": "r1"}
NEVER = {"last_successful_activation": "0001-01-01T00:00:00Z"}
SPECS = [
    BundleSpec("opafence", "opafence", "/b", True, False, False),
    BundleSpec("req", "org", "https://h/r", True, True, True),
    BundleSpec("opt", "org", "https://h/o", False, True, True),
]


@pytest.mark.parametrize(
    ("status", "roots", "want", "blocking"),
    [
        ({"opafence": LOADED, "req": LOADED, "opt": LOADED}, {}, {"req": "loaded", "opt": "loaded"}, set()),
        ({"opafence": LOADED}, {}, {"req": "pending", "opt": "pending"}, {"req"}),
        (
            {"opafence": LOADED, "req": {**NEVER, "code": "bundle_error", "http_code": 404, "message": "nf"},
             "opt": {**NEVER, "code": "bundle_error", "message": "bad sig"}},
            {}, {"req": "failed", "opt": "failed"}, {"req"},
        ),
        (
            {"opafence": LOADED, "req": {**LOADED, "code": "bundle_error", "message": "digest mismatch"},
             "opt": LOADED},
            {}, {"req": "stale", "opt": "loaded"}, set(),
        ),
        (
            {"opafence": LOADED, "req": LOADED, "opt": LOADED},
            {"opt": "its roots ['tasks'] are not under 'org'"}, {"req": "loaded", "opt": "refused"}, {"opt"},
        ),
        ({"req": LOADED, "opt": LOADED}, {}, {"req": "loaded", "opt": "loaded"}, {"opafence"}),
    ],
)  # fmt: skip
def test_status_to_state(
    status: dict[str, Any], roots: dict[str, str], want: dict[str, str], blocking: set[str]
) -> None:
    states = summarize(SPECS, status, roots)
    assert {n: s.state for n, s in states.items() if n != "opafence"} == want
    assert {n for n, s in states.items() if s.blocks} == blocking
    err = gate_error(states)
    assert (err is None) == (not blocking)
    if err is not None:
        assert err.code == "BUNDLE_NOT_LOADED"
        assert all(f"'{n}'" in err.detail for n in blocking)


def test_http_status_is_in_the_error() -> None:
    states = summarize(
        SPECS, {"req": {**NEVER, "code": "bundle_error", "http_code": 503, "message": "x"}}, {}
    )
    assert states["req"].error == "bundle_error (HTTP 503): x"


class _Client:
    """Answers like OPA's /v1/status and /v1/data/system/bundles, from dicts the test changes."""

    def __init__(self) -> None:
        self.status: dict[str, Any] = {}
        self.system: dict[str, Any] = {}
        self.calls: list[str] = []

    def request_json(self, method: str, path: str, body: Any = None, timeout_s: float | None = None) -> Any:
        self.calls.append(path)
        if path == "/v1/status":
            return {"result": {"bundles": self.status}}
        return {"result": self.system}


def test_the_watcher_reports_changes_once_and_checks_roots_per_activation(tmp_path: Path) -> None:
    client = _Client()
    events: list[dict[str, Any]] = []
    specs = SPECS[1:2]
    w = BundleWatcher(specs, lambda: client, 1.0, events.append, tmp_path / "bundle-status.json")  # type: ignore[arg-type,return-value]
    assert w.gate is not None  # nothing known yet: a required bundle blocks
    w.poll()
    assert events == [] and w.gate is not None  # still pending: no event
    client.status = {"req": LOADED}
    client.system = {"req": {"manifest": {"roots": ["org"]}}}
    w.poll()
    w.poll()
    assert [(e["bundle"], e["state"], e["previous_state"]) for e in events] == [("req", "loaded", "pending")]
    assert w.gate is None
    assert client.calls.count("/v1/data/system/bundles") == 1  # only once per activation
    doc = json.loads((tmp_path / "bundle-status.json").read_text())
    assert (
        doc["bundles"][0]["state"] == "loaded"
        and oct((tmp_path / "bundle-status.json").stat().st_mode)[-3:] == "600"
    )
    # A new activation with roots outside org: refused and blocking, even though loaded.
    client.status = {
        "req": {**LOADED, "last_successful_activation": "2026-11-30T11:00:00Z", "active_revision": "r2"}
    }
    client.system = {"req": {"manifest": {"roots": ["org", "config"]}}}
    w.poll()
    assert events[-1]["state"] == "refused" and "not under 'org'" in events[-1]["error"]
    assert w.gate is not None and "was refused" in w.gate.detail
    # A listener that raises does not stop the watcher.
    w.add_listener(lambda e: (_ for _ in ()).throw(RuntimeError("boom")))
    client.status = {}
    w.reset()
    assert events[-1]["state"] == "pending"
