"""opafence as a user installs it: the README's install commands, run as written, in a fresh venv.

A copy of the checkout (tracked and untracked, not ignored files: what a fresh clone plus your
edits holds) is built with `python -m build` (sdist, then the wheel from the sdist), installed
NON-editable into a new venv that already holds hermes-agent==0.19.0, enabled with the real
`hermes plugins enable`, and then: `opafence doctor` passes, a real decision runs through
Hermes' dispatch in that venv's Python, and the installed Rego is byte-identical to `rego/`
without its tests. Slow (a venv with Hermes' dependencies is made from pip's cache); deselect
with `-m "not install"` while iterating on something else."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tarfile
import venv
import zipfile
from dataclasses import dataclass
from pathlib import Path

import pytest

pytestmark = [pytest.mark.install, pytest.mark.timeout(1800)]

REPO = Path(__file__).resolve().parents[2]
MARKER = "<!-- install-commands:"
HERMES_PIN = "hermes-agent==0.19.0"
PREBUILT_PDP = REPO / ".tools" / "bin" / "opafence-pdp"
# A Linux x86-64 wheel carries the PDP when Go or a PDP built from these sources is there.
PDP_EXPECTED = (
    sys.platform.startswith("linux")
    and os.uname().machine == "x86_64"
    and (shutil.which("go") is not None or PREBUILT_PDP.is_file())
)


def readme_install_commands() -> list[str]:
    """The shell lines of the README block that follows the install-commands marker."""
    lines = (REPO / "README.md").read_text(encoding="utf-8").splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(MARKER))
    fence = start + 1
    assert lines[fence].startswith("```"), "the install-commands marker must be followed by a code block"
    commands: list[str] = []
    for line in lines[fence + 1 :]:
        if line.startswith("```"):
            return commands
        if line.strip() and not line.lstrip().startswith("#"):
            commands.append(line)
    raise AssertionError("the README's install block is not closed")


@dataclass
class Installed:
    src: Path
    venv: Path
    home: Path
    env: dict[str, str]
    log: list[tuple[str, subprocess.CompletedProcess[str]]]

    @property
    def python(self) -> Path:
        return self.venv / "bin" / "python"

    def output_of(self, command: str) -> subprocess.CompletedProcess[str]:
        return next(proc for cmd, proc in self.log if cmd == command)

    def wheel(self) -> Path:
        wheels = sorted((self.src / "dist").glob("opafence-*.whl"))
        assert len(wheels) == 1, wheels
        return wheels[0]


def _copy_checkout(dest: Path) -> None:
    listed = subprocess.run(
        ["git", "ls-files", "-co", "--exclude-standard", "-z"],
        cwd=REPO,
        capture_output=True,
        check=True,
    ).stdout.split(b"\0")
    for raw in listed:
        if not raw:
            continue
        rel = Path(os.fsdecode(raw))
        source = REPO / rel
        if not source.is_file():  # deleted in the work tree, not yet committed
            continue
        (dest / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(source, dest / rel)


def _user_env(venv_dir: Path, home: Path) -> dict[str, str]:
    """The environment of a person whose Hermes venv is activated: nothing of our dev setup."""
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("OPAFENCE_", "HERMES_", "PYTHON", "VIRTUAL_ENV", "PYTEST"))
    }
    opa = os.environ.get("OPAFENCE_OPA_BIN") or shutil.which("opa")
    assert opa, "the install test needs an opa 1.22.3 binary on PATH or in OPAFENCE_OPA_BIN"
    # The person puts opa on PATH, as the README says; the dev venv is not on it.
    path = [str(venv_dir / "bin"), str(Path(opa).resolve().parent)]
    path += [p for p in env.get("PATH", "").split(os.pathsep) if p and Path(p) != Path(sys.executable).parent]
    env.update(PATH=os.pathsep.join(path), VIRTUAL_ENV=str(venv_dir), HERMES_HOME=str(home))
    return env


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Installed:
    base = tmp_path_factory.mktemp("install")
    src, venv_dir, home = base / "opafence", base / "venv", base / "hermes-home"
    _copy_checkout(src)
    home.mkdir()
    venv.EnvBuilder(with_pip=True, clear=True).create(venv_dir)
    env = _user_env(venv_dir, home)
    build_env = dict(env)
    if PREBUILT_PDP.is_file():
        # The checkout's own opafence-pdp (make setup): setup.py reuses it when it was built from
        # these sources, instead of building it again with Go (the copy has no .tools).
        build_env["BUILD_OPAFENCE_PDP_FROM"] = str(PREBUILT_PDP)
    # The person's Hermes, already there before opafence (not a README step).
    subprocess.run(
        [str(venv_dir / "bin" / "python"), "-m", "pip", "install", "-q", HERMES_PIN],
        env=env,
        check=True,
        capture_output=True,
        text=True,
    )
    log = []
    for command in readme_install_commands():
        proc = subprocess.run(
            ["bash", "-euo", "pipefail", "-c", command],
            cwd=src,
            env=build_env if "python -m build" in command else env,
            capture_output=True,
            text=True,
            timeout=900,
            check=False,
        )
        log.append((command, proc))
        assert proc.returncode == 0, f"README step {command!r} failed:\n{proc.stdout}\n{proc.stderr}"
    return Installed(src=src, venv=venv_dir, home=home, env=env, log=log)


def test_readme_commands_build_enable_and_check() -> None:
    commands = readme_install_commands()
    joined = "\n".join(commands)
    assert "python -m build" in joined
    assert "hermes plugins enable opafence --no-allow-tool-override" in commands
    assert commands[-1] == "opafence doctor"
    assert "-e " not in joined and "--editable" not in joined


def _expected_rego() -> dict[str, bytes]:
    root = REPO / "rego"
    return {
        str(p.relative_to(root)): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and not p.name.endswith("_test.rego")
    }


def test_wheel_carries_code_rego_schemas_and_data(installed: Installed) -> None:
    with zipfile.ZipFile(installed.wheel()) as whl:
        names = set(whl.namelist())
        rego = {
            n.removeprefix("opafence/rego/"): whl.read(n) for n in names if n.startswith("opafence/rego/")
        }
    assert rego == _expected_rego()
    modules = {
        f"opafence/{p.relative_to(REPO / 'adapter' / 'opafence')}"
        for p in (REPO / "adapter" / "opafence").rglob("*.py")
    }
    assert modules <= names, sorted(modules - names)
    for data in ("opafence/py.typed", "opafence/hermes/plugin.yaml", "opafence/budget/prices.json"):
        assert data in names
    for family in ("code", "shell"):
        tables = {
            f"opafence/{p.relative_to(REPO / 'adapter' / 'opafence')}"
            for p in (REPO / "adapter" / "opafence" / "facts" / family / "data").glob("*.json")
        }
        assert tables, f"the {family} analysis' tables are missing from the checkout"
        assert tables <= names, sorted(tables - names)
    assert not any(n.endswith("_test.rego") for n in names)
    print(f"\nwheel {installed.wheel().name}: {len(names)} files")


@pytest.mark.skipif(not PDP_EXPECTED, reason="not Linux x86-64, or neither Go nor a built PDP here")
def test_wheel_carries_the_pdp_binary_for_its_platform(installed: Installed) -> None:
    wheel = installed.wheel()
    assert wheel.name.endswith("-py3-none-linux_x86_64.whl"), wheel.name
    with zipfile.ZipFile(wheel) as whl:
        info = whl.getinfo("opafence/bin/opafence-pdp")
        assert (info.external_attr >> 16) & 0o111, "the PDP is not executable in the wheel"
    probe = subprocess.run(
        [
            str(installed.python),
            "-c",
            "from opafence.opa.binary import resolve_pdp; print(resolve_pdp().path)",
        ],
        env=installed.env,
        cwd=installed.home,
        capture_output=True,
        text=True,
        check=True,
    )
    assert Path(probe.stdout.strip()).is_relative_to(installed.venv / "lib"), probe.stdout


def test_sdist_carries_the_rego_too(installed: Installed) -> None:
    sdists = sorted((installed.src / "dist").glob("opafence-*.tar.gz"))
    assert len(sdists) == 1, sdists
    with tarfile.open(sdists[0]) as tar:
        names = {m.name.split("/", 1)[1] for m in tar.getmembers() if "/" in m.name}
    for rel in _expected_rego():
        assert f"rego/{rel}" in names, rel
    # It builds the PDP where Go exists: the sources and the build script, never a binary.
    for rel in ("pdp/main.go", "pdp/go.mod", "pdp/go.sum", "tools/build-pdp.sh"):
        assert rel in names, rel
    assert not any(n.startswith("adapter/opafence/bin/") for n in names)


def test_installed_not_editable_and_rego_byte_identical(installed: Installed) -> None:
    probe = subprocess.run(
        [
            str(installed.python),
            "-c",
            "import json, opafence, opafence.rego_files as r;"
            "print(json.dumps([opafence.__file__, str(r.rego_root())]))",
        ],
        env=installed.env,
        cwd=installed.home,
        capture_output=True,
        text=True,
        check=True,
    )
    module_file, rego_root = json.loads(probe.stdout)
    site = installed.venv / "lib"
    assert Path(module_file).is_relative_to(site), module_file
    assert Path(rego_root).is_relative_to(site), rego_root
    root = Path(rego_root)
    got = {
        str(p.relative_to(root)): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and "__pycache__" not in p.parts
    }
    assert got == _expected_rego()


def test_doctor_passes_as_installed(installed: Installed) -> None:
    doctor = installed.output_of("opafence doctor")
    assert "opafence doctor: all good" in doctor.stdout, doctor.stdout + doctor.stderr
    assert "test decision: read_file -> allow" in doctor.stdout


def test_a_real_decision_through_hermes_dispatch(installed: Installed, tmp_path: Path) -> None:
    proc = subprocess.run(
        [str(installed.python), str(Path(__file__).with_name("dispatch_check.py")), str(tmp_path)],
        env=installed.env,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    assert out["fences"] == 1, out["plugin"]
    assert Path(out["opafence_file"]).is_relative_to(installed.venv / "lib")
    assert out["ready"] is True and out["error"] is None, out
    assert json.loads(out["read"])["content"].startswith("1|quarterly numbers look fine"), out["read"]
    blocked = json.loads(out["send"])["error"]
    assert blocked.startswith("opafence blocked mcp__gmail__send_email"), blocked
    assert "[USER_PROHIBITION]" in blocked
    assert out["sent"] == []
    assert out["audit"] is True
