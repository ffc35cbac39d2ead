"""Per-call latency of a trivial tool behind `drivable wrap` against the same tool called directly,
in the same run.

The upstream is tests/wrap/upstream_server.py (the SDK's low-level Server over stdio); its `ping`
takes nothing and answers "pong". Three ways, calls alternating in rounds so drift hits all alike:

- direct: an SDK client calls it over stdio;
- wrapper in process: the wrapped contract's `call` (the whole drivable pipeline, then the same
  stdio call upstream), i.e. what the wrapper adds to a direct call, without a second transport;
- wrapped over stdio: the client calls `drivable wrap -- <that server>` over stdio, which calls it
  over stdio in turn: two process hops where the direct call has one.

Goal: the wrapper at most 1.5x direct (median).

    python -m benchmarks.bench_wrap [calls]
"""

from __future__ import annotations

import statistics
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import anyio

from drivable.target import Target, connect
from drivable.wrap import wrap

ROOT = Path(__file__).resolve().parents[1]
UPSTREAM = (sys.executable, str(ROOT / "tests" / "wrap" / "upstream_server.py"))
GOAL = 1.5
WARMUP = 50
ROUNDS = 10


async def measure(calls: int) -> dict[str, float]:
    with tempfile.TemporaryDirectory() as scratch:
        wrapper = (
            sys.executable, "-c", "from drivable.cli import main; main()", "wrap",
            "--store", f"sqlite:///{Path(scratch) / 'effects.sqlite'}", "--", *UPSTREAM,
        )  # fmt: skip
        contract = await wrap(Target(command=UPSTREAM))
        times: dict[str, list[float]] = {"direct": [], "in process": [], "wrapped": []}
        async with (
            connect(Target(command=UPSTREAM)) as direct,
            connect(Target(command=wrapper)) as wrapped,
            contract.started(),
        ):

            async def in_process() -> bool:
                return not (await contract.call("ping", {})).is_error

            async def over(client: Any) -> bool:
                return not (await client.call_tool("ping", {})).is_error

            ways: dict[str, Callable[[], Awaitable[bool]]] = {
                "direct": lambda: over(direct),
                "in process": in_process,
                "wrapped": lambda: over(wrapped),
            }
            for way in ways.values():
                for _ in range(WARMUP):
                    assert await way()
            per_round = max(1, calls // ROUNDS)
            for _ in range(ROUNDS):
                for name, way in ways.items():
                    for _ in range(per_round):
                        started = time.perf_counter()
                        assert await way()
                        times[name].append(time.perf_counter() - started)
    return {name: statistics.median(values) * 1e6 for name, values in times.items()}


def main() -> None:
    calls = int(sys.argv[1]) if len(sys.argv) > 1 else 1000
    medians = anyio.run(measure, calls)
    direct = medians["direct"]
    print(f"ping, {calls} calls each way, median per call:")
    print(f"  direct over stdio            {direct:9.1f} µs")
    for name, label in (
        ("in process", "wrapper in process, upstream"),
        ("wrapped", "wrapped over stdio, twice"),
    ):
        print(f"  {label:28} {medians[name]:9.1f} µs  {medians[name] / direct:5.2f}x")
    print(f"  goal: the wrapper in process <= {GOAL}x direct")


if __name__ == "__main__":
    main()
