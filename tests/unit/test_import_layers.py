"""The import direction of adapter/opafence: a module imports only from its own layer or below.

Every module is parsed with `ast` (imports inside functions and under TYPE_CHECKING count:
they are dependencies all the same) and mapped to a layer, top to bottom:

    host       hermes/ (the plugin), the CLI (cli.py, *_cmd.py), and the hosts outside Hermes
               that drive the pipeline: judge.py, replay.py, explain_cmd.py, demo.py,
               coverage_corpus.py, doctor.py; bundle.py (`python -m opafence.bundle`)
    pipeline   pipeline (module or package): compile -> facts -> input -> decide -> record,
               shared by the plugin and the hosts outside Hermes
    compile    facts/, intent/, provenance/, inputs.py, host.py, session.py: the user's words
               and the raw call turned into a TaskPolicy, facts and the decision input
    decide     opa/ (the engine and the decision client), audit/ (the signed trail), budget/
               (spend and launch counts): what decides, records and counts, knowing no words
    lib        errors.py, policy.py, printable.py, state_files.py, config.py, decision.py,
               rego_files.py and the package's __init__: the models and helpers everyone uses

docs/architecture.md ("Layers") says the same. A new module must be placed here (an unmapped
module fails), so where it belongs is decided once, on purpose. ALLOWED lists imports that go
upward today and may only shrink: an entry that is no longer an upward import fails too."""

from __future__ import annotations

import ast
from pathlib import Path

ADAPTER = Path(__file__).resolve().parents[2] / "adapter"

LAYERS = ("lib", "decide", "compile", "pipeline", "host")  # bottom to top

# Packages: the package and everything under it.
PACKAGES = {
    "opafence.hermes": "host",
    "opafence.pipeline": "pipeline",
    "opafence.facts": "compile",
    "opafence.intent": "compile",
    "opafence.provenance": "compile",
    "opafence.opa": "decide",
    "opafence.audit": "decide",
    "opafence.budget": "decide",
}

# Top-level modules, one by one (opafence.*_cmd is host as well).
MODULES = {
    "opafence": "lib",
    "opafence.cli": "host",
    "opafence.judge": "host",
    "opafence.replay": "host",
    "opafence.demo": "host",
    "opafence.coverage_corpus": "host",
    "opafence.doctor": "host",
    "opafence.bundle": "host",
    "opafence.inputs": "compile",
    "opafence.host": "compile",
    "opafence.session": "compile",
    "opafence.errors": "lib",
    "opafence.policy": "lib",
    "opafence.printable": "lib",
    "opafence.state_files": "lib",
    "opafence.config": "lib",
    "opafence.decision": "lib",
    "opafence.rego_files": "lib",
}

# (importer, imported) pairs that go upward today. Shrink-only.
ALLOWED: frozenset[tuple[str, str]] = frozenset()


def modules() -> dict[str, Path]:
    out: dict[str, Path] = {}
    for path in sorted((ADAPTER / "opafence").rglob("*.py")):
        parts = list(path.relative_to(ADAPTER).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        out[".".join(parts)] = path
    return out


def layer_of(name: str) -> str | None:
    if name in MODULES:
        return MODULES[name]
    for pkg, layer in PACKAGES.items():
        if name == pkg or name.startswith(pkg + "."):
            return layer
    if name.count(".") == 1 and name.endswith("_cmd"):
        return "host"
    return None


def imports(name: str, path: Path, known: dict[str, Path]) -> set[str]:
    """The opafence modules `name` imports (a `from pkg import mod` names the module itself)."""
    is_pkg = path.name == "__init__.py"
    package = name if is_pkg else name.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names if a.name.split(".")[0] == "opafence")
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                source = ".".join([*base, *([node.module] if node.module else [])])
            else:
                source = node.module or ""
            if source.split(".")[0] != "opafence":
                continue
            for alias in node.names:
                sub = f"{source}.{alias.name}"
                found.add(sub if sub in known else source)
    return found


def upward() -> set[tuple[str, str]]:
    known = modules()
    rank = {layer: i for i, layer in enumerate(LAYERS)}
    out: set[tuple[str, str]] = set()
    for name, path in known.items():
        mine = layer_of(name)
        assert mine is not None
        for dep in imports(name, path, known):
            theirs = layer_of(dep)
            assert theirs is not None, f"{name} imports {dep}, which is in no layer"
            if rank[theirs] > rank[mine]:
                out.add((name, dep))
    return out


def test_every_module_has_a_layer() -> None:
    unplaced = sorted(n for n in modules() if layer_of(n) is None)
    assert unplaced == [], f"place these in PACKAGES or MODULES (and docs/architecture.md): {unplaced}"


def test_the_mapping_names_only_modules_that_exist() -> None:
    known = modules()
    stale = sorted(n for n in MODULES if n not in known)
    assert stale == [], f"no such module any more: {stale}"


def test_no_module_imports_from_a_layer_above_it() -> None:
    found = upward()
    new = sorted(found - ALLOWED)
    assert new == [], "imports from a layer above: " + ", ".join(
        f"{a} ({layer_of(a)}) -> {b} ({layer_of(b)})" for a, b in new
    )
    gone = sorted(ALLOWED - found)
    assert gone == [], f"no longer an upward import, take it off ALLOWED: {gone}"


def test_the_check_sees_an_upward_import(tmp_path: Path) -> None:
    # A lib module importing the plugin, and the relative form of the same, both count.
    (tmp_path / "m.py").write_text(
        "from opafence.hermes.fence import Fence\nfrom .hermes import plugin\n", encoding="utf-8"
    )
    known = {"opafence.hermes": Path("x"), "opafence.hermes.plugin": Path("y")}
    assert imports("opafence.errors", tmp_path / "m.py", known) == {
        "opafence.hermes.fence",
        "opafence.hermes.plugin",
    }
    assert layer_of("opafence.errors") == "lib" and layer_of("opafence.hermes.fence") == "host"
