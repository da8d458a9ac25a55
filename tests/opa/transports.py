"""The two local transports, for tests that run against each: opafence-pdp over its pipe and
the stock `opa run --server` over the unix socket. The PDP tests need the built binary
(`make setup` builds it into .tools/bin when Go is there); without it they are skipped."""

from __future__ import annotations

from typing import Any

import pytest

from opafence.config import Config
from opafence.errors import BridgeError
from opafence.opa.binary import resolve_pdp

try:
    PDP = resolve_pdp()
except BridgeError:
    PDP = None

needs_pdp = pytest.mark.skipif(PDP is None, reason="no opafence-pdp built (make setup needs Go)")
TRANSPORTS = [pytest.param("server", id="server"), pytest.param("pdp", id="pdp", marks=needs_pdp)]


def config_for(transport: str, **raw: Any) -> Config:
    """A Config whose local OPA is reached through `transport` (server or pdp)."""
    opa = {**raw.pop("opa", {}), "transport": transport}
    return Config.model_validate({**raw, "opa": opa})
