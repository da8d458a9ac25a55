"""The parsers' tables as the package ships them: one JSON file under a package's data/ folder."""

from __future__ import annotations

import json
from importlib import resources
from typing import Any


def read_table(package: str, name: str) -> dict[str, Any]:
    """`<package>/data/<name>.json`, read through importlib.resources so a wheel or zip works."""
    text = resources.files(package).joinpath("data", f"{name}.json").read_text(encoding="utf-8")
    data: dict[str, Any] = json.loads(text)
    return data
