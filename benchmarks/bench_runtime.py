"""Per-call overhead of a drivable tool against the same tool hand-written on the bare low-level Server.

Same tool both ways (`add_item`: sku, qty, optional note; returns {"qty": qty} as structuredContent
with its JSON text mirror; strict validation through a pydantic model), the same `mcp.Client` in
process, `mode="auto"` (2026-07-28, direct dispatch) and `mode="legacy"` (JSON-RPC over memory
streams). Calls alternate between the servers in rounds so drift hits both alike. Target: drivable
at most 1.3x the bare server's median.

FastMCP 4 is measured for the same tool when `fastmcp` imports here, or in the interpreter named by
DRIVABLE_BENCH_FASTMCP_PYTHON (a throwaway venv: FastMCP patches `mcp_types` on import, so it never
shares a process with the others); otherwise it is reported as not measured, with the reason.

    python3 -m venv /tmp/fastmcp-venv
    /tmp/fastmcp-venv/bin/pip install fastmcp==4.1.6 mcp==2.3.0
    DRIVABLE_BENCH_FASTMCP_PYTHON=/tmp/fastmcp-venv/bin/python python -m benchmarks.bench_runtime

`python -m benchmarks` runs it; `python -m benchmarks.bench_runtime [calls]` alone. The FastMCP
figures come from another process (its own bare Server is measured there too, for comparison).
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import anyio

TARGET_RATIO = 1.3
WARMUP = 200
CALLS = 2000
ROUNDS = 10
ARGS = {"sku": "AB-12", "qty": 2, "note": "gift"}


def drivable_server() -> Any:
    from pydantic import BaseModel, ConfigDict, Field

    from drivable.contract import READ_ONLY, Call, Contract, Summary
    from drivable.kinds import KindModel
    from drivable.serve import build_server

    contract = Contract(
        "bench",
        version="1",
        summary=Summary("Benchmark server.", does=["add items"], does_not=["anything else"]),
    )

    class AddIn(KindModel):
        sku: str = Field(min_length=1, max_length=40, description="The item's SKU.")
        qty: int = Field(ge=1, le=1000, description="How many.")
        note: str | None = Field(None, max_length=200, description="A note.")

    class AddOut(BaseModel):
        model_config = ConfigDict(extra="forbid")
        qty: int

    @contract.tool(
        name="add_item",
        title="Add an item",
        description='Adds qty of an item and returns the quantity. Example: {"sku": "<sku>", "qty": "<how many>"}.',
        effects=READ_ONLY,
    )
    async def add_item(args: AddIn, call: Call) -> AddOut:
        return AddOut(qty=args.qty)

    return build_server(contract)


BARE_SOURCE = """
def bare_server():
    import json
    import mcp_types as types
    from mcp.server.lowlevel import Server
    from pydantic import BaseModel, ConfigDict, Field, ValidationError

    class AddIn(BaseModel):
        model_config = ConfigDict(extra="forbid")
        sku: str = Field(min_length=1, max_length=40)
        qty: int = Field(ge=1, le=1000)
        note: str | None = Field(None, max_length=200)

    tool = types.Tool(
        name="add_item",
        description="Adds qty of an item and returns the quantity.",
        input_schema=AddIn.model_json_schema(),
        output_schema={"type": "object", "properties": {"qty": {"type": "integer"}},
                       "required": ["qty"], "additionalProperties": False},
    )

    async def list_tools(ctx, params):
        return types.ListToolsResult(tools=[tool])

    def result(payload, error):
        text = json.dumps(payload, separators=(",", ":"))
        return types.CallToolResult(content=[types.TextContent(type="text", text=text)],
                                    structured_content=payload, is_error=error)

    async def call_tool(ctx, params):
        try:
            args = AddIn.model_validate(params.arguments or {})
        except ValidationError as e:
            return result({"code": "invalid_arguments", "issues": [str(x["loc"]) for x in e.errors()]}, True)
        return result({"qty": args.qty}, False)

    return Server("bare", on_list_tools=list_tools, on_call_tool=call_tool)
