"""Shared fixtures: a real OPA through the real bridge, in a private temporary state dir."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from opafence.config import Config
from opafence.opa.bridge import Bridge


@pytest.fixture(autouse=True)
def _isolated_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """No test touches the real ~/.hermes, and no OPAFENCE_* variable leaks in (except the binary)."""
    monkeypatch.setenv("HERMES_HOME", str(tmp_path / "hermes-home"))
    for name in list(os.environ):
        if name.startswith("OPAFENCE_") and name != "OPAFENCE_OPA_BIN":
            monkeypatch.delenv(name)


@pytest.fixture
def bridge(tmp_path: Path) -> Iterator[Bridge]:
    b = Bridge(Config(), tmp_path / "state")
    b.start()
    try:
        yield b
    finally:
        b.close()
