"""One opafence-pdp child and its framed pipe (pdp.py holds the primary/standby pair).

The key is handed over on a separate descriptor at spawn; requests and answers are the
authenticated frames of frames.py on the child's stdin/stdout."""

from __future__ import annotations

import contextlib
import os
import secrets
import select
import subprocess
import threading
import time
from pathlib import Path
from typing import IO

from opafence.errors import BridgeError
from opafence.opa.binary import OpaBinary
from opafence.opa.frames import HEADER_LEN, FrameError, encode_request, open_answer, parse_header

KEY_BYTES = 32


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
