"""A lean OPA REST client: plain http.client on persistent connections.

Measured here, http.client over the unix socket was about 4x faster per request than httpx.
Connections are pooled so that hooks on several Hermes threads never share one socket;
a connection that fails in any way is discarded, never reused."""

from __future__ import annotations

import http.client
import json
import queue
import socket
import ssl
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from opafence.errors import BridgeError

POOL_SIZE = 8


class UnixHTTPConnection(http.client.HTTPConnection):
    def __init__(self, socket_path: str, timeout: float) -> None:
        super().__init__("localhost", timeout=timeout)
        self._socket_path = socket_path

    def connect(self) -> None:
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        sock.settimeout(self.timeout)
        try:
            sock.connect(self._socket_path)
        except OSError:
            sock.close()
            raise
        self.sock = sock


@dataclass(frozen=True)
class Endpoint:
    """Where OPA listens: a unix socket path, or an http(s) base URL."""

    socket_path: str | None = None
    base_url: str | None = None

    @staticmethod
    def parse(url: str) -> Endpoint:
        if url.startswith("unix://"):
            return Endpoint(socket_path=url[len("unix://") :])
        return Endpoint(base_url=url.rstrip("/"))

    def describe(self) -> str:
        return f"unix://{self.socket_path}" if self.socket_path else str(self.base_url)


class OpaClient:
    """Requests to one OPA with one bearer token; every failure raises BridgeError."""

    def __init__(self, endpoint: Endpoint, token: str, timeout_s: float) -> None:
        self.endpoint = endpoint
        self._token = token
        self.timeout_s = timeout_s
        self._pool: queue.LifoQueue[http.client.HTTPConnection] = queue.LifoQueue(POOL_SIZE)
        self._prefix = ""
        if endpoint.base_url:
            parts = urlsplit(endpoint.base_url)
            self._prefix = parts.path.rstrip("/")

    def _new_connection(self, timeout: float) -> http.client.HTTPConnection:
        if self.endpoint.socket_path:
            return UnixHTTPConnection(self.endpoint.socket_path, timeout)
        parts = urlsplit(self.endpoint.base_url or "")
        if parts.scheme == "https":
            return http.client.HTTPSConnection(
                parts.hostname or "", parts.port, timeout=timeout, context=ssl.create_default_context()
            )
        return http.client.HTTPConnection(parts.hostname or "", parts.port, timeout=timeout)

    def _take(self, timeout: float) -> http.client.HTTPConnection:
        try:
            conn = self._pool.get_nowait()
        except queue.Empty:
            return self._new_connection(timeout)
        conn.timeout = timeout
        if conn.sock is not None:
            conn.sock.settimeout(timeout)
        return conn

    def _give_back(self, conn: http.client.HTTPConnection) -> None:
        try:
            self._pool.put_nowait(conn)
        except queue.Full:
            conn.close()

    def close(self) -> None:
        while True:
            try:
                self._pool.get_nowait().close()
            except queue.Empty:
                return

    def request(
        self, method: str, path: str, body: Any = None, timeout_s: float | None = None
    ) -> tuple[int, bytes]:
        """One request; returns (status, body). Raises BridgeError on any transport failure."""
        timeout = self.timeout_s if timeout_s is None else timeout_s
        payload = None if body is None else json.dumps(body, separators=(",", ":")).encode()
        headers = {"Authorization": f"Bearer {self._token}"}
        if payload is not None:
            headers["Content-Type"] = "application/json"
        conn = self._take(timeout)
        try:
            conn.request(method, self._prefix + path, body=payload, headers=headers)
            resp = conn.getresponse()
            data = resp.read()
        except TimeoutError:
            conn.close()
            raise BridgeError("OPA_TIMEOUT", f"no answer within {timeout * 1000:.0f} ms") from None
        except (FileNotFoundError, ConnectionRefusedError) as e:
            conn.close()
            raise BridgeError("OPA_UNAVAILABLE", f"{self.endpoint.describe()}: {e.strerror}") from None
        except (OSError, http.client.HTTPException) as e:
            conn.close()
            raise BridgeError("OPA_UNAVAILABLE", f"{self.endpoint.describe()}: {e!r}") from None
        if resp.will_close:
            conn.close()
        else:
            self._give_back(conn)
        return resp.status, data

    def request_json(self, method: str, path: str, body: Any = None, timeout_s: float | None = None) -> Any:
        """A request whose answer must be 2xx JSON (or empty for 204)."""
        status, data = self.request(method, path, body, timeout_s)
        if status >= 300:
            snippet = data[:200].decode("utf-8", "replace").strip()
            raise BridgeError("OPA_HTTP_ERROR", f"HTTP {status} for {method} {path}: {snippet}")
        if status == 204 or not data:
            return None
        try:
            return json.loads(data)
        except ValueError:
            raise BridgeError(
                "OPA_BAD_RESULT", f"{method} {path} answered with something that is not JSON"
            ) from None
