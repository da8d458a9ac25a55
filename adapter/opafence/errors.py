"""Bridge failures: each has a stable code and a sentence a person understands.

Every one of them becomes a block (DESIGN.md: any error, timeout, undefined or malformed
answer on the way is a block)."""

from __future__ import annotations

MESSAGES: dict[str, str] = {
    "OPA_NOT_FOUND": "opafence could not find the opa binary, so nothing can be authorized",
    "OPA_START_FAILED": "the local policy engine (OPA) did not start",
    "OPA_UNAVAILABLE": "the policy engine (OPA) is not reachable right now",
    "OPA_TIMEOUT": "the policy engine (OPA) did not answer in time",
    "OPA_HTTP_ERROR": "the policy engine (OPA) answered with an error",
    "OPA_UNDEFINED": "the policy engine (OPA) has no decision for this call (is the policy loaded?)",
    "OPA_BAD_RESULT": "the policy engine (OPA) gave an answer opafence cannot read",
    "BUNDLE_NOT_LOADED": "a required policy bundle is not loaded",
    "BRIDGE_ERROR": "opafence hit an internal error while checking this call",
    "FACTS_ERROR": "opafence could not read this tool call's arguments",
    "CONFIG_ERROR": "the opafence configuration is invalid",
    "AUDIT_UNAVAILABLE": "the audit trail cannot be written, so no decision is made",
}

FIXES: dict[str, str] = {
    "OPA_NOT_FOUND": "Install opa 1.22.3 or set OPAFENCE_OPA_BIN / opa.binary; run `opafence doctor`.",
    "OPA_START_FAILED": "Run `opafence doctor` to see why OPA did not start.",
    "OPA_UNAVAILABLE": "opafence restarts OPA by itself; retry in a moment or run `opafence doctor`.",
    "OPA_TIMEOUT": "Retry; if it persists run `opafence doctor`.",
    "OPA_HTTP_ERROR": "Run `opafence doctor`; the OPA log is in the opafence state directory.",
    "OPA_UNDEFINED": "Run `opafence doctor` to check that the opafence bundle is loaded.",
    "OPA_BAD_RESULT": "Run `opafence doctor`; an organization bundle may be overriding opafence rules.",
    "BUNDLE_NOT_LOADED": "Run `opafence doctor` to see which bundle failed and why.",
    "BRIDGE_ERROR": "Report this with the opafence log; the call was blocked to be safe.",
    "FACTS_ERROR": "Check the tool call's arguments; the call was blocked to be safe.",
    "CONFIG_ERROR": "Fix the opafence config file; run `opafence doctor`.",
    "AUDIT_UNAVAILABLE": "Run `opafence audit verify`; the message above says how to recover.",
}


class OpafenceError(Exception):
    """The base of every exception opafence defines, so a caller can tell ours apart from a bug
    (tests/unit/test_errors.py holds every exception class of the package to it)."""


class BridgeError(OpafenceError):
    """A failure on the way to a decision. Never escapes to Hermes: it becomes a block."""

    def __init__(self, code: str, detail: str = "") -> None:
        self.code = code if code in MESSAGES else "BRIDGE_ERROR"
        self.detail = detail
        super().__init__(self.sentence())

    def sentence(self) -> str:
        base = MESSAGES[self.code]
        return f"{base}: {self.detail}" if self.detail else base
