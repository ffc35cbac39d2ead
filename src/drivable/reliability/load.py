"""Bounded load on loopback: N concurrent SDK clients for T seconds over streamable HTTP.

Each client keeps one connection and calls in a loop until the deadline; every call is timed and
its outcome kept (ok, a tool error by code, or an exception). The served process tree's resident
memory is sampled meanwhile. A client whose connection broke reconnects (bounded), as a real
client would, and the break counts as a failed call.
"""

from __future__ import annotations

import statistics
import time
from collections import Counter
from collections.abc import Callable, Coroutine
from dataclasses import dataclass, field
from typing import Any

import anyio

from drivable.contract.envelope import envelope_of
from drivable.reliability.processes import Served
from drivable.target import Target, connect

CALL_TIMEOUT_S = 30.0
SAMPLE_EVERY_S = 0.5
# Growth of the memory median from the start of the run to its end, beyond which it is not flat.
FLAT_TOLERANCE = 0.10
FLAT_FLOOR_BYTES = 16 * 1024 * 1024

NextCall = Callable[[int, int], tuple[str, dict[str, Any]]]


@dataclass
class Event:
    """One call: when it started and ended (seconds from the start of the run) and how it went."""

    client: int
    started: float
    ended: float
    outcome: str  # ok | error | raised
    code: str = ""
    temporary: bool = False
    retry_after_ms: int | None = None
    tool: str = ""
    args: dict[str, Any] | None = None
    result: dict[str, Any] | None = None

    @property
    def latency_ms(self) -> float:
        return (self.ended - self.started) * 1000


@dataclass
class LoadReport:
    server: str
    clients: int
    workers: int
    seconds: float
    events: list[Event] = field(default_factory=list)
    memory: list[tuple[float, int]] = field(default_factory=list)
    reconnects: int = 0

    @property
    def calls(self) -> int:
        return len(self.events)

    @property
    def failures(self) -> int:
        return sum(1 for e in self.events if e.outcome != "ok")

    def failure_kinds(self) -> Counter[str]:
        return Counter(e.code or e.outcome for e in self.events if e.outcome != "ok")

    def percentile(self, q: float) -> float:
        ok = sorted(e.latency_ms for e in self.events if e.outcome == "ok")
        if not ok:
            return float("nan")
        index = min(len(ok) - 1, max(0, round(q / 100 * len(ok) + 0.5) - 1))
        return ok[index]

    def memory_ends(self) -> tuple[int, int]:
        """Median resident memory over the first and the last quarter of the run (after warm-up)."""
        if not self.memory:
            return 0, 0
        span = self.memory[-1][0] or 1.0
        warm = [m for t, m in self.memory if t >= 0.1 * span]
        if len(warm) < 4:
            warm = [m for _, m in self.memory]
        quarter = max(1, len(warm) // 4)
        return int(statistics.median(warm[:quarter])), int(statistics.median(warm[-quarter:]))

    @property
    def memory_flat(self) -> bool:
        start, end = self.memory_ends()
        return end - start <= max(FLAT_TOLERANCE * start, FLAT_FLOOR_BYTES)

    def to_dict(self) -> dict[str, Any]:
        start, end = self.memory_ends()
        return {
            "server": self.server,
            "clients": self.clients,
            "workers": self.workers,
            "seconds": round(self.seconds, 1),
            "calls": self.calls,
            "calls_per_s": round(self.calls / self.seconds, 1) if self.seconds else 0.0,
            "failures": self.failures,
            "failure_kinds": dict(self.failure_kinds()),
            "reconnects": self.reconnects,
            "p50_ms": round(self.percentile(50), 1),
            "p95_ms": round(self.percentile(95), 1),
            "p99_ms": round(self.percentile(99), 1),
            "max_ms": round(max((e.latency_ms for e in self.events), default=0.0), 1),
            "memory_start_mb": round(start / 2**20, 1),
            "memory_end_mb": round(end / 2**20, 1),
            "memory_peak_mb": round(max((m for _, m in self.memory), default=0) / 2**20, 1),
            "memory_samples": len(self.memory),
            "memory_flat": self.memory_flat,
        }


def _code_of(structured: Any) -> tuple[str, bool, int | None]:
    if isinstance(structured, dict):
        retry = structured.get("retry_after_ms")
        return (
            str(structured.get("code", "")),
            bool(structured.get("temporary")),
            int(retry) if isinstance(retry, int | float) else None,
        )
    return "", False, None


async def run_load(
    served: Served,
    *,
    server: str,
    token: str | None,
    clients: int,
    seconds: float,
    next_call: NextCall,
    during: Callable[[float], Coroutine[Any, Any, None]] | None = None,
    retry_temporary: bool = False,
    keep_results: bool = False,
    max_attempts: int = 60,
) -> LoadReport:
    """Drive the server with `clients` clients for `seconds`; `during(t0)` runs beside them (a
    fault to inject). With `retry_temporary`, a temporary error is retried with the same
    arguments after its retry_after_ms (at most `max_attempts` times), as the envelope asks."""
    report = LoadReport(server, clients, served.workers, seconds)
    target = Target(url=served.url, bearer_token=token)
    t0 = time.monotonic()
    deadline = t0 + seconds
    hard_stop = deadline + 120.0  # retries of an in-flight call end here, whatever happens

    def now() -> float:
        return time.monotonic() - t0

    async def one_client(index: int) -> None:
        sequence = 0
        while time.monotonic() < deadline and report.reconnects < 10 * clients + 100:
            try:
                async with connect(target, read_timeout_seconds=CALL_TIMEOUT_S) as client:
                    while time.monotonic() < deadline:
                        sequence += 1
                        tool, args = next_call(index, sequence)
                        attempts = 0
                        while True:
                            attempts += 1
                            started = now()
                            try:
                                with anyio.fail_after(CALL_TIMEOUT_S):
                                    result = await client.call_tool(tool, args)
                            except Exception as exc:
                                report.events.append(
                                    Event(
                                        index,
                                        started,
                                        now(),
                                        "raised",
                                        type(exc).__name__,
                                        tool=tool,
                                        args=args,
                                    )
                                )
                                raise
                            structured = (
                                envelope_of(result)
                                if result.is_error
                                else result.structured_content
                            )
                            if not result.is_error:
                                report.events.append(
                                    Event(
                                        index,
                                        started,
                                        now(),
                                        "ok",
                                        tool=tool,
                                        args=args,
                                        result=structured if keep_results else None,
                                    )
                                )
                                break
                            code, temporary, retry = _code_of(structured)
                            report.events.append(
                                Event(
                                    index,
                                    started,
                                    now(),
                                    "error",
                                    code,
                                    temporary,
                                    retry,
                                    tool,
                                    args,
                                )
                            )
                            if not (retry_temporary and temporary) or attempts >= max_attempts:
                                break
                            if time.monotonic() > hard_stop:
                                break
                            await anyio.sleep(min((retry or 500) / 1000, 5.0))
            except Exception:
                report.reconnects += 1
                await anyio.sleep(0.2)

    async def sample_memory() -> None:
        while time.monotonic() < deadline:
            report.memory.append((now(), served.rss_bytes()))
            await anyio.sleep(SAMPLE_EVERY_S)
        report.memory.append((now(), served.rss_bytes()))

    with anyio.fail_after(seconds + 240.0):
        async with anyio.create_task_group() as group:
            for index in range(clients):
                group.start_soon(one_client, index)
            group.start_soon(sample_memory)
            if during is not None:
                group.start_soon(during, t0)
    report.seconds = now()
    return report
