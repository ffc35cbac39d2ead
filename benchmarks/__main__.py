"""Run the `benchmarks/bench_*.py` modules named (all when none is), each one's `main()`.

`python -m benchmarks` runs every one; `python -m benchmarks bench_listing bench_wrap` runs those
two. Each runs with its own defaults (its `sys.argv` holds only its name). Exits non-zero when any
target is missed, and with 2 when a name is not a benchmark.
"""

from __future__ import annotations

import importlib
import pkgutil
import sys

import benchmarks


def names() -> list[str]:
    """Every benchmark module's name, sorted."""
    return sorted(
        m.name for m in pkgutil.iter_modules(benchmarks.__path__) if m.name.startswith("bench_")
    )


def main(argv: list[str] | None = None) -> int:
    known = names()
    asked = list(sys.argv[1:] if argv is None else argv) or known
    unknown = [name for name in asked if name not in known]
    if unknown:
        print(
            f"not a benchmark: {', '.join(unknown)}; the benchmarks are: {', '.join(known)}",
            file=sys.stderr,
        )
        return 2
    status = 0
    for name in asked:
        run = getattr(importlib.import_module(f"benchmarks.{name}"), "main", None)
        if run is None:
            continue
        print(f"== {name}")
        saved, sys.argv = sys.argv, [name]
        try:
            status = max(status, int(run() or 0))
        finally:
            sys.argv = saved
    return status


if __name__ == "__main__":
    sys.exit(main())
