"""The connection pool: bounded, event-loop agnostic (waiters poll), each connection used by one
task at a time and driven from worker threads.
"""

from __future__ import annotations

import threading
from contextlib import suppress
from typing import Any

import anyio
import anyio.to_thread

from drivable.effects.backend import Backend

# a time and driven from worker threads.


class _Pool:
    def __init__(self, backend: Backend) -> None:
        self._backend = backend
        self._idle: list[Any] = []
        self._count = 0
        self._lock = threading.Lock()
        self._closed = False

    async def acquire(self) -> Any:
        delay = 0.001
        while True:
            create = False
            with self._lock:
                if self._idle:
                    return self._idle.pop()
                if self._count < self._backend.max_connections:
                    self._count += 1
                    create = True
            if create:
                try:
                    return await anyio.to_thread.run_sync(self._backend.connect)
                except BaseException:
                    with self._lock:
                        self._count -= 1
                    raise
            await anyio.sleep(delay)
            delay = min(delay * 2, 0.02)

    def release(self, conn: Any, *, discard: bool = False) -> None:
        if not discard:
            try:
                discard = not self._backend.reusable(conn)
            except Exception:
                discard = True
        with self._lock:
            if discard or self._closed:
                self._count -= 1
            else:
                self._idle.append(conn)
                return
        with suppress(Exception):
            self._backend.close(conn)

    def close(self) -> None:
        with self._lock:
            self._closed = True
            idle, self._idle = self._idle, []
            self._count -= len(idle)
        for conn in idle:
            with suppress(Exception):
                self._backend.close(conn)
