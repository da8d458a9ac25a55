"""opafence's own bundle, and reading any bundle's manifest.

`python -m opafence.opa.own_bundle build --out dist/opafence-bundle.tar.gz [--signing-key KEY.pem]`
stages our Rego (tests left out) with the manifest of `bundles/opafence/.manifest` and runs
`opa build` on it: optimized (`--optimize=1`, entrypoint `opafence/decision`) and, when a
signing key is given, signed (RS/PS/ES; OPA verifies them, Ed25519 is not among them).

`python -m opafence.opa.own_bundle inspect PATH` prints a bundle's manifest and whether it is signed.

Manifest reading never raises anything but BundleError, whose message says what is wrong."""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tarfile
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any, get_args

from opafence.config import SigningAlg
from opafence.errors import BridgeError, OpafenceError
from opafence.opa.binary import resolve
from opafence.rego_files import BUNDLE_ROOTS, content_revision, rego_root, stage_bundle

ENTRYPOINT = "opafence/decision"
DEFAULT_OUT = Path("dist/opafence-bundle.tar.gz")
# A manifest is a few hundred bytes; anything this large is not one.
MAX_MANIFEST_BYTES = 1 << 20
ORG_ROOT = "org"
PARTIAL_NAMESPACE = "partial"  # opa build's default --partial-namespace


class BundleError(OpafenceError):
    """A bundle cannot be built, read or used; the message names the bundle and the reason."""


def manifest_template() -> dict[str, Any]:
    """bundles/opafence/.manifest in a checkout (roots, metadata); the defaults in a wheel."""
    source = Path(__file__).resolve().parents[2] / "bundles" / "opafence" / ".manifest"
    try:
        raw = json.loads(source.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {"roots": list(BUNDLE_ROOTS)}
    return raw if isinstance(raw, dict) else {"roots": list(BUNDLE_ROOTS)}


def _member_name(name: str) -> str:
    # opa build writes "/.manifest"; hand-made tarballs may say ".manifest" or "./.manifest".
    return name.removeprefix("./").lstrip("/")


def _tar_manifest(path: Path) -> bytes | None:
    """The .manifest member of a bundle tarball, read without extracting anything."""
    try:
        with tarfile.open(path, mode="r:gz") as tar:
            for member in tar:
                if _member_name(member.name) != ".manifest":
                    continue
                if not member.isfile() or member.size > MAX_MANIFEST_BYTES:
                    raise BundleError(f"{path}: .manifest is not a small regular file")
                f = tar.extractfile(member)
                return f.read() if f is not None else None
    except (tarfile.TarError, OSError, EOFError) as e:
        raise BundleError(f"{path}: not a readable bundle tarball ({e})") from None
    return None


def _tar_has(path: Path, name: str) -> bool:
    try:
        with tarfile.open(path, mode="r:gz") as tar:
            return any(_member_name(m.name) == name for m in tar)
    except (tarfile.TarError, OSError, EOFError):
        return False


def read_manifest(path: Path) -> dict[str, Any]:
    """The .manifest of a bundle directory or .tar.gz; BundleError when absent or malformed."""
    if path.is_dir():
        mf = path / ".manifest"
        if not mf.is_file():
            raise BundleError(f"{path}: the bundle has no .manifest")
        if mf.stat().st_size > MAX_MANIFEST_BYTES:
            raise BundleError(f"{path}: .manifest is too large")
        raw = mf.read_bytes()
    elif path.is_file():
        found = _tar_manifest(path)
        if found is None:
            raise BundleError(f"{path}: the bundle has no .manifest")
        raw = found
    else:
        raise BundleError(f"{path}: no such bundle file or directory")
    try:
        doc = json.loads(raw)
    except ValueError:
        raise BundleError(f"{path}: .manifest is not JSON") from None
    if not isinstance(doc, dict):
        raise BundleError(f"{path}: .manifest is not a JSON object")
    return doc


def is_signed(path: Path) -> bool:
    if path.is_dir():
        return (path / ".signatures.json").is_file()
    return _tar_has(path, ".signatures.json")


def under_org(root: str) -> bool:
    return root == ORG_ROOT or root.startswith(ORG_ROOT + "/")


def org_roots_problem(manifest: dict[str, Any]) -> str:
    """Why an org bundle's roots are unacceptable ("" when they are fine).

    A bundle without roots owns all of `data` (OPA's default), so it is refused; every root
    must lie under `org`, or the bundle could replace opafence's rules or the task data."""
    roots = manifest.get("roots")
    if roots is None:
        return "its .manifest has no roots (a bundle without roots owns all of data)"
    if not isinstance(roots, list) or not roots or not all(isinstance(r, str) for r in roots):
        return "its .manifest roots must be a non-empty list of strings"
    bad = [r for r in roots if not under_org(r.strip("/"))]
    if bad:
        return f"its roots {bad} are not under 'org' (every root must be org or org/…)"
    return ""


def build(
    out: Path,
    signing_key: Path | None = None,
    signing_alg: str = "RS256",
    optimize: int = 1,
    revision: str | None = None,
    opa: Path | None = None,
) -> dict[str, Any]:
    """Build our bundle into out; returns its manifest. Raises BundleError."""
    if signing_alg not in get_args(SigningAlg):
        raise BundleError(f"signing algorithm {signing_alg} is not one of {', '.join(get_args(SigningAlg))}")
    binary = opa or resolve().path
    template = manifest_template()
    roots = template.get("roots")
    if roots != BUNDLE_ROOTS:
        raise BundleError(f"bundles/opafence/.manifest roots are {roots}, opafence needs {BUNDLE_ROOTS}")
    rev = revision or content_revision()
    out.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="opafence-bundle-") as tmp:
        src = Path(tmp) / "src"
        stage_bundle(src, rego_root())
        manifest = {**template, "roots": roots, "revision": rev}
        (src / ".manifest").write_text(json.dumps(manifest), encoding="utf-8")
        if optimize:
            optimized = Path(tmp) / "optimized.tar.gz"
            _opa_build(
                binary,
                src,
                [
                    "--output",
                    optimized,
                    "--revision",
                    rev,
                    f"--optimize={optimize}",
                    "--entrypoint",
                    ENTRYPOINT,
                ],
            )
            src = _unpack_optimized(optimized, Path(tmp) / "optimized", roots)
        argv: list[str | Path] = ["--output", out.resolve(), "--revision", rev]
        if signing_key is not None:
            if not signing_key.is_file():
                raise BundleError(f"the signing key {signing_key} is not a file")
            # The key id in the signature does not matter: OPA's config names the key to use.
            argv += ["--signing-key", signing_key.resolve(), "--signing-alg", signing_alg]
        _opa_build(binary, src, argv)
    return read_manifest(out)


