"""A contract with a lifespan that writes down when it opens and closes (`LIFESPAN_LOG`, a file),
and fails to open when `LIFESPAN_FAIL` is set: `drivable serve lifespan_app:contract`."""

from __future__ import annotations

import json
import os
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

from drivable import READ_ONLY, Contract, Output, Summary
from drivable.contract.resources import ResourceBody


class Counter:
    """The resource: the process that opened it, and the calls it has answered."""

    def __init__(self, log: Path | None) -> None:
        self.log = log
        self.calls = 0

    def write(self, event: str) -> None:
        if self.log is not None:
            with self.log.open("a") as sink:
                sink.write(f"{event} {os.getpid()}\n")


@asynccontextmanager
async def open_counter(contract: Contract, log: Path | None = None) -> AsyncIterator[Counter]:
    if os.environ.get("LIFESPAN_FAIL"):
        raise ConnectionRefusedError("the counter's database refused the connection")
    named = os.environ.get("LIFESPAN_LOG")
    counter = Counter(log or (Path(named) if named else None))
    counter.write("open")
    try:
        yield counter
    finally:
        counter.write("close")


contract = Contract(
    "counter",
    version="1.0.0",
    summary=Summary(
        "Counts the calls one server process answered.",
        does=["count calls"],
        does_not=["change anything"],
    ),
    lifespan=open_counter,
)


class Counted(Output):
    calls: int
    pid: int


@contract.tool(effects=READ_ONLY)
async def count_call(counter: Counter) -> Counted:
    """Count this call and answer how many calls the server process answered. Use it to see that
    every call meets the same resource. Example: {}."""
    counter.calls += 1
    return Counted(calls=counter.calls, pid=os.getpid())


@contract.resource("counter://calls", name="calls", title="Calls", description="The calls so far.")
async def calls(counter: Counter) -> ResourceBody:
    return ResourceBody(json.dumps({"calls": counter.calls}))
