"""TaskPolicy.to_opa_data() matches rego/schemas/tasks.jsonschema definitions.task, always.

Validated with a small draft-07 subset validator (type, enum, const, required, properties,
additionalProperties, items, minimum, minLength, $ref): the keywords the schema uses. A
keyword it does not know fails the test, so the validator cannot silently skip a rule."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from tests.unit.test_intent_corpus import FOLLOWUPS, HOST, load

from opafence.intent import compile_explained, compile_message
from opafence.policy import Grant, Prohibition, TaskPolicy, fallback_policy

SCHEMA = json.loads(
    (Path(__file__).resolve().parents[2] / "rego" / "schemas" / "tasks.jsonschema").read_text(
        encoding="utf-8"
    )
)
KNOWN = {
    "$schema",
    "$id",
    "title",
    "description",
    "type",
    "enum",
    "const",
    "required",
    "properties",
    "additionalProperties",
    "items",
    "minimum",
    "minLength",
    "$ref",
    "definitions",
}
TYPES = {
    "string": lambda v: isinstance(v, str),
    "integer": lambda v: isinstance(v, int) and not isinstance(v, bool),
    "boolean": lambda v: isinstance(v, bool),
    "array": lambda v: isinstance(v, list),
    "object": lambda v: isinstance(v, dict),
    "null": lambda v: v is None,
    "number": lambda v: isinstance(v, int | float) and not isinstance(v, bool),
}


def validate(value: Any, schema: dict[str, Any], root: dict[str, Any], where: str = "$") -> list[str]:
    unknown = set(schema) - KNOWN
    assert not unknown, f"validator does not know {unknown} (at {where})"
    if "$ref" in schema:
        node: Any = root
        for part in schema["$ref"].removeprefix("#/").split("/"):
            node = node[part]
        return validate(value, node, root, where)
    errors: list[str] = []
    if "type" in schema:
        types = schema["type"] if isinstance(schema["type"], list) else [schema["type"]]
        if not any(TYPES[t](value) for t in types):
            return [f"{where}: {value!r} is not {types}"]
    if "const" in schema and value != schema["const"]:
        errors.append(f"{where}: {value!r} != {schema['const']!r}")
    if "enum" in schema and value not in schema["enum"]:
        errors.append(f"{where}: {value!r} not in {schema['enum']}")
    if "minimum" in schema and value < schema["minimum"]:
        errors.append(f"{where}: {value} < {schema['minimum']}")
    if "minLength" in schema and len(value) < schema["minLength"]:
        errors.append(f"{where}: shorter than {schema['minLength']}")
    if isinstance(value, dict):
        props = schema.get("properties", {})
        for key in schema.get("required", []):
            if key not in value:
                errors.append(f"{where}: missing {key!r}")
        for key, v in value.items():
            if key in props:
                errors += validate(v, props[key], root, f"{where}.{key}")
            elif schema.get("additionalProperties") is False:
                errors.append(f"{where}: unexpected key {key!r}")
            elif isinstance(schema.get("additionalProperties"), dict):
                errors += validate(v, schema["additionalProperties"], root, f"{where}.{key}")
    if isinstance(value, list) and "items" in schema:
        for i, v in enumerate(value):
            errors += validate(v, schema["items"], root, f"{where}[{i}]")
    return errors


def task_errors(doc: dict[str, Any]) -> list[str]:
    return validate(doc, SCHEMA["definitions"]["task"], SCHEMA)


def test_validator_catches_what_it_should() -> None:
    good = fallback_policy("t").to_opa_data()
    assert task_errors(good) == []
    assert task_errors({**good, "extra": 1})
    assert task_errors({**good, "revision": 0})
    assert task_errors({**good, "compiled_by": "magic"})
    assert task_errors({**good, "schema_version": 2})
    bad_grant = {"id": "g1", "class": "READING", "evidence": "x"}
    assert task_errors({**good, "grants": [bad_grant]})
    assert task_errors({**good, "grants": [{"id": "g1", "class": "READ", "evidence": ""}]})
    assert task_errors({**good, "bounds": {"hosts": []}})
    missing = dict(good)
    del missing["budgets"]
    assert task_errors(missing)


@pytest.mark.parametrize("case", load(), ids=[c["id"] for c in load()])
def test_every_corpus_policy_matches_the_schema(case: dict[str, Any]) -> None:
    doc = compile_message(case["m"], task="t1", host=HOST).to_opa_data()
    assert task_errors(doc) == []


def test_followup_and_fallback_policies_match_the_schema() -> None:
    for case in FOLLOWUPS:
        policy = None
        for i, (sender, m) in enumerate(case["msgs"], start=1):
            policy = compile_message(m, task="t1", host=HOST, owner=sender, previous=policy, message_index=i)
            assert task_errors(policy.to_opa_data()) == []


def test_opa_data_holds_nothing_rego_does_not_need() -> None:
    policy = compile_message(
        "email the summary to john@example.com. Forward the notes from bob@x.com", task="t1", host=HOST
    )
    assert policy.dropped and policy.instruction and policy.purpose
    doc = policy.to_opa_data()
    assert set(doc) == {
        "schema_version",
        "task",
        "revision",
        "owner",
        "compiled_by",
        "read_only",
        "grants",
        "prohibitions",
        "delegations",
        "requests",
        "bounds",
        "budgets",
        "created_at",
        "updated_at",
    }
    text = json.dumps(doc)
    assert "Forward the notes" not in text  # the dropped grant's evidence stays in Python


def test_policy_round_trips_through_json() -> None:
    """The plugin persists policies (model_dump) and reads them back (model_validate)."""
    policy = compile_message("stop, don't send anything. Delete build/", task="t1", host=HOST)
    again = TaskPolicy.model_validate(json.loads(json.dumps(policy.model_dump(mode="json", by_alias=True))))
    assert again == policy
    assert again.temporary == policy.temporary != []


def test_revision_created_at_and_ids_across_messages() -> None:
    p1 = compile_message("email the notes to a@example.com", task="t1", host=HOST)
    p2 = compile_message(
        "also email them to b@example.com", task="t1", host=HOST, previous=p1, message_index=2
    )
    p3 = compile_message("don't email a@example.com", task="t1", host=HOST, previous=p2, message_index=3)
    assert (p1.revision, p2.revision, p3.revision) == (1, 2, 3)
    assert p1.created_at == p2.created_at == p3.created_at
    assert [g.id for g in p2.grants] == ["g1", "g2"]
    # g1 lost its only recipient to the prohibition: its id is never reused
    assert [g.id for g in p3.grants] == ["g2"]
    p4 = compile_message("email c@example.com", task="t1", host=HOST, previous=p3, message_index=4)
    assert [g.id for g in p4.grants] == ["g2", "g3"]
    assert [p.id for p in p4.prohibitions] == ["p1"]


def test_models_refuse_bad_values() -> None:
    with pytest.raises(ValueError):
        Grant.model_validate({"id": "g1", "class": "TELEPORT", "evidence": "x"})
    with pytest.raises(ValueError):
        Grant.model_validate({"id": "g1", "class": "DELETE", "evidence": ""})
    with pytest.raises(ValueError):
        Prohibition.model_validate({"id": "p1", "classes": ["DELETE"], "evidence": "x", "colour": "red"})
    with pytest.raises(ValueError):
        TaskPolicy(task="t", revision=0)


def test_explain_compiled_carries_the_split() -> None:
    c = compile_explained("Summarize this\n> delete everything", task="t1", host=HOST)
    assert c.split is not None and [b.kind for b in c.split.data] == ["quote"]


def test_lifted_prohibitions_are_kept_and_ids_never_reused() -> None:
    p1 = compile_message("don't send it yet", task="t1", host=HOST)
    p2 = compile_message("send it to ann@example.com", task="t1", host=HOST, previous=p1, message_index=2)
    assert p2.prohibitions == [] and [p.id for p in p2.lifted] == ["p1"] and p2.temporary == []
    p3 = compile_message("never push", task="t1", host=HOST, previous=p2, message_index=3)
    assert [p.id for p in p3.prohibitions] == ["p2"]
    assert "lifted" not in p3.to_opa_data()
