"""One local OPA per host process: started on a private unix socket, behind a watchdog.

OPA runs with telemetry off, a scrubbed environment (Rego can read OPA's environment, and
Hermes' API keys must not be there), token authentication and a generated system.authz
module. Our Rego is loaded as a bundle with roots ["opafence"]; the authz module is a plain
file. The watchdog (watchdog.py) stops OPA when this process goes away, however it goes."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import IO, Any

from opafence.errors import BridgeError
from opafence.opa.authz import authz_module, new_token
from opafence.opa.binary import OpaBinary, file_sha256
from opafence.opa.bundle_status import activated_at, bundle_error
from opafence.opa.client import Endpoint, OpaClient
from opafence.opa.own_bundle import BundleError, read_manifest
from opafence.rego_files import stage_bundle
from opafence.state_files import ensure_private_dir, runtime_dir, write_private_file

WATCHDOG = Path(__file__).resolve().with_name("watchdog.py")
# OPA's answer once the system.authz module is gone.
AUTHZ_GONE = "authorization policy missing or undefined"


def opa_config(bundle_dir: Path, extra: dict[str, Any] | None = None) -> dict[str, Any]:
    """OPA's own configuration: our bundle from disk (plus whatever later issues add).

    The status plugin is always on, with no service (nothing is sent anywhere): readiness and
    the bundle watcher read `GET /v1/status`. `prometheus` is the quiet way to enable it
    (`console` would write every status change to the OPA log)."""
    cfg: dict[str, Any] = {
        "bundles": {"opafence": {"resource": bundle_dir.as_uri(), "persist": False}},
        "status": {"prometheus": True},
    }
    for key, value in (extra or {}).items():
        if key == "bundles" and isinstance(value, dict):
            # Per bundle: extra keys (e.g. signing) join opafence's entry instead of replacing it.
            for name, entry in value.items():
                cfg["bundles"][name] = {**cfg["bundles"].get(name, {}), **entry}
        elif isinstance(value, dict) and isinstance(cfg.get(key), dict):
            cfg[key] = {**cfg[key], **value}
        else:
            cfg[key] = value
    return cfg


def bundle_status(status_answer: Any, name: str) -> tuple[bool, str]:
    """(activated, error) of one bundle in a `GET /v1/status` answer."""
    result = status_answer.get("result") if isinstance(status_answer, dict) else None
    bundles = result.get("bundles") if isinstance(result, dict) else None
    st = bundles.get(name) if isinstance(bundles, dict) else None
    if not isinstance(st, dict):
        return False, ""
    return bool(activated_at(st)), bundle_error(st)


def _built_revision(path: Path) -> str:
    if not path.is_file():
        raise BridgeError("OPA_START_FAILED", f"the configured opafence bundle {path} does not exist")
    try:
        return str(read_manifest(path).get("revision", ""))
    except BundleError as e:
        raise BridgeError("OPA_START_FAILED", str(e)) from None


class LocalOpa:
    """A supervised-from-outside OPA process. start() returns once OPA answers decisions."""

    def __init__(
        self,
        binary: OpaBinary,
        state: Path,
        start_timeout_s: float = 20.0,
        extra_config: dict[str, Any] | None = None,
        own_bundle: Path | None = None,
    ) -> None:
        self.binary = binary
        self.state = ensure_private_dir(state)
        self.run_dir = runtime_dir(self.state)
        self.socket_path = self.run_dir / "opa.sock"
        self.start_timeout_s = start_timeout_s
        self.extra_config = extra_config or {}
        # A built opafence bundle (tarball) to load instead of staging the Rego sources.
        self.own_bundle = own_bundle
        self.log_path = self.state / "opa.log"
        self.token = ""
        self.revision = ""
        self.proc: subprocess.Popen[bytes] | None = None
        self.started_once = False
        self._lifeline: IO[bytes] | None = None
        # The watchdog's and OPA's process ids once OPA answers (the guards block signals to them).
        self.pids: tuple[int, ...] = ()

    def endpoint(self) -> Endpoint:
        return Endpoint(socket_path=str(self.socket_path))

    def client(self, timeout_s: float) -> OpaClient:
        return OpaClient(self.endpoint(), self.token, timeout_s)

    def bundle_resource(self) -> Path:
        """What OPA loads as the opafence bundle: the built tarball, or the staged sources."""
        return self.own_bundle if self.own_bundle is not None else self.state / "bundle"

    def _write_files(self) -> list[str]:
        bundle_dir = self.bundle_resource()
        if self.own_bundle is None:
            self.revision = stage_bundle(bundle_dir)
        else:
            self.revision = _built_revision(self.own_bundle)
        authz = self.run_dir / "authz.rego"
        write_private_file(authz, authz_module(self.token))
        cfg_path = self.run_dir / "opa-config.json"
        write_private_file(cfg_path, json.dumps(opa_config(bundle_dir, self.extra_config)))
        return [
            str(self.binary.path),
            "run",
            "--server",
            # --disable-telemetry is what DESIGN.md names; 1.22 also spells it --skip-version-check.
            "--disable-telemetry",
            "--skip-version-check",
            "--addr",
            f"unix://{self.socket_path}",
            "--unix-socket-perm",
            "600",
            "--authentication=token",
            "--authorization=basic",
            "--log-level",
            "error",
            "--config-file",
            str(cfg_path),
            str(authz),
        ]

    def start(self) -> None:
        self.stop()
        if self.started_once:
            # A restart runs the same binary that was checked at start, or nothing.
            try:
                digest = file_sha256(self.binary.path)
            except OSError as e:
                raise BridgeError(
                    "OPA_START_FAILED", f"cannot read {self.binary.path}: {e.strerror}"
                ) from None
            if digest != self.binary.sha256:
                raise BridgeError("OPA_START_FAILED", f"{self.binary.path} changed since opafence started")
        self.started_once = True
        self.token = new_token()
        with contextlib.suppress(FileNotFoundError):
            self.socket_path.unlink()
        argv = self._write_files()
        log = self.log_path.open("ab")
        os.chmod(self.log_path, 0o600)
        try:
            self.proc = subprocess.Popen(
                [sys.executable, "-I", "-S", str(WATCHDOG), *argv],
                stdin=subprocess.PIPE,
                stdout=log,
                stderr=log,
                env={},
                close_fds=True,
                start_new_session=True,
                cwd=str(self.run_dir),
            )
        except OSError as e:
            raise BridgeError("OPA_START_FAILED", f"cannot run {self.binary.path}: {e.strerror}") from None
        finally:
            log.close()
        self._lifeline = self.proc.stdin
        self._wait_ready()
        watchdog = self.proc.pid
        opa = self.opa_pid()
        self.pids = (watchdog,) if opa is None else (watchdog, opa)

    def _wait_ready(self) -> None:
        client = OpaClient(self.endpoint(), self.token, timeout_s=2.0)
        deadline = time.monotonic() + self.start_timeout_s
        last = "no answer yet"
        try:
            while time.monotonic() < deadline:
                if self.proc is None or self.proc.poll() is not None:
                    raise BridgeError("OPA_START_FAILED", f"opa exited at start: {self.log_tail()}")
                if self.socket_path.exists():
                    # Ready when the opafence bundle is active. Not /health?bundles: that also
                    # waits for org bundles, and a required one that never loads must leave OPA
                    # up (every decision a block) rather than fail the start.
                    try:
                        activated, error = bundle_status(client.request_json("GET", "/v1/status"), "opafence")
                        if activated:
                            return
                        if error:
                            self.stop()
                            detail = f"the opafence bundle did not load: {error}"
                            raise BridgeError("OPA_START_FAILED", detail)
                        last = "the opafence bundle is not active yet"
                    except BridgeError as e:
                        if e.code == "OPA_START_FAILED":
                            raise
                        if AUTHZ_GONE in e.detail:
                            # Only a bundle can remove the plain-file authz module: one whose
                            # roots cover system.authz (no roots at all, or "system").
                            self.stop()
                            raise BridgeError(
                                "OPA_START_FAILED",
                                "a bundle without roots (or with roots over 'system') removed OPA's "
                                "API authorization; check the org bundles' .manifest roots",
                            ) from None
                        last = e.detail
                time.sleep(0.02)
        finally:
            client.close()
        self.stop()
        raise BridgeError("OPA_START_FAILED", f"not ready after {self.start_timeout_s:.0f} s ({last})")

    def log_tail(self, n: int = 5) -> str:
        try:
            lines = self.log_path.read_text(encoding="utf-8", errors="replace").splitlines()
        except OSError:
            return "(no log)"
        return " | ".join(line.strip() for line in lines[-n:]) or "(empty log)"

    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def wait(self) -> int:
        """Block until the watchdog (and so OPA) exits; return its exit code."""
        proc = self.proc
        return proc.wait() if proc is not None else 0

    def opa_pid(self) -> int | None:
        """The OPA process itself (the watchdog's child), where /proc tells."""
        if self.proc is None:
            return None
        children = Path(f"/proc/{self.proc.pid}/task/{self.proc.pid}/children")
        try:
            pids = children.read_text().split()
        except OSError:
            return None
        return int(pids[0]) if pids else None

    def kill(self) -> None:
        """Make OPA exit without closing the lifeline; the supervisor sees it and restarts."""
        pid = self.opa_pid()
        if pid is not None:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        elif self.proc is not None:
            with contextlib.suppress(ProcessLookupError):
                self.proc.kill()

    def stop(self) -> None:
        proc, self.proc = self.proc, None
        self.pids = ()
        if proc is None:
            return
        if self._lifeline is not None:
            with contextlib.suppress(OSError):
                self._lifeline.close()
            self._lifeline = None
        if proc.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
