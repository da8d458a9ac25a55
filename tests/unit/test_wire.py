"""The lean HTTP connection against a raw server that answers with exact bytes."""

from __future__ import annotations

import socket
import threading
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from opafence.opa.wire import LeanConnection, WireError

Serve = Callable[..., LeanConnection]


class RawServer:
    """Accepts one connection and answers every request with the next canned response."""

    def __init__(self, path: Path, responses: list[bytes]) -> None:
        self.path = path
        self.responses = responses
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.bind(str(path))
        self.sock.listen(4)
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self) -> None:
        while self.responses:
            conn, _ = self.sock.accept()
            with conn:
                while self.responses:
                    data = b""
                    while b"\r\n\r\n" not in data:
                        chunk = conn.recv(65536)
                        if not chunk:
                            break
                        data += chunk
                    if not data:
                        break
                    resp = self.responses.pop(0)
                    try:
                        for i in range(0, len(resp), 7):  # dribble it out in small pieces
                            conn.sendall(resp[i : i + 7])
                    except BrokenPipeError:  # the client gave up on garbage: expected
                        break
                    if b"Connection: close" in resp:
                        break

    def close(self) -> None:
        self.sock.close()


@pytest.fixture
def serve(tmp_path: Path) -> Iterator[Serve]:
    servers: list[RawServer] = []

    def start(*responses: bytes) -> LeanConnection:
        path = tmp_path / f"raw{len(servers)}.sock"
        servers.append(RawServer(path, list(responses)))
        return LeanConnection(unix_path=str(path))

    yield start
    for s in servers:
        s.close()


def test_content_length_and_keep_alive(serve: Serve) -> None:
    conn = serve(b"HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello", b"HTTP/1.1 204 No Content\r\n\r\n")
    assert conn.request("GET", "/a", b"", None, 2.0) == (200, b"hello")
    assert conn.sock is not None  # kept alive
    assert conn.request("PUT", "/b", b"", b"{}", 2.0) == (204, b"")


def test_chunked_body(serve: Serve) -> None:
    body = b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n4\r\nWiki\r\n6;x=1\r\npedia \r\n0\r\n\r\n"
    conn = serve(body)
    assert conn.request("POST", "/x", b"", b"{}", 2.0) == (200, b"Wikipedia ")


def test_connection_close_closes(serve: Serve) -> None:
    conn = serve(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok")
    assert conn.request("GET", "/", b"", None, 2.0) == (200, b"ok")
    assert conn.sock is None


@pytest.mark.parametrize(
    "response",
    [
        b"SSH-2.0-OpenSSH_9.6\r\n\r\n",
        b"HTTP/1.1 200 OK\r\nbroken header line\r\n\r\n",
        b"HTTP/1.1 200 OK\r\nContent-Length: lots\r\n\r\n",
        b"HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n",
        b"HTTP/1.1 200 OK\r\n\r\nno length at all",
        b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
    ],
)
def test_garbage_raises_wire_error(serve: Serve, response: bytes) -> None:
    conn = serve(response + b"Connection: close")
    with pytest.raises(WireError):
        conn.request("GET", "/", b"", None, 2.0)


def test_silence_times_out(tmp_path: Path) -> None:
    path = tmp_path / "silent.sock"
    srv = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    srv.bind(str(path))
    srv.listen(1)
    try:
        conn = LeanConnection(unix_path=str(path))
        with pytest.raises(TimeoutError):
            conn.request("GET", "/", b"", None, 0.2)
    finally:
        srv.close()


def test_peer_hangs_up_mid_body(serve: Serve) -> None:
    conn = serve(b"HTTP/1.1 200 OK\r\nContent-Length: 100\r\nConnection: close\r\n\r\nshort")
    with pytest.raises(ConnectionResetError):
        conn.request("GET", "/", b"", None, 2.0)
