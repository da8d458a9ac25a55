from __future__ import annotations

from pathlib import Path

import pytest

from opafence.config import ConfigError, load_config, parse_config


def test_defaults_when_no_file(tmp_path: Path) -> None:
    cfg = load_config(tmp_path / "missing.yaml", env={})
    assert cfg.mode == "enforce"
    assert cfg.opa.timeout_ms == 250
    assert cfg.unattended_ask == "block"


def test_typo_names_the_key(tmp_path: Path) -> None:
    f = tmp_path / "c.yaml"
    f.write_text("mdoe: monitor\n")
    with pytest.raises(ConfigError, match="unknown key 'mdoe'"):
        load_config(f, env={})


def test_nested_typo_names_the_dotted_key(tmp_path: Path) -> None:
    f = tmp_path / "c.yaml"
    f.write_text("opa:\n  timeout: 5\n")
    with pytest.raises(ConfigError, match=r"unknown key 'opa\.timeout'"):
        load_config(f, env={})


def test_bad_value_names_key_and_file(tmp_path: Path) -> None:
    f = tmp_path / "c.yaml"
    f.write_text("mode: lenient\n")
    with pytest.raises(ConfigError) as e:
        load_config(f, env={})
    assert str(f) in str(e.value) and "mode" in str(e.value)


def test_not_yaml_is_a_clear_error(tmp_path: Path) -> None:
    f = tmp_path / "c.yaml"
    f.write_text("mode: [unclosed\n")
    with pytest.raises(ConfigError, match="not valid YAML"):
        load_config(f, env={})


def test_top_level_must_be_mapping() -> None:
    with pytest.raises(ConfigError, match="mapping"):
        parse_config(["a"], "x.yaml", env={})


def test_env_overrides_single_keys() -> None:
    cfg = parse_config(
        {"mode": "enforce", "opa": {"timeout_ms": 100}},
        "x.yaml",
        env={
            "OPAFENCE_MODE": "strict",
            "OPAFENCE_OPA_BIN": "/opt/opa",
            "OPAFENCE_ORG_BUNDLES": "a.tar.gz, https://b/x",
        },
    )
    assert cfg.mode == "strict"
    assert cfg.opa.binary == "/opt/opa" and cfg.opa.timeout_ms == 100
    assert [b.path for b in cfg.org_bundles] == ["a.tar.gz", None]
    assert cfg.org_bundles[1].url == "https://b/x"


def test_unknown_env_variable_is_an_error() -> None:
    with pytest.raises(ConfigError, match="OPAFENCE_MDOE"):
        parse_config({}, "x.yaml", env={"OPAFENCE_MDOE": "monitor"})


def test_missing_explicit_config_file_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="does not exist"):
        load_config(env={"OPAFENCE_CONFIG": str(tmp_path / "nope.yaml")})


def test_remote_url_must_be_https_or_unix() -> None:
    with pytest.raises(ConfigError, match=r"opa\.url"):
        parse_config({"opa": {"url": "http://opa.example.com:8181"}}, "x.yaml", env={})


def test_opa_data_form() -> None:
    cfg = parse_config(
        {"tools": {"my_tool": {"classes": ["READ"]}}, "overrides": [{"tool": "x*", "verdict": "block"}]},
        "x.yaml",
        env={},
    )
    data = cfg.to_opa_data()
    assert data["tools"] == {"my_tool": {"classes": ["READ"]}}
    assert data["overrides"] == [{"tool": "x*", "class": "*", "verdict": "block", "reason": ""}]


def test_credential_and_trust_files_are_canonical(tmp_path: Path) -> None:
    real = tmp_path / "real"
    real.mkdir()
    (tmp_path / "link").symlink_to(real)
    link = tmp_path / "link"
    cfg = parse_config(
        {
            "opa": {"token_file": f"{link}/opa.token", "binary": f"{link}/opa"},
            "org_bundles": [
                {
                    "name": "corp",
                    "url": "https://bundles.corp.test/b.tar.gz",
                    "token_file": f"{real}/bundle.token",
                    "ca_cert_file": f"{real}/ca.pem",
                    "signing": {"public_key_file": f"{real}/corp.pub.pem"},
                },
                {"name": "local", "path": f"{link}/local.tar.gz"},
            ],
            "decision_logs": {"url": "https://logs.corp.test/", "token_file": f"{real}/logs.token"},
            "audit": {"forward_url": "https://audit.corp.test/", "forward_token_file": f"{real}/audit.token"},
            "budgets": {"prices_file": f"{real}/prices.yaml"},
            "bundle": {"path": f"{real}/opafence.tar.gz"},
        },
        "x.yaml",
        env={},
    )
    data = cfg.to_opa_data()
    assert data["credential_paths"] == sorted(
        f"{real}/{n}" for n in ("opa.token", "bundle.token", "logs.token", "audit.token")
    )
    assert data["trust_paths"] == sorted(
        f"{real}/{n}"
        for n in ("opa", "ca.pem", "corp.pub.pem", "local.tar.gz", "prices.yaml", "opafence.tar.gz")
    )


def test_no_credential_or_trust_files_by_default() -> None:
    data = parse_config({}, "x.yaml", env={}).to_opa_data()
    assert data["credential_paths"] == [] and data["trust_paths"] == []
