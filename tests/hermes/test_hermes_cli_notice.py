"""The person sees what opafence blocked, in real Hermes CLI runs with a scripted model.

The model is ScriptedModel on 127.0.0.1 (an OpenAI-compatible server that asks for one
write_file call, then answers). The user's words forbid writing, so the call is blocked:
- an interactive `hermes chat` on a pty shows a one-line notice above the prompt;
- `hermes chat -q` from a script (stdin a pipe: nobody can answer) prints one summary line
  on stderr when it ends.
In both, the file is never written."""

from __future__ import annotations

import os
import pty
import re
import select
import subprocess
import time
from pathlib import Path

import pytest

from .conftest import HERMES_BIN
from .scripted_model import ScriptedModel

ANSI = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b.")
MESSAGE = "Tell me what is in my notes. Don't write any files."


def _home(tmp_path: Path, model: ScriptedModel) -> tuple[Path, dict[str, str]]:
    home = tmp_path / "home"
    home.mkdir()
    (home / "config.yaml").write_text(
        "model: fake-model\n"
        "providers:\n"
        f"  scripted: {{base_url: '{model.base_url}', api_key: sk-test, default_model: fake-model}}\n"
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith(("HERMES_", "OPAFENCE_"))}
    if "OPAFENCE_OPA_BIN" in os.environ:
        env["OPAFENCE_OPA_BIN"] = os.environ["OPAFENCE_OPA_BIN"]
    # Hermes' first-run check wants a provider key; side requests go to the scripted model too.
    env.update(HERMES_HOME=str(home), TERM="xterm", COLUMNS="120", LINES="40")
    env.update(OPENAI_API_KEY="sk-test", OPENAI_BASE_URL=model.base_url)
    subprocess.run(
        [str(HERMES_BIN), "plugins", "enable", "opafence", "--no-allow-tool-override"],
        env=env,
        check=True,
        capture_output=True,
    )
    return home, env


def _read_until(fd: int, out: bytearray, pattern: bytes, deadline: float) -> bool:
    while time.monotonic() < deadline:
        if pattern in ANSI.sub("", out.decode("utf-8", "replace")).encode():
            return True
        ready, _, _ = select.select([fd], [], [], 0.5)
        if ready:
            try:
                data = os.read(fd, 65536)
            except OSError:
                return False
            if not data:
                return False
            out.extend(data)
    return False


@pytest.mark.timeout(300)
def test_interactive_cli_shows_a_notice_for_a_blocked_call(tmp_path: Path) -> None:
    work = tmp_path / "work"
    work.mkdir()
    target = work / "notes.txt"
    with ScriptedModel("write_file", {"path": str(target), "content": "hello"}) as model:
        _, env = _home(tmp_path, model)
        pid, fd = pty.fork()
        if pid == 0:  # the child: Hermes' interactive CLI on the pty
            os.chdir(work)
            os.execve(str(HERMES_BIN), [str(HERMES_BIN), "chat", "--provider", "scripted", "-t", "file"], env)
        out = bytearray()
        try:
            assert _read_until(fd, out, "❯".encode(), time.monotonic() + 120), (
                "no prompt:\n" + out.decode("utf-8", "replace")[-2000:]
            )
            time.sleep(1)
            os.write(fd, MESSAGE.encode() + b"\r")
            done = _read_until(fd, out, b"All done.", time.monotonic() + 150)
            os.write(fd, b"/exit\r")
            _read_until(fd, out, b"\x00never", time.monotonic() + 5)
        finally:
            with_exit = os.waitpid(pid, os.WNOHANG)
            if with_exit == (0, 0):
                os.kill(pid, 9)
                os.waitpid(pid, 0)
            os.close(fd)
    screen = ANSI.sub("", out.decode("utf-8", "replace"))
    assert done, screen[-3000:]
    notices = [line for line in screen.splitlines() if "⛔ opafence blocked write_file" in line]
    assert notices, screen[-3000:]
    notice = notices[0][notices[0].index("⛔") :]
    assert "USER_PROHIBITION" in notice
    assert f": {target} (/fence or `opafence log` for why)" in notice
    assert not target.exists()
    assert any(
        m.get("role") == "tool" and "opafence blocked write_file" in str(m.get("content"))
        for r in model.requests
        for m in r.get("messages") or []
    )


@pytest.mark.timeout(300)
def test_scripted_cli_run_ends_with_a_summary_on_stderr(tmp_path: Path) -> None:
    work = tmp_path / "work"
    work.mkdir()
    target = work / "notes.txt"
    with ScriptedModel("write_file", {"path": str(target), "content": "hello"}) as model:
        _, env = _home(tmp_path, model)
        proc = subprocess.run(
            [str(HERMES_BIN), "chat", "--provider", "scripted", "-t", "file", "-q", MESSAGE],
            cwd=work,
            env=env,
            stdin=subprocess.PIPE,
            capture_output=True,
            text=True,
            timeout=240,
            check=False,
        )
    summaries = [line for line in proc.stderr.splitlines() if line.startswith("opafence blocked ")]
    # "Don't write any files" prohibits file writes (issue 14); it no longer makes the task read-only.
    assert summaries == [
        "opafence blocked 1 call: write_file (USER_PROHIBITION); `opafence log --blocked` shows them"
    ], proc.stdout[-2000:] + proc.stderr[-2000:]
    assert "⛔" not in proc.stdout + proc.stderr  # no per-call notices where nobody reads them
    assert not target.exists()
