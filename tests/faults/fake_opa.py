"""A fake OPA on a unix socket, only to inject faults into the bridge (garbage, 500s, hangs)."""

from __future__ import annotations

import os
import socketserver
import threading
import time
from http.server import BaseHTTPRequestHandler
from pathlib import Path

REPLIES: dict[str, tuple[int, bytes, float]] = {
    "garbage": (200, b"\x00\xffnot json at all", 0.0),
    "http500": (500, b'{"code":"internal_error","message":"boom"}', 0.0),
    "undefined": (200, b"{}", 0.0),
    "wrong_shape": (200, b'{"result": {"verdict": "maybe", "reasons": []}}', 0.0),
    "not_object": (200, b"[1, 2, 3]", 0.0),
    "result_string": (200, b'{"result": "allow"}', 0.0),
    "slow": (
        200,
        b'{"result": {"verdict": "allow", "reasons": [], "classes": ["READ"], "monitor": null}}',
        2.0,
    ),
    "good": (
        200,
        b'{"result": {"verdict": "allow", "reasons": [], "classes": ["READ"], "monitor": null}}',
        0.0,
    ),
}


class _Server(socketserver.ThreadingMixIn, socketserver.UnixStreamServer):
    daemon_threads = True
    mode = "good"


class _Handler(BaseHTTPRequestHandler):
    server: _Server

    def log_message(self, format: str, *args: object) -> None:
        pass

    def _reply(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        if length:
            self.rfile.read(length)
        if self.command == "PUT":
            self.send_response(204)
            self.end_headers()
            return
        status, body, delay = REPLIES[self.server.mode]
        time.sleep(delay)
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    do_GET = _reply
    do_POST = _reply
    do_PUT = _reply

    def address_string(self) -> str:
        return "fake"


class FakeOpa:
    def __init__(self, socket_path: Path) -> None:
        self.socket_path = socket_path
        if socket_path.exists():
            os.unlink(socket_path)
        self.server = _Server(str(socket_path), _Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def __enter__(self) -> FakeOpa:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()

    def set_mode(self, mode: str) -> None:
        self.server.mode = mode
