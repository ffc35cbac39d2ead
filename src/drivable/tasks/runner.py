"""Running tasks: the work happens in the worker that created (or took over) the task, in the
background of its event loop, through the same `Contract.call` pipeline as a blocking call.

While it runs, the worker renews its lease on the row, writes progress as the status message
(rate-limited), and watches the row for a cancel request from any worker. A handler that needs an
answer from the client asks through `current_task().elicit(...)`: the request lands in the row, the
task shows `input_required`, and the answer comes back through `tasks/update` on any worker.
"""

from __future__ import annotations

import asyncio
import logging
import os
import secrets
import socket
import time
from collections.abc import Callable, Mapping
from typing import Any

import anyio
from mcp_types import MISSING_REQUIRED_CLIENT_CAPABILITY

from drivable.contract import Contract, Envelope, Outcome, Principal, ToolSpec
from drivable.contract.client import MissingCapability
from drivable.contract.long_running import LongRunning
from drivable.contract.stages.handler import internal_error
from drivable.effects import SqlEffectStore
from drivable.tasks.control import _CURRENT, TaskControl, task_client
from drivable.tasks.recovery import take_over
from drivable.tasks.store import FORGET_AFTER_S, TaskRow, TaskStore
from drivable.tasks.watch import TaskWatch

log = logging.getLogger("drivable.tasks")


