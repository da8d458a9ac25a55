"""`opafence facts --tool T --args '{...}'`."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from opafence.cli import main


def test_prints_facts(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    code = main(["facts", "--tool", "terminal", "--args", json.dumps({"command": "rm -rf build ~/x"})])
    assert code == 0
    facts = json.loads(capsys.readouterr().out)
    cmd = facts["shell"]["commands"][0]
    home = os.path.expanduser("~")
    assert cmd["argv"] == ["rm", "-rf", "build", f"{home}/x"]
    assert cmd["operand_paths"] == [str(tmp_path.resolve() / "build"), os.path.realpath(f"{home}/x")]
    assert facts["tool"] == {"name": "terminal", "origin": "builtin"}


def test_bad_json_is_a_clear_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["facts", "--tool", "terminal", "--args", "{command: ls}"]) == 2
    err = capsys.readouterr().err
    assert "--args is not valid JSON" in err


def test_args_must_be_an_object(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["facts", "--tool", "terminal", "--args", '["ls"]']) == 2
    assert "must be a JSON object" in capsys.readouterr().err


def test_tool_is_required(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["facts", "--args", "{}"])
    assert exc.value.code == 2
    assert "--tool" in capsys.readouterr().err
