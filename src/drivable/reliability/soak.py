"""The soak: memory per 1,000 calls after warm-up, in every way a client speaks to a server.

One leg is one way of calling a served contract (caselaw by default) for `warmup + calls` calls,
while the resident memory of the server's process tree is sampled against the count of calls
answered; the growth is the least-squares slope of memory over calls after the warm-up, in MB
per 1,000 calls. The ways:

- `sdk-legacy` / `sdk-auto`: the official SDK client in legacy mode (the 2025-11-25 handshake)
  and in auto mode (2026-07-28), each client reconnecting every `RECONNECT_EVERY` calls;
- `raw-2025-11-25` / `raw-2026-07-28`: raw JSON-RPC requests (HTTP posts, or stdio lines), the
  2026-07-28 ones with the `_meta` envelope and routing headers;
- `listen`: a 2026-07-28 `subscriptions/listen` stream opened, acknowledged, and dropped by the
  client (the long-lived stream a client abandons);
- `task`: a long-running tool started as a task, followed on a listen stream to its end.

Over HTTP with 1 and 2 workers (every leg), and stdio (the request legs: a stdio server has one
connection for its life). Loopback only; every process is stopped in a `finally`.
"""

from __future__ import annotations

import itertools
import json
import os
import sys
import time
from collections.abc import Callable, Coroutine
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio
import httpx2

from drivable import settings
from drivable.reliability.processes import process_tree, rss_bytes, serve, stop
from drivable.target import Target, connect

HANDSHAKE, MODERN = "2025-11-25", "2026-07-28"
RECONNECT_EVERY = 200  # an SDK client's calls before it reconnects (initialize again, legacy)
SAMPLE_EVERY_S = 0.25
FLAT_MB_PER_1000 = 1.0  # what "memory stays flat" means: less growth than this
REQUEST_LEGS = ("sdk-legacy", "sdk-auto", "raw-2025-11-25", "raw-2026-07-28")
STREAM_LEGS = ("listen", "task")
CALLS: tuple[tuple[str, dict[str, Any]], ...] = (
    ("list_courts", {}),
    ("search_decisions", {"query": "náhrada škody", "limit": 3}),
)
TASK = ("summarize_decisions", {"query": "náhrada škody", "date_from": "2024"})
TASKS_EXTENSION = "io.modelcontextprotocol/tasks"
TASK_WARMUP_FACTOR = 4


@dataclass(frozen=True)
class SoakLeg:
    transport: str  # http | stdio
    workers: int
    client: str  # one of REQUEST_LEGS + STREAM_LEGS

    def label(self) -> str:
        where = f"HTTP, {self.workers} worker{'s' if self.workers > 1 else ''}"
        return f"{self.client}, {where if self.transport == 'http' else 'stdio'}"


def legs(transports: tuple[str, ...] = ("http", "stdio")) -> list[SoakLeg]:
    """Every leg: each way of calling over HTTP on 1 and 2 workers, the request legs over stdio."""
    out: list[SoakLeg] = []
    if "http" in transports:
        out += [SoakLeg("http", w, c) for w in (1, 2) for c in (*REQUEST_LEGS, *STREAM_LEGS)]
    if "stdio" in transports:
        out += [SoakLeg("stdio", 1, c) for c in REQUEST_LEGS]
    return out


