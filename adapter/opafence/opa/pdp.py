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
watchdog.py)."""

from __future__ import annotations

import contextlib
import json
import logging
import os
import secrets
import select
import signal
import subprocess
import threading
import time
from pathlib import Path
from typing import IO, Any
from urllib.parse import parse_qs, unquote

from opafence.errors import BridgeError
from opafence.opa.binary import OpaBinary, file_sha256
from opafence.opa.client import json_answer
from opafence.opa.frames import HEADER_LEN, FrameError, encode_request, open_answer, parse_header
from opafence.opa.server import _built_revision, bundle_status, opa_config
from opafence.paths import ensure_private_dir, runtime_dir, write_private_file
from opafence.rego_files import stage_bundle

log = logging.getLogger("opafence.pdp")

KEY_BYTES = 32
MONITOR_INTERVAL_S = 0.05
STANDBY_RETRY_S = 1.0
# The first standby starts this long after the primary: compiling the policy twice at once
# would slow the start, and a short-lived bridge (a CLI run, a test) never needs one.
STANDBY_DELAY_S = 1.5
WRITE_OPS = frozenset({"config_put", "task_put", "task_delete"})
DATA = "/v1/data/"


class _Slot:
    """One request in flight: its answer (or the error that ended the stream) once it came."""

    __slots__ = ("abandoned_at", "answer", "error", "sent")

    def __init__(self) -> None:
        self.answer: tuple[int, bytes] | None = None
        self.error: BridgeError | None = None
        self.sent = 0.0  # time.monotonic() once the request went out whole
        self.abandoned_at: float | None = None  # its caller gave up waiting (a timeout)


class PdpProcess:
    """One opafence-pdp child and its framed pipe. Several calls may be in flight at once: each
    request goes out whole under a lock, in seq order, and the PDP answers decisions as they
    finish, each answer with its request's seq. The calling thread that finds nobody reading
    reads for everyone (hands each answer to its caller) until its own answer is in.

    A call that fails (EOF, a frame whose mac is wrong, whose seq is not one in flight or was
    already answered) kills the process: a stream that fell out of step is never used again,
    and every call in flight gets the error. A slow answer is only a timeout (its answer is
    dropped when it comes); a call that times out while an earlier timed-out call's answer is
    still missing, or a request that could not be written whole, means the PDP hangs, and it is
    killed."""

    def __init__(self, binary: OpaBinary, config_file: Path, log_path: Path, cwd: Path, role: str) -> None:
        self.binary = binary
        self.config_file = config_file
        self.log_path = log_path
        self.cwd = cwd
        self.role = role
        self.proc: subprocess.Popen[bytes] | None = None
        self._key = b""
        self._seq = 0
        self._send_lock = threading.Lock()  # the request stream: seq order is write order
        self._cond = threading.Condition(threading.Lock())  # _pending, _reading, _buf
        self._pending: dict[int, _Slot] = {}
        self._reading = False  # a calling thread is reading answers for everyone
        self._buf = bytearray()
        self.broken = ""

    @property
    def pid(self) -> int | None:
        return self.proc.pid if self.proc is not None else None

    def spawn(self) -> None:
        self._key = secrets.token_bytes(KEY_BYTES)
        r, w = os.pipe()
        try:
            os.write(w, self._key)  # 32 bytes: fits the pipe's buffer before the child reads
            os.close(w)
            w = -1
            log_file = self.log_path.open("ab")
            os.chmod(self.log_path, 0o600)
            try:
                self.proc = subprocess.Popen(
                    [
                        str(self.binary.path),
                        "run",
                        "--config-file",
                        str(self.config_file),
                        "--key-fd",
                        str(r),
                    ],
                    stdin=subprocess.PIPE,
                    stdout=subprocess.PIPE,
                    stderr=log_file,
                    env={},
                    close_fds=True,
                    pass_fds=(r,),
                    start_new_session=True,
                    cwd=str(self.cwd),
                    bufsize=0,
                )
            except OSError as e:
                raise BridgeError(
                    "OPA_START_FAILED", f"cannot run {self.binary.path}: {e.strerror}"
                ) from None
            finally:
                log_file.close()
        finally:
            os.close(r)
            if w >= 0:
                os.close(w)
        assert self.proc.stdin is not None and self.proc.stdout is not None
        os.set_blocking(self.proc.stdin.fileno(), False)
        os.set_blocking(self.proc.stdout.fileno(), False)

    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None and not self.broken

    def kill(self, why: str = "killed") -> None:
        self.broken = self.broken or why
        self._fail_pending(BridgeError("OPA_UNAVAILABLE", f"the {self.role} PDP was {why}"))
        proc = self.proc
        if proc is None:
            return
        if proc.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                proc.kill()
        with contextlib.suppress(subprocess.TimeoutExpired):
            proc.wait(timeout=2)
        for f in (proc.stdin, proc.stdout):
            if f is not None:
                with contextlib.suppress(OSError):
                    f.close()

    def stop(self) -> None:
        """Close the lifeline (the PDP flushes its decision logs and exits), then make sure."""
        proc = self.proc
        if proc is None:
            return
        self.broken = self.broken or "stopped"
        if proc.stdin is not None:
            with contextlib.suppress(OSError):
                proc.stdin.close()
        with contextlib.suppress(subprocess.TimeoutExpired):
            proc.wait(timeout=5)
        self.kill("stopped")

    def call(self, payload: bytes, timeout_s: float) -> tuple[int, bytes]:
        """One request, its answer as (status, body). Raises BridgeError; the process is then
        killed (except when it was already unusable, or the answer is only late)."""
        deadline = time.monotonic() + timeout_s
        slot = _Slot()
        with self._send_lock:
            proc = self.proc
            if proc is None or self.broken or proc.poll() is not None:
                raise BridgeError("OPA_UNAVAILABLE", f"the {self.role} PDP is not running")
            assert proc.stdin is not None
            self._seq += 1
            seq = self._seq
            with self._cond:
                self._pending[seq] = slot
            try:
                self._write(proc.stdin, encode_request(self._key, seq, payload), deadline)
            except TimeoutError:
                # A request that did not go out whole: the PDP does not read, it hangs.
                err = BridgeError("OPA_TIMEOUT", f"no answer within {timeout_s * 1000:.0f} ms")
                self._break("timed out", err)
                raise err from None
            except OSError as e:
                err = BridgeError("OPA_UNAVAILABLE", f"the {self.role} PDP went away ({e})")
                self._break("exited", err)
                raise err from None
            slot.sent = time.monotonic()
        return self._wait(seq, slot, deadline, timeout_s)

    def _wait(self, seq: int, slot: _Slot, deadline: float, timeout_s: float) -> tuple[int, bytes]:
        cond = self._cond
        reader = False
        with cond:
            while slot.answer is None and slot.error is None:
                if not self._reading:
                    self._reading = reader = True
                    break
                left = deadline - time.monotonic()
                if left <= 0:
                    break
                cond.wait(left)
        if reader:
            # Nobody was reading: this thread does, for everyone, until its own answer is in.
            try:
                self._read_until(slot, deadline)
            except TimeoutError:
                pass  # nothing lost: a partial frame stays in the buffer for the next reader
            except FrameError as e:
                self._break(f"sent {e}", BridgeError("OPA_BAD_RESULT", f"the PDP sent {e}"))
            except (EOFError, OSError, ValueError) as e:
                # ValueError: its pipe was closed under us (the process was killed meanwhile).
                gone = BridgeError("OPA_UNAVAILABLE", f"the {self.role} PDP went away ({e})")
                self._break("exited", gone)
            finally:
                with cond:
                    self._reading = False
                    cond.notify_all()
        return self._outcome(seq, slot, timeout_s)

    def _outcome(self, seq: int, slot: _Slot, timeout_s: float) -> tuple[int, bytes]:
        """The answer, the error that ended the stream, or a timeout: the answer is dropped
        when it comes. When an earlier call had already timed out before this one was sent
        and its answer is still missing, the PDP hangs: it is killed."""
        with self._cond:
            if slot.answer is not None:
                return slot.answer
            if slot.error is not None:
                raise slot.error
            hung = any(
                s.abandoned_at is not None and s.abandoned_at <= slot.sent
                for other, s in self._pending.items()
                if other != seq
            )
            slot.abandoned_at = time.monotonic()
        err = BridgeError("OPA_TIMEOUT", f"no answer within {timeout_s * 1000:.0f} ms")
        if hung:
            self._break("timed out", err)
        raise err

    def _read_until(self, slot: _Slot, deadline: float) -> None:
        """Read answers and hand each to its call until `slot` has its own (then also the
        others already read whole). Raises TimeoutError, FrameError, EOFError or OSError."""
        proc = self.proc
        if proc is None or proc.stdout is None:
            raise EOFError("not running")
        fd = proc.stdout.fileno()
        self._deliver_buffered()
        while slot.answer is None and slot.error is None:
            self._fill(fd, HEADER_LEN, deadline)
            length = parse_header(bytes(self._buf[:HEADER_LEN]))[0]
            self._fill(fd, HEADER_LEN + length, deadline)
            self._deliver_buffered()

    def _deliver_buffered(self) -> None:
        """Hand out every answer the buffer holds whole; FrameError for one that is not ours
        (a bad mac, or a seq that is not a request in flight)."""
        while len(self._buf) >= HEADER_LEN:
            length, seq, tag = parse_header(bytes(self._buf[:HEADER_LEN]))
            if len(self._buf) < HEADER_LEN + length:
                return
            payload = bytes(self._buf[HEADER_LEN : HEADER_LEN + length])
            del self._buf[: HEADER_LEN + length]
            answer = open_answer(self._key, seq, tag, payload)
            with self._cond:
                slot = self._pending.pop(seq, None)
                if slot is None:
                    raise FrameError(f"an answer with seq {seq}, which no request in flight has")
                if slot.abandoned_at is None:
                    slot.answer = answer
                    self._cond.notify_all()

    def _fail_pending(self, err: BridgeError) -> None:
        with self._cond:
            for s in self._pending.values():
                if s.answer is None and s.error is None:
                    s.error = err
            self._pending.clear()
            self._cond.notify_all()

    def _break(self, why: str, err: BridgeError) -> None:
        """The stream is unusable: every call in flight gets `err`, and the process is killed."""
        self.broken = self.broken or why
        self._fail_pending(err)
        self.kill(why)

    def _write(self, f: IO[bytes], data: bytes, deadline: float) -> None:
        fd = f.fileno()
        view = memoryview(data)
        while view:
            try:
                n = os.write(fd, view)
            except BlockingIOError:
                n = 0
            view = view[n:]
            if view:
                left = deadline - time.monotonic()
                if left <= 0:
                    raise TimeoutError
                select.select([], [fd], [], left)

    def _fill(self, fd: int, n: int, deadline: float) -> None:
        while len(self._buf) < n:
            try:
                chunk = os.read(fd, max(65536, n - len(self._buf)))
            except BlockingIOError:
                left = deadline - time.monotonic()
                if left <= 0:
                    raise TimeoutError from None
                select.select([fd], [], [], left)
                continue
            if not chunk:
                raise EOFError("end of its output")
            self._buf += chunk


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
