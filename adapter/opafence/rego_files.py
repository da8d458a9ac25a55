"""Where our Rego lives, and how it becomes a bundle directory OPA can load.

In a wheel the Rego ships as package data (`opafence/rego`); in a source checkout it is the
repository's `rego/` directory. Schemas and tests are not part of the bundle."""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

from opafence import __version__

BUNDLE_ROOTS = ["opafence"]
DATA_FILES = {"data.json", "data.yaml", "data.yml"}


def rego_root() -> Path:
    """The directory that holds `opafence/` (our packages and static data)."""
    packaged = Path(__file__).resolve().parent / "rego"
    if (packaged / "opafence").is_dir():
        return packaged
    source = Path(__file__).resolve().parents[2] / "rego"
    if (source / "opafence").is_dir():
        return source
    raise FileNotFoundError("opafence's Rego files are missing from this installation")


def bundle_files(root: Path | None = None) -> list[Path]:
    """Policy and data files of our bundle, relative to the Rego root, in a stable order."""
    root = root or rego_root()
    files = []
    for p in sorted((root / "opafence").rglob("*")):
        if not p.is_file():
            continue
        if (p.suffix == ".rego" and not p.name.endswith("_test.rego")) or p.name in DATA_FILES:
            files.append(p.relative_to(root))
    return files


def content_revision(root: Path | None = None) -> str:
    root = root or rego_root()
    h = hashlib.sha256()
    for rel in bundle_files(root):
        h.update(str(rel).encode() + b"\0" + (root / rel).read_bytes() + b"\0")
    return f"{__version__}+{h.hexdigest()[:12]}"


def stage_bundle(dest: Path, root: Path | None = None) -> str:
    """Copy our bundle into dest (emptied first) with its .manifest; return the revision."""
    root = root or rego_root()
    if dest.exists():
        shutil.rmtree(dest)
    dest.mkdir(parents=True, mode=0o700)
    for rel in bundle_files(root):
        target = dest / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(root / rel, target)
    revision = content_revision(root)
    manifest = {"roots": BUNDLE_ROOTS, "revision": revision}
    (dest / ".manifest").write_text(json.dumps(manifest), encoding="utf-8")
    return revision