def _opa_build(binary: Path, src: Path, args: list[str | Path]) -> None:
    """`opa build --bundle .` inside src, so file names in the bundle are relative to it."""
    argv = [str(binary), "build", "--bundle", ".", *(str(a) for a in args)]
    proc = subprocess.run(
        argv, capture_output=True, text=True, env={}, timeout=300, check=False, cwd=str(src)
    )
    if proc.returncode != 0:
        detail = (proc.stderr or proc.stdout).strip().splitlines()[-5:]
        raise BundleError("opa build failed: " + " | ".join(detail))


def _unpack_optimized(tarball: Path, dest: Path, roots: list[str]) -> Path:
    """Unpack an optimized build so it can be signed with the right manifest.

    The optimizer adds its partial-evaluation namespace ("partial") to the roots even when it
    writes nothing there; our bundle's roots stay ["opafence"] unless a support module exists."""
    dest.mkdir()
    partial = False
    with tarfile.open(tarball, mode="r:gz") as tar:
        for member in tar:
            name = _member_name(member.name)
            if not member.isfile() or ".." in Path(name).parts:
                continue
            # Support modules: optimized/partial/… or a single optimized/partial.rego.
            partial = partial or name.startswith(
                (f"optimized/{PARTIAL_NAMESPACE}/", f"optimized/{PARTIAL_NAMESPACE}.rego")
            )
            target = dest / name
            target.parent.mkdir(parents=True, exist_ok=True)
            f = tar.extractfile(member)
            target.write_bytes(f.read() if f is not None else b"")
    manifest = json.loads((dest / ".manifest").read_text(encoding="utf-8"))
    manifest["roots"] = [*roots, PARTIAL_NAMESPACE] if partial else list(roots)
    (dest / ".manifest").write_text(json.dumps(manifest), encoding="utf-8")
    return dest


def describe(path: Path) -> dict[str, Any]:
    manifest = read_manifest(path)
    return {
        "path": str(path),
        "revision": manifest.get("revision", ""),
        "roots": manifest.get("roots"),
        "signed": is_signed(path),
    }


def packaged_bundle() -> Path | None:
    """A built bundle shipped inside the installed package (wheels built after `make bundle`)."""
    candidate = Path(__file__).resolve().parent / "bundle_dist" / "opafence-bundle.tar.gz"
    return candidate if candidate.is_file() else None


def fresh_packaged_bundle() -> Path | None:
    """The packaged built bundle, but only when it was built from the Rego shipped beside it."""
    candidate = packaged_bundle()
    if candidate is None:
        return None
    try:
        revision = read_manifest(candidate).get("revision")
        return candidate if revision == content_revision() else None
    except (BundleError, FileNotFoundError):
        return None


def _main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(
        prog="python -m opafence.opa.own_bundle", description=__doc__.split("\n\n")[0]
    )
    sub = p.add_subparsers(dest="command", required=True)
    b = sub.add_parser("build", help="build opafence's own bundle with opa build")
    b.add_argument("--out", type=Path, default=DEFAULT_OUT)
    b.add_argument("--signing-key", type=Path, help="PEM private key (RSA or ECDSA) to sign the bundle with")
    b.add_argument("--signing-alg", default="RS256", choices=get_args(SigningAlg))
    b.add_argument("--no-optimize", action="store_true", help="skip opa build's optimizer")
    b.add_argument("--revision", help="manifest revision (default: opafence version + content hash)")
    i = sub.add_parser("inspect", help="print a bundle's manifest and whether it is signed")
    i.add_argument("path", type=Path)
    args = p.parse_args(argv)
    try:
        if args.command == "build":
            manifest = build(
                args.out,
                signing_key=args.signing_key,
                signing_alg=args.signing_alg,
                optimize=0 if args.no_optimize else 1,
                revision=args.revision,
            )
            signed = "signed" if args.signing_key else "unsigned"
            print(f"{args.out}: revision {manifest.get('revision')}, roots {manifest.get('roots')}, {signed}")
        else:
            print(json.dumps(describe(args.path), indent=2))
    except (BundleError, BridgeError) as e:
        print(f"opafence bundle: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(_main())
