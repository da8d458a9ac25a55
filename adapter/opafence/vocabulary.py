"""The contract's risk classes and capabilities, as rego/schemas/vocabulary.json holds them.

Python names no class list of its own: the intent compiler, hardening and the task merge read
these, and tests/opa/test_vocabulary.py holds Rego's tables (classify.egress_classes,
task.write_bound_classes, the action bases), tasks.jsonschema and the pydantic models to the same
file, so neither side can drift from the other."""

from __future__ import annotations

import json
from typing import Any

from opafence.rego_files import rego_root


def _load() -> dict[str, Any]:
    path = rego_root() / "schemas" / "vocabulary.json"
    found: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return found


_VOCABULARY = _load()

# Every class an action can have; UNKNOWN is a call not understood.
RISK_CLASSES: tuple[str, ...] = tuple(_VOCABULARY["risk_classes"])
# The classes a grant or a prohibition names (UNKNOWN never).
GRANT_CLASSES: tuple[str, ...] = tuple(_VOCABULARY["grant_classes"])
# Per class, the capabilities a grant can name; READ and SELF_MODIFICATION have none.
CAPABILITIES: dict[str, frozenset[str]] = {
    cls: frozenset(caps) for cls, caps in _VOCABULARY["capabilities"].items()
}
# The classes whose actions send data off the machine (in this order in a policy's prohibitions).
EGRESS_CLASSES: tuple[str, ...] = tuple(_VOCABULARY["egress_classes"])
# The classes a task's bounds.write_paths restricts.
WRITE_BOUND_CLASSES: frozenset[str] = frozenset(_VOCABULARY["write_bound_classes"])
