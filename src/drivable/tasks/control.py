"""What a handler running as a task sees: `current_task()` (ask through the task, fail it at the
protocol level) and its `call.client`, which answers from the rounds given before the task started
and asks anything else through the task's `inputRequests`.
"""

from __future__ import annotations

import asyncio
import contextvars
import secrets
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, NoReturn

import anyio
from mcp_types import INTERNAL_ERROR

from drivable.contract.client import ClientSide
from drivable.tasks.store import BEFORE_TASK_KEY, TaskRow

if TYPE_CHECKING:
    from drivable.tasks.runner import TaskRunner


class TaskAborted(Exception):
    """Raised by `TaskControl.fail`: the task fails at the protocol level (status `failed`)."""


@dataclass
class TaskControl:
    """What a handler running as a task can do besides reporting progress (`Call.report_progress`)."""

    task_id: str
    attempt: int
    _runner: TaskRunner
    _owner: str
    _seq: int = 0
    protocol_error: dict[str, Any] | None = None
    _wake: asyncio.Event = field(default_factory=asyncio.Event)

    async def elicit(self, message: str, requested_schema: Mapping[str, Any]) -> dict[str, Any]:
        """Ask the client a question (an `elicitation/create` in `inputRequests`) and wait for the
        answer delivered by tasks/update: `{"action": "accept"|"decline"|"cancel", "content": ...}`.

        The wait counts against the tool's timeout; a cancel request ends it like any other wait."""
        answer = await self.request(
            "elicitation/create",
            {"mode": "form", "message": message, "requestedSchema": dict(requested_schema)},
        )
        return answer if isinstance(answer, dict) else {"action": "accept", "content": answer}

    async def request(self, method: str, params: Mapping[str, Any]) -> Any:
        """Send the client any request the extension carries in `inputRequests`
        (`elicitation/create`, `sampling/createMessage`, `roots/list`) and wait for its answer.
        `call.client.ask(...)` in a handler running as a task comes here."""
        self._seq += 1
        # Unique over the task's lifetime, restarts included (the extension forbids reusing a key).
        key = f"input-{self.attempt}-{self._seq}-{secrets.token_hex(3)}"
        request = {"method": method, "params": dict(params)}
        tasks = self._runner.tasks
        if not await tasks.ask(self.task_id, self._owner, key, request):
            # The task is no longer this worker's (taken over, or finished): stop here.
            raise TaskAborted("the task is no longer running here")
        while True:
            found, answer = await tasks.consume(self.task_id, self._owner, key)
            if found:
                return answer
            self._wake.clear()
            with anyio.move_on_after(self._runner.watch_s):
                await self._wake.wait()

    def fail(self, message: str, *, code: int = INTERNAL_ERROR) -> NoReturn:
        """End the task as `failed` with a JSON-RPC error (for failures that are not a tool
        result, such as an upstream job system reporting that the job itself crashed)."""
        self.protocol_error = {"code": code, "message": message}
        raise TaskAborted(message)


_CURRENT: contextvars.ContextVar[TaskControl | None] = contextvars.ContextVar(
    "drivable_task", default=None
)


def current_task() -> TaskControl | None:
    """The task the calling handler runs as, or None when it runs as a blocking call."""
    return _CURRENT.get()


def before_task(capabilities: Mapping[str, Any], answers: Mapping[str, Any]) -> dict[str, Any]:
    """The row's record of the rounds answered before the task started."""
    return {BEFORE_TASK_KEY: {"capabilities": dict(capabilities), "answers": dict(answers)}}


def task_client(row: TaskRow, control: TaskControl) -> ClientSide:
    """The handler's `call.client` inside a task: the answers given before the task started,
    then anything else it asks goes to the client through the task's `inputRequests`."""
    before = row.input_responses.get(BEFORE_TASK_KEY) or {}
    return ClientSide(
        before.get("capabilities") or {},
        carried=before.get("answers") or {},
        send_request=control.request,
    )
