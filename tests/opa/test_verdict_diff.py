"""tools/verdict_diff.py reports a changed decision: a deliberately changed verdict in a copy of
the code (run the way `against` runs another ref: PYTHONPATH at the copy's adapter/) shows up as
a difference, and compare exits 1; what the change does not touch stays identical."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

from tests.tool import load_tool

ROOT = Path(__file__).resolve().parents[2]
TOOL = ROOT / "tools" / "verdict_diff.py"
ONLY = ["--only", "corpus/replay_transcripts"]
# An ask where nobody can answer stays an ask instead of becoming a block (decision.rego).
RULE = 'unanswered_ask_blocks if settings.unattended_ask != "allow"'
CHANGED = 'unanswered_ask_blocks if settings.unattended_ask == "no such setting"'


vd = load_tool("verdict_diff")


def test_compare_names_every_difference(tmp_path: Path) -> None:
    def call(name: str, verdict: str, codes: list[str]) -> dict[str, object]:
        return vd.call_row(name, "terminal", verdict, codes, ["EXECUTION"])

    before = [
        call("a #0", "allow", []),
        call("b #0", "ask", ["NOT_AUTHORIZED"]),
        call("c #0", "block", ["X"]),
    ]
    before.append(vd.policy_row("a", {"task": "k1", "grants": [], "created_at": "t1"}, "k1"))
    after = [call("a #0", "allow", []), call("b #0", "block", ["NOT_AUTHORIZED"]), call("d #0", "allow", [])]
    after.append(vd.policy_row("a", {"task": "k2", "grants": [], "created_at": "t2"}, "k2"))
    diffs = vd.differences(before, after)
    assert [d.split("\n")[0] for d in diffs] == ["b #0: verdict", "c #0: only before " + vd.show(before[2]),
                                                 "d #0: only after " + vd.show(after[2])]  # fmt: skip
    assert '"verdict": "ask"' in diffs[0] and '"verdict": "block"' in diffs[0]
    assert vd.differences(before, before) == []

    files = []
    for name, rows in (("before", before), ("after", after)):
        path = tmp_path / f"{name}.jsonl"
        path.write_text("".join(vd.json.dumps(r) + "\n" for r in rows), encoding="utf-8")
        files.append(str(path))
    run = subprocess.run(
        [sys.executable, str(TOOL), "compare", *files], capture_output=True, text=True, check=False
    )
    assert run.returncode == 1, run.stderr
    assert "b #0: verdict" in run.stdout and run.stdout.rstrip().endswith("3 differences")
    same = subprocess.run(
        [sys.executable, str(TOOL), "compare", files[0], files[0]],
        capture_output=True,
        text=True,
        check=False,
    )
    assert same.returncode == 0 and same.stdout.strip() == "0 differences"


def test_a_changed_verdict_in_other_code_is_reported(tmp_path: Path) -> None:
    copy = tmp_path / "ref"
    for part in ("adapter", "rego", "bundles"):
        shutil.copytree(
            ROOT / part, copy / part, ignore=shutil.ignore_patterns("__pycache__", "bin", "*.egg-info")
        )
    shutil.copy(ROOT / "pyproject.toml", copy / "pyproject.toml")
    decision = copy / "rego" / "opafence" / "decision.rego"
    text = decision.read_text(encoding="utf-8")
    assert text.count(RULE) == 1, "decision.rego changed: pick another rule to change here"
    decision.write_text(text.replace(RULE, CHANGED), encoding="utf-8")

    before, after = tmp_path / "before.jsonl", tmp_path / "after.jsonl"
    vd.record_with(before, copy / "adapter", ONLY)
    vd.record_with(after, None, ONLY)
    old, new = vd.read_jsonl(before), vd.read_jsonl(after)
    assert len(old) == len(new) > 30

    diffs = vd.differences(old, new)
    assert diffs, "the changed rule changed no recorded verdict"
    for d in diffs:
        head, was, now = d.split("\n")
        assert "(unattended) #" in head and head.endswith(": codes, verdict"), d
        assert '"verdict": "ask"' in was and '"verdict": "block"' in now, d
        assert "NOBODY_TO_ASK" in now and "NOBODY_TO_ASK" not in was, d
    # Everything attended, and every compiled policy, is the same under both.
    changed = {d.split(": ")[0] for d in diffs}
    assert all("(unattended)" in name for name in changed)
    assert sum(1 for r in new if "(unattended)" not in r["name"]) > 0

    run = subprocess.run(
        [sys.executable, str(TOOL), "compare", str(before), str(after)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert run.returncode == 1
    assert run.stdout.rstrip().endswith(f"{len(diffs)} differences")
