"""Org bundles from local paths (directories and tarballs) through the real OPA and bridge:
the org's reasons reach the decision, org rules only ever make a verdict stricter, and bundles
whose roots are missing or outside `org` are refused before OPA sees them."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from opafence.cli import main as cli_main
from opafence.config import Config
from opafence.opa.bridge import Bridge

from .bundle_support import (
    ATTENDED,
    UNATTENDED,
    codes,
    decide,
    keypair,
    opa_build,
    org_rule,
    tamper,
    write_bundle_dir,
)

REPO = Path(__file__).resolve().parents[2]
ORG_EXAMPLE = REPO / "bundles" / "org-example"
RANK = {"allow": 0, "ask": 1, "block": 2}

TERRAFORM = {
    "shell": {
        "opaque": False,
        "opaque_reasons": [],
        "commands": [
            {"name": "terraform", "argv": ["terraform", "apply"], "flags": [], "operands": ["apply"]}
        ],
    }
}
NPM_PUBLISH = {
    "shell": {
        "opaque": False,
        "opaque_reasons": [],
        "commands": [{"name": "npm", "argv": ["npm", "publish"], "flags": [], "operands": ["publish"]}],
    }
}


def recipients(*addresses: str) -> dict[str, Any]:
    return {
        "recipients": [
            {"raw": a, "address": a, "domain": a.split("@")[1], "field": "to", "valid": True}
            for a in addresses
        ]
    }


def started(org: list[dict[str, Any]], state: Path, **extra: Any) -> Bridge:
    b = Bridge(Config.model_validate({"org_bundles": org, **extra}), state)
    b.start()
    return b


@pytest.fixture(params=["directory", "tarball"])
def org_example(request: pytest.FixtureRequest, tmp_path: Path) -> Path:
    if request.param == "directory":
        return ORG_EXAMPLE
    return opa_build(ORG_EXAMPLE, tmp_path / "org-example.tar.gz")


def test_the_example_bundles_rules_reach_the_decision(tmp_path: Path, org_example: Path) -> None:
    bridge = started([{"name": "acme", "path": str(org_example)}], tmp_path / "state")
    try:
        d = decide(bridge, "terminal", {"command": "terraform apply"}, TERRAFORM)
        assert d.verdict == "block" and codes(d) == ["ORG_NO_TERRAFORM_APPLY"]
        assert d.reasons[0].source == "org"
        assert d.reasons[0].message == (
            "ACME policy: agents may not run `terraform apply`; infrastructure changes go through CI."
        )
        d = decide(
            bridge, "mcp__gmail__send_email", {"to": "x"}, recipients("bob@acme.example", "eve@evil.example")
        )
        assert d.verdict == "block" and codes(d) == ["ORG_EXTERNAL_EMAIL"]
        assert "eve@evil.example" in d.reasons[0].message
        # An ask from the org: attended it asks, unattended nobody can answer, so it blocks.
        d = decide(bridge, "terminal", {"command": "npm publish"}, NPM_PUBLISH)
        assert d.verdict == "ask" and "ORG_PACKAGE_PUBLISH" in codes(d)
        d = decide(bridge, "terminal", {"command": "npm publish"}, NPM_PUBLISH, host=UNATTENDED)
        assert d.verdict == "block" and codes(d)[0] == "NOBODY_TO_ASK" and "ORG_PACKAGE_PUBLISH" in codes(d)
        assert decide(bridge, "read_file", {"path": "/ws/a"}).verdict == "allow"
        acme = next(s for s in bridge.bundle_states() if s.name == "acme")
        assert (acme.state, acme.revision) == ("loaded", "acme-example-2")
    finally:
        bridge.close()


# --- org rules only make a verdict stricter --------------------------------------------------

# An org bundle that tries everything: asks on every call, denies some, and defines rules
# named like opafence's own (allow, verdict, decision) in its package, which nobody reads.
GREEDY = """package org.agent

ask contains {"code": "ORG_LOOK", "message": "ACME looks at every call"}

deny contains {"code": "ORG_NO_WRITE", "message": "no writes"} if input.call.tool == "write_file"

allow := true

verdict := "allow"