"""


def bare_server() -> Any:
    namespace: dict[str, Any] = {}
    exec(BARE_SOURCE, namespace)
    return namespace["bare_server"]()


FASTMCP_SCRIPT = (
    BARE_SOURCE
    + '''

def fastmcp_server():
    from fastmcp import FastMCP
    from pydantic import BaseModel

    class AddOut(BaseModel):
        qty: int

    srv = FastMCP("fast")

    @srv.tool
    async def add_item(sku: str, qty: int, note: str | None = None) -> AddOut:
        """Adds qty of an item and returns the quantity."""
        return AddOut(qty=qty)

    return srv._mcp_server


async def measure(servers, mode, warmup, calls, rounds):
    import time
    from contextlib import AsyncExitStack
    from mcp import Client
    samples = {name: [] for name in servers}
    async with AsyncExitStack() as stack:
        clients = {}
        for name, server in servers.items():
            clients[name] = await stack.enter_async_context(Client(server, mode=mode, cache=None))
        for name, client in clients.items():
            for _ in range(warmup):
                await client.call_tool("add_item", ARGS)
        per_round = max(1, calls // rounds)
        for _ in range(rounds):
            for name, client in clients.items():
                for _ in range(per_round):
                    t0 = time.perf_counter_ns()
                    r = await client.call_tool("add_item", ARGS)
                    samples[name].append(time.perf_counter_ns() - t0)
                    assert not r.is_error
    return samples


def main():
    import json, statistics, sys
    import anyio
    calls = int(sys.argv[1])
    out = {}
    for mode in ("auto", "legacy"):
        servers = {"bare": bare_server(), "fastmcp": fastmcp_server()}
        samples = anyio.run(measure, servers, mode, 200, calls, 10)
        out[mode] = {k: statistics.median(v) / 1000 for k, v in samples.items()}
    import fastmcp
    out["version"] = fastmcp.__version__
    print(json.dumps(out))

ARGS = {"sku": "AB-12", "qty": 2, "note": "gift"}
main()
'''
)


async def measure(
    servers: dict[str, Any], mode: str, warmup: int, calls: int, rounds: int
) -> dict[str, list[int]]:
    """Per-call wall time (ns) of each server through its own connected `mcp.Client`."""
    from contextlib import AsyncExitStack

    from mcp import Client

    samples: dict[str, list[int]] = {name: [] for name in servers}
    async with AsyncExitStack() as stack:
        clients: dict[str, Any] = {}
        for name, server in servers.items():
            client = Client(server, mode=mode, cache=None)
            clients[name] = await stack.enter_async_context(client)
        for client in clients.values():
            for _ in range(warmup):
                await client.call_tool("add_item", ARGS)
        per_round = max(1, calls // rounds)
        for _ in range(rounds):
            for name, client in clients.items():
                call: Callable[[str, dict[str, Any]], Awaitable[Any]] = client.call_tool
                for _ in range(per_round):
                    start = time.perf_counter_ns()
                    result = await call("add_item", ARGS)
                    samples[name].append(time.perf_counter_ns() - start)
                    if result.is_error:
                        raise RuntimeError(f"{name}: add_item failed: {result.structured_content}")
    return samples


def fastmcp_python() -> tuple[str | None, str]:
    """The interpreter to measure FastMCP with, or None and why not."""
    named = os.environ.get("DRIVABLE_BENCH_FASTMCP_PYTHON")
    if named:
        if Path(named).exists():
            return named, ""
        return None, f"DRIVABLE_BENCH_FASTMCP_PYTHON={named} does not exist"
    probe = subprocess.run(
        [sys.executable, "-c", "import fastmcp"], capture_output=True, timeout=120, check=False
    )
    if probe.returncode == 0:
        return sys.executable, ""
    return None, (
        "fastmcp is not installed here (it stays out of the project's environment: it patches "
        "mcp_types on import); set DRIVABLE_BENCH_FASTMCP_PYTHON to a venv's python that has "
        "fastmcp and mcp 2.3 to measure it"
    )


def measure_fastmcp(calls: int) -> tuple[dict[str, Any] | None, str]:
    python, why = fastmcp_python()
    if python is None:
        return None, why
    done = subprocess.run(
        [python, "-c", FASTMCP_SCRIPT, str(calls)],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or ["no output"])[-1]
        return None, f"the FastMCP run failed: {last}"
    measured: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return measured, ""


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    calls = int(args[0]) if args else CALLS
    medians: dict[str, dict[str, float]] = {}
    status = 0
    print(
        f"per-call median, µs ({calls} calls after {WARMUP} warm-up, {ROUNDS} alternating rounds)"
    )
    for mode in ("auto", "legacy"):
        servers = {"bare": bare_server(), "drivable": drivable_server()}
        samples = anyio.run(measure, servers, mode, WARMUP, calls, ROUNDS)
        medians[mode] = {name: statistics.median(v) / 1000 for name, v in samples.items()}
        bare, ours = medians[mode]["bare"], medians[mode]["drivable"]
        ratio = ours / bare
        verdict = "ok" if ratio <= TARGET_RATIO else f"OVER the {TARGET_RATIO}x target"
        if ratio > TARGET_RATIO:
            status = 1
        print(
            f"  {mode:6}  bare Server {bare:7.1f}   drivable {ours:7.1f}   "
            f"ratio {ratio:.2f}x  ({verdict})"
        )
    fast, why = measure_fastmcp(calls)
    if fast is None:
        print(f"  FastMCP 4: not measured: {why}")
    else:
        for mode in ("auto", "legacy"):
            row = fast[mode]
            ours = medians[mode]["drivable"]
            print(
                f"  {mode:6}  FastMCP {fast['version']} {row['fastmcp']:7.1f} (its process's bare "
                f"Server {row['bare']:7.1f}, {row['fastmcp'] / row['bare']:.2f}x)   "
                f"FastMCP/drivable {row['fastmcp'] / ours:.2f}x"
            )
    return status


if __name__ == "__main__":
    sys.exit(main())
