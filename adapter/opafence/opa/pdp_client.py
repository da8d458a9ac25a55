"""The bridge's REST calls as PDP requests: which call is which frame, and the client the
bridge holds (OpaClient's request/request_json surface over the PDP pair)."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qs, unquote

from opafence.opa.client import json_answer

if TYPE_CHECKING:
    from opafence.opa.pdp import LocalPdp

DATA = "/v1/data/"


def _request(op: str, **fields: Any) -> bytes:
    return json.dumps({"op": op, **fields}, separators=(",", ":")).encode()


def _splice(op: str, path: str, extra: dict[str, Any], body: bytes) -> bytes:
    """A decide request around an already encoded `{"input": ...}` body (no re-encoding)."""
    return splice_input(json.dumps({"op": op, "path": path, **extra}, separators=(",", ":")).encode(), body)


def decide_head(path: str) -> bytes:
    """The head of the decide request for a REST decision path (translate's, without a body)."""
    frame = translate("POST", path, b"{}")
    assert frame is not None
    return frame


def splice_input(head: bytes, body: bytes) -> bytes:
    """A decide request: its head with the fields of an encoded `{"input": ...}` body added."""
    inner = body.strip()
    if not inner.startswith(b"{") or inner == b"{}":
        return head
    return head[:-1] + b"," + inner[1:]


def translate(method: str, path: str, payload: bytes | None) -> bytes | None:
    """The PDP request for one of the REST calls the bridge makes, or None when the PDP does
    not offer it (the answer is then a 403, like the stock OPA's authorizer)."""
    base, _, query = path.partition("?")
    params = parse_qs(query)
    if method == "POST" and base.startswith(DATA + "opafence/"):
        extra: dict[str, Any] = {}
        if params.get("metrics") == ["true"]:
            extra["metrics"] = True
        if params.get("explain"):
            extra["explain"] = params["explain"][0]
        return _splice("decide", base[len(DATA) :], extra, payload or b"{}")
    if method == "PUT" and base == DATA + "config":
        return b'{"op":"config_put","value":' + (payload or b"null") + b"}"
    if base.startswith(DATA + "tasks/") and method in {"PUT", "DELETE"}:
        key = unquote(base[len(DATA + "tasks/") :])
        if method == "DELETE":
            return _request("task_delete", key=key)
        return _request("task_put", key=key)[:-1] + b',"value":' + (payload or b"null") + b"}"
    if method == "GET" and base in {"/v1/status", "/health"}:
        return _request("status")
    if method == "GET" and base == DATA + "system/bundles":
        return _request("manifests")
    return None


FORBIDDEN = b'{"code":"forbidden","message":"the PDP does not offer this"}'


class PdpClient:
    """The bridge's client interface (OpaClient's request/request_json) over the PDP pair."""

    def __init__(self, local: LocalPdp, timeout_s: float) -> None:
        self.local = local
        self.timeout_s = timeout_s
        # Decision requests by REST path: the head of the frame (op, path, options), so that a
        # decision costs no query parsing; a handful of paths, so the dict stays small.
        self._decide_heads: dict[str, bytes] = {}

    def close(self) -> None:
        pass

    def request(
        self, method: str, path: str, body: Any = None, timeout_s: float | None = None
    ) -> tuple[int, bytes]:
        payload = None if body is None else json.dumps(body, separators=(",", ":")).encode()
        return self.request_raw(method, path, payload, timeout_s)

    def request_raw(
        self, method: str, path: str, payload: bytes | None = None, timeout_s: float | None = None
    ) -> tuple[int, bytes]:
        head = self._decide_heads.get(path) if method == "POST" else None
        if head is not None:
            frame: bytes | None = splice_input(head, payload or b"{}")
        else:
            frame = translate(method, path, payload)
            if method == "POST" and frame is not None and len(self._decide_heads) < 64:
                self._decide_heads[path] = decide_head(path)
        if frame is None:
            return 403, FORBIDDEN
        timeout = self.timeout_s if timeout_s is None else timeout_s
        return self.local.call(frame, timeout, write=method in {"PUT", "DELETE"})

    def request_json(self, method: str, path: str, body: Any = None, timeout_s: float | None = None) -> Any:
        status, data = self.request(method, path, body, timeout_s)
        return json_answer(method, path, status, data)
