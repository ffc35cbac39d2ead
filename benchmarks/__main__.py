"""Run every `benchmarks/bench_*.py` module's `main()`; exit non-zero when any target is missed."""

from __future__ import annotations

import importlib
import pkgutil
import sys

import benchmarks


def main() -> int:
    status = 0
    for module in sorted(pkgutil.iter_modules(benchmarks.__path__), key=lambda m: m.name):
        if not module.name.startswith("bench_"):
            continue
        run = getattr(importlib.import_module(f"benchmarks.{module.name}"), "main", None)
        if run is None:
            continue
        print(f"== {module.name}")
        status = max(status, int(run() or 0))
    return status


if __name__ == "__main__":
    sys.exit(main())
