"""The Rego as `opa parse --format json` and `opa inspect -a` see it, for the layout checks
(tests/opa/test_rego_layout.py), the reason catalogue (tools/reason_catalogue.py) and the
renaming of private rules (tools/rego_private.py).

    .venv/bin/python tools/rego_layout.py    # what the layout checks find today
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
REGO = ROOT / "rego"
MAX_LINES = 400


# --- reading the Rego -------------------------------------------------------------------------


def opa() -> str:
    """The opa binary opafence itself would run."""
    from opafence.opa.binary import resolve

    return str(resolve(None, None).path)


def rego_files(tests: bool = False) -> list[Path]:
    files = sorted((REGO / "opafence").rglob("*.rego"))
    return [p for p in files if tests or not p.name.endswith("_test.rego")]


@cache
def parsed(path: Path) -> dict[str, Any]:
    proc = subprocess.run(
        [opa(), "parse", "--format", "json", str(path)], capture_output=True, text=True, check=True
    )
    tree: dict[str, Any] = json.loads(proc.stdout)
    return tree


@cache
def inspected() -> list[dict[str, Any]]:
    proc = subprocess.run(
        [opa(), "inspect", "-a", "--format", "json", "opafence"],
        cwd=REGO,
        capture_output=True,
        text=True,
        check=True,
    )
    found: list[dict[str, Any]] = json.loads(proc.stdout).get("annotations", [])
    return found


def ref_path(terms: list[dict[str, Any]]) -> list[str | None]:
    """A ref's segments: strings as they are, anything computed as None (a wildcard)."""
    out: list[str | None] = []
    for i, t in enumerate(terms):
        if t["type"] == "string" or (i == 0 and t["type"] == "var"):
            out.append(str(t["value"]))
        else:
            out.append(None)
    return out


def package_of(tree: dict[str, Any]) -> str:
    return ".".join(str(s) for s in ref_path(tree["package"]["path"])[1:])


def walk(node: Any) -> Iterator[dict[str, Any]]:
    """Every ref and every lone var in a parsed module (a ref's head var is the ref's own)."""
    if isinstance(node, dict):
        if node.get("type") == "var":
            yield node
            return
        if node.get("type") == "ref":
            yield node
            yield from walk(node["value"][1:])
            return
        for v in node.values():
            yield from walk(v)
    elif isinstance(node, list):
        for v in node:
            yield from walk(v)


@dataclass
class Package:
    name: str
    files: set[str] = field(default_factory=set)
    rules: dict[str, str] = field(default_factory=dict)  # rule name -> the file defining it


def packages(tests: bool = False) -> dict[str, Package]:
    out: dict[str, Package] = {}
    for path in rego_files(tests):
        tree = parsed(path)
        pkg = out.setdefault(package_of(tree), Package(package_of(tree)))
        pkg.files.add(path.relative_to(REGO).as_posix())
        for rule in tree.get("rules", []):
            name = str(rule["head"]["ref"][0]["value"])
            pkg.rules.setdefault(name, path.relative_to(REGO).as_posix())
    return out


def import_aliases(tree: dict[str, Any]) -> dict[str, list[str | None]]:
    """What each name a module imports from data stands for (its path past data)."""
    out: dict[str, list[str | None]] = {}
    for imp in tree.get("imports", []):
        path = ref_path(imp["path"]["value"])
        if path[0] == "data":
            out[str(imp.get("alias") or path[-1])] = path[1:]
    return out


def absolute_refs(tree: dict[str, Any]) -> Iterator[list[str | None]]:
    """Every reference a module makes to data.opafence, through an import or directly."""
    aliases = import_aliases(tree)
    for term in walk(tree.get("rules", [])):
        path = ref_path(term["value"]) if term["type"] == "ref" else [str(term["value"])]
        if path[0] == "data":
            yield path[1:]
        elif path[0] in aliases:
            yield [*aliases[str(path[0])], *path[1:]]


def matches(path: list[str | None], pkg: list[str], rule: str) -> bool:
    """Whether a reference reaches a rule: through its package and name, or by taking a whole
    document above it (`data.opafence.guards[g]` takes every guard's rules)."""
    return all(seg is None or seg == want for seg, want in zip(path, [*pkg, rule], strict=False))


def python_refs() -> list[list[str | None]]:
    """Documents Python code and the docs name: `data.opafence.x.y`, or a quoted query path
    "opafence/x/y" or "/v1/data/opafence/x/y" (not a file path: no dot in it)."""
    out: list[list[str | None]] = []
    texts = [p.read_text(encoding="utf-8") for d in ("adapter", "tests", "tools", "bench", "docs")
             for p in (ROOT / d).rglob("*") if p.suffix in (".py", ".md")]  # fmt: skip
    for text in texts:
        for m in re.finditer(r"data\.(opafence(?:\.[a-z_][a-z0-9_]*)+)", text):
            out.append(list(m.group(1).split(".")))
        for m in re.finditer(r"[\"'`](?:/v1/data)?/?(opafence(?:/[a-z_][a-z0-9_]*)+)[?\"'`]", text):
            out.append(list(m.group(1).split("/")))
    return out


