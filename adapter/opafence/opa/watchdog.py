"""Run OPA so that it cannot outlive the Python process that started it.

Started as `python -I -S watchdog.py opa run ...` with its stdin connected to a pipe whose
write end only the host holds. When the host exits, or is killed, the pipe reaches EOF and
the watchdog stops OPA. The watchdog is single-threaded, so Linux's parent-death signal is
reliable for its own child (in Hermes, threads start OPA and the signal would fire when the
starting thread exits). Standard library only: it runs without site-packages.
"""

import os
import select
import signal
import subprocess
import sys

PR_SET_PDEATHSIG = 1


def _die_with_parent() -> None:
    if sys.platform.startswith("linux"):
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL)


def _stop(child: "subprocess.Popen[bytes]") -> int:
    if child.poll() is None:
        child.terminate()
        try:
            return child.wait(timeout=3)
        except subprocess.TimeoutExpired:
            child.kill()
    return child.wait()


def main() -> int:
    argv = sys.argv[1:]
    if not argv:
        return 2
    # preexec_fn is safe here: the watchdog is single-threaded.
    child = subprocess.Popen(
        argv,
        stdin=subprocess.DEVNULL,
        env={},
        preexec_fn=_die_with_parent,  # noqa: PLW1509
        close_fds=True,
    )
    signal.signal(signal.SIGTERM, lambda *_: _stop(child) and None)
    while True:
        if child.poll() is not None:
            return child.returncode
        try:
            ready, _, _ = select.select([0], [], [], 0.5)
        except InterruptedError:
            continue
        if ready and not os.read(0, 4096):
            # EOF: the host is gone.
            _stop(child)
            return 0


if __name__ == "__main__":
    sys.exit(main())