@dataclass
class SoakResult:
    leg: SoakLeg
    warmup: int
    calls: int = 0
    failures: int = 0
    seconds: float = 0.0
    samples: list[tuple[int, int]] = field(default_factory=list)  # (calls answered, RSS bytes)
    error: str = ""

    def growth_mb_per_1000(self) -> float:
        """The least-squares slope of memory over calls answered after the warm-up."""
        points = [(c, m) for c, m in self.samples if c >= self.warmup]
        if len(points) < 3:
            return float("nan")
        n = len(points)
        mean_c = sum(c for c, _ in points) / n
        mean_m = sum(m for _, m in points) / n
        spread = sum((c - mean_c) ** 2 for c, _ in points)
        if spread == 0:
            return float("nan")
        slope = sum((c - mean_c) * (m - mean_m) for c, m in points) / spread
        return slope * 1000 / 2**20

    def to_dict(self) -> dict[str, Any]:
        growth = self.growth_mb_per_1000()
        warm = [m for c, m in self.samples if c >= self.warmup]
        return {
            "leg": self.leg.label(),
            "transport": self.leg.transport,
            "workers": self.leg.workers,
            "client": self.leg.client,
            "warmup": self.warmup,
            "calls": self.calls,
            "failures": self.failures,
            "seconds": round(self.seconds, 1),
            "memory_after_warmup_mb": round(warm[0] / 2**20, 1) if warm else None,
            "memory_end_mb": round(warm[-1] / 2**20, 1) if warm else None,
            "growth_mb_per_1000": round(growth, 3) if growth == growth else None,
            "flat": growth == growth and growth < FLAT_MB_PER_1000 and not self.error,
            "error": self.error,
        }


class _Counter:
    def __init__(self, total: int) -> None:
        self.total = total
        self.started = 0
        self.done = 0
        self.failures = 0

    def take(self) -> bool:
        if self.started >= self.total:
            return False
        self.started += 1
        return True


_ids = itertools.count(1)


def _meta(tasks: bool = False) -> dict[str, Any]:
    capabilities: dict[str, Any] = {"extensions": {TASKS_EXTENSION: {}}} if tasks else {}
    return {
        "io.modelcontextprotocol/protocolVersion": MODERN,
        "io.modelcontextprotocol/clientCapabilities": capabilities,
        "io.modelcontextprotocol/clientInfo": {"name": "drivable-soak", "version": "1"},
    }


def raw_request(
    method: str, params: dict[str, Any], era: str, *, tasks: bool = False
) -> tuple[bytes, dict[str, str]]:
    """A raw JSON-RPC request's body and HTTP headers in `era` (2026-07-28: `_meta`, routing)."""
    headers = {
        "accept": "application/json, text/event-stream",
        "content-type": "application/json",
        "mcp-protocol-version": era,
    }
    if era == MODERN:
        params = {**params, "_meta": _meta(tasks)}
        headers["mcp-method"] = method
        name = params.get("taskId") if method.startswith("tasks/") else params.get("name")
        if isinstance(name, str):
            headers["mcp-name"] = name
    body = {"jsonrpc": "2.0", "id": next(_ids), "method": method, "params": params}
    return json.dumps(body, ensure_ascii=False).encode(), headers


def _answered(text: str) -> dict[str, Any] | None:
    """The JSON-RPC answer in a response body (plain JSON or the last data line of a stream)."""
    for line in reversed(text.splitlines()):
        if line.startswith("data:"):
            line = line[5:]
        line = line.strip()
        if line.startswith("{"):
            try:
                message = json.loads(line)
            except ValueError:
                continue
            if isinstance(message, dict) and ("result" in message or "error" in message):
                return message
    return None


async def _http_raw(url: str, era: str, counter: _Counter) -> None:
    async with httpx2.AsyncClient(timeout=60) as http:
        sequence = 0
        while counter.take():
            tool, args = CALLS[sequence % len(CALLS)]
            sequence += 1
            body, headers = raw_request("tools/call", {"name": tool, "arguments": args}, era)
            response = await http.post(url, content=body, headers=headers)
            message = _answered(response.text)
            ok = response.status_code == 200 and message is not None and "result" in message
            counter.failures += not ok
            counter.done += 1


async def _sdk(target: Target, counter: _Counter) -> None:
    sequence = 0
    while counter.started < counter.total:
        async with connect(target, read_timeout_seconds=60) as client:
            for _ in range(RECONNECT_EVERY):
                if not counter.take():
                    return
                tool, args = CALLS[sequence % len(CALLS)]
                sequence += 1
                result = await client.call_tool(tool, args)
                counter.failures += bool(result.is_error)
                counter.done += 1


