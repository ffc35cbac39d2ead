"""Simulated workflow runs per second, tools/list tokens per tool against the naive twins, and (when
the local model is installed) wall time per step.

Every bundled example workflow x every persona, against the example server in process over the
serialized path (JSON-RPC over memory streams, the SDK's own Client), sequentially and with 8 trials
in flight; the naive fixture server beside it. A run includes connecting, tools/list, every call,
token counting and scoring. The local model row needs llama-cpp-python and the 0.5B parts
(DRIVABLE_BENCH_LOCAL=1); it is skipped, said so, otherwise.

    python -m benchmarks.bench_eval [--trials 3]
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


def _discovery_rows() -> list[str]:
    """tools/list tokens per tool, per bundled set: drivable server (no test tools) vs its naive
    twin (plain MCPServer functions, the FastMCP style), whole and as a model is shown it."""
    import importlib
    import json
    import tempfile

    from drivable.eval.surfaces import load
    from drivable.eval.tokens import count_text
    from drivable.eval.workflow import workflow_set
    from drivable.serve.mount import build_server
    from drivable.target import Target, connect, wire

    async def listing(server: Any) -> list[dict[str, Any]]:
        async with connect(Target(server=server, mode="legacy"), mode="legacy") as client:
            return [wire(t) for t in (await client.list_tools()).tools]

    def shown(tool: dict[str, Any]) -> str:
        # what a chat template renders: name, description, input schema
        return json.dumps(
            {k: tool.get(k) for k in ("name", "description", "inputSchema")}, ensure_ascii=False
        )

    os.environ.setdefault(
        "DRIVABLE_BILLING_STORE", f"sqlite:///{tempfile.mkdtemp()}/bench-billing.sqlite"
    )
    fastmcp_python = os.environ.get("FASTMCP_PYTHON", "var/thirdparty/py-fastmcp/bin/python")
    rows = [
        "tools/list tokens (o200k): whole listing / as shown to a model, per tool; naive twin "
        "(the SDK's MCPServer) and the same functions on standalone FastMCP beside",
        f"{'set':8} {'tool':18} {'drivable':>9} {'shown':>6} {'naive':>6} {'shown':>6} "
        f"{'fastmcp':>8} {'shown':>6} {'ratio':>6}",
    ]
    if not os.path.exists(fastmcp_python):
        rows.append(f"(no FastMCP at {fastmcp_python}: set FASTMCP_PYTHON; its columns are 0)")
    for name in ("example", "caselaw", "billing"):
        twin = workflow_set(name).naive
        drivable = {t["name"]: t for t in anyio.run(listing, build_server(load(name)))}
        naive = {t["name"]: t for t in anyio.run(listing, importlib.import_module(twin).server)}
        fast = {t["name"]: t for t in _fastmcp_listing(fastmcp_python, twin)}
        totals = [0, 0, 0, 0, 0, 0]
        for tool in drivable:
            d, n, f = drivable[tool], naive.get(tool), fast.get(tool)
            cells = [
                count_text(json.dumps(d, ensure_ascii=False)),
                count_text(shown(d)),
                count_text(json.dumps(n, ensure_ascii=False)) if n else 0,
                count_text(shown(n)) if n else 0,
                count_text(json.dumps(f, ensure_ascii=False)) if f else 0,
                count_text(shown(f)) if f else 0,
            ]
            totals = [a + b for a, b in zip(totals, cells, strict=True)]
            rows.append(_token_row(name, tool, cells))
        rows.append(_token_row(name, "(all)", totals))
    rows.append("ratio: drivable shown / naive shown")
    return rows


def _token_row(name: str, tool: str, cells: list[int]) -> str:
    ratio = f"{cells[1] / cells[3]:.1f}x" if cells[3] else "-"
    return (
        f"{name:8} {tool:18} {cells[0]:9} {cells[1]:6} {cells[2]:6} {cells[3]:6} "
        f"{cells[4]:8} {cells[5]:6} {ratio:>6}"
    )


def _fastmcp_listing(python: str, module: str) -> list[dict[str, Any]]:
    """The twin's functions on standalone FastMCP, listed in FastMCP's own environment."""
    import json
    import subprocess
    import sysconfig

    if not os.path.exists(python):
        return []
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    out = subprocess.run(
        [
            python,
            os.path.join(here, "benchmarks", "fastmcp_listing.py"),
            module,
            sysconfig.get_paths()["purelib"],
        ],
        env={**os.environ, "PYTHONPATH": os.path.join(here, "src")},
        capture_output=True,
        text=True,
        timeout=300,
        check=True,
    )
    listed: list[dict[str, Any]] = json.loads(out.stdout)
    return listed


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--trials", type=int, default=3)
    parser.add_argument("--tokens", action="store_true", help="only the tools/list token table")
    args = parser.parse_args(argv if argv is not None else [])
    logging.getLogger("drivable").setLevel(logging.CRITICAL)
    logging.getLogger("mcp").setLevel(logging.CRITICAL)
    if args.tokens:
        print("\n".join(_discovery_rows()))
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
    for row in _discovery_rows():
        print(row)
    print(_local_row())
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
