"""A large upstream answer paged by the wrapper against the same answer called directly, in the
same run.

The upstream is tests/wrap/upstream_server.py; its `list_items` answers `count` rows as one JSON
text block (about 60 characters a row). Measured, calls alternating in rounds:

- direct: an SDK client gets the whole answer over stdio;
- first page: the wrapped contract's `call` in process (the pipeline, the upstream call over
  stdio, the answer kept in a SQLite effect store, the first page cut);
- next page: the call the first page's `next_call` names (the kept answer read back from the
  store and the page cut; the upstream is not called);

with the characters a model reads: the whole answer against one page.

    python -m benchmarks.bench_wrap_pages [rows] [calls]
"""

from __future__ import annotations

import json
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import anyio

from drivable.effects import open_store
from drivable.target import Target, connect
from drivable.wrap import wrap

ROOT = Path(__file__).resolve().parents[1]
UPSTREAM = (sys.executable, str(ROOT / "tests" / "wrap" / "upstream_server.py"))
ROUNDS = 10
WARMUP = 5


async def measure(rows: int, calls: int) -> dict[str, Any]:
    arguments = {"count": rows, "shape": "rows"}
    with tempfile.TemporaryDirectory() as scratch:
        contract = await wrap(Target(command=UPSTREAM))
        contract.use_effects(open_store(f"sqlite:///{Path(scratch) / 'pages.sqlite'}"), b"b" * 32)
        times: dict[str, list[float]] = {"direct": [], "first page": [], "next page": []}
        sizes: dict[str, int] = {}
        async with connect(Target(command=UPSTREAM)) as direct, contract.started():

            async def whole() -> None:
                answer = await direct.call_tool("list_items", arguments)
                sizes["direct"] = len(answer.content[0].text)  # type: ignore[union-attr]

            async def first() -> dict[str, Any]:
                outcome = await contract.call("list_items", arguments)
                assert not outcome.is_error, outcome.structured
                sizes["first page"] = len(outcome.text())
                return outcome.structured

            following = (await first())["next_call"]["arguments"]

            async def second() -> None:
                outcome = await contract.call("list_items", following)
                assert not outcome.is_error, outcome.structured
                sizes["next page"] = len(outcome.text())

            ways = {"direct": whole, "first page": first, "next page": second}
            for way in ways.values():
                for _ in range(WARMUP):
                    await way()
            per_round = max(1, calls // ROUNDS)
            for _ in range(ROUNDS):
                for name, way in ways.items():
                    for _ in range(per_round):
                        started = time.perf_counter()
                        await way()
                        times[name].append(time.perf_counter() - started)
    medians = {name: statistics.median(values) * 1e6 for name, values in times.items()}
    return {"medians_us": medians, "characters": sizes}


def main() -> None:
    rows = int(sys.argv[1]) if len(sys.argv) > 1 else 2000
    calls = int(sys.argv[2]) if len(sys.argv) > 2 else 100
    found = anyio.run(measure, rows, calls)
    medians, sizes = found["medians_us"], found["characters"]
    direct = medians["direct"]
    print(f"list_items, {rows} rows, {calls} calls each way, median per call:")
    for name in ("direct", "first page", "next page"):
        print(
            f"  {name:12} {medians[name]:10.1f} µs  {medians[name] / direct:5.2f}x   "
            f"{sizes[name]:8d} characters"
        )
    print(json.dumps(found))


if __name__ == "__main__":
    main()
