"""The connection pool: bounded, first come first served, each connection used by one task at a
time and driven from worker threads.

A caller finding every connection busy queues; a released connection goes straight to the
longest-waiting caller (never to one that arrived later), so a read's wait is bounded by the
queue ahead of it instead of by luck. Waiters are asyncio futures woken on their own event loop
(the store may be shared by several loops in several threads: a server and a preparing thread).
Decision: docs/decisions/0002-reads-under-load.md.
"""

from __future__ import annotations

import asyncio
import threading
from collections import deque
from contextlib import suppress
from typing import Any

import anyio.to_thread

from drivable.effects.backend import Backend

_NEW = object()  # handed to a waiter instead of a connection: open one (a slot came free)


class _Pool:
    def __init__(self, backend: Backend) -> None:
        self._backend = backend
        self._idle: list[Any] = []
        self._count = 0
        self._lock = threading.Lock()
        self._closed = False
        self._waiters: deque[tuple[asyncio.AbstractEventLoop, asyncio.Future[Any]]] = deque()

    async def acquire(self) -> Any:
        loop = asyncio.get_running_loop()
        with self._lock:
            if self._idle and not self._waiters:
                return self._idle.pop()
            if self._count < self._backend.max_connections and not self._waiters:
                self._count += 1
                got: Any = _NEW
            else:
                future: asyncio.Future[Any] = loop.create_future()
                self._waiters.append((loop, future))
                got = None
        if got is None:
            try:
                got = await future
            except asyncio.CancelledError:
                with self._lock, suppress(ValueError):
                    self._waiters.remove((loop, future))
                if future.done() and not future.cancelled():
                    self._give(future.result())  # handed over just as we gave up
                raise
        if got is not _NEW:
            return got
        try:
            return await anyio.to_thread.run_sync(self._backend.connect)
        except BaseException:
            self._give(_NEW)
            raise

    def release(self, conn: Any, *, discard: bool = False) -> None:
        if not discard:
            try:
                discard = not self._backend.reusable(conn)
            except Exception:
                discard = True
        if discard or self._closed:
            with suppress(Exception):
                self._backend.close(conn)
            self._give(_NEW)
            return
        self._give(conn)

    def _give(self, conn: Any) -> None:
        """Hand `conn` (or, as `_NEW`, the slot of a closed one) to the longest waiter, else keep
        it idle (or give the slot up)."""
        while True:
            with self._lock:
                waiter = self._waiters.popleft() if self._waiters else None
                if waiter is None:
                    if conn is _NEW or self._closed:
                        self._count -= 1
                    else:
                        self._idle.append(conn)
                        return
            if waiter is None:
                if conn is not _NEW:
                    with suppress(Exception):
                        self._backend.close(conn)
                return
            if _deliver(*waiter, conn, self):
                return

    def close(self) -> None:
        with self._lock:
            self._closed = True
            idle, self._idle = self._idle, []
            self._count -= len(idle)
        for conn in idle:
            with suppress(Exception):
                self._backend.close(conn)


def _deliver(
    loop: asyncio.AbstractEventLoop, future: asyncio.Future[Any], conn: Any, pool: _Pool
) -> bool:
    """Resolve a waiter's future on its own loop (False: the waiter is gone; try the next). A
    waiter that gave up between the hand-off and its loop running it passes `conn` on."""

    def resolve() -> None:
        if future.done():
            pool._give(conn)
        else:
            future.set_result(conn)

    if future.done():
        return False
    try:
        running = asyncio.get_running_loop()
    except RuntimeError:
        running = None
    if running is loop:
        future.set_result(conn)
        return True
    try:
        loop.call_soon_threadsafe(resolve)
    except RuntimeError:  # its loop is closed
        return False
    return True