def used_outside(pkgs: dict[str, Package]) -> set[tuple[str, str]]:
    """(package, rule) pairs another package, the org-example bundle, the Python code or the
    docs refer to. Tests do not count: they may look inside a package (as Regal allows)."""
    refs: list[tuple[str, list[str | None]]] = []
    for path in rego_files():
        tree = parsed(path)
        refs += [(package_of(tree), r) for r in absolute_refs(tree)]
    for path in sorted((ROOT / "bundles").rglob("*.rego")):
        refs += [("", r) for r in absolute_refs(parsed(path))]
    named = python_refs()  # these name a rule; one that names only a package says nothing
    out = set()
    for name, pkg in pkgs.items():
        segs = name.split(".")
        for rule in pkg.rules:
            if any(where != name and matches(path, segs, rule) for where, path in refs) or any(
                len(path) > len(segs) and matches(path, segs, rule) for path in named
            ):
                out.add((name, rule))
    return out


def private_unprefixed() -> dict[str, list[str]]:
    pkgs = packages()
    outside = used_outside(pkgs)
    found: dict[str, list[str]] = {}
    for name, pkg in sorted(pkgs.items()):
        names = sorted(r for r in pkg.rules if not r.startswith("_") and (name, r) not in outside)
        if names:
            found[name] = names
    return found


def documents() -> dict[str, set[str]]:
    """What each package path holds: its rules, and the top-level keys of the data files in its
    folder (data.json / data.yaml beside the Rego become data.<folder path>)."""
    import yaml

    out: dict[str, set[str]] = {name: set(pkg.rules) for name, pkg in packages(tests=True).items()}
    for path in sorted((REGO / "opafence").rglob("data.*")):
        if path.suffix not in (".json", ".yaml", ".yml"):
            continue
        text = path.read_text(encoding="utf-8")
        doc = json.loads(text) if path.suffix == ".json" else yaml.safe_load(text)
        name = ".".join(path.parent.relative_to(REGO).parts)
        out.setdefault(name, set()).update(doc if isinstance(doc, dict) else {})
    return out


def dangling_refs(extra: list[Path] | None = None) -> list[str]:
    """References into data.opafence that name nothing: no rule, data key or package there.
    OPA accepts them (data may come at run time), so a renamed or removed rule that another
    package still names is undefined there without a word from `opa check`."""
    docs = documents()
    names = {tuple(n.split(".")) for n in docs}
    out = []
    files = [*rego_files(tests=True), *sorted((ROOT / "bundles").rglob("*.rego")), *(extra or [])]
    for path in files:
        tree = parsed(path)
        injected = {tuple(r) for r in absolute_refs({**tree, "rules": list(_with_targets(tree))})}
        for ref in absolute_refs(tree):
            if not ref or ref[0] != "opafence" or tuple(ref) in injected:
                continue
            segs: list[str] = []
            for seg in ref:
                if seg is None:
                    break
                segs.append(seg)
            # The longest package the reference goes through, and what it names past it.
            held = [n for n in names if tuple(segs[: len(n)]) == n]
            if not held:
                if not any(n[: len(segs)] == tuple(segs) for n in names):
                    out.append(f"{_shown(path)}: data.{'.'.join(segs)}")
                continue
            pkg = max(held, key=len)
            if len(segs) == len(pkg):
                continue
            # Past it: one of its rules or data keys, or a namespace that packages below it share.
            namespace = any(n[: len(segs)] == tuple(segs) for n in names)
            if segs[len(pkg)] not in docs[".".join(pkg)] and not namespace:
                out.append(f"{_shown(path)}: data.{'.'.join(segs)}")
    return sorted(set(out))


def _with_targets(node: Any) -> Iterator[dict[str, Any]]:
    """The targets of `with` (a test may put a document where there is none)."""
    if isinstance(node, dict):
        for w in node.get("with") or []:
            yield w["target"]
        for v in node.values():
            yield from _with_targets(v)
    elif isinstance(node, list):
        for v in node:
            yield from _with_targets(v)


def _shown(path: Path) -> str:
    return str(path.relative_to(ROOT)) if path.is_relative_to(ROOT) else path.name


def long_files() -> dict[str, int]:
    out = {}
    for path in rego_files():
        n = len(path.read_text(encoding="utf-8").splitlines())
        if n > MAX_LINES:
            out[path.relative_to(REGO).as_posix()] = n
    return out


def package_annotations() -> dict[str, list[dict[str, Any]]]:
    out: dict[str, list[dict[str, Any]]] = {}
    for a in inspected():
        ann = a["annotations"]
        if ann.get("scope") in ("package", "subpackages") and not a["location"]["file"].endswith(
            "_test.rego"
        ):
            pkg = ".".join(str(s) for s in ref_path(a["path"])[1:])
            out.setdefault(pkg, []).append(ann)
    return out


def rule_annotations() -> dict[str, list[dict[str, Any]]]:
    out: dict[str, list[dict[str, Any]]] = {}
    for a in inspected():
        ann = a["annotations"]
        if ann.get("scope") in ("rule", "document") and not a["location"]["file"].endswith("_test.rego"):
            out.setdefault(".".join(str(s) for s in ref_path(a["path"])[1:]), []).append(ann)
    return out


def described(anns: list[dict[str, Any]]) -> bool:
    return any(a.get("title") and a.get("description") for a in anns)


if __name__ == "__main__":
    anns = package_annotations()
    print("packages without METADATA:", sorted(p for p in packages() if not described(anns.get(p, []))))
    print("files over", MAX_LINES, "lines:", long_files())
    print("references that name nothing:", dangling_refs())
    for pkg, names in private_unprefixed().items():
        total = len(packages()[pkg].rules)
        print(f"{pkg}: {len(names)} of {total} rules used only inside it: {', '.join(names)}")
    sys.exit(0)
