"""Sub-agent launches per task tree in windows of active time (Python counts, Rego decides)."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from opafence.budget.launches import MAX_GAP_S, DelegationWindows, launches_of
from opafence.config import DelegationConfig
from opafence.opa.bridge import Bridge

T0 = time.time()
CFG = DelegationConfig(short_window_minutes=10, short_max=3, long_window_minutes=60, long_max=5)


@pytest.fixture
def windows(tmp_path: Path) -> DelegationWindows:
    return DelegationWindows(tmp_path / "budget" / "delegations.json", CFG)


@pytest.mark.parametrize(
    ("args", "n"),
    [
        ({"goal": "x"}, 1),
        ({"tasks": [{"goal": "a"}, {"goal": "b"}, {"goal": "c"}]}, 3),
        ({"goal": "x", "tasks": []}, 1),
        ({"tasks": "not a list"}, 1),
    ],
)
def test_a_batch_counts_each_child(args: dict[str, object], n: int) -> None:
    assert launches_of(args) == n


def test_counts_are_per_task_tree_and_before_the_launch(windows: DelegationWindows) -> None:
    t = T0
    assert windows.reserve("task-a", "c1", 2, now=t) == {"launching": 2, "short": 0, "long": 0}
    assert windows.reserve("task-a", "c2", 1, now=t + 1) == {"launching": 1, "short": 2, "long": 2}
    assert windows.reserve("task-b", "c3", 1, now=t + 2) == {"launching": 1, "short": 0, "long": 0}
    assert windows.counts("task-a") == (3, 3)


def test_windows_advance_with_active_time_not_wall_time(windows: DelegationWindows) -> None:
    t = T0
    windows.reserve("t", "c1", 3, now=t)
    # Busy for 11 minutes (events every minute): the launch leaves the 10-minute window.
    for minute in range(1, 12):
        windows.touch("t", now=t + 60 * minute)
    assert windows.counts("t") == (0, 3)


def test_a_long_pause_counts_only_up_to_the_gap_and_nothing_after_a_turn(windows: DelegationWindows) -> None:
    t = T0
    windows.reserve("t", "c1", 3, now=t)
    windows.touch("t", now=t + 3600)  # an hour without events inside a turn counts as MAX_GAP_S
    assert windows._trees["t"].active == MAX_GAP_S
    assert windows.counts("t") == (3, 3)
    windows.pause("t", now=t + 3600)  # the turn ended
    windows.touch("t", now=t + 20 * 3600)  # the person comes back the next day
    assert windows._trees["t"].active == MAX_GAP_S
    assert windows.counts("t") == (3, 3)  # the window was not emptied by the night


def test_a_call_that_did_not_run_gives_its_launches_back(windows: DelegationWindows) -> None:
    windows.reserve("t", "c1", 2, now=T0 + 1)
    windows.reserve("t", "c2", 1, now=T0 + 2)
    assert windows.release("t", "c1")
    assert not windows.release("t", "c1")
    assert windows.counts("t") == (1, 1)


def test_counts_survive_a_restart(windows: DelegationWindows, tmp_path: Path) -> None:
    windows.reserve("t", "c1", 2, now=T0 + 1)
    again = DelegationWindows(windows.path, CFG)
    assert again.counts("t") == (2, 2)
    assert again.reserve("t", "c2", 1, now=T0 + 2)["short"] == 2
    assert oct(windows.path.stat().st_mode & 0o777) == "0o600"


def test_an_unreadable_file_reports_an_error_instead_of_resetting(tmp_path: Path) -> None:
    path = tmp_path / "budget" / "delegations.json"
    DelegationWindows(path, CFG).reserve("t", "c1", 2, now=T0 + 1)
    path.write_text("{broken")
    fresh = DelegationWindows(path, CFG)
    counts = fresh.reserve("t", "c2", 1, now=T0 + 2)
    assert counts["error"] and str(path) in counts["error"]
    path.write_text(f'{{"t": {{"active": 0, "last": {T0}, "seen": {T0}, "launches": [[0, 4, "c0"]]}}}}')
    assert fresh.reserve("t", "c3", 1, now=T0 + 3) == {"launching": 1, "short": 4, "long": 4}


def test_rego_asks_over_the_limit_with_the_counts_python_supplied(bridge: Bridge, tmp_path: Path) -> None:
    from opafence.config import Config
    from opafence.host import Host
    from opafence.inputs import decision_input
    from opafence.session import SessionFacts

    config = Config.model_validate({"budgets": {"delegation": CFG.model_dump()}})
    bridge.config = config
    bridge._push_all()
    bridge.put_task(
        "t",
        {
            "schema_version": 1,
            "task": "t",
            "revision": 1,
            "compiled_by": "fallback",
            "read_only": False,
            "grants": [],
            "prohibitions": [],
            "bounds": {},
            "budgets": {},
        },
    )
    windows = DelegationWindows(tmp_path / "d.json", CFG)
    host = Host(auto_approve=False, interactive=True, platform="cli")
    verdicts = []
    for i in range(3):
        args = {"tasks": [{"goal": "a"}, {"goal": "b"}]}
        doc = decision_input("t", "delegate_task", args, f"c{i}", SessionFacts(), host)
        doc["session"]["delegation"] = windows.reserve("t", f"c{i}", 2, now=T0 + i)
        d = bridge.decide(doc)
        verdicts.append((d.verdict, [r.code for r in d.reasons if r.source == "budget"]))
    # 2 launches: fine; 2 more: the short window's 3 is passed; 2 more: both windows are.
    assert [codes for _, codes in verdicts] == [[], ["DELEGATION_LIMIT"], ["DELEGATION_LIMIT"] * 2]
    assert verdicts[1][0] == "ask"
