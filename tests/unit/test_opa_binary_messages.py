"""What opafence says when it cannot use an opa binary: which version it found, which it needs,
and install steps that work for an installed package (not only in a dev checkout)."""

from __future__ import annotations

import stat
from pathlib import Path

import pytest

from opafence.errors import BridgeError
from opafence.opa import binary


def fake_opa(tmp_path: Path, version: str) -> Path:
    path = tmp_path / "bin" / "opa"
    path.parent.mkdir()
    path.write_text(f"#!/bin/sh\necho 'Version: {version}'\n")
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return path


def test_a_wrong_version_names_found_and_needed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPAFENCE_OPA_BIN", raising=False)
    path = fake_opa(tmp_path, "0.61.0")
    with pytest.raises(BridgeError) as e:
        binary.resolve(str(path))
    text = e.value.sentence()
    assert f"is opa 0.61.0, opafence needs {binary.PINNED_VERSION}" in text
    assert f"Install opa {binary.PINNED_VERSION}" in text


def test_not_found_gives_install_steps(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPAFENCE_OPA_BIN", raising=False)
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.setattr(binary, "_project_tools_bin", lambda: tmp_path / "none" / "opa")
    monkeypatch.setattr(binary, "_in_checkout", lambda: False)
    with pytest.raises(BridgeError) as e:
        binary.resolve(None)
    text = str(e.value.detail)
    assert text.startswith("no opa binary on PATH. Install opa")
    assert "OPAFENCE_OPA_BIN" in text and f"open-policy-agent/opa@v{binary.PINNED_VERSION}" in text
    assert ".tools" not in text and "make setup" not in text


def test_a_wrong_version_on_path_is_reported_with_the_steps(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("OPAFENCE_OPA_BIN", raising=False)
    path = fake_opa(tmp_path, "0.70.0")
    monkeypatch.setenv("PATH", str(path.parent))
    monkeypatch.setattr(binary, "_project_tools_bin", lambda: tmp_path / "none" / "opa")
    with pytest.raises(BridgeError) as e:
        binary.resolve(None)
    text = str(e.value.detail)
    assert f"is opa 0.70.0, opafence needs {binary.PINNED_VERSION}" in text
    assert f"Install opa {binary.PINNED_VERSION}" in text
