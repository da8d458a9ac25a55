"""Prefix a package's private rules with `_`: every rule only its own package uses (what
tools/rego_layout.py reports), renamed where it is defined and wherever it is named,
tests included, from the parsed Rego (`opa parse --json-include locations`), never by text search.

    .venv/bin/python tools/rego_private.py opafence.log [opafence.remote ...] [--dry-run]

Run `opa test rego` and tools/verdict_diff.py afterwards; take the package off the allow-list
in tests/opa/rego_layout_exceptions.json.
"""

from __future__ import annotations

import argparse
import base64
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from rego_layout import REGO, import_aliases, opa, package_of, private_unprefixed, ref_path, rego_files, walk

Edit = tuple[int, int, str]  # row, column, the name found there


def located(path: Path) -> dict[str, Any]:
    proc = subprocess.run(
        [opa(), "parse", "--format", "json", "--json-include", "locations,-comments", str(path)],
        capture_output=True,
        text=True,
        check=True,
    )
    tree: dict[str, Any] = json.loads(proc.stdout)
    return tree


def _text(term: dict[str, Any]) -> str:
    return base64.b64decode(term["location"]["text"]).decode()


def edits(tree: dict[str, Any], package: str, names: set[str]) -> set[Edit]:
    """Where a file names one of the package's rules: as a bare name inside the package, or as
    a segment of a reference from anywhere (data.<package>.<name>, or through an import)."""
    out: set[Edit] = set()
    segs = package.split(".")
    inside = package_of(tree) == package
    aliases = import_aliases(tree)
    for term in walk(tree.get("rules", [])):
        if term["type"] == "var":
            if inside and term["value"] in names:
                out.add((term["location"]["row"], term["location"]["col"], str(term["value"])))
            continue
        terms = term["value"]
        path = ref_path(terms)
        if inside and path[0] in names:
            out.add((terms[0]["location"]["row"], terms[0]["location"]["col"], str(path[0])))
        if path[0] == "data":
            offset, resolved = 1, path[1:]
        elif path[0] in aliases:
            prefix = aliases[str(path[0])]
            offset, resolved = 1 - len(prefix), [*prefix, *path[1:]]
        else:
            continue
        if len(resolved) > len(segs) and resolved[: len(segs)] == segs and resolved[len(segs)] in names:
            if len(segs) + offset < 1:
                raise ValueError(f"{tree['package']}: an import names a rule to rename; rename it by hand")
            t = terms[len(segs) + offset]
            out.add((t["location"]["row"], t["location"]["col"], str(t["value"])))
    return out


def apply(path: Path, found: set[Edit]) -> int:
    lines = path.read_bytes().split(b"\n")
    for row, col, name in sorted(found, key=lambda e: (e[0], -e[1])):
        line = lines[row - 1]
        at = col - 1
        word = name.encode()
        if line[at : at + len(word)] == word:
            lines[row - 1] = line[:at] + b"_" + line[at:]
        elif line[at : at + len(word) + 1] == b'"' + word:
            lines[row - 1] = line[: at + 1] + b"_" + line[at + 1 :]
        else:
            raise ValueError(f"{path}:{row}:{col}: expected {name!r}, found {line[at : at + 20]!r}")
    path.write_bytes(b"\n".join(lines))
    return len(found)


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("packages", nargs="+")
    parser.add_argument("--dry-run", action="store_true")
    args = parser.parse_args()
    private = private_unprefixed()
    plan: dict[Path, set[Edit]] = {}
    for package in args.packages:
        names = set(private.get(package, []))
        print(f"{package}: {len(names)} rules to rename: {', '.join(sorted(names))}")
        if not names:
            continue
        for path in rego_files(tests=True):
            found = edits(located(path), package, names)
            if found:
                plan.setdefault(path, set()).update(found)
    for path, found in sorted(plan.items()):
        print(f"  {path.relative_to(REGO)}: {len(found)} places")
        if not args.dry_run:
            apply(path, found)
    return 0


if __name__ == "__main__":
    sys.exit(main())
