"""Decision logs forwarded by OPA to an organization's collector on loopback, masked by
`opafence/log/mask`: the collector sees verdicts and targets, never argument contents."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from opafence.config import Config
from opafence.opa.bridge import Bridge
from opafence.opa.own_bundle import build

from .bundle_support import LoopbackServer, decide, wait_for

REPO = Path(__file__).resolve().parents[2]
TOKEN = "collector-token-91b7"
SECRETS = ["S3CRET-BODY-TEXT", "hunter2-password", "s3cr3tword", "T0K3N-in-url-path", "sk-live-abcdef"]

SHELL = {
    "shell": {
        "opaque": False,
        "opaque_reasons": [],
        "commands": [
            {
                "name": "curl",
                "argv": [
                    "curl",
                    "-H",
                    "Authorization: Bearer sk-live-abcdef",
                    "https://h.example/T0K3N-in-url-path",
                ],
                "flags": ["-H", "--password=hunter2-password"],
                "operands": ["https://h.example/T0K3N-in-url-path"],
                "operand_paths": [],
                "env": {"API_KEY": "sk-live-abcdef"},
                "redirects": [],
                "wrappers": [],
                "context": "top",
                "depth": 0,
                "dynamic": False,
            }
        ],
    },
    "urls": [
        {
            "raw": "https://h.example/T0K3N-in-url-path",
            "scheme": "https",
            "host": "h.example",
            "port": 443,
            "path": "/T0K3N-in-url-path",
            "query_len": 0,
            "arg": "command",
        }
    ],
    "words": ["s3cr3tword", "curl"],
}


@pytest.fixture
def collector() -> Iterator[LoopbackServer]:
    s = LoopbackServer()
    try:
        yield s
    finally:
        s.stop()


@pytest.mark.parametrize("own", ["sources", "built"])
def test_the_collector_gets_decisions_without_argument_contents(
    tmp_path: Path, collector: LoopbackServer, own: str
) -> None:
    token_file = tmp_path / "collector-token"
    token_file.write_text(TOKEN)
    raw: dict[str, Any] = {
        "decision_logs": {
            "url": collector.base + "/v1/logs",
            "token_file": str(token_file),
            "min_delay_seconds": 1,
            "max_delay_seconds": 1,
        },
        # An org bundle, so the bridge also reads data.system.bundles (dropped from the logs).
        "org_bundles": [{"name": "acme", "path": str(REPO / "bundles" / "org-example")}],
    }
    if own == "built":
        out = tmp_path / "opafence-bundle.tar.gz"
        build(out)
        raw["bundle"] = {"path": str(out)}
    bridge = Bridge(Config.model_validate(raw), tmp_path / "state")
    bridge.start()
    try:
        send = decide(
            bridge,
            "mcp__gmail__send_email",
            {"to": ["bob@acme.example"], "body": "S3CRET-BODY-TEXT", "password": "hunter2-password"},
            {"recipients": [{"raw": "Bob <bob@acme.example>", "address": "bob@acme.example",
                             "domain": "acme.example", "field": "to", "valid": True}]},
            task="dl-task",
        )  # fmt: skip
        shell = decide(
            bridge, "terminal", {"command": SHELL["shell"]["commands"][0]["argv"]}, SHELL, task="dl-task"
        )

        def ours() -> list[dict[str, Any]]:
            return [e for e in collector.decision_events() if (e.get("input") or {}).get("task") == "dl-task"]

        assert wait_for(lambda: len(ours()) >= 2, timeout_s=20), collector.requests()
    finally:
        bridge.close()

    assert bridge.local is not None
    assert TOKEN not in (bridge.local.run_dir / "opa-config.json").read_text()
    posts = collector.requests("POST")
    assert {r.path for r in posts} == {"/v1/logs"}
    assert {r.headers.get("authorization") for r in posts} == {f"Bearer {TOKEN}"}
    raw_text = json.dumps(collector.decision_events())
    for secret in SECRETS:
        assert secret not in raw_text, secret

    events = {e["input"]["call"]["tool"]: e for e in ours()}
    mail, term = events["mcp__gmail__send_email"], events["terminal"]
    assert mail["path"] == "opafence/decision"
    assert mail["result"]["verdict"] == send.verdict and term["result"]["verdict"] == shell.verdict
    assert mail["input"]["call"]["args"] == {
        "to": {"type": "array", "size": len(json.dumps(["bob@acme.example"]))},
        "body": {"type": "string", "size": len('"S3CRET-BODY-TEXT"')},
        "password": {"type": "string", "size": len('"hunter2-password"')},
    }
    # Targets stay for the security team; contents do not.
    assert mail["input"]["facts"]["recipients"] == [
        {"address": "bob@acme.example", "domain": "acme.example", "field": "to", "valid": True}
    ]
    facts = term["input"]["facts"]
    assert "words" not in facts
    assert facts["shell"]["commands"][0] == {
        "name": "curl",
        "flags": ["-H", "--password"],
        "env": ["API_KEY"],
        "redirects": [],
        "wrappers": [],
        "context": "top",
        "depth": 0,
        "dynamic": False,
    }
    assert facts["urls"] == [
        {"scheme": "https", "host": "h.example", "port": 443, "query_len": 0, "arg": "command"}
    ]
    assert set(mail.get("masked") or []) >= {"/input/call/args", "/input/facts"}
    # opafence's own reads of the bundle manifests are not decisions and are dropped.
    assert not [e for e in collector.decision_events() if str(e.get("path", "")).startswith("system")]
