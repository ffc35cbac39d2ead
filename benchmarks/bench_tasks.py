"""What a task costs next to blocking, on SQLite and PostgreSQL, over real HTTP in one run.

One uvicorn worker per store serves a tool that does a fixed 200 ms of work (`run_work`). The
same call runs two ways, interleaved in rounds so that drift hits both alike:

- blocking: tools/call without the tasks extension (the call waits for the work);
- task:     tools/call with the extension (a handle), then tasks/get every 20 ms until the task
            is completed and its result inlined (create + polls + result).

Then the polls per second one worker sustains: 4 client threads sending tasks/get on a finished
task for 3 s, against the same threads calling a trivial tool (the baseline of one request), and
how long a cancel takes to show (tasks/cancel to a tasks/get answering `cancelled`). Prints medians, the ratio task/blocking, the polls per round trip and polls/s.
PostgreSQL comes from DRIVABLE_PG_DSN or ``scripts/ensure-postgres.sh`` (skipped, said so, when
neither works).

    python -m benchmarks.bench_tasks [--rounds 12]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from pathlib import Path
from typing import Any
from urllib.parse import quote

import httpx2
from pydantic import Field

from drivable.contract import READ_ONLY, Call, Contract, Output, Summary
from drivable.effects import open_store
from drivable.kinds import KindModel
from drivable.tasks import LongRunning

ROOT = Path(__file__).resolve().parents[1]
WORK_S = 0.2
POLL_S = 0.02
EXTENSION = "io.modelcontextprotocol/tasks"


class WorkInput(KindModel):
    seconds: float = Field(WORK_S, ge=0, le=10, description="How long the work takes.")


class Worked(Output):
    steps: int


def make_contract() -> Contract:
    """The benchmark's server (`drivable serve benchmarks.bench_tasks:make_contract --http`)."""
    contract = Contract(
        "drivable-bench-tasks",
        version="1.0.0",
        summary=Summary(text="One long-running tool.", does=["work briefly"], does_not=["more"]),
    )

    @contract.tool(
        name="run_work",
        title="Work briefly",
        description="Works for `seconds` seconds in ten steps, reporting each. "
        'Example: {"seconds": 0.2}.',
        effects=READ_ONLY,
        task=LongRunning(duration="seconds", timeout_s=30, keep_s=600),
    )
    async def run_work(args: WorkInput, call: Call) -> Worked:
        for step in range(10):
            await asyncio.sleep(args.seconds / 10)
            await call.report_progress(step + 1, 10)
        return Worked(steps=10)

    @contract.tool(
        name="echo_steps",
        title="Echo steps",
        description="Answers at once (the baseline of one trivial call). Example: {}.",
        effects=READ_ONLY,
    )
    async def echo_steps(args: WorkInput, call: Call) -> Worked:
        return Worked(steps=0)

    contract.use_effects(open_store(os.environ["BENCH_TASKS_STORE"]), b"bench-tasks-secret-0123456")
    return contract


# -- the client side ---------------------------------------------------------------------------


def rpc(
    client: httpx2.Client, url: str, method: str, params: dict[str, Any], *, tasks: bool
) -> Any:
    body = dict(params)
    body["_meta"] = {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {"extensions": {EXTENSION: {}}}
        if tasks
        else {},
    }
    headers = {
        "Accept": "application/json, text/event-stream",
        "MCP-Protocol-Version": "2026-07-28",
        "Mcp-Method": method,
        "Mcp-Name": str(body.get("taskId") or body.get("name") or ""),
    }
    answer = client.post(
        url, json={"jsonrpc": "2.0", "id": 1, "method": method, "params": body}, headers=headers
    )
    text = answer.text
    if answer.headers.get("content-type", "").startswith("text/event-stream"):
        text = next(line[5:] for line in text.splitlines() if line.startswith("data:"))
    import json

    message = json.loads(text)
    if "error" in message:
        raise RuntimeError(message["error"].get("message"))
    return message["result"]


def blocking(client: httpx2.Client, url: str) -> float:
    start = time.perf_counter()
    result = rpc(client, url, "tools/call", {"name": "run_work", "arguments": {}}, tasks=False)
    assert result["structuredContent"]["steps"] == 10
    return time.perf_counter() - start


def task_round_trip(client: httpx2.Client, url: str) -> tuple[float, int]:
    start = time.perf_counter()
    created = rpc(client, url, "tools/call", {"name": "run_work", "arguments": {}}, tasks=True)
    polls = 0
    while True:
        time.sleep(POLL_S)
        task = rpc(client, url, "tasks/get", {"taskId": created["taskId"]}, tasks=True)
        polls += 1
        if task["status"] == "completed":
            assert task["result"]["structuredContent"]["steps"] == 10
            return time.perf_counter() - start, polls


