"""The local PDP (opafence-pdp, pdp/): OPA's SDK behind a pipe instead of an HTTP server.

DESIGN.md, "OPA, the process": the plugin starts the PDP as its child and speaks to it in
authenticated frames (frames.py) on its stdin/stdout, under a per-start key handed over on a
separate descriptor. No socket, no per-request authorizer, no HTTP parsing. The PDP offers
only decide, task put/delete, config write, status and bundle manifests.

One PDP per host is the primary; a second one (the standby) is started beside it and fed
every write the primary gets, in the same critical section, so it holds the same data. When
the primary dies, hangs or sends a frame that is not its own, it is killed and the standby
takes over at once (recovery without compiling the policy again); a new standby is started
in the background. Only when there is no standby does a failure reach the bridge, which
restarts everything as it does for the stock OPA. Either way a failed call is a block.

The PDP stops when its stdin reaches EOF, that is when this process goes away however it
goes: the host holds the only write end of that pipe (the lifeline the stock OPA gets from
watchdog.py).

This module holds the pair (LocalPdp); pdp_process.py one child and its pipe, pdp_client.py
the REST calls as PDP requests."""

from __future__ import annotations

import contextlib
import json
import logging
import os
import signal
import threading
import time
from pathlib import Path
from typing import Any

from opafence.errors import BridgeError
from opafence.opa.binary import OpaBinary, file_sha256
from opafence.opa.pdp_client import PdpClient
from opafence.opa.pdp_process import PdpProcess
from opafence.opa.server import _built_revision, bundle_status, opa_config
from opafence.rego_files import stage_bundle
from opafence.state_files import ensure_private_dir, runtime_dir, write_private_file

log = logging.getLogger("opafence.pdp")

MONITOR_INTERVAL_S = 0.05
STANDBY_RETRY_S = 1.0
# The first standby starts this long after the primary: compiling the policy twice at once
# would slow the start, and a short-lived bridge (a CLI run, a test) never needs one.
STANDBY_DELAY_S = 1.5
WRITE_OPS = frozenset({"config_put", "task_put", "task_delete"})


def _activated(status_answer: Any) -> dict[str, str]:
    """{bundle: active revision} of the bundles a status answer says are activated."""
    result = status_answer.get("result") if isinstance(status_answer, dict) else None
    bundles = result.get("bundles") if isinstance(result, dict) else None
    out: dict[str, str] = {}
    for name, st in (bundles or {}).items():
        if isinstance(st, dict) and bundle_status(status_answer, name)[0]:
            out[name] = str(st.get("active_revision") or "")
    return out


