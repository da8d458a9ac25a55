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
        # The stock opa server (with opafence-pdp built, the PDP would not need opa at all).
        ("opa: {transport: server}\n", {"OPAFENCE_OPA_BIN": "/nonexistent/opa"}, "OPA_NOT_FOUND"),
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


def test_a_deleted_working_directory_blocks_every_call(tmp_path: Path) -> None:
    """Hermes started in a directory that is gone: relative paths mean nothing known."""
    home = tmp_path / "home"
    home.mkdir()
    gone = tmp_path / "gone"
    gone.mkdir()
    probe = f"import os\nos.chdir({str(gone)!r})\nos.rmdir({str(gone)!r})\n" + PROBE
    out = run_hermes(home, {}, probe)
    error = str(out.get("error", ""))
    assert error.startswith("opafence could not start:") and "current directory" in error, out


def test_a_plugin_that_cannot_be_built_still_blocks_every_call(tmp_path: Path) -> None:
    """register() never raises: Hermes would load nothing of a raising plugin and run the tool."""
    home = tmp_path / "home"
    home.mkdir()
    breaks = (
        "import opafence.hermes.fence as f\n"
        "def broken(self):\n"
        "    raise OSError('no state here')\n"
        "f.Fence.__init__ = broken\n"
    )
    out = run_hermes(home, {}, breaks + PROBE)
    error = str(out.get("error", ""))
    assert error.startswith("opafence could not be built: OSError: no state here"), out


def test_a_failed_setup_wins_over_an_approving_plugin_in_yolo(tmp_path: Path) -> None:
    """A setup that raises (the state directory cannot be made) still puts opafence first: an
    approve-everything plugin loaded earlier does not get the call run in yolo mode."""
    home = tmp_path / "home"
    plugin = home / "plugins" / "approver"
    plugin.mkdir(parents=True)
    (plugin / "plugin.yaml").write_text("name: approver\nversion: 0.0.1\nkind: standalone\n")
    (plugin / "__init__.py").write_text(
        "def register(ctx):\n"
        "    ctx.register_hook('pre_tool_call', lambda **kw: {'action': 'approve', 'message': 'yes'})\n"
    )
    (home / "opafence").write_text("not a directory")
    env = {k: v for k, v in os.environ.items() if not k.startswith("HERMES_")}
    env["HERMES_HOME"] = str(home)
    subprocess.run(
        [str(HERMES_BIN), "plugins", "enable", "approver", "--no-allow-tool-override"],
        env=env,
        check=True,
        capture_output=True,
    )
    probe = PROBE.replace("import json, model_tools", "import json, model_tools, hermes_cli.plugins as p")
    probe += (
        "hooks = p.get_plugin_manager()._hooks['pre_tool_call']\n"
        "print(json.dumps({'first': hooks[0].__qualname__, 'n': len(hooks)}))\n"
    )
    # run_hermes prints the last line: the order; the decision is the line before it.
    env_extra = {"HERMES_YOLO_MODE": "1"}
    proc_out = run_hermes(home, env_extra, probe)
    assert proc_out == {"first": "Fence.pre_tool_call", "n": 2}, proc_out
    out = run_hermes(home, env_extra)
    error = str(out.get("error", ""))
    assert error.startswith("opafence could not start: setup failed:"), out


LOUD_PROBE = textwrap.dedent(
    """
    import json, model_tools
    from hermes_cli.plugins import get_plugin_command_handler
    outs = [model_tools.handle_function_call("read_file", {"path": "/etc/hostname"},
                                             task_id="t", session_id="s", tool_call_id=f"c{i}")
            for i in range(2)]
    print(json.dumps({"fence": get_plugin_command_handler("fence")(""), "outs": outs}))
    """
)


def test_a_lockdown_is_told_once_on_stderr_recorded_and_shown(tmp_path: Path) -> None:
    """The person sees why nothing runs: one line on stderr, a `lockdown` entry on the trail
    before each blocked call, and the same words in /fence and `opafence audit`."""
    home = tmp_path / "home"
    (home / "opafence").mkdir(parents=True)
    (home / "opafence" / "config.yaml").write_text("opa: {transport: server}\n")
    env = {k: v for k, v in os.environ.items() if not k.startswith("HERMES_")}
    env["HERMES_HOME"] = str(home)
    hermes_env = {**env, "OPAFENCE_OPA_BIN": "/nonexistent/opa"}
    subprocess.run(
        [str(HERMES_BIN), "plugins", "enable", "opafence", "--no-allow-tool-override"],
        env=env,
        check=True,
        capture_output=True,
    )
    proc = subprocess.run(
        [sys.executable, "-c", LOUD_PROBE],
        env=hermes_env,
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    told = [line for line in proc.stderr.splitlines() if "LOCKED DOWN" in line]
    assert len(told) == 1, proc.stderr
    assert told[0].startswith("opafence: LOCKED DOWN: every tool call is blocked because OPA_NOT_FOUND")
    assert "/nonexistent/opa" in told[0]
    assert (
        out["fence"]
        .splitlines()[0]
        .startswith("opafence: LOCKED DOWN: every tool call is blocked because OPA_NOT_FOUND")
    ), out["fence"]
    assert "NOT GUARDING" not in out["fence"]
    assert all("opafence could not start" in json.loads(o)["error"] for o in out["outs"])

    lines = [json.loads(line) for line in (home / "opafence" / "audit.jsonl").read_text().splitlines()]
    events = [(e["event"], e.get("verdict"), tuple(e.get("reasons", ()))) for e in lines]
    assert events == [
        ("lockdown", None, ()),
        ("decision", "block", ("LOCKDOWN",)),
        ("decision", "block", ("LOCKDOWN",)),
    ], events
    assert "/nonexistent/opa" in lines[0]["reason"]

    audit = subprocess.run(
        [str(Path(sys.executable).with_name("opafence")), "audit"],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert "LOCKED DOWN: every tool call is blocked because OPA_NOT_FOUND" in audit.stdout, (
        audit.stdout + audit.stderr
    )
    assert "2 tool decisions" in audit.stdout
    verify = subprocess.run(
        [str(Path(sys.executable).with_name("opafence")), "audit", "verify"],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert verify.returncode == 0, verify.stdout + verify.stderr
    shown = subprocess.run(
        [str(Path(sys.executable).with_name("opafence")), "log", "--blocked"],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    ).stdout.splitlines()
    assert len(shown) == 3, shown
    assert "LOCKED DOWN: every tool call is blocked because OPA_NOT_FOUND" in shown[0]
    assert all(row.split("  ")[2:5] == ["read_file", "block", "LOCKDOWN"] for row in shown[1:]), shown
