"""A failed setup never leaves Hermes unguarded: every call is blocked with the reason.

Each case runs a fresh Hermes process (the config is read once at start)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from .conftest import HERMES_BIN

PROBE = textwrap.dedent(
    """
    import json, model_tools
    out = model_tools.handle_function_call("read_file", {"path": "/etc/hostname"},
                                           task_id="t", session_id="s", tool_call_id="c")
    print(json.dumps(json.loads(out)))
    """
)


def run_hermes(home: Path, extra_env: dict[str, str], probe: str = PROBE) -> dict[str, object]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("HERMES_")}
    env.update({"HERMES_HOME": str(home), **extra_env})
    subprocess.run(
        [str(HERMES_BIN), "plugins", "enable", "opafence", "--no-allow-tool-override"],
        env=env,
        check=True,
        capture_output=True,
    )
    proc = subprocess.run(
        [sys.executable, "-c", probe], env=env, capture_output=True, text=True, timeout=120, check=True
    )
    result: dict[str, object] = json.loads(proc.stdout.strip().splitlines()[-1])
    return result


@pytest.mark.parametrize(
    ("config", "env", "expected"),
    [
        ("mdoe: monitor\n", {}, "unknown key 'mdoe'"),
        ("mode: [\n", {}, "not valid YAML"),
        ("", {"OPAFENCE_OPA_BIN": "/nonexistent/opa"}, "OPA_NOT_FOUND"),
        ("", {"OPAFENCE_MDOE": "x"}, "OPAFENCE_MDOE"),
    ],
)
def test_setup_failure_blocks_every_call(
    tmp_path: Path, config: str, env: dict[str, str], expected: str
) -> None:
    home = tmp_path / "home"
    (home / "opafence").mkdir(parents=True)
    (home / "opafence" / "config.yaml").write_text(config)
    out = run_hermes(home, env)
    error = str(out.get("error", ""))
    assert error.startswith("opafence could not start:"), out
    assert expected in error
    assert error.endswith("Fix it, or disable the plugin.")


def test_healthy_setup_allows_the_read(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    out = run_hermes(home, {})
    assert "error" not in out, out


def test_a_config_file_outside_the_state_dir_is_protected(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    config = tmp_path / "etc" / "opafence.yaml"
    config.parent.mkdir()
    config.write_text("mode: enforce\n")
    probe = PROBE.replace(
        '"read_file", {"path": "/etc/hostname"}',
        f'"write_file", {{"path": {str(config)!r}, "content": "mode: monitor"}}',
    )
    out = run_hermes(home, {"OPAFENCE_CONFIG": str(config)}, probe)
    assert "SELF_PROTECT" in str(out.get("error", "")), out
    assert config.read_text() == "mode: enforce\n"
