"""A running task's line to its row: the handler's progress kept and written at a bounded rate, the
lease renewed, and a cancel request or a takeover by another worker seen and acted on.

The handler never waits on the store for its progress (on SQLite a keyed handler's own effect
transaction holds the write lock): progress is only kept here, and the watch loop writes it.
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass, field

import anyio

from drivable.tasks.control import TaskControl
from drivable.tasks.store import TaskStore

log = logging.getLogger("drivable.tasks")

# Status messages are written at most this often; the last one is written at the next heartbeat.
PROGRESS_WRITE_S = 0.5


@dataclass
class TaskWatch:
    """One task running in this worker: what it may do, the scope that stops it, and why it stopped
    (`cancelled`: a cancel request; `lost`: another worker owns the row now)."""

    task_id: str
    control: TaskControl
    tasks: TaskStore
    owner: str
    lease_s: float
    watch_s: float
    scope: anyio.CancelScope = field(default_factory=anyio.CancelScope)
    cancelled: bool = False
    lost: bool = False
    _pending: str | None = field(default=None, init=False)
    _last_write: float = field(default=0.0, init=False)

    def cancel(self) -> None:
        self.cancelled = True
        self.scope.cancel()

    def _lose(self) -> None:
        self.lost = True
        self.scope.cancel()

    async def progress(self, done: float, total: float | None, message: str | None) -> None:
        # The handler's own words, or its own counts; never a made-up percentage.
        if message:
            text = message
        elif total:
            text = f"{done:g} of {total:g} done."
        else:
            text = f"{done:g} done so far."
        self._pending = text

    async def _beat(self) -> bool:
        message, self._pending = self._pending, None
        fresh = await self.tasks.heartbeat(self.task_id, self.owner, self.lease_s, message)
        if fresh is None:
            self._lose()
            return False
        if fresh.cancel_requested:
            self.cancel()
            return False
        return True

    async def watch(self) -> None:
        """Until the task stops: renew the lease (with any pending progress) every third of it,
        or sooner when progress waits; in between, look at the row for a cancel or a takeover."""
        since_beat = 0.0
        while True:
            await anyio.sleep(self.watch_s)
            since_beat += self.watch_s
            try:
                due = time.monotonic() - self._last_write >= PROGRESS_WRITE_S
                if since_beat >= self.lease_s / 3 or (self._pending is not None and due):
                    self._last_write = time.monotonic()
                    since_beat = 0.0
                    if not await self._beat():
                        return
                    continue
                seen = await self.tasks.get(self.task_id)
                if seen is None or seen.owner != self.owner:
                    self._lose()
                    return
                if seen.cancel_requested:
                    self.cancel()
                    return
            except Exception:
                log.warning("task watch failed; trying again", exc_info=True)
