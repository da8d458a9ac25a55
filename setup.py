"""The package list, and the PDP binary in a Linux x86-64 wheel (everything else is in
pyproject.toml).

`packages.find` in pyproject.toml cannot add `opafence.rego`, which is mapped from the top-level
`rego/` directory, so the list is computed: every package under adapter/ plus that one.

A wheel built on Linux x86-64 carries opafence-pdp (`opafence/bin/opafence-pdp`, where the
resolver looks): the one `make setup` built into .tools/bin when it was built from these very
sources (tools/build-pdp.sh writes their digests beside it; BUILD_OPAFENCE_PDP_FROM may name
another), else one built now with Go
(tools/build-pdp.sh, from the sdist's pdp/ too). Without Go the wheel has none and opafence
runs the stock opa server. A wheel with the binary is tagged for the platform, not pure."""

from __future__ import annotations

import hashlib
import os
import platform
import shutil
import subprocess
import sys
from pathlib import Path

from setuptools import find_packages, setup

try:
    from setuptools.command.bdist_wheel import bdist_wheel
except ImportError:  # setuptools < 70.1 has it from the wheel package, when that is there
    try:
        from wheel.bdist_wheel import bdist_wheel  # type: ignore[no-redef]
    except ImportError:  # no wheel can be built here at all (an editable install of old setuptools)
        bdist_wheel = None  # type: ignore[assignment,misc]

HERE = Path(__file__).resolve().parent
PDP = HERE / "adapter" / "opafence" / "bin" / "opafence-pdp"
# BUILD_OPAFENCE_PDP_FROM names another already built binary to reuse (the install test passes the
# checkout's own, since its copy of the checkout has no .tools); used only when its digests match.
PREBUILT = Path(os.environ.get("BUILD_OPAFENCE_PDP_FROM") or HERE / ".tools" / "bin" / "opafence-pdp")


def pdp_sources() -> str:
    """The digests of the PDP's sources, as tools/build-pdp.sh writes them (`sha256sum`)."""
    src = HERE / "pdp"
    names = sorted(p.name for p in src.iterdir() if p.suffix == ".go" or p.name in ("go.mod", "go.sum"))
    return "".join(f"{hashlib.sha256((src / n).read_bytes()).hexdigest()}  {n}\n" for n in names)


def stamp_of(binary: Path) -> str:
    stamp = binary.with_name(binary.name + ".sources")
    return stamp.read_text(encoding="utf-8") if stamp.is_file() else ""


def ensure_pdp() -> bool:
    """Put opafence-pdp for these sources into the package; True when it is there."""
    if not (sys.platform.startswith("linux") and platform.machine() in ("x86_64", "AMD64")):
        return False
    if not (HERE / "pdp" / "go.mod").is_file():
        return PDP.is_file()
    want = pdp_sources()
    if PDP.is_file() and stamp_of(PDP) == want:
        return True
    PDP.unlink(missing_ok=True)  # built from other sources: never shipped
    PDP.parent.mkdir(parents=True, exist_ok=True)
    if PREBUILT.is_file() and stamp_of(PREBUILT) == want:
        shutil.copy2(PREBUILT, PDP)
        PDP.with_name(PDP.name + ".sources").write_text(want, encoding="utf-8")
        return True
    if shutil.which("go") is None:
        return False
    subprocess.run(["bash", str(HERE / "tools" / "build-pdp.sh"), str(PDP)], check=True)
    return PDP.is_file() and stamp_of(PDP) == want


def commands() -> dict[str, type]:
    if bdist_wheel is None:
        return {}

    class BdistWheel(bdist_wheel):  # type: ignore[misc]
        def finalize_options(self) -> None:
            self.with_pdp = ensure_pdp()
            if self.with_pdp:
                # A platform wheel whose files sit at its root (platlib), like one with an
                # extension module: the build then goes to the platform's build directory.
                self.distribution.has_ext_modules = lambda: True  # type: ignore[method-assign]
            super().finalize_options()

        def run(self) -> None:
            # Into the build, not the package data: the sdist never carries the binary.
            self.run_command("build")
            if self.with_pdp:
                build_lib = Path(self.get_finalized_command("build_py").build_lib)
                target = build_lib / "opafence" / "bin" / PDP.name
                target.parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(PDP, target)
            super().run()

        def get_tag(self) -> tuple[str, str, str]:
            python, abi, plat = super().get_tag()
            if self.with_pdp:
                return "py3", "none", plat  # no extension module: any Python 3 on this platform
            return python, abi, plat

    return {"bdist_wheel": BdistWheel}


setup(
    packages=[*find_packages(where="adapter", include=["opafence", "opafence.*"]), "opafence.rego"],
    cmdclass=commands(),
)
