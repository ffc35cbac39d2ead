"""HTTP throughput and latency of a trivial tool: drivable against the bare SDK server and FastMCP.

The same tool every way (`add_item`: sku, qty, optional note; returns {"qty": qty}), each server
stateless over streamable HTTP, served by uvicorn (one worker, h11, loopback) in a process of its
own: drivable (`drivable.serve.http.run_http`, every layer and bound on), the SDK's low-level
`Server` (`bare`), the SDK's FastMCP-style `MCPServer` (`mcpserver`), and FastMCP 4 (`fastmcp`)
when an interpreter that has it is found (as in bench_runtime: here, or
DRIVABLE_BENCH_FASTMCP_PYTHON; FastMCP patches mcp_types on import, so it runs in its own venv).

The load is raw HTTP/1.1 on keep-alive connections from this process (one connection a client,
requests prebuilt, answers read to their end), so the servers, not the client, are the limit:
1, 16 and 64 clients, in both eras (2026-07-28 with its `_meta` envelope and routing headers, and
a stateless 2025-11-25 call), rounds alternating between the servers so drift hits all alike.
Targets: drivable >= 0.8x the bare server's calls/s and >= 1.2x FastMCP's at 16 and 64 clients.

`python -m benchmarks.bench_http [seconds-per-round]`.
"""

from __future__ import annotations

import asyncio
import json
import os
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
CLIENTS = (1, 16, 64)
ROUNDS = 3
SECONDS = 3.0
WARMUP_S = 1.5
ANSWER_TIMEOUT_S = 20.0  # a server that stops answering fails the run instead of hanging it
TARGET_BARE = 0.8
TARGET_FASTMCP = 1.2
ARGS = {"sku": "AB-12", "qty": 2, "note": "gift"}
META = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientCapabilities": {},
    "io.modelcontextprotocol/clientInfo": {"name": "bench", "version": "1"},
}

SERVER_SCRIPT = r'''
import sys
kind, port = sys.argv[1], int(sys.argv[2])
sys.path.insert(0, sys.argv[3])

def drivable_contract():
    from pydantic import BaseModel, ConfigDict, Field
    from drivable.contract import READ_ONLY, Call, Contract, Summary
    from drivable.kinds import KindModel

    contract = Contract("bench", version="1",
                        summary=Summary("Benchmark server.", does=["add items"], does_not=["anything else"]))

    class AddIn(KindModel):
        sku: str = Field(min_length=1, max_length=40, description="The item's SKU.")
        qty: int = Field(ge=1, le=1000, description="How many.")
        note: str | None = Field(None, max_length=200, description="A note.")

    class AddOut(BaseModel):
        model_config = ConfigDict(extra="forbid")
        qty: int

    @contract.tool(name="add_item", title="Add an item", effects=READ_ONLY,
                   description='Adds qty of an item and returns the quantity. Example: {"sku": "AB-12", "qty": 2}.')
    async def add_item(args: AddIn, call: Call) -> AddOut:
        return AddOut(qty=args.qty)

    return contract

def serve(app):
    import uvicorn
    uvicorn.run(app, host="127.0.0.1", port=port, log_level="warning", lifespan="on")

if kind == "drivable":
    from drivable.serve.http import run_http
    run_http(drivable_contract(), port=port)
elif kind == "bare":
    from benchmarks.bench_runtime import bare_server
    serve(bare_server().streamable_http_app(stateless_http=True, host="127.0.0.1"))
elif kind == "mcpserver":
    from pydantic import BaseModel
    from mcp.server.mcpserver import MCPServer
    class AddOut(BaseModel):
        qty: int
    srv = MCPServer("fast")
    @srv.tool()
    async def add_item(sku: str, qty: int, note: str | None = None) -> AddOut:
        """Adds qty of an item and returns the quantity."""
        return AddOut(qty=qty)
    serve(srv.streamable_http_app(stateless_http=True, host="127.0.0.1"))
elif kind == "fastmcp":
    from fastmcp import FastMCP
    from pydantic import BaseModel
    class AddOut(BaseModel):
        qty: int
    srv = FastMCP("fast")
    @srv.tool
    async def add_item(sku: str, qty: int, note: str | None = None) -> AddOut:
        """Adds qty of an item and returns the quantity."""
        return AddOut(qty=qty)
    serve(srv.http_app(path="/mcp", stateless_http=True))
'''


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def fastmcp_python() -> str | None:
    from benchmarks.bench_runtime import fastmcp_python as found

    python, _ = found()
    return python


def start(kind: str, python: str) -> tuple[subprocess.Popen[bytes], int]:
    port = free_port()
    process = subprocess.Popen(
        [python, "-c", SERVER_SCRIPT, kind, str(port), str(ROOT)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        start_new_session=True,
    )
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"{kind} exited: {process.stderr.read().decode()[-500:]}")  # type: ignore[union-attr]
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return process, port
        except OSError:
            time.sleep(0.1)
    process.kill()
    raise RuntimeError(f"{kind} did not start listening")


def request_bytes(port: int, era: str) -> bytes:
    params: dict[str, Any] = {"name": "add_item", "arguments": ARGS}
    headers = [
        "POST /mcp HTTP/1.1",
        f"Host: 127.0.0.1:{port}",
        "Content-Type: application/json",
        "Accept: application/json, text/event-stream",
        f"MCP-Protocol-Version: {era}",
    ]
    if era == "2026-07-28":
        params["_meta"] = META
        headers += ["Mcp-Method: tools/call", "Mcp-Name: add_item"]
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params})
    headers.append(f"Content-Length: {len(body)}")
    return ("\r\n".join(headers) + "\r\n\r\n" + body).encode()