async def _listen(url: str, counter: _Counter) -> None:
    """Open a listen stream, read its acknowledgement, drop it (the client goes away)."""
    async with httpx2.AsyncClient(timeout=60) as http:
        while counter.take():
            body, headers = raw_request(
                "subscriptions/listen", {"notifications": {"toolsListChanged": True}}, MODERN
            )
            acknowledged = False
            async with http.stream("POST", url, content=body, headers=headers) as response:
                async for line in response.aiter_lines():
                    if "notifications/subscriptions/acknowledged" in line:
                        acknowledged = True
                        break
            counter.failures += not acknowledged
            counter.done += 1


async def _task(url: str, counter: _Counter) -> None:
    """Start a task, follow it on a listen stream to its end."""
    async with httpx2.AsyncClient(timeout=120) as http:
        while counter.take():
            name, args = TASK
            body, headers = raw_request(
                "tools/call", {"name": name, "arguments": args}, MODERN, tasks=True
            )
            created = _answered((await http.post(url, content=body, headers=headers)).text)
            result = (created or {}).get("result") or {}
            task_id = result.get("taskId")
            finished = result.get("resultType") == "complete"
            if isinstance(task_id, str):
                body, headers = raw_request(
                    "subscriptions/listen",
                    {"notifications": {"taskIds": [task_id]}},
                    MODERN,
                    tasks=True,
                )
                async with http.stream("POST", url, content=body, headers=headers) as response:
                    async for line in response.aiter_lines():
                        if '"completed"' in line or '"failed"' in line or '"result"' in line:
                            finished = finished or '"completed"' in line
                            if '"result"' in line and '"subscriptionId"' in line:
                                break
            counter.failures += not finished
            counter.done += 1


class _StdioRaw:
    """A stdio server spoken to in raw lines (one request at a time, answers matched by id)."""

    def __init__(self, process: Any) -> None:
        self.process = process
        self.buffer = b""

    async def ask(self, message: dict[str, Any]) -> dict[str, Any]:
        await self.process.stdin.send(json.dumps(message, ensure_ascii=False).encode() + b"\n")
        while True:
            while b"\n" not in self.buffer:
                chunk = await self.process.stdout.receive()
                if not chunk:
                    raise ConnectionError("the stdio server closed its output")
                self.buffer += chunk
            line, _, self.buffer = self.buffer.partition(b"\n")
            answer = json.loads(line)
            if answer.get("id") == message["id"]:
                return dict(answer)

    async def tell(self, message: dict[str, Any]) -> None:
        await self.process.stdin.send(json.dumps(message).encode() + b"\n")


async def _stdio_raw(process: Any, era: str, counter: _Counter) -> None:
    speaker = _StdioRaw(process)
    if era == HANDSHAKE:
        await speaker.ask(
            {"jsonrpc": "2.0", "id": next(_ids), "method": "initialize", "params": {
                "protocolVersion": HANDSHAKE, "capabilities": {},
                "clientInfo": {"name": "drivable-soak", "version": "1"}}}
        )  # fmt: skip
        await speaker.tell({"jsonrpc": "2.0", "method": "notifications/initialized"})
    sequence = 0
    while counter.take():
        tool, args = CALLS[sequence % len(CALLS)]
        sequence += 1
        params: dict[str, Any] = {"name": tool, "arguments": args}
        if era == MODERN:
            params["_meta"] = _meta()
        answer = await speaker.ask(
            {"jsonrpc": "2.0", "id": next(_ids), "method": "tools/call", "params": params}
        )
        counter.failures += "result" not in answer or bool(answer["result"].get("isError"))
        counter.done += 1


def _stdio_command(target: str) -> list[str]:
    return [sys.executable, "-m", "drivable", "serve", target]


def _stdio_pid(marker: str) -> int | None:
    """The pid of the stdio server this process started (found by its command line)."""
    for pid in process_tree(os.getpid())[1:]:
        try:
            line = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
        except OSError:
            continue
        if marker in line and "drivable serve" in line.replace("-m drivable", "drivable"):
            return pid
    return None


