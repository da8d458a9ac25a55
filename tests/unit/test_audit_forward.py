"""Forwarding the signed head to a collector: best-effort, token from a file, off the hot path."""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, HTTPServer
from pathlib import Path
from typing import Any, ClassVar

import pytest

from opafence.audit.forward import HeadForwarder
from opafence.audit.trail import AuditLog
from opafence.config import ConfigError, parse_config

# Taken at import (collection), before the Hermes harness closes the network for the session.
_REAL_CONNECT = socket.socket.connect


@pytest.fixture(autouse=True)
def _loopback_only(monkeypatch: pytest.MonkeyPatch) -> None:
    """The collector is on 127.0.0.1; nothing else may be reached."""

    def connect(self: socket.socket, address: Any) -> Any:
        if self.family == socket.AF_INET and address[0] != "127.0.0.1":
            raise OSError(f"network disabled in opafence tests: {address!r}")
        if self.family not in (socket.AF_INET, socket.AF_UNIX):
            raise OSError(f"network disabled in opafence tests: {address!r}")
        return _REAL_CONNECT(self, address)

    monkeypatch.setattr(socket.socket, "connect", connect)


class Collector(BaseHTTPRequestHandler):
    received: ClassVar[list[tuple[str, dict[str, Any]]]] = []
    status = 200

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers["Content-Length"]))
        type(self).received.append((self.headers.get("Authorization", ""), json.loads(body)))
        self.send_response(type(self).status)
        self.end_headers()

    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture
def collector() -> Iterator[str]:
    Collector.received = []
    Collector.status = 200
    server = HTTPServer(("127.0.0.1", 0), Collector)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/heads"
    finally:
        server.shutdown()


def test_the_head_is_posted_with_the_token_and_only_when_it_changed(collector: str, tmp_path: Path) -> None:
    log = AuditLog(tmp_path / "audit.jsonl")
    log.append({"event": "start"})
    token = tmp_path / "token"
    token.write_text("s3cret\n")
    fwd = HeadForwarder(log.path, collector, str(token), interval_s=1.0)
    assert fwd.forward_once()
    assert fwd.forward_once()  # unchanged: not sent again
    assert len(Collector.received) == 1
    auth, head = Collector.received[0]
    assert auth == "Bearer s3cret"
    assert head["seq"] == 1 and head["sig"] and head["chain"]
    log.append({"event": "decision"})
    assert fwd.forward_once()
    assert [h["seq"] for _, h in Collector.received] == [1, 2]


def test_failures_never_raise_and_are_retried(collector: str, tmp_path: Path) -> None:
    log = AuditLog(tmp_path / "audit.jsonl")
    log.append({"event": "start"})
    Collector.status = 500
    fwd = HeadForwarder(log.path, collector, None, interval_s=1.0)
    assert not fwd.forward_once() and fwd.failures == 1
    Collector.status = 200
    assert fwd.forward_once()
    dead = HeadForwarder(log.path, "http://127.0.0.1:9/x", None, interval_s=1.0)
    assert not dead.forward_once()
    missing_token = HeadForwarder(log.path, collector, str(tmp_path / "nope"), interval_s=1.0)
    assert not missing_token.forward_once()


def test_appends_only_wake_the_forwarder_thread(collector: str, tmp_path: Path) -> None:
    log = AuditLog(tmp_path / "audit.jsonl")
    fwd = HeadForwarder(log.path, collector, None, interval_s=1.0)
    log.on_append = fwd.poke
    fwd.start()
    try:
        log.append({"event": "start"})
        deadline = time.monotonic() + 10
        while not Collector.received and time.monotonic() < deadline:
            time.sleep(0.02)
        assert Collector.received and Collector.received[-1][1]["seq"] == 1
    finally:
        fwd.stop()


def test_only_https_or_loopback_collectors() -> None:
    with pytest.raises(ConfigError, match="forward_url"):
        parse_config({"audit": {"forward_url": "http://collector.example/heads"}}, "c", env={})
    assert parse_config({"audit": {"forward_url": "https://c.example/h"}}, "c", env={}).audit.forward_url
