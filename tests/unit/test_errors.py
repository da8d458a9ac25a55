"""Every exception class opafence defines derives from opafence.errors.OpafenceError."""

from __future__ import annotations

import importlib
import inspect
import pkgutil

import opafence
from opafence.errors import BridgeError, OpafenceError

# Known at the time of writing, so the walk below cannot pass by finding nothing.
KNOWN = {
    "opafence.audit.trail.AuditError",
    "opafence.audit.keys.AuditKeyError",
    "opafence.budget.spend_ledger.LedgerError",
    "opafence.budget.spend_ledger.LedgerUnavailable",
    "opafence.budget.prices.PriceTableError",
    "opafence.opa.own_bundle.BundleError",
    "opafence.config.ConfigError",
    "opafence.errors.BridgeError",
    "opafence.hermes.store.NewerRecordError",
    "opafence.intent.llm.LLMError",
    "opafence.opa.frames.FrameError",
    "opafence.opa.wire.WireError",
}


def exception_classes() -> dict[str, type[BaseException]]:
    """Every exception class defined in a module of the opafence package."""
    found: dict[str, type[BaseException]] = {}
    for info in pkgutil.walk_packages(opafence.__path__, "opafence."):
        module = importlib.import_module(info.name)
        for _, cls in inspect.getmembers(module, inspect.isclass):
            if issubclass(cls, BaseException) and cls.__module__ == info.name:
                found[f"{cls.__module__}.{cls.__qualname__}"] = cls
    return found


def test_every_opafence_exception_derives_from_the_base() -> None:
    found = exception_classes()
    assert set(found) >= KNOWN
    assert (
        sorted(
            name
            for name, cls in found.items()
            if cls is not OpafenceError and not issubclass(cls, OpafenceError)
        )
        == []
    )


def test_the_base_changes_no_catch() -> None:
    # What callers caught before still catches: the base is a plain Exception, and the one
    # exception that was a ValueError still is.
    assert OpafenceError.__bases__ == (Exception,)
    assert issubclass(exception_classes()["opafence.hermes.store.NewerRecordError"], ValueError)
    err = BridgeError("OPA_TIMEOUT", "x")
    assert isinstance(err, OpafenceError) and err.code == "OPA_TIMEOUT"
