"""Fail when `opa test --coverage` reports less than the minimum coverage."""

import json
import sys


def main() -> int:
    path, minimum = sys.argv[1], float(sys.argv[2])
    with open(path, encoding="utf-8") as f:
        report = json.load(f)
    coverage = float(report.get("coverage", 0.0))
    low = sorted(
        (info.get("coverage", 0.0), name)
        for name, info in report.get("files", {}).items()
        if info.get("coverage", 100.0) < 100.0
    )
    for cov, name in low[:15]:
        print(f"  {cov:6.2f}%  {name}")
    print(f"rego coverage {coverage:.2f}% (minimum {minimum:.0f}%)")
    return 0 if coverage >= minimum else 1


if __name__ == "__main__":
    sys.exit(main())