decision := {"verdict": "allow", "reasons": [], "classes": ["READ"], "monitor": null}
"""

CALLS: list[tuple[str, dict[str, Any], dict[str, Any] | None]] = [
    ("read_file", {"path": "/ws/a"}, None),
    ("write_file", {"path": "/ws/a", "content": "x"}, None),
    ("mystery_tool", {}, None),
    ("terminal", {"command": "terraform apply"}, TERRAFORM),
    ("terminal", {"command": "npm publish"}, NPM_PUBLISH),
    ("mcp__gmail__send_email", {}, recipients("eve@evil.example")),
    ("mcp__gmail__send_email", {}, recipients("bob@acme.example")),
]


@pytest.mark.parametrize("mode", ["enforce", "strict", "monitor"])
def test_org_rules_only_make_verdicts_stricter(tmp_path: Path, mode: str) -> None:
    greedy = write_bundle_dir(tmp_path / "greedy", {"org/agent/agent.rego": GREEDY}, {"roots": ["org"]})
    plain = started([], tmp_path / "plain", mode=mode)
    example = started([{"name": "acme", "path": str(ORG_EXAMPLE)}], tmp_path / "example", mode=mode)
    grabby = started([{"name": "greedy", "path": str(greedy)}], tmp_path / "greedy-state", mode=mode)
    stricter = 0
    try:
        for host in (ATTENDED, UNATTENDED):
            for tool, args, facts in CALLS:
                base = decide(plain, tool, args, facts, host)
                for bridge in (example, grabby):
                    d = decide(bridge, tool, args, facts, host)
                    assert RANK[d.verdict] >= RANK[base.verdict], (tool, host.platform, base, d)
                    if mode == "monitor":
                        assert d.verdict == "allow"  # monitor answers allow and records the rest
                        assert d.monitor is not None and base.monitor is not None
                        assert RANK[d.monitor.would] >= RANK[base.monitor.would]
                        stricter += RANK[d.monitor.would] > RANK[base.monitor.would]
                    else:
                        stricter += RANK[d.verdict] > RANK[base.verdict]
    finally:
        for b in (plain, example, grabby):
            b.close()
    assert stricter >= (2 if mode == "strict" else 4), stricter  # the org rules did bite


def test_an_org_bundle_cannot_add_rules_outside_its_roots(tmp_path: Path) -> None:
    """roots ["org"] with a module in package opafence: OPA refuses to activate it."""
    sneaky = write_bundle_dir(
        tmp_path / "sneaky",
        {
            "org/agent/agent.rego": org_rule("x", "X", "x"),
            "opafence/evil.rego": "package opafence.evil\n\nx := 1\n",
        },
        {"roots": ["org"]},
    )
    bridge = started([{"name": "sneaky", "path": str(sneaky)}], tmp_path / "state")
    try:
        s = next(s for s in bridge.bundle_states() if s.name == "sneaky")
        assert s.state == "failed" and "do not permit" in s.error
        assert codes(decide(bridge, "read_file", {"path": "/ws/a"})) == ["BUNDLE_NOT_LOADED"]
    finally:
        bridge.close()


def test_a_malformed_org_reason_blocks(tmp_path: Path) -> None:
    bad = write_bundle_dir(
        tmp_path / "bad",
        {"org/agent/agent.rego": 'package org.agent\n\ndeny contains "just a string"\n'},
        {"roots": ["org"]},
    )
    bridge = started([{"name": "bad", "path": str(bad)}], tmp_path / "state")
    try:
        d = decide(bridge, "read_file", {"path": "/ws/a"})
        assert d.verdict == "block" and codes(d) == ["ORG_BAD_REASON"]
    finally:
        bridge.close()


# --- refused before start ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("manifest", "why"),
    [
        (None, "has no .manifest"),
        ({"revision": "x"}, "has no roots"),
        ({"roots": []}, "non-empty list"),
        ({"roots": [""]}, "not under 'org'"),
        ({"roots": ["org", "tasks"]}, "not under 'org'"),
        ({"roots": ["organization"]}, "not under 'org'"),
    ],
)
@pytest.mark.parametrize("required", [True, False])
def test_a_local_bundle_with_bad_roots_is_refused(
    tmp_path: Path, manifest: dict[str, Any] | None, why: str, required: bool
) -> None:
    src = write_bundle_dir(
        tmp_path / "b", {"org/agent/agent.rego": org_rule("read_file", "X", "x")}, manifest
    )
    bridge = started([{"name": "b", "path": str(src), "required": required}], tmp_path / "state")
    try:
        s = next(s for s in bridge.bundle_states() if s.name == "b")
        assert s.state == "refused" and why in s.error and s.blocks is required
        assert bridge.local is not None
        opa_cfg = json.loads((bridge.local.run_dir / "opa-config.json").read_text())
        assert "b" not in opa_cfg["bundles"]  # OPA never saw it
        d = decide(bridge, "read_file", {"path": "/ws/a"})
        if required:
            assert codes(d) == ["BUNDLE_NOT_LOADED"] and why in d.reasons[0].message
        else:
            assert d.verdict == "allow"
    finally:
        bridge.close()


def test_two_org_bundles_with_overlapping_roots_cannot_both_load(tmp_path: Path) -> None:
    other = write_bundle_dir(
        tmp_path / "other", {"org/agent/agent.rego": org_rule("x", "X", "x")}, {"roots": ["org"]}
    )
    bridge = started(
        [{"name": "acme", "path": str(ORG_EXAMPLE)}, {"name": "other", "path": str(other)}],
        tmp_path / "state",
    )
    try:
        states = {s.name: s for s in bridge.bundle_states()}
        failed = [s for s in (states["acme"], states["other"]) if s.state == "failed"]
        assert len(failed) == 1 and "overlap" in failed[0].error
        assert codes(decide(bridge, "read_file", {"path": "/ws/a"})) == ["BUNDLE_NOT_LOADED"]
    finally:
        bridge.close()


# --- several org bundles at once: each under its own root below org/agent ---------------------

# A team's bundle beside the company's: roots ["org/agent/beta"], package org.agent.beta.
BETA = org_rule(
    "mock_deploy", "ORG_BETA_NO_DEPLOY", "Team Beta: no deploys from the agent", package="org.agent.beta"
)
BETA_ASK = org_rule("read_file", "ORG_BETA_LOOK", "Team Beta looks at every read", "ask", "org.agent.beta")


def test_two_org_bundles_under_org_agent_load_at_once_and_both_decide(tmp_path: Path) -> None:
    beta = write_bundle_dir(
        tmp_path / "beta",
        {"org/agent/beta/deny.rego": BETA, "org/agent/beta/ask.rego": BETA_ASK},
        {"roots": ["org/agent/beta"], "revision": "beta-1"},
    )
    bridge = started(
        [{"name": "acme", "path": str(ORG_EXAMPLE)}, {"name": "beta", "path": str(beta)}], tmp_path / "state"
    )
    try:
        states = {s.name: (s.state, s.revision) for s in bridge.bundle_states()}
        assert states["acme"] == ("loaded", "acme-example-2") and states["beta"] == ("loaded", "beta-1")
        # Each bundle's own rule, and both at once on one call.
        d = decide(bridge, "terminal", {"command": "terraform apply"}, TERRAFORM)
        assert d.verdict == "block" and codes(d) == ["ORG_NO_TERRAFORM_APPLY"]
        d = decide(bridge, "mock_deploy", {"target": "prod"})
        assert d.verdict == "block" and codes(d) == ["ORG_BETA_NO_DEPLOY"]
        assert all(r.source == "org" for r in d.reasons)
        d = decide(bridge, "read_file", {"path": "/ws/a"})
        assert d.verdict == "ask" and codes(d) == ["ORG_BETA_LOOK"]
        d = decide(bridge, "terminal", {"command": "npm publish"}, NPM_PUBLISH)
        assert d.verdict == "ask" and {"ORG_PACKAGE_PUBLISH"} <= set(codes(d))
        d = decide(bridge, "read_file", {"path": "/ws/a"}, host=UNATTENDED)
        assert d.verdict == "block" and codes(d) == ["NOBODY_TO_ASK", "ORG_BETA_LOOK"]
    finally:
        bridge.close()


def test_a_malformed_reason_in_either_of_two_bundles_blocks(tmp_path: Path) -> None:
    bad = write_bundle_dir(
        tmp_path / "bad",
        {"org/agent/beta/beta.rego": 'package org.agent.beta\n\nask contains {"code": "ORG_NO_MESSAGE"}\n'},
        {"roots": ["org/agent/beta"]},
    )
    not_a_set = write_bundle_dir(
        tmp_path / "bool",
        {"org/agent/gamma/gamma.rego": "package org.agent.gamma\n\ndeny := true\n"},
        {"roots": ["org/agent/gamma"]},
    )
    for other in (bad, not_a_set):
        bridge = started(
            [{"name": "acme", "path": str(ORG_EXAMPLE)}, {"name": "other", "path": str(other)}],
            tmp_path / f"state-{other.name}",
        )
        try:
            assert {s.name: s.state for s in bridge.bundle_states()} == {
                "opafence": "loaded",
                "acme": "loaded",
                "other": "loaded",
            }
            d = decide(bridge, "read_file", {"path": "/ws/a"})
            assert d.verdict == "block" and codes(d) == ["ORG_BAD_REASON"], (other.name, d)
        finally:
            bridge.close()


def test_a_bundle_owning_org_agent_and_one_below_it_cannot_both_load(tmp_path: Path) -> None:
    whole = write_bundle_dir(
        tmp_path / "whole", {"org/agent/agent.rego": org_rule("x", "X", "x")}, {"roots": ["org/agent"]}
    )
    bridge = started(
        [{"name": "acme", "path": str(ORG_EXAMPLE)}, {"name": "whole", "path": str(whole)}],
        tmp_path / "state",
    )
    try:
        states = {s.name: s for s in bridge.bundle_states()}
        failed = [s for s in (states["acme"], states["whole"]) if s.state == "failed"]
        assert len(failed) == 1 and "overlap" in failed[0].error
        assert codes(decide(bridge, "read_file", {"path": "/ws/a"})) == ["BUNDLE_NOT_LOADED"]
    finally:
        bridge.close()


def test_a_missing_local_bundle_is_refused(tmp_path: Path) -> None:
    bridge = started([{"name": "gone", "path": str(tmp_path / "nowhere")}], tmp_path / "state")
    try:
        d = decide(bridge, "read_file", {"path": "/ws/a"})
        assert codes(d) == ["BUNDLE_NOT_LOADED"] and "no such bundle" in d.reasons[0].message
    finally:
        bridge.close()


def test_a_signed_local_tarball_is_verified_and_a_tampered_one_refused(tmp_path: Path) -> None:
    key = keypair(tmp_path / "k", "acme", "ES256")
    good = opa_build(ORG_EXAMPLE, tmp_path / "good.tar.gz", key)
    bad = tmp_path / "bad.tar.gz"
    bad.write_bytes(tamper(good.read_bytes(), "external_email.rego"))
    signing = {"public_key_file": str(key.public), "algorithm": "ES256"}
    for path, want in [(good, "loaded"), (bad, "failed")]:
        bridge = started([{"name": "acme", "path": str(path), "signing": signing}], tmp_path / f"s-{want}")
        try:
            s = next(s for s in bridge.bundle_states() if s.name == "acme")
            assert s.state == want, s
            verdict = decide(bridge, "read_file", {"path": "/ws/a"}).verdict
            assert verdict == ("allow" if want == "loaded" else "block")
        finally:
            bridge.close()


def test_replay_with_org_bundles_from_the_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    rules = write_bundle_dir(
        tmp_path / "ci-rules",
        {
            "org/agent/agent.rego": org_rule(
                "mcp__corp__get_report", "ORG_NO_REPORTS", "ACME: reports stay in the portal"
            )
        },
        {"roots": ["org"]},
    )
    monkeypatch.setenv("OPAFENCE_ORG_BUNDLES", str(rules))
    transcript = tmp_path / "t.jsonl"
    line = {
        "user_message": "get the report",
        "calls": [{"tool": "mcp__corp__get_report"}, {"tool": "read_file", "args": {"path": "a.txt"}}],
    }
    transcript.write_text(json.dumps(line) + "\n")
    assert cli_main(["replay", str(transcript)]) == 0
    out = json.loads(capsys.readouterr().out.splitlines()[0])
    report, read = out["verdicts"]
    assert report["verdict"] == "block"
    assert report["reasons"] == [{"code": "ORG_NO_REPORTS", "message": "ACME: reports stay in the portal"}]
    assert read["verdict"] == "allow"


def test_replay_of_the_example_bundle_with_real_facts(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """What the README shows: OPAFENCE_ORG_BUNDLES=bundles/org-example opafence replay."""
    lines = [
        ("apply the terraform plan", "terminal", {"command": "cd infra && terraform apply -auto-approve"}),
        ("email the summary to eve@evil.example", "mcp__gmail__send_email",
         {"to": ["eve@evil.example"], "subject": "Summary", "body": "..."}),
        ("publish the package", "terminal", {"command": "npm publish"}),
        ("read the notes", "read_file", {"path": "notes.md"}),
    ]  # fmt: skip
    transcript = tmp_path / "t.jsonl"
    transcript.write_text(
        "".join(
            json.dumps({"id": i, "user_message": m, "calls": [{"tool": t, "args": a}]}) + "\n"
            for i, (m, t, a) in enumerate(lines)
        )
    )

    def replay() -> list[dict[str, Any]]:
        assert cli_main(["replay", str(transcript)]) == 0
        return [json.loads(ln)["verdicts"][0] for ln in capsys.readouterr().out.splitlines()]

    without = replay()
    monkeypatch.setenv("OPAFENCE_ORG_BUNDLES", str(ORG_EXAMPLE))
    with_org = replay()
    got = [
        (v["verdict"], [r["code"] for r in v["reasons"] if r["code"].startswith("ORG_")]) for v in with_org
    ]
    assert got == [
        ("block", ["ORG_NO_TERRAFORM_APPLY"]),
        ("block", ["ORG_EXTERNAL_EMAIL"]),
        ("ask", ["ORG_PACKAGE_PUBLISH"]),
        ("allow", []),
    ]
    for before, after in zip(without, with_org, strict=True):
        assert RANK[after["verdict"]] >= RANK[before["verdict"]]
        assert not any(r["code"].startswith("ORG_") for r in before["reasons"])
