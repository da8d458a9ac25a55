"""host.code_dirs: the code the Hermes process runs, which self-protection covers."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import opafence
from opafence.host import Host, code_dirs
from opafence.rego_files import rego_root


def test_code_dirs_name_the_python_environment_the_package_and_the_rego() -> None:
    dirs = code_dirs()
    assert os.path.realpath(sys.prefix) in dirs
    assert str(Path(opafence.__file__).resolve().parent) in dirs
    assert str(rego_root().resolve()) in dirs
    assert "/" not in dirs and os.path.realpath(os.path.expanduser("~")) not in dirs
    assert Host(code_dirs=dirs).to_input()["code_dirs"] == list(dirs)
