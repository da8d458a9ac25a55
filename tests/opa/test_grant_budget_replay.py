"""Per-grant max_calls: "email john once" allows one send, then the grant is spent.

Runs through replay (intent compiler, facts, real OPA); the decision reports the grant it
used and the session counts it, so the second send is no longer covered."""

from __future__ import annotations

import json
import subprocess
import sys


def test_a_once_grant_covers_exactly_one_send() -> None:
    send = {"tool": "mcp__gmail__send_email", "args": {"to": ["john@example.com"], "body": "x"}}
    line = {"user_message": "Email john@example.com the summary once.", "calls": [send, send]}
    proc = subprocess.run(
        [sys.executable, "-m", "opafence.cli", "replay"],
        input=json.dumps(line) + "\n",
        capture_output=True,
        text=True,
        check=True,
    )
    out = json.loads(proc.stdout)
    assert out["policy"]["grants"][0]["max_calls"] == 1
    first, second = out["verdicts"]
    assert first["verdict"] == "allow"
    assert second["verdict"] == "ask"
    assert "GRANT_BUDGET_SPENT" in [r["code"] for r in second["reasons"]]
