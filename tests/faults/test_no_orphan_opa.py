"""OPA must not outlive its host, even when the host is killed or the starting thread exits."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

HOST_SCRIPT = textwrap.dedent(
    """
    import json, sys, threading, time
    from pathlib import Path
    from opafence.config import Config
    from opafence.opa.bridge import Bridge

    holder = {}

    def start():
        # Started from a worker thread that exits right after, as Hermes hooks do.
        b = Bridge(Config.model_validate({"opa": {"transport": "server"}}), Path(sys.argv[1]))
        b.start()
        holder["b"] = b

    t = threading.Thread(target=start)
    t.start()
    t.join()
    time.sleep(1.0)  # the starting thread is gone; OPA must still be serving
    b = holder["b"]
    print(json.dumps({"opa": b.local.opa_pid(), "ready": b.ready}), flush=True)
    time.sleep(300)
    """
)


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:
        state = Path(f"/proc/{pid}/stat").read_text().split()[2]
    except OSError:
        return False
    return state != "Z"


def test_opa_dies_with_a_killed_host(tmp_path: Path) -> None:
    host = subprocess.Popen(
        [sys.executable, "-c", HOST_SCRIPT, str(tmp_path / "state")],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert host.stdout is not None
        info = json.loads(host.stdout.readline())
        opa_pid = info["opa"]
        assert info["ready"] is True
        assert alive(opa_pid), "OPA died when the thread that started it exited"
        os.kill(host.pid, signal.SIGKILL)
        host.wait()
        deadline = time.monotonic() + 10
        while alive(opa_pid) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not alive(opa_pid), "OPA outlived its killed host"
    finally:
        if host.poll() is None:
            host.kill()
