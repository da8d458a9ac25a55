"""Forwarding the audit trail's signed head to an organization's collector (optional).

The signing key belongs to the same OS user as the agent, so a determined local user could
rewrite the whole trail and re-sign it. A head the collector already holds cannot be taken
back: a later head that does not extend it shows the rewrite. A daemon thread POSTs the head
record (JSON, as stored) to `audit.forward_url` with `Authorization: Bearer <token>` (the token
read from `audit.forward_token_file` each time, never from the environment), when the head
changed and at most once per `audit.forward_interval_s`. It is best-effort and off the hot
path: an append only sets an event; failures are logged and retried on the next round."""

from __future__ import annotations

import logging
import threading
import urllib.error
import urllib.request
from pathlib import Path

from opafence.audit.trail import head_path

log = logging.getLogger("opafence.audit")


class HeadForwarder:
    def __init__(self, log_path: Path, url: str, token_file: str | None, interval_s: float) -> None:
        self.head = head_path(log_path)
        self.url = url
        self.token_file = Path(token_file).expanduser() if token_file else None
        self.interval_s = interval_s
        self.sent: bytes | None = None
        self.failures = 0
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def poke(self) -> None:
        self._wake.set()

    def start(self) -> None:
        self._thread = threading.Thread(target=self._run, name="opafence-head-forwarder", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        self._wake.set()

    def _run(self) -> None:
        while not self._stop.is_set():
            self._wake.wait()
            if self._stop.is_set():
                return
            self._wake.clear()
            self.forward_once()
            self._stop.wait(self.interval_s)  # at most one POST per interval

    def _token(self) -> str | None:
        if self.token_file is None:
            return None
        try:
            token = self.token_file.read_text(encoding="utf-8").strip()
        except OSError as e:
            log.warning("opafence: cannot read the collector token file %s: %s", self.token_file, e.strerror)
            return None
        return token or None

    def forward_once(self) -> bool:
        """POST the current head if it changed since the last successful POST."""
        try:
            body = self.head.read_bytes()
        except OSError:
            return False
        if body == self.sent:
            return True
        headers = {"Content-Type": "application/json", "User-Agent": "opafence-head-forwarder"}
        token = self._token()
        if self.token_file is not None and token is None:
            self.failures += 1
            return False
        if token:
            headers["Authorization"] = f"Bearer {token}"
        request = urllib.request.Request(self.url, data=body, headers=headers, method="POST")  # noqa: S310
        try:
            with urllib.request.urlopen(request, timeout=5.0) as response:  # noqa: S310 - https or loopback only
                ok = bool(200 <= int(response.status) < 300)
        except (urllib.error.URLError, OSError, ValueError) as e:
            log.warning("opafence: forwarding the audit head to %s failed: %s", self.url, e)
            self.failures += 1
            return False
        if ok:
            self.sent = body
        else:
            self.failures += 1
        return ok
