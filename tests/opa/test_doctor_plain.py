"""`opafence doctor` as a person runs it (a real process): plain lines, the way to fix each
problem, no traceback — on a machine with no opa anywhere and with a misspelled config key."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

RUN = "import sys\nfrom opafence.cli import main\nsys.exit(main(['doctor']))\n"
# The checkout's .tools/bin/opa would be found; a machine without opa has none.
NO_OPA = "import opafence.opa.binary as b\nb._project_tools_bin = lambda: b.Path('/nonexistent/opa')\n" + RUN


def doctor(home: Path, config: str | None, opa: bool) -> tuple[int, str, str]:
    (home / "opafence").mkdir(parents=True, mode=0o700, exist_ok=True)
    if config is not None:
        (home / "opafence" / "config.yaml").write_text(config)
    empty = home / "bin"
    empty.mkdir(exist_ok=True)
    env = {"HOME": str(home), "HERMES_HOME": str(home), "PATH": str(empty)}
    if opa and os.environ.get("OPAFENCE_OPA_BIN"):
        env["OPAFENCE_OPA_BIN"] = os.environ["OPAFENCE_OPA_BIN"]
    argv = [sys.executable, "-c", RUN if opa else NO_OPA]
    proc = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=120, check=False)
    return proc.returncode, proc.stdout, proc.stderr


def test_no_opa_anywhere(tmp_path: Path) -> None:
    rc, out, err = doctor(tmp_path / "h", None, opa=False)
    assert rc == 1 and "Traceback" not in out + err, err
    lines = out.splitlines()
    assert lines[0].startswith("[ok  ] config: no file at ") and lines[0].endswith("the defaults apply")
    opa = next(ln for ln in lines if ln.startswith("[FAIL] opa binary:"))
    assert (
        "could not find the opa binary" in opa and "install opa 1.22.3" in opa and "OPAFENCE_OPA_BIN" in opa
    )
    assert "[skip] opa start: needs the opa binary" in lines
    assert lines[-1] == "opafence doctor: 1 problem(s)"


def test_a_misspelled_key(tmp_path: Path) -> None:
    rc, out, err = doctor(tmp_path / "h", "mdoe: monitor\n", opa=True)
    assert rc == 1 and "Traceback" not in out + err, err
    lines = out.splitlines()
    assert lines[0].startswith("[FAIL] config: ") and "unknown key 'mdoe' (did you mean 'mode'?)" in lines[0]
    assert "the plugin blocks every tool call" in lines[0]
    # The other checks still run (on the defaults), so one run shows every problem.
    assert any(ln.startswith("[ok  ] test decision:") for ln in lines), out
    assert lines[-1] == "opafence doctor: 1 problem(s)"
