"""Only the package list lives here (everything else is in pyproject.toml).

`packages.find` in pyproject.toml cannot add `opafence.rego`, which is mapped from the top-level
`rego/` directory, so the list is computed: every package under adapter/ plus that one."""

from setuptools import find_packages, setup

setup(packages=[*find_packages(where="adapter", include=["opafence", "opafence.*"]), "opafence.rego"])