class TaskRunner:
    """Starts, watches and recovers the tasks of one contract in this process."""

    def __init__(
        self,
        contract: Contract,
        *,
        render: Callable[[Outcome], dict[str, Any]],
        lease_s: float = 10.0,
        watch_s: float = 0.25,
    ) -> None:
        self.contract = contract
        self.render = render  # an outcome as the wire result kept for tasks/get (serve's shaping)
        self.lease_s = lease_s
        self.watch_s = watch_s
        self.owner = f"{socket.gethostname()}:{os.getpid()}:{secrets.token_hex(4)}"
        self._tasks: TaskStore | None = None
        self._running: dict[str, TaskWatch] = {}
        self._background: set[asyncio.Task[None]] = set()
        self._sweeper_loop: asyncio.AbstractEventLoop | None = None
        self._last_purge = 0.0

    @property
    def task_tools(self) -> list[str]:
        return sorted(n for n, spec in self.contract.tools.items() if spec.task is not None)

    async def prepare(self) -> TaskStore:
        """The contract's store, settled (every entry point awaits this before using `tasks`)."""
        if self._tasks is None:
            store = (await self.contract.durable()).store
            if not isinstance(store, SqlEffectStore):
                raise TypeError("tasks need the SQL effect store (SQLite or PostgreSQL)")
            self._tasks = TaskStore(store)
        return self._tasks

    @property
    def tasks(self) -> TaskStore:
        if self._tasks is None:
            raise RuntimeError("TaskRunner.prepare() must run first")
        return self._tasks

    # -- starting -------------------------------------------------------------------------

    def new_row(
        self,
        spec: ToolSpec,
        policy: LongRunning,
        principal: Principal,
        arguments: Mapping[str, Any],
        idem_key: str | None,
        digest: str,
        before: Mapping[str, Any] | None = None,
    ) -> TaskRow:
        """A new row; `before`: what `before_task` recorded of the client (capabilities, answers)."""
        now = self.tasks.clock()
        deadline = now + policy.timeout_s
        expires = deadline + policy.keep_s
        return TaskRow(
            task_id=secrets.token_urlsafe(24),
            principal=principal.id,
            scopes=tuple(sorted(principal.scopes)) if principal.scopes is not None else None,
            tool=spec.name,
            arguments=dict(arguments),
            idem_key=idem_key,
            digest=digest,
            status="working",
            status_message="Started; no progress reported yet.",
            result=None,
            error=None,
            input_requests={},
            input_responses=dict(before or {}),
            cancel_requested=False,
            attempt=1,
            owner=self.owner,
            lease_until=now + self.lease_s,
            created_at=now,
            updated_at=now,
            deadline_at=deadline,
            ttl_ms=int((expires - now) * 1000),
            poll_ms=policy.poll_ms,
            expires_at=expires,
            forget_at=expires + FORGET_AFTER_S,
        )

    def start(self, row: TaskRow) -> None:
        """Run the task in the background of this event loop (it is durable already)."""
        self.ensure_sweeper()
        job = asyncio.get_running_loop().create_task(self._run(row))
        self._background.add(job)
        job.add_done_callback(self._background.discard)

    def ensure_sweeper(self) -> None:
        """Sweep expired tasks in the background of this event loop (once per loop): called on
        a task's start and by whoever reads tasks (serve's tasks/get)."""
        loop = asyncio.get_running_loop()
        if self._sweeper_loop is loop:
            return
        self._sweeper_loop = loop
        job = loop.create_task(self._sweep_forever())
        self._background.add(job)
        job.add_done_callback(self._background.discard)

    async def _sweep_forever(self) -> None:
        while True:
            await anyio.sleep(self.lease_s)
            try:
                await self.sweep()
            except Exception:
                log.warning("task sweep failed", exc_info=True)

    async def sweep(self) -> None:
        """Recover tasks whose worker died; forget long-expired ones now and then."""
        for task_id in await self.tasks.abandoned(self.task_tools):
            await self.recover(task_id)
        now = time.monotonic()
        if now - self._last_purge > 60:
            self._last_purge = now
            await self.tasks.purge()

    # -- cancel, input --------------------------------------------------------------------

    def cancel_local(self, task_id: str) -> None:
        running = self._running.get(task_id)
        if running is not None:
            running.cancel()

    def wake(self, task_id: str) -> None:
        running = self._running.get(task_id)
        if running is not None:
            running.control._wake.set()

    # -- recovery -------------------------------------------------------------------------

    async def recover(self, task_id: str) -> TaskRow | None:
        """Take over an active task whose lease ran out: run it again, or fail it, as the tool's
        declaration says (drivable.tasks.recovery). None when someone else took it (or it was
        alive after all)."""
        if task_id in self._running:
            # Alive here, its lease only late (a heartbeat waited on a busy store): not abandoned.
            return None
        return await take_over(self, task_id)

    # -- running --------------------------------------------------------------------------

    async def _run(self, row: TaskRow) -> None:
        spec = self.contract.tools[row.tool]
        policy = spec.task
        assert isinstance(policy, LongRunning)
        control = TaskControl(row.task_id, row.attempt, self, self.owner)
        running = TaskWatch(
            row.task_id, control, self.tasks, self.owner, self.lease_s, self.watch_s
        )
        self._running[row.task_id] = running
        started = time.monotonic()

        outcome: Outcome | None = None
        timed_out = False
        token = _CURRENT.set(control)
        try:
            with running.scope:
                async with anyio.create_task_group() as group:
                    group.start_soon(running.watch)
                    remaining = max(0.0, row.deadline_at - self.tasks.clock())
                    with anyio.move_on_after(remaining) as timer:
                        try:
                            outcome = await self.contract.call(
                                row.tool,
                                row.arguments,
                                principal=Principal(
                                    row.principal,
                                    frozenset(row.scopes) if row.scopes is not None else None,
                                ),
                                request_id=row.task_id[:16],
                                progress=running.progress,
                                client=task_client(row, control),
                            )
                        except MissingCapability as lacking:
                            # The handler asked what the client never declared it could answer:
                            # the task fails with what the extension's -32021 carries.
                            control.protocol_error = {
                                "code": MISSING_REQUIRED_CLIENT_CAPABILITY,
                                "message": f"{row.tool} needs the client capability "
                                f"{lacking.capability!r}, which the request that started the "
                                "task did not declare.",
                                "data": {"requiredCapabilities": {lacking.capability: {}}},
                            }
                    timed_out = timer.cancelled_caught
                    group.cancel_scope.cancel()
        except Exception:
            log.exception("task runner failed (tool=%s)", row.tool)
            outcome = self.contract.finish(
                internal_error(row.tool, row.task_id[:16]), row.task_id[:16]
            )
        finally:
            _CURRENT.reset(token)
            self._running.pop(row.task_id, None)
        if running.lost:
            log.info("task taken over by another worker (tool=%s)", row.tool)
            return
        elapsed = time.monotonic() - started
        with anyio.CancelScope(shield=True):
            await self._record(row, spec, policy, running, control, outcome, timed_out, elapsed)

    async def _record(
        self,
        row: TaskRow,
        spec: ToolSpec,
        policy: LongRunning,
        running: TaskWatch,
        control: TaskControl,
        outcome: Outcome | None,
        timed_out: bool,
        elapsed: float,
    ) -> None:
        took = f"{elapsed:.1f} s"
        if running.cancelled and outcome is None:
            kept = (
                "a mutation's transaction was rolled back"
                if not spec.effects.read_only
                else "it changes nothing"
            )
            await self._finish(
                row,
                policy,
                "cancelled",
                f"Cancelled at the client's request after {took}; the work stopped before it "
                f"finished and its partial result was discarded ({kept}).",
            )
            return
        if control.protocol_error is not None:
            error = control.protocol_error
            await self._finish(
                row, policy, "failed", f"Failed after {took}: {error['message']}", error=error
            )
            return
        if timed_out or outcome is None:
            outcome = self.contract.finish(
                Envelope(
                    "task_timeout",
                    f"{row.tool} ran longer than its declared timeout of {policy.timeout_s:g} s "
                    "and was stopped; nothing of it was kept.",
                    hint=f"Call {row.tool} again later; if it times out again, narrow the request.",
                ),
                row.task_id[:16],
            )
        result = self.render(outcome)
        if outcome.is_error:
            code = outcome.structured.get("code", "an error")
            message = f"Finished after {took} with the error {code}; result.isError is true."
        else:
            message = f"Finished after {took}; the result is in result."
        if row.attempt > 1:
            message += (
                f" This was attempt {row.attempt}: a worker running it earlier stopped, so it ran "
                "again from the beginning."
            )
        await self._finish(row, policy, "completed", message, result=result)

    async def _finish(
        self,
        row: TaskRow,
        policy: LongRunning,
        status: str,
        message: str,
        *,
        result: Mapping[str, Any] | None = None,
        error: Mapping[str, Any] | None = None,
    ) -> None:
        for attempt in range(5):
            try:
                await self.tasks.finish(
                    row.task_id,
                    self.owner,
                    status=status,
                    status_message=message,
                    result=result,
                    error=error,
                    keep_s=policy.keep_s,
                    forget_s=FORGET_AFTER_S,
                )
                return
            except Exception:
                # The store is briefly unavailable: the lease runs out if it stays so, and
                # another worker then recovers the task; until then keep trying.
                log.warning("recording a task's end failed (attempt %d)", attempt + 1)
                await anyio.sleep(0.2 * (attempt + 1))
