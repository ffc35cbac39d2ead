"""Simulated workflow runs per second, tools/list bytes and tokens against the naive twins
(`--tokens`: `benchmarks.bench_listing`'s tables), and (when the local model is installed) wall
time per step.

Every bundled example workflow x every persona, against the example server in process over the
serialized path (JSON-RPC over memory streams, the SDK's own Client), sequentially and with 8 trials
in flight; the naive fixture server beside it. A run includes connecting, tools/list, every call,
token counting and scoring. The local model row needs llama-cpp-python and the 0.5B parts
(DRIVABLE_BENCH_LOCAL=1); it is skipped, said so, otherwise.

    python -m benchmarks.bench_eval [--trials 3] [--tokens]
"""

from __future__ import annotations

import argparse
import logging
import os
import sys
import time
from functools import partial
from typing import Any

import anyio


def _targets() -> dict[str, Any]:
    from tests.contract.example_server import contract
    from tests.eval.naive_notes_server import server as naive

    from drivable.eval.solver import EvalTarget
    from drivable.serve.mount import build_server
    from drivable.target import Target

    return {
        "drivable example (in process, serialized)": EvalTarget(
            Target(server=build_server(contract), mode="legacy"), contract=contract, mode="legacy"
        ),
        "naive example (in process, serialized)": EvalTarget(
            Target(server=naive, mode="legacy"), mode="legacy"
        ),
    }


def _jobs(trials: int) -> list[Any]:
    from drivable.eval.agents.simulated import PERSONAS, SimulatedAgent
    from drivable.eval.solver import Job
    from drivable.eval.workflow import bundled

    return [
        Job(wf, p, partial(SimulatedAgent, p), t, t)
        for wf in bundled("example")
        if not wf.requires
        for p in PERSONAS
        for t in range(trials)
    ]


def _local_row() -> str:
    from benchmarks._local import local_model

    model, skipped = local_model("0.5b", "local model")
    if skipped:
        return skipped
    from drivable.eval.agents.local import LocalAgent
    from drivable.eval.solver import run_trial
    from drivable.eval.workflow import bundled

    wf = next(w for w in bundled("example") if w.name == "cold-start")
    target = next(iter(_targets().values()))

    async def one() -> Any:
        return await run_trial(target, wf, LocalAgent(model))

    started = time.perf_counter()
    result = anyio.run(one)
    seconds = time.perf_counter() - started
    calls = max(1, result.verdict["tool_calls"])
    return (
        f"local 0.5B, cold-start: {seconds:.1f} s for {calls} calls "
        f"({seconds / calls:.1f} s per call, {os.cpu_count()} cores); "
        f"steps passed {[s['passed'] for s in result.verdict['steps']]}"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--trials", type=int, default=3)
    parser.add_argument("--tokens", action="store_true", help="only the tools/list tables")
    args = parser.parse_args(argv if argv is not None else [])
    logging.getLogger("drivable").setLevel(logging.CRITICAL)
    logging.getLogger("mcp").setLevel(logging.CRITICAL)
    if args.tokens:
        from benchmarks import bench_listing

        names = bench_listing.bundled_with_twins()
        rows, _ = bench_listing.server_rows(names)
        print("\n".join([*rows, *bench_listing.tool_rows(names)]))
        return 0
    from drivable.eval.solver import run_jobs

    jobs = _jobs(args.trials)
    print(f"{len(jobs)} simulated runs per row (7 workflows x 7 personas x {args.trials} trials)")
    for label, target in _targets().items():
        for concurrency in (1, 8):

            async def go(target: Any = target, concurrency: int = concurrency) -> list[Any]:
                return await run_jobs(target, jobs, concurrency=concurrency)

            go_fn = go
            anyio.run(go_fn)  # warm: imports, tokenizer, first connection
            started = time.perf_counter()
            results = anyio.run(go_fn)
            seconds = time.perf_counter() - started
            calls = sum(r.verdict.get("tool_calls", 0) for r in results)
            print(
                f"{label}, {concurrency} in flight: {len(results) / seconds:7.1f} runs/s, "
                f"{calls / seconds:7.1f} calls/s ({seconds:.2f} s)"
            )
    from benchmarks import bench_listing

    print("\n".join(bench_listing.server_rows(bench_listing.bundled_with_twins())[0]))
    print(_local_row())
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