class LocalPdp:
    """The primary PDP and its standby; the same surface as server.LocalOpa for the bridge."""

    def __init__(
        self,
        binary: OpaBinary,
        state: Path,
        start_timeout_s: float = 20.0,
        extra_config: dict[str, Any] | None = None,
        own_bundle: Path | None = None,
        standby: bool = True,
    ) -> None:
        self.binary = binary
        self.state = ensure_private_dir(state)
        self.run_dir = runtime_dir(self.state)
        # Nothing listens here; the guards still protect the name (host input opa_socket).
        self.socket_path = self.run_dir / "pdp"
        self.start_timeout_s = start_timeout_s
        self.extra_config = extra_config or {}
        self.own_bundle = own_bundle
        self.log_path = self.state / "opa.log"
        self.revision = ""
        self.token = ""
        self.use_standby = standby
        self.primary: PdpProcess | None = None
        self.standby: PdpProcess | None = None
        self.started_once = False
        self.failovers = 0
        # Every write the primary took, to feed a new standby: config, then tasks in order.
        self._config: bytes | None = None
        self._tasks: dict[str, bytes] = {}
        self._last_status: dict[str, str] = {}
        self._lock = threading.RLock()  # writes, promotion and standby seeding
        self._down = threading.Event()
        self._closing = False
        self._monitor: threading.Thread | None = None
        self._spawner: threading.Thread | None = None
        self._standby_failed_at = -STANDBY_RETRY_S
        self._standby_after = 0.0
        self._cfg_path = self.run_dir / "opa-config.json"

    # --- what the bridge sees ---------------------------------------------------------------

    def client(self, timeout_s: float) -> PdpClient:
        return PdpClient(self, timeout_s)

    def bundle_resource(self) -> Path:
        return self.own_bundle if self.own_bundle is not None else self.state / "bundle"

    @property
    def pids(self) -> tuple[int, ...]:
        return tuple(p.pid for p in (self.primary, self.standby) if p is not None and p.pid is not None)

    def opa_pid(self) -> int | None:
        p = self.primary
        return p.pid if p is not None else None

    def alive(self) -> bool:
        p = self.primary
        return p is not None and p.alive()

    def log_tail(self, n: int = 5) -> str:
        try:
            lines = self.log_path.read_text(encoding="utf-8", errors="replace").splitlines()
        except OSError:
            return "(no log)"
        return " | ".join(line.strip() for line in lines[-n:]) or "(empty log)"

    def wait(self) -> int:
        """Block until no PDP can answer (the bridge then restarts everything)."""
        self._down.wait()
        return 1

    def kill(self) -> None:
        """Kill the primary (tests, and the bridge's own checks); the standby takes over."""
        p = self.primary
        if p is not None and p.proc is not None:
            with contextlib.suppress(ProcessLookupError):
                os.kill(p.proc.pid, signal.SIGKILL)

    # --- start and stop ---------------------------------------------------------------------

    def _check_binary(self) -> None:
        try:
            digest = file_sha256(self.binary.path)
        except OSError as e:
            raise BridgeError("OPA_START_FAILED", f"cannot read {self.binary.path}: {e.strerror}") from None
        if digest != self.binary.sha256:
            raise BridgeError("OPA_START_FAILED", f"{self.binary.path} changed since opafence started")

    def _write_files(self) -> None:
        bundle_dir = self.bundle_resource()
        if self.own_bundle is None:
            self.revision = stage_bundle(bundle_dir)
        else:
            self.revision = _built_revision(self.own_bundle)
        write_private_file(self._cfg_path, json.dumps(opa_config(bundle_dir, self.extra_config)))

    def start(self) -> None:
        """Start the primary and return once it answers; the standby follows in the background."""
        self.stop()
        self._closing = False
        if self.started_once:
            self._check_binary()  # a restart runs the binary checked at start, or nothing
        self.started_once = True
        self._write_files()
        with self._lock:
            self._config, self._tasks, self._last_status = None, {}, {}
        primary = self._new_process("primary")
        self._wait_ready(primary, self.start_timeout_s)
        with self._lock:
            self.primary = primary
            self._down.clear()
        self._standby_after = time.monotonic() + STANDBY_DELAY_S
        self._monitor = threading.Thread(target=self._watch, name="opafence-pdp-monitor", daemon=True)
        self._monitor.start()  # it starts the standby

    def stop(self) -> None:
        self._closing = True
        with self._lock:
            procs = [p for p in (self.primary, self.standby) if p is not None]
            self.primary = self.standby = None
            self._down.set()
        for p in procs:
            p.stop()
        for t in (self._monitor, self._spawner):
            if t is not None and t is not threading.current_thread():
                t.join(timeout=5)
        self._monitor = self._spawner = None

    def _new_process(self, role: str) -> PdpProcess:
        p = PdpProcess(self.binary, self._cfg_path, self.log_path, self.run_dir, role)
        p.spawn()
        return p

    def _wait_ready(self, p: PdpProcess, timeout_s: float) -> None:
        """Until the opafence bundle is active; then one decision, which prepares the query."""
        deadline = time.monotonic() + timeout_s
        last = "no answer yet"
        while time.monotonic() < deadline:
            if self._closing and p.role == "standby":
                p.kill()
                raise BridgeError("OPA_START_FAILED", "closing")
            try:
                answer = json.loads(p.call(b'{"op":"status"}', 5.0)[1])
            except BridgeError as e:
                p.kill()
                raise BridgeError(
                    "OPA_START_FAILED", f"opafence-pdp exited at start: {self.log_tail()} ({e.detail})"
                ) from None
            activated, error = bundle_status(answer, "opafence")
            if activated:
                with contextlib.suppress(BridgeError):
                    p.call(b'{"op":"decide","path":"opafence/decision","input":{}}', 10.0)
                return
            if error:
                p.kill()
                raise BridgeError("OPA_START_FAILED", f"the opafence bundle did not load: {error}")
            last = "the opafence bundle is not active yet"
            time.sleep(0.02)
        p.kill()
        raise BridgeError("OPA_START_FAILED", f"not ready after {timeout_s:.0f} s ({last})")

    # --- the standby ------------------------------------------------------------------------

    def _spawn_standby(self) -> None:
        if not self.use_standby or self._closing:
            return
        now = time.monotonic()
        if now - self._standby_failed_at < STANDBY_RETRY_S or now < self._standby_after:
            return
        t = self._spawner
        if t is not None and t.is_alive():
            return
        self._spawner = threading.Thread(target=self._make_standby, name="opafence-pdp-standby", daemon=True)
        self._spawner.start()

    def _make_standby(self) -> None:
        try:
            self._check_binary()  # a standby runs the binary checked at start, or nothing
            p = self._new_process("standby")
            self._wait_ready(p, self.start_timeout_s)
        except BridgeError as e:
            if not self._closing:
                self._standby_failed_at = time.monotonic()
                log.warning("opafence: the standby PDP did not start: %s", e)
            return
        with self._lock:
            if self._closing or self.standby is not None:
                p.stop()
                return
            try:
                # Seeded under the write lock: from here on it gets every write with the primary.
                if self._config is not None:
                    self._check(p.call(self._config, 5.0))
                for frame in self._tasks.values():
                    self._check(p.call(frame, 5.0))
            except BridgeError as e:
                log.warning("opafence: the standby PDP did not take the data: %s", e)
                p.kill()
                return
            self.standby = p
            if self.primary is None:
                # Nothing was serving (the primary died before this standby was ready).
                self._promote_locked()

    @staticmethod
    def _check(answer: tuple[int, bytes]) -> None:
        status, body = answer
        if status >= 300:
            raise BridgeError("OPA_HTTP_ERROR", f"HTTP {status}: {body[:200].decode('utf-8', 'replace')}")

    def _promote_locked(self) -> bool:
        """Make the standby the primary if it holds what the primary held; under self._lock."""
        s = self.standby
        self.standby = None
        if s is None or not s.alive():
            if s is not None:
                s.kill()
            self.primary = None
            self._down.set()
            return False
        try:
            have = _activated(json.loads(s.call(b'{"op":"status"}', 2.0)[1]))
        except (BridgeError, ValueError):
            have = None
        if have is None or any(have.get(name) != rev for name, rev in self._last_status.items()):
            # It did not load every bundle the primary had: serving from it could miss rules.
            log.warning("opafence: the standby PDP's bundles differ from the primary's; restarting")
            s.kill()
            self.primary = None
            self._down.set()
            return False
        self.primary = s
        s.role = "primary"
        self.failovers += 1
        log.warning("opafence: the PDP failed; the standby took over")
        return True

    def _failover(self, failed: PdpProcess) -> bool:
        """The primary `failed` is unusable: promote the standby. True when one now serves."""
        with self._lock:
            if self.primary is not failed:
                return self.primary is not None  # someone else already replaced it
            failed.kill("failed")
            ok = self._promote_locked()
        self._spawn_standby()
        return ok

    def _watch(self) -> None:
        """Notice a dead primary or standby between calls."""
        while not self._closing:
            time.sleep(MONITOR_INTERVAL_S)
            p, s = self.primary, self.standby
            if p is not None and not p.alive():
                self._failover(p)
            elif s is not None and not s.alive():
                with self._lock:
                    if self.standby is s:
                        self.standby = None
                s.kill()
                self._spawn_standby()
            elif s is None and p is not None:
                self._spawn_standby()

    # --- calls ------------------------------------------------------------------------------

    def call(self, frame: bytes, timeout_s: float, write: bool = False) -> tuple[int, bytes]:
        if write:
            return self._write(frame, timeout_s)
        for attempt in (1, 2):
            p = self.primary
            if p is None:
                raise BridgeError("OPA_UNAVAILABLE", "the PDP is restarting")
            try:
                answer = p.call(frame, timeout_s)
            except BridgeError as e:
                if p.alive():
                    raise  # a slow answer: the stream is still in step
                # Dead or out of step: the standby answers instead (a read is safe to repeat).
                # A timeout is not retried: the caller's time is already spent.
                if self._failover(p) and attempt == 1 and e.code != "OPA_TIMEOUT":
                    continue
                raise
            if frame == b'{"op":"status"}' and answer[0] == 200:
                with contextlib.suppress(ValueError):
                    self._last_status = _activated(json.loads(answer[1]))
            return answer
        raise BridgeError("OPA_UNAVAILABLE", "the PDP is restarting")

    def _write(self, frame: bytes, timeout_s: float) -> tuple[int, bytes]:
        """A data write to the primary and the standby, in one critical section."""
        with self._lock:
            p = self.primary
            if p is None:
                raise BridgeError("OPA_UNAVAILABLE", "the PDP is restarting")
            try:
                answer = p.call(frame, timeout_s)
            except BridgeError:
                if p.alive():
                    # Slow but in step: it applies the write when it gets to it; so must the
                    # standby, or the two would differ.
                    self._remember(frame)
                    self._mirror(frame, timeout_s)
                    raise
                # The standby has every earlier write: give it this one too (PUT and DELETE
                # are safe to repeat), or the write is lost for good when it takes over.
                if not self._failover(p) or self.primary is None:
                    raise
                p = self.primary
                answer = p.call(frame, timeout_s)
            if answer[0] < 300:
                self._remember(frame)
                self._mirror(frame, timeout_s)
            return answer

    def _mirror(self, frame: bytes, timeout_s: float) -> None:
        """The standby gets the write too; one that does not take it is replaced."""
        s = self.standby
        if s is None:
            return
        try:
            self._check(s.call(frame, max(timeout_s, 2.0)))
        except BridgeError as e:
            log.warning("opafence: the standby PDP missed a write (%s); replacing it", e)
            self.standby = None
            s.kill()
            self._spawn_standby()

    def _remember(self, frame: bytes) -> None:
        doc = json.loads(frame)
        if doc["op"] == "config_put":
            self._config = frame
        elif doc["op"] == "task_put":
            self._tasks[doc["key"]] = frame
        elif doc["op"] == "task_delete":
            self._tasks.pop(doc["key"], None)
