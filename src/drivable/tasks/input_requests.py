"""A task's questions to the client (the extension's input requests): a worker asks, the client
answers with tasks/update, the worker takes the answer. `TaskStore` inherits these over its rows."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from contextlib import AbstractAsyncContextManager
from typing import TYPE_CHECKING, Any

from drivable.canonical import canonical_text
from drivable.effects import Transaction

if TYPE_CHECKING:
    from drivable.tasks.store import TaskRow


class InputRequests:
    """Ask, answer, consume: the pending requests and the answers of one task row."""

    clock: Callable[[], float]

    def _write(self) -> AbstractAsyncContextManager[Transaction]:
        """A write transaction holding the write lock (TaskStore's)."""
        raise NotImplementedError

    async def _locked(self, tx: Transaction, task_id: str) -> TaskRow | None:
        """The row, locked for the transaction (TaskStore's)."""
        raise NotImplementedError

    async def get(self, task_id: str, principal: str | None = None) -> TaskRow | None:
        """The row, read without a lock (TaskStore's)."""
        raise NotImplementedError

    async def ask(self, task_id: str, owner: str, key: str, request: Mapping[str, Any]) -> bool:
        """Add one pending input request; the task shows input_required until all are answered."""
        now = self.clock()
        async with self._write() as tx:
            row = await self._locked(tx, task_id)
            if row is None or row.owner != owner or row.terminal:
                return False
            pending = dict(row.input_requests)
            pending[key] = dict(request)
            await tx.execute(
                "UPDATE drivable_tasks SET input_requests = ?, status = 'input_required', "
                "status_message = ?, updated_at = ? WHERE task_id = ?",
                [canonical_text(pending), _waiting_message(len(pending)), now, task_id],
            )
        return True

    async def answer(
        self, task_id: str, principal: str, responses: Mapping[str, Any]
    ) -> TaskRow | None:
        """Deliver answers to pending requests (others are ignored, as the extension says)."""
        now = self.clock()
        async with self._write() as tx:
            row = await self._locked(tx, task_id)
            if row is None or row.principal != principal:
                return None
            if row.terminal:
                return row
            pending = dict(row.input_requests)
            answered = dict(row.input_responses)
            taken = [k for k in responses if k in pending]
            if not taken:
                return row
            for key in taken:
                answered[key] = responses[key]
                del pending[key]
            status = "input_required" if pending else "working"
            message = (
                _waiting_message(len(pending)) if pending else "Input received; working again."
            )
            await tx.execute(
                "UPDATE drivable_tasks SET input_requests = ?, input_responses = ?, status = ?, "
                "status_message = ?, updated_at = ? WHERE task_id = ?",
                [canonical_text(pending), canonical_text(answered), status, message, now, task_id],
            )
            return row

    async def consume(self, task_id: str, owner: str, key: str) -> tuple[bool, Any]:
        """Take the answer to `key` if it arrived: (True, answer) or (False, None)."""
        row = await self.get(task_id)
        if row is None or key not in row.input_responses:
            return False, None
        async with self._write() as tx:
            locked = await self._locked(tx, task_id)
            if locked is None or locked.owner != owner or key not in locked.input_responses:
                return False, None
            answered = dict(locked.input_responses)
            value = answered.pop(key)
            await tx.execute(
                "UPDATE drivable_tasks SET input_responses = ? WHERE task_id = ?",
                [canonical_text(answered), task_id],
            )
            return True, value


def _waiting_message(count: int) -> str:
    if count == 1:
        return (
            "Waiting for one answer from the client (see inputRequests; reply with tasks/update)."
        )
    return (
        f"Waiting for {count} answers from the client (see inputRequests; reply with tasks/update)."
    )
