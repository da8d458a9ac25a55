"""Generate the fast tier's lookup tables (rego/opafence/fast/data.json) from the data files the
full policy reads, so the fast tier never knows a sensitive name the guards do not, nor misses
one they add.

    .venv/bin/python tools/fast_tables.py            # write the tables
    .venv/bin/python tools/fast_tables.py --check    # exit 1 when the committed tables are stale

The fast tier (rego/opafence/fast/fast.rego) decides only calls none of these names touch: a
path whose name, suffix, directory or home-relative top the tables hold, a command the guards
name, or a tool whose table entry is not a plain read is left to the full policy.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parents[1]
REGO = ROOT / "rego" / "opafence"
OUT = REGO / "fast" / "data.json"

# The tools and programs the fast tier knows how to decide. Each stays only while the full
# policy's own tables still say it is what the fast tier assumes (a plain read, a plain write).
READ_TOOLS = ("read_file", "search_files")
WRITE_TOOLS = {"write_file": "write_file", "patch": "patch"}
READ_COMMANDS = (
    "ls", "cat", "head", "tail", "wc", "grep", "egrep", "fgrep", "file", "stat", "du", "pwd",
    "diff", "cmp", "cut", "nl", "tac", "rev", "tr", "basename", "dirname", "true", "false", "echo",
)  # fmt: skip
GIT_READS = ("status", "log", "diff", "show", "ls-files", "blame", "rev-parse")
# Names Python runs at every start, wherever they are (self_protection's installed_code).
STARTUP_NAMES = ("sitecustomize.py", "usercustomize.py")
INSTALL_DIRS = ("site-packages", "dist-packages")
# Directories no workspace file lies in (procfs and devices: process environments, raw disks).
SYSTEM_ROOTS = ("/proc", "/sys", "/dev")


def load(rel: str) -> Any:
    path = REGO / rel
    text = path.read_text(encoding="utf-8")
    return json.loads(text) if path.suffix == ".json" else yaml.safe_load(text)


def norm(p: str) -> str:
    return p.lower().rstrip("/") or "/"


def strings(value: Any) -> set[str]:
    """Every string anywhere in a table (keys of mappings included)."""
    if isinstance(value, str):
        return {value}
    if isinstance(value, dict):
        return {s for k, v in value.items() for s in strings(k) | strings(v)}
    if isinstance(value, list):
        return {s for v in value for s in strings(v)}
    return set()


def build() -> dict[str, Any]:
    classify = load("classify/data.yaml")
    shell = load("classify/shell/data.yaml")
    secrets = load("guards/secrets/data.json")
    catalogue = load("guards/secrets/catalogue/data.yaml")
    persistence = load("guards/persistence/data.json")
    destruction = load("guards/destruction/data.json")
    taint = load("taint/data.yaml")

    tools = classify["builtin_tools"]
    untrusted = taint["untrusted_tools"]
    read_tools = sorted(t for t in READ_TOOLS if tools.get(t) == {"classes": ["READ"]} and t not in untrusted)
    write_tools = sorted(t for t, special in WRITE_TOOLS.items() if tools.get(t) == {"special": special})

    # Programs any guard table names (secret, database, disk, cloud, network commands ...) are
    # the full policy's to judge, whatever the curated list says.
    guard_words = {w.lower() for s in strings([secrets, persistence, destruction]) for w in s.split()}
    table = shell["command_table"]
    read_commands = sorted(
        c
        for c in READ_COMMANDS
        if table.get(c) == {"classes": ["READ"]}
        and c not in guard_words
        and c not in shell["runner_table"]
        and c not in shell["version_queries"]
    )
    git_reads: dict[str, list[str]] = {}
    for sub in GIT_READS:
        spec = shell["git_table"].get(sub)
        if not isinstance(spec, dict) or spec.get("classes") != ["READ"]:
            continue
        if set(spec) - {"classes", "flag_rules"}:
            continue
        git_reads[sub] = sorted({f for r in spec.get("flag_rules", []) for f in r["flags"]})

    home_tables = [
        *secrets["home_secret_dirs"],
        *secrets["home_secret_parents"],
        *secrets["home_secret_tops"],
        *catalogue["home"],
        *secrets["catalogue_home_parents"],
        *persistence["home_persistence"],
        *shell["sensitive_home_paths"],
    ]
    dir_tables = [*taint["instruction_dirs"], *taint["exec_dirs"]]
    system_tables = [
        *secrets["system_secret_paths"],
        *catalogue["system"],
        *persistence["system_persistence"],
        *shell["sensitive_paths"],
    ]
    names = {
        *secrets["secret_names"],
        *secrets["hermes_secret_files"],
        *secrets["secret_name_samples"],
        *catalogue["names"],
        *STARTUP_NAMES,
    }
    # Files the next agent reads as instructions, or that run with the build: guarded when
    # written (taint.rego's changed_paths), not when read.
    write_names = {*taint["instruction_files"], *taint["exec_files"]}
    names |= {norm(p).rsplit("/", 1)[-1] for p in [*home_tables, *dir_tables, *system_tables]}
    tops = {norm(p).split("/")[0] for p in home_tables}
    suffixes = [*secrets["secret_suffixes"], *taint["exec_suffixes"], ".env"]
    # Every suffix is one extension, so the fast tier looks a file's extension up.
    assert all(s.count(".") == 1 and s.startswith(".") for s in suffixes), suffixes
    system_paths = {norm(p) for p in [*system_tables, *SYSTEM_ROOTS]}
    # A path that is, or lies above, a system place or a parent of secrets (a recursive read of
    # it reaches them): every ancestor of each, "/" included.
    above = {"/"}
    parents = [*secrets["system_secret_parents"], *secrets["catalogue_system_parents"]]
    for p in [*system_paths, *(norm(x) for x in parents)]:
        parts = p.split("/")
        above |= {"/".join(parts[:i]) for i in range(2, len(parts) + 1)}
    # Dot-names need no table: the fast tier leaves every path with a dot-component alone.
    return {
        "tables": {
            "read_tools": {t: True for t in read_tools},
            "write_tools": {t: True for t in write_tools},
            "read_commands": {c: True for c in read_commands},
            "git_reads": git_reads,
            "names": {n.lower(): True for n in sorted(names) if not n.startswith(".")},
            "write_names": {n.lower(): True for n in sorted(write_names) if not n.startswith(".")},
            "suffixes": {s.lower(): True for s in sorted(suffixes)},
            "home_tops": {t: True for t in sorted(tops) if not t.startswith(".")},
            "install_dirs": {d: True for d in INSTALL_DIRS},
            "system_paths": {p: True for p in sorted(system_paths)},
            "system_above": {p: True for p in sorted(above)},
        }
    }


def render(tables: dict[str, Any]) -> str:
    return json.dumps(tables, indent=1, sort_keys=True) + "\n"


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--check", action="store_true", help="fail when the committed tables are stale")
    args = parser.parse_args()
    text = render(build())
    if args.check:
        if not OUT.exists() or OUT.read_text(encoding="utf-8") != text:
            print(f"{OUT.relative_to(ROOT)} is stale: run tools/fast_tables.py", file=sys.stderr)
            return 1
        return 0
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
