"""Per-call latency of a trivial tool behind `drivable wrap` against the same tool called directly,
in the same run.

The upstream is tests/wrap/upstream_server.py (the SDK's low-level Server over stdio); its `ping`
takes nothing and answers "pong". Direct: an SDK client calls it over stdio. Wrapped: the same
client calls `drivable wrap -- <that server>` over stdio, which calls it over stdio in turn, so
the wrapped call crosses two processes where the direct one crosses one. Calls alternate between
the two in rounds so drift hits both alike. Goal: wrapped at most 1.5x direct (median).

    python -m benchmarks.bench_wrap [calls]
"""

from __future__ import annotations

import statistics
import sys
import tempfile
import time
from pathlib import Path

import anyio

from drivable.target import Target, connect

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
        times: dict[str, list[float]] = {"direct": [], "wrapped": []}
        async with (
            connect(Target(command=UPSTREAM)) as direct,
            connect(Target(command=wrapper)) as wrapped,
        ):
            clients = {"direct": direct, "wrapped": wrapped}
            for client in clients.values():
                for _ in range(WARMUP):
                    await client.call_tool("ping", {})
            per_round = max(1, calls // ROUNDS)
            for _ in range(ROUNDS):
                for name, client in clients.items():
                    for _ in range(per_round):
                        started = time.perf_counter()
                        result = await client.call_tool("ping", {})
                        times[name].append(time.perf_counter() - started)
                        assert not result.is_error
    return {name: statistics.median(values) * 1e6 for name, values in times.items()}


def main() -> None:
    calls = int(sys.argv[1]) if len(sys.argv) > 1 else 1000
    medians = anyio.run(measure, calls)
    ratio = medians["wrapped"] / medians["direct"]
    print(f"ping, stdio, {calls} calls each, median per call:")
    print(f"  direct   {medians['direct']:9.1f} µs")
    print(f"  wrapped  {medians['wrapped']:9.1f} µs")
    print(f"  ratio    {ratio:9.2f}x (goal <= {GOAL}x)")
    print(f"  added    {medians['wrapped'] - medians['direct']:9.1f} µs per call")


if __name__ == "__main__":
    main()
