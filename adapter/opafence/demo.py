"""`opafence demo`: the main job on the embedded defaults, offline, as a readable table.

Foundation version: judges a few calls under the read-only fallback. The plugin issue
replaces it with the prompt-injected inbox scenarios (and `--hermes`)."""

from __future__ import annotations

import tempfile
from pathlib import Path

from opafence.config import Config
from opafence.host import Host
from opafence.judge import Judge
from opafence.opa.bridge import Bridge

SCENARIO = [
    ("read_file", {"path": "README.md"}),
    ("terminal", {"command": "rm -rf ~/mail"}),
]


def run_demo(hermes: bool = False) -> int:
    config = Config()
    with tempfile.TemporaryDirectory(prefix="opafence-demo-") as tmp:
        bridge = Bridge(config, Path(tmp))
        bridge.start()
        try:
            judge = Judge(bridge, Host(auto_approve=False, interactive=True, platform="demo"), config)
            state = judge.open_task("demo", "Summarize my inbox. Do not send anything.")
            print(f"{'tool':<12} {'verdict':<7} why")
            for tool, args in SCENARIO:
                d = judge.judge(state, tool, args).decision
                why = "; ".join(r.message for r in d.reasons) or "-"
                print(f"{tool:<12} {d.verdict:<7} {why}")
        finally:
            bridge.close()
    return 0