async def read_answer(reader: asyncio.StreamReader) -> bytes:
    """One HTTP/1.1 response, to its end (Content-Length or chunked)."""
    head = await reader.readuntil(b"\r\n\r\n")
    lowered = head.lower()
    if b"content-length:" in lowered:
        length = int(lowered.split(b"content-length:")[1].split(b"\r\n")[0])
        return head + await reader.readexactly(length)
    body = b""
    while True:
        size = int((await reader.readuntil(b"\r\n")).strip(), 16)
        chunk = await reader.readexactly(size + 2)
        if size == 0:
            return head + body
        body += chunk[:-2]


async def drive(
    port: int, era: str, clients: int, seconds: float, kind: str
) -> tuple[int, list[float]]:
    """Calls answered and their latencies (ms) from `clients` connections for `seconds`."""
    payload = request_bytes(port, era)
    latencies: list[float] = []
    failures = stalled = 0
    deadline = time.perf_counter() + seconds

    async def one() -> None:
        nonlocal failures, stalled
        while time.perf_counter() < deadline:
            reader, writer = await asyncio.open_connection("127.0.0.1", port)
            try:
                while time.perf_counter() < deadline:
                    started = time.perf_counter()
                    writer.write(payload)
                    answer = await asyncio.wait_for(read_answer(reader), ANSWER_TIMEOUT_S)
                    if not answer.startswith(b"HTTP/1.1 200") or b'"qty":2' not in answer:
                        failures += 1
                    latencies.append((time.perf_counter() - started) * 1000)
            except TimeoutError:
                stalled += 1  # counted, and the client goes on on a new connection
            finally:
                writer.close()

    await asyncio.gather(*(one() for _ in range(clients)))
    if failures:
        raise RuntimeError(f"{failures} calls failed")
    if stalled:
        print(f"  ({kind}: {stalled} answers over {ANSWER_TIMEOUT_S:g} s)", file=sys.stderr)
    return len(latencies), latencies


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    if not ordered:
        return float("nan")
    return ordered[min(len(ordered) - 1, max(0, round(q / 100 * len(ordered) + 0.5) - 1))]


def _ratio(ours: float, theirs: float) -> str:
    return f"{ours / theirs:.2f}x" if theirs else "n/a (no calls answered)"


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    seconds = float(args[0]) if args else SECONDS
    kinds = {"drivable": sys.executable, "bare": sys.executable, "mcpserver": sys.executable}
    fast = fastmcp_python()
    if fast is not None:
        kinds["fastmcp"] = fast
    started = {kind: start(kind, python) for kind, python in kinds.items()}
    status = 0
    try:
        results: dict[tuple[str, int, str], tuple[int, list[float]]] = {}
        for era in ("2026-07-28", "2025-11-25"):
            for clients in CLIENTS:
                for kind, (_, port) in started.items():  # warm each server at this load
                    asyncio.run(drive(port, era, clients, WARMUP_S, f"{kind}, warming up"))
                print(f"  ... {era}, {clients} clients", file=sys.stderr, flush=True)
                for _ in range(ROUNDS):
                    for kind, (_, port) in started.items():
                        calls, latencies = asyncio.run(drive(port, era, clients, seconds, kind))
                        got = results.setdefault((kind, clients, era), (0, []))
                        results[(kind, clients, era)] = (got[0] + calls, got[1] + latencies)
        span = seconds * ROUNDS
        print(
            f"calls/s and latency (ms) of add_item over HTTP, {ROUNDS} rounds of {seconds:g} s, "
            f"load average {os.getloadavg()[0]:.1f}"
        )
        for era in ("2026-07-28", "2025-11-25"):
            for clients in CLIENTS:
                row = {k: results[(k, clients, era)] for k in started}
                rate = {k: calls / span for k, (calls, _) in row.items()}
                cells = "  ".join(
                    f"{k} {rate[k]:6.0f}/s p50 {percentile(lat, 50):5.1f} "
                    f"p95 {percentile(lat, 95):5.1f}"
                    for k, (_, lat) in row.items()
                )
                ratios = [f"vs bare {_ratio(rate['drivable'], rate['bare'])}"]
                ratios.append(f"vs MCPServer {_ratio(rate['drivable'], rate['mcpserver'])}")
                if "fastmcp" in rate:
                    ratios.append(f"vs FastMCP 4 {_ratio(rate['drivable'], rate['fastmcp'])}")
                missed = clients in (16, 64) and (
                    rate["drivable"] < TARGET_BARE * rate["bare"]
                    or rate["drivable"] < TARGET_FASTMCP * rate.get("fastmcp", rate["mcpserver"])
                )
                status |= missed
                print(
                    f"  {era} {clients:2} clients: {cells}  ->  {', '.join(ratios)}"
                    + ("  (MISSED a target)" if missed else "")
                )
        if fast is None:
            print("  FastMCP 4: not measured (no interpreter with fastmcp; see bench_runtime)")
        print(f"targets at 16 and 64 clients: >= {TARGET_BARE}x bare, >= {TARGET_FASTMCP}x FastMCP")
    finally:
        for process, _ in started.values():
            process.kill()
            process.wait()
    return int(status)


if __name__ == "__main__":
    sys.exit(main())
