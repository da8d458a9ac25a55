"""rego/schemas/vocabulary.json is the one list of risk classes and capabilities: Python loads it
(opafence.vocabulary), and this test holds everything else that names classes to it — Rego's
tables (the action bases, classify.egress_classes, task.write_bound_classes), tasks.jsonschema,
the pydantic models, the lexicon's verb rows and the contract's vocabulary table — so a class or
capability added on one side and not the other fails here."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path
from typing import Any, get_args

from opafence import vocabulary as vocab
from opafence.config import RiskClass
from opafence.intent import lexicon as lx
from opafence.policy import GrantClass
from tests.opa.decision_cases import opa_binary

ROOT = Path(__file__).resolve().parents[2]
PAIRS = {(cls, cap) for cls, caps in vocab.CAPABILITIES.items() for cap in caps}


def _rego_tables() -> dict[str, Any]:
    """Rego's own class tables, read from the policy itself (opa eval, tests left out). Each is
    asked for under its name and its private name (a `_` first), so a rename to private keeps it."""
    tables = {
        "bases": "lib.action.bases",
        "egress": "classify.egress_classes",
        "write_bound": "task.write_bound_classes",
        "blocking": "task.blocking_classes",
    }
    parts = []
    for key, ref in tables.items():
        pkg, _, name = ref.rpartition(".")
        for n in (name, f"_{name}"):
            parts.append(f'"{key}{n[: n.index(name)]}": [x | x := data.opafence.{pkg}.{n}]')
    query = "{" + ", ".join(parts) + "}"
    argv = [opa_binary(), "eval", "--format", "json", "--ignore", "*_test.rego"]
    argv += ["-d", str(ROOT / "rego" / "opafence"), query]
    proc = subprocess.run(argv, capture_output=True, text=True, timeout=300, check=False)
    assert proc.returncode == 0, proc.stderr[:2000]
    value: dict[str, list[Any]] = json.loads(proc.stdout)["result"][0]["expressions"][0]["value"]
    found = {key: (value[key] or value[f"{key}_"]) for key in tables}
    assert all(found.values()), f"a Rego class table is gone: {found}"
    return {key: v[0] for key, v in found.items()}


def test_rego_tables_are_the_vocabulary() -> None:
    rego = _rego_tables()
    assert sorted(rego["bases"]) == sorted(vocab.RISK_CLASSES)
    for cls, base in rego["bases"].items():
        # a class's default capabilities are capabilities of that class
        assert set(base["caps"]) <= vocab.CAPABILITIES.get(cls, frozenset()), cls
    assert sorted(rego["egress"]) == sorted(vocab.EGRESS_CLASSES)
    assert sorted(rego["write_bound"]) == sorted(vocab.WRITE_BOUND_CLASSES)
    assert set(rego["blocking"]) <= set(vocab.GRANT_CLASSES)


def test_the_schemas_and_models_are_the_vocabulary() -> None:
    tasks = json.loads((ROOT / "rego" / "schemas" / "tasks.jsonschema").read_text(encoding="utf-8"))
    grant = next(d for d in _objects(tasks) if set(d.get("required", ())) >= {"id", "class", "evidence"})
    assert grant["properties"]["class"]["enum"] == list(vocab.GRANT_CLASSES)
    assert list(get_args(GrantClass)) == list(vocab.GRANT_CLASSES)
    assert list(get_args(RiskClass)) == list(vocab.RISK_CLASSES)
    assert set(vocab.GRANT_CLASSES) <= set(vocab.RISK_CLASSES)
    assert set(vocab.CAPABILITIES) <= set(vocab.GRANT_CLASSES)
    assert set(vocab.EGRESS_CLASSES) | vocab.WRITE_BOUND_CLASSES <= set(vocab.GRANT_CLASSES)


def test_the_lexicon_has_verbs_for_exactly_the_vocabulary() -> None:
    assert set(lx.CAPABILITY_VERBS) == PAIRS
    assert all(lx.CAPABILITY_VERBS[p] for p in PAIRS)


def test_the_contract_table_is_the_vocabulary() -> None:
    text = (ROOT / "docs" / "contract.md").read_text(encoding="utf-8")
    table = text[text.index("- Capability vocabulary") :]
    table = table[: table.index("\n\n", table.index("| --- |"))]
    documented: set[tuple[str, str]] = set()
    for line in table.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) < 3 or not re.fullmatch(r"[A-Z_ /]+", cells[0]):
            continue
        caps = re.findall(r"`([a-z_]+)`", cells[1])
        documented |= {(cls.strip(), cap) for cls in cells[0].split("/") for cap in caps}
    assert documented == PAIRS


def _objects(node: Any) -> list[dict[str, Any]]:
    if isinstance(node, dict):
        return [node, *(o for v in node.values() for o in _objects(v))]
    if isinstance(node, list):
        return [o for v in node for o in _objects(v)]
    return []