async def soak_leg(
    leg: SoakLeg,
    work: Path,
    *,
    warmup: int,
    calls: int,
    clients: int = 8,
    target: str = "caselaw",
) -> SoakResult:
    """Run one leg: `warmup + calls` calls in all over `clients` concurrent callers (stdio: one)."""
    result = SoakResult(leg, warmup)
    counter = _Counter(warmup + calls)
    store = f"sqlite:///{work / f'soak-{leg.transport}-{leg.workers}-{leg.client}.sqlite'}"
    env = {"DRIVABLE_STORE": store}
    started = time.monotonic()
    memory: Callable[[], int]
    try:
        if leg.transport == "http":
            served = serve(target, work, workers=leg.workers, env=env)
            memory = served.rss_bytes
            try:
                callers = _http_callers(leg, served.url, clients, counter)
                await _drive(result, counter, memory, callers)
            finally:
                stop(served)
        elif leg.client.startswith("sdk"):
            command = (*_stdio_command(target), "--store", store)
            stdio = Target(
                command=command,
                env=settings.child_environment(env),
                mode=leg.client[4:],  # type: ignore[arg-type]
            )
            await _drive_stdio_sdk(result, counter, stdio, store)
        else:
            era = leg.client[4:]
            async with await anyio.open_process(
                [*_stdio_command(target), "--store", store], env=settings.child_environment(env)
            ) as process:
                pid = process.pid
                await _drive(
                    result,
                    counter,
                    lambda: rss_bytes(pid),
                    [lambda: _stdio_raw(process, era, counter)],
                )
                process.terminate()
    except Exception as exc:  # a leg that could not run says why; the others go on
        result.error = f"{type(exc).__name__}: {str(exc)[:300]}"
    result.calls, result.failures = counter.done, counter.failures
    result.seconds = time.monotonic() - started
    return result


def _http_callers(
    leg: SoakLeg, url: str, clients: int, counter: _Counter
) -> list[Callable[[], Coroutine[Any, Any, None]]]:
    def caller() -> Coroutine[Any, Any, None]:
        if leg.client.startswith("sdk"):
            return _sdk(Target(url=url, mode=leg.client[4:]), counter)  # type: ignore[arg-type]
        if leg.client.startswith("raw"):
            return _http_raw(url, leg.client[4:], counter)
        if leg.client == "listen":
            return _listen(url, counter)
        return _task(url, counter)

    return [caller] * clients


async def _drive(
    result: SoakResult,
    counter: _Counter,
    memory: Callable[[], int],
    callers: list[Callable[[], Coroutine[Any, Any, None]]],
) -> None:
    async def sample() -> None:
        while True:
            result.samples.append((counter.done, memory()))
            await anyio.sleep(SAMPLE_EVERY_S)

    async with anyio.create_task_group() as group:
        group.start_soon(sample)
        async with anyio.create_task_group() as callers_group:
            for caller in callers:
                callers_group.start_soon(caller)
        result.samples.append((counter.done, memory()))
        group.cancel_scope.cancel()


async def _drive_stdio_sdk(
    result: SoakResult, counter: _Counter, stdio: Target, store: str
) -> None:
    async with connect(stdio, read_timeout_seconds=60) as client:
        pid = _stdio_pid(store)
        if pid is None:
            raise RuntimeError("the stdio server's process was not found")

        async def calls() -> None:
            sequence = 0
            while counter.take():
                tool, args = CALLS[sequence % len(CALLS)]
                sequence += 1
                answer = await client.call_tool(tool, args)
                counter.failures += bool(answer.is_error)
                counter.done += 1

        await _drive(result, counter, lambda: rss_bytes(pid), [calls])


async def soak(
    work: Path,
    *,
    warmup: int,
    calls: int,
    chosen: list[SoakLeg] | None = None,
    say: Callable[[str], None] = lambda _: None,
) -> list[dict[str, Any]]:
    """Every leg (`legs()`) in turn; the rows of each."""
    rows = []
    for leg in chosen if chosen is not None else legs():
        # Each task adds rows the store's page caches take in until they are full: the task
        # legs warm up longer (measured: 2.2, 1.1, 0.35 MB per 1,000 over 2,400 tasks).
        warm = warmup * TASK_WARMUP_FACTOR if leg.client == "task" else warmup
        say(f"soak {leg.label()}: {warm} + {calls} calls")
        rows.append((await soak_leg(leg, work, warmup=warm, calls=calls)).to_dict())
    return rows
