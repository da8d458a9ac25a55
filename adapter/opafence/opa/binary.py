"""Find the opa binary once, at start, and check its version (and optionally its SHA-256)."""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

from opafence.errors import BridgeError

PINNED_VERSION = "1.22.3"
# The frames and operations opafence-pdp speaks (pdp/main.go ProtocolVersion).
PDP_PROTOCOL = "2"
PDP_NAME = "opafence-pdp"


@dataclass(frozen=True)
class OpaBinary:
    path: Path
    version: str
    sha256: str


def _project_tools_bin() -> Path:
    # adapter/opafence/opa/binary.py -> repo root
    return Path(__file__).resolve().parents[3] / ".tools" / "bin" / "opa"


def candidates(configured: str | None) -> list[tuple[str, Path]]:
    """Where to look, in order: $OPAFENCE_OPA_BIN, config opa.binary, .tools/bin/opa, PATH."""
    out: list[tuple[str, Path]] = []
    env = os.environ.get("OPAFENCE_OPA_BIN")
    if env:
        out.append(("OPAFENCE_OPA_BIN", Path(env).expanduser()))
    if configured:
        out.append(("config opa.binary", Path(configured).expanduser()))
    out.append(("project .tools/bin", _project_tools_bin()))
    found = shutil.which("opa")
    if found:
        out.append(("PATH", Path(found)))
    return out


def _version_lines(path: Path) -> dict[str, str]:
    proc = subprocess.run(
        [str(path), "version"], capture_output=True, text=True, timeout=15, env={}, check=False
    )
    out: dict[str, str] = {}
    for line in proc.stdout.splitlines():
        name, sep, value = line.partition(":")
        if sep:
            out.setdefault(name.strip(), value.strip())
    return out


def read_version(path: Path) -> str:
    version = _version_lines(path).get("Version")
    if version is None:
        raise BridgeError("OPA_NOT_FOUND", f"{path} does not report an OPA version")
    return version


def file_sha256(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def resolve(configured: str | None = None, pinned_sha256: str | None = None) -> OpaBinary:
    """The first usable candidate, as an absolute path; explicit choices must be usable."""
    problems: list[str] = []
    for origin, path in candidates(configured):
        explicit = origin not in {"PATH", "project .tools/bin"}
        if not (path.is_file() and os.access(path, os.X_OK)):
            if explicit:
                raise BridgeError("OPA_NOT_FOUND", f"{origin} names {path}, which is not an executable file")
            continue
        real = path.resolve()
        try:
            version = read_version(real)
        except (OSError, subprocess.SubprocessError) as e:
            problems.append(f"{real}: {e}")
            continue
        if version != PINNED_VERSION:
            msg = f"{origin} {real} is opa {version}, opafence needs {PINNED_VERSION}"
            if explicit:
                raise BridgeError("OPA_NOT_FOUND", f"{msg}. {install_hint()}")
            problems.append(msg)
            continue
        digest = file_sha256(real)
        if pinned_sha256 and digest.lower() != pinned_sha256.lower():
            raise BridgeError("OPA_NOT_FOUND", f"{real} has SHA-256 {digest}, config pins {pinned_sha256}")
        return OpaBinary(path=real, version=version, sha256=digest)
    where = "PATH or .tools/bin" if _in_checkout() else "PATH"
    detail = "; ".join(problems) if problems else f"no opa binary on {where}"
    raise BridgeError("OPA_NOT_FOUND", f"{detail}. {install_hint()}")


def _in_checkout() -> bool:
    # adapter/opafence/opa/binary.py in a source checkout; site-packages/opafence/... when installed.
    return (Path(__file__).resolve().parents[3] / "pyproject.toml").is_file()


def install_hint() -> str:
    """How to get the opa opafence needs, in steps that work for an installed package."""
    steps = (
        f"Install opa {PINNED_VERSION}: download the release binary for your platform from the Open "
        "Policy Agent project's GitHub releases, make it executable and put it on PATH (or set "
        "OPAFENCE_OPA_BIN, or opa.binary in the config, to its path); or "
        f"`go install github.com/open-policy-agent/opa@v{PINNED_VERSION}`"
    )
    return steps + (" (in this checkout, `make setup` does that)" if _in_checkout() else "")


def _pdp_candidates(configured: str | None) -> list[tuple[str, Path]]:
    """Where to look for opafence-pdp, in order: config opa.pdp_binary, the project's
    .tools/bin (make setup builds it there), the copy inside the installed package."""
    out: list[tuple[str, Path]] = []
    if configured:
        out.append(("config opa.pdp_binary", Path(configured).expanduser()))
    out.append(("project .tools/bin", _project_tools_bin().with_name(PDP_NAME)))
    out.append(("package", Path(__file__).resolve().parents[1] / "bin" / PDP_NAME))
    return out


def resolve_pdp(configured: str | None = None, pinned_sha256: str | None = None) -> OpaBinary | None:
    """The opafence-pdp binary as an absolute path, checked like opa's (version, protocol and
    the pinned SHA-256), or None when there is none (the bridge then runs the stock opa).
    A configured path or a pinned hash that does not match is an error, never a fallback."""
    for origin, path in _pdp_candidates(configured):
        explicit = origin.startswith("config")
        if not (path.is_file() and os.access(path, os.X_OK)):
            if explicit:
                raise BridgeError("OPA_NOT_FOUND", f"{origin} names {path}, which is not an executable file")
            continue
        real = path.resolve()
        try:
            lines = _version_lines(real)
        except (OSError, subprocess.SubprocessError) as e:
            if explicit:
                raise BridgeError("OPA_NOT_FOUND", f"{real}: {e}") from None
            continue
        version, protocol = lines.get("Version"), lines.get("Protocol")
        if version != PINNED_VERSION or protocol != PDP_PROTOCOL:
            if explicit or pinned_sha256:
                raise BridgeError(
                    "OPA_NOT_FOUND",
                    f"{origin} {real} is {PDP_NAME} on OPA {version} (protocol {protocol}), "
                    f"opafence needs OPA {PINNED_VERSION} (protocol {PDP_PROTOCOL})",
                )
            continue
        digest = file_sha256(real)
        if pinned_sha256 and digest.lower() != pinned_sha256.lower():
            raise BridgeError("OPA_NOT_FOUND", f"{real} has SHA-256 {digest}, config pins {pinned_sha256}")
        return OpaBinary(path=real, version=version, sha256=digest)
    if pinned_sha256:
        raise BridgeError("OPA_NOT_FOUND", f"opa.pdp_sha256 is set but no {PDP_NAME} was found")
    return None
