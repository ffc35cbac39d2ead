"""A reference server's contract started on a test's own data, for blocking tests that run their
calls on one event loop of their own (a hypothesis test calling `loop.run(...)` per example).

The lifespan is entered and left on that loop: an async generator belongs to the loop that first
ran it, and a loop that ends closes it, so `asyncio.run` per example would close it after the first.
"""

from __future__ import annotations

import copy
from collections.abc import Awaitable, Callable
from contextlib import AsyncExitStack
from typing import Any

from drivable.contract import Contract

Run = Callable[[Awaitable[Any]], Any]


def started_on(
    run: Run, contract: Contract, **arguments: Any
) -> tuple[Contract, Callable[[], Any]]:
    """A copy of `contract` started with `arguments` on the loop `run` drives, and its closing."""
    stack = AsyncExitStack()
    started: Contract = run(stack.enter_async_context(copy.copy(contract).started(**arguments)))
    return started, lambda: run(stack.aclose())