def cancel_latency(client: httpx2.Client, url: str) -> float:
    """From the tasks/cancel request to a tasks/get that shows `cancelled`."""
    created = rpc(
        client, url, "tools/call", {"name": "run_work", "arguments": {"seconds": 10}}, tasks=True
    )
    time.sleep(0.05)
    start = time.perf_counter()
    rpc(client, url, "tasks/cancel", {"taskId": created["taskId"]}, tasks=True)
    while (
        rpc(client, url, "tasks/get", {"taskId": created["taskId"]}, tasks=True)["status"]
        != "cancelled"
    ):
        time.sleep(0.005)
    return time.perf_counter() - start


def per_second(
    url: str, method: str, params: dict[str, Any], threads: int = 4, seconds: float = 3.0
) -> float:
    counts = [0] * threads
    stop = time.perf_counter() + seconds

    def hammer(i: int) -> None:
        with httpx2.Client(timeout=30) as client:
            while time.perf_counter() < stop:
                rpc(client, url, method, params, tasks=True)
                counts[i] += 1

    workers = [threading.Thread(target=hammer, args=(i,)) for i in range(threads)]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    return sum(counts) / seconds


# -- servers -----------------------------------------------------------------------------------


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def serve(store: str) -> tuple[subprocess.Popen[bytes], str]:
    port = free_port()
    env = dict(os.environ, BENCH_TASKS_STORE=store, PYTHONPATH=str(ROOT))
    process = subprocess.Popen(
        [sys.executable, "-c", "from drivable.serve.command import main; main()",
         "benchmarks.bench_tasks:make_contract", "--http", "--port", str(port)],
        cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return process, f"http://127.0.0.1:{port}/mcp"
        except OSError:
            time.sleep(0.1)
    process.kill()
    raise RuntimeError("the benchmark server did not start")


def postgres_store() -> tuple[str, str] | None:
    """A fresh schema on the shared PostgreSQL: (dsn with its search_path, schema name)."""
    dsn = os.environ.get("DRIVABLE_PG_DSN")
    if not dsn:
        proc = subprocess.run(
            ["bash", str(ROOT / "scripts" / "ensure-postgres.sh")],
            capture_output=True, text=True, check=False,
        )  # fmt: skip
        if proc.returncode != 0:
            print("   postgresql: skipped (scripts/ensure-postgres.sh failed)")
            return None
        dsn = proc.stdout.strip().splitlines()[-1]
    import psycopg

    name = f"bench_tasks_{uuid.uuid4().hex[:10]}"
    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute(f"CREATE SCHEMA {name}")
    sep = "&" if "?" in dsn else "?"
    return f"{dsn}{sep}options={quote(f'-csearch_path={name}')}", name


def drop_schema(dsn: str, name: str) -> None:
    import psycopg

    base = dsn.split("options=")[0].rstrip("?&")
    with psycopg.connect(base, autocommit=True) as conn:
        conn.execute(f"DROP SCHEMA {name} CASCADE")


def measure(label: str, store: str, rounds: int) -> None:
    process, url = serve(store)
    try:
        with httpx2.Client(timeout=30) as client:
            blocking(client, url)  # warm: schema, imports, first connection
            task_round_trip(client, url)
            plain: list[float] = []
            tasked: list[float] = []
            polls: list[int] = []
            for _ in range(rounds):
                plain.append(blocking(client, url))
                took, count = task_round_trip(client, url)
                tasked.append(took)
                polls.append(count)
            cancels = [cancel_latency(client, url) for _ in range(5)]
            done = rpc(
                client,
                url,
                "tools/call",
                {"name": "run_work", "arguments": {"seconds": 0}},
                tasks=True,
            )
            while (
                rpc(client, url, "tasks/get", {"taskId": done["taskId"]}, tasks=True)["status"]
                != "completed"
            ):
                time.sleep(0.01)
        rate = per_second(url, "tasks/get", {"taskId": done["taskId"]})
        trivial = per_second(url, "tools/call", {"name": "echo_steps", "arguments": {}})
    finally:
        process.terminate()
        process.wait(timeout=15)
    b, t = statistics.median(plain), statistics.median(tasked)
    print(
        f"   {label:<10} blocking {b * 1000:7.1f} ms   task round trip {t * 1000:7.1f} ms "
        f"({statistics.median(polls):.0f} polls every {POLL_S * 1000:.0f} ms)   "
        f"ratio task/blocking {t / b:5.2f}\n   {'':<10} polls/s one worker {rate:6.0f} "
        f"(trivial tools/call {trivial:6.0f}/s, ratio {rate / trivial:4.2f})   "
        f"cancel to cancelled {statistics.median(cancels) * 1000:5.1f} ms"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rounds", type=int, default=12)
    args = parser.parse_args(argv if argv is not None else [])
    print(f"   work {WORK_S * 1000:.0f} ms per call; {args.rounds} rounds, medians")
    with tempfile.TemporaryDirectory() as tmp:
        measure("sqlite", str(Path(tmp) / "tasks.sqlite"), args.rounds)
    pg = postgres_store()
    if pg is not None:
        dsn, name = pg
        try:
            measure("postgresql", dsn, args.rounds)
        finally:
            drop_schema(dsn, name)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
