"""The eval's host for long-running tools: the tasks extension (`io.modelcontextprotocol/tasks`).

A workflow with `tasks: true` is driven by a host that speaks the extension: its client declares
it (the SDK advertises it only on the 2026-07-28 wire), and when the server offers it in
server/discover the agent gets two host tools beside the server's, the way a host presents them
(a connection that did not negotiate it skips the workflow: there is no task to poll):

- `get_task {taskId}`: the task's state from tasks/get. The host honours the server's
  `pollIntervalMs` (it waits out the interval since it last heard of the task before asking), so
  a model polling in a loop does not hammer the server and each poll can show progress.
- `cancel_task {taskId}`: tasks/cancel, then the state it left (cancelled, or completed when the
  work finished first).

A `tools/call` the server answers with a task handle reaches the agent as that handle
(`resultType: "task"`, `taskId`, `status`, `pollIntervalMs`, ...). Every agent, simulated or
model, sees the same tools and the same answers. For scoring, a task's result (or its failure) is
the result of the call that started it (`attributed`): a step done by `summarize_decisions(...)` with
`by_court` in its result is done when the agent reads that task's result, not when it starts it.
"""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

import anyio
import mcp_types as types
from mcp.client.extension import ClaimContext, ClientExtension, ResultClaim
from mcp.shared.exceptions import MCPError
from mcp_types.version import MODERN_PROTOCOL_VERSIONS
from pydantic import ConfigDict, Field

from drivable.contract import envelope_of
from drivable.contract.envelope import from_rpc_data
from drivable.eval.turns import Observation, ToolCall

EXTENSION = "io.modelcontextprotocol/tasks"
GET = "get_task"
CANCEL = "cancel_task"
ENCODER = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"))
# A host waits at most this long before one poll, whatever interval a server asks for.
MAX_WAIT_S = 10.0
# How long the host waits for a cancelled task to stop before it reports what it saw.
CANCEL_WAIT_S = 3.0

_TASK_ID = {
    "type": "object",
    "properties": {
        "taskId": {
            "type": "string",
            "description": "The taskId the call that started the task answered with.",
        }
    },
    "required": ["taskId"],
    "additionalProperties": False,
}
HOST_TOOLS: tuple[dict[str, Any], ...] = (
    {
        "name": GET,
        "title": "Get a task",
        "description": "Read a long-running call's task: its status (working, input_required, "
        "completed, failed, cancelled), its latest progress message and, once completed, the "
        "tool's result. Use it after a tool answered with a taskId; while the status is working, "
        'call it again (the host waits the poll interval the server asked for). Example: {"taskId": '
        '"the id the call answered"}.',
        "inputSchema": _TASK_ID,
        "annotations": {"readOnlyHint": True, "destructiveHint": False, "idempotentHint": True},
    },
    {
        "name": CANCEL,
        "title": "Cancel a task",
        "description": "Stop a long-running call's task when its result is no longer wanted (the "
        "user changed the question); answers the status it left: cancelled, or completed when the "
        "work finished first. Start the call again for a new result. Example: "
        '{"taskId": "the id the call answered"}.',
        "inputSchema": _TASK_ID,
        "annotations": {"readOnlyHint": False, "destructiveHint": False, "idempotentHint": True},
    },
)


class CreatedTask(types.Result):
    """A tools/call answered with a task handle (`CreateTaskResult`)."""

    model_config = ConfigDict(extra="allow")
    result_type: Literal["task"] = Field(alias="resultType")
    task_id: str = Field(alias="taskId")


class _Answer(types.Result):
    """Any tasks/* answer, kept whole."""

    model_config = ConfigDict(extra="allow")


class _TaskRequest(types.Request[dict[str, Any], str]):
    """tasks/get and tasks/cancel carry `Mcp-Name: <taskId>` over HTTP (SEP-2663)."""

    name_param = "taskId"


class TaskStarted(Exception):
    """Raised through `Client.call_tool` when the server answered with a task handle: the host
    gives the agent the handle instead of waiting for the result."""

    def __init__(self, handle: dict[str, Any]) -> None:
        super().__init__(f"task {handle.get('taskId')} started")
        self.handle = handle


async def _hand_over(created: CreatedTask, ctx: ClaimContext) -> types.CallToolResult:
    raise TaskStarted(created.model_dump(by_alias=True, mode="json", exclude_none=True))


class TasksExtension(ClientExtension):
    """What the eval's client declares: the extension, and the task handle as a result it takes."""

    identifier = EXTENSION

    def claims(self) -> Sequence[ResultClaim[Any]]:
        return (ResultClaim(result_type="task", model=CreatedTask, resolve=_hand_over),)


def offered(client: Any) -> bool:
    """Whether this connection negotiated the extension: the 2026-07-28 wire (the only one that
    carries it) and the server offering it in server/discover."""
    if getattr(client, "protocol_version", None) not in MODERN_PROTOCOL_VERSIONS:
        return False
    caps = getattr(client, "server_capabilities", None)
    extensions = getattr(caps, "extensions", None) or {}
    return EXTENSION in extensions


@dataclass
class _Known:
    call: ToolCall  # the call that started the task
    heard_at: float  # when the host last heard of it (monotonic seconds)
    poll_s: float


class TaskHost:
    """The host side of one trial's connection: the two host tools and what each task is of."""

    def __init__(self, client: Any, tools: Sequence[dict[str, Any]]) -> None:
        self.client = client
        taken = {str(t.get("name")) for t in tools}
        # shown name -> role; a server tool of the same name keeps it, the host's is prefixed
        self.names = {(f"host_{n}" if n in taken else n): n for n in (GET, CANCEL)}
        self.tasks: dict[str, _Known] = {}

    def tools(self) -> list[dict[str, Any]]:
        shown = {role: name for name, role in self.names.items()}
        return [{**t, "name": shown[str(t["name"])]} for t in HOST_TOOLS]

    def handles(self, call: ToolCall) -> bool:
        return call.tool in self.names

    def started(self, call: ToolCall, handle: dict[str, Any]) -> Observation:
        task_id = str(handle.get("taskId"))
        poll_ms = handle.get("pollIntervalMs")
        poll_s = poll_ms / 1000 if isinstance(poll_ms, (int, float)) and poll_ms > 0 else 1.0
        self.tasks[task_id] = _Known(call, time.monotonic(), min(poll_s, MAX_WAIT_S))
        handle = {k: v for k, v in handle.items() if k != "_meta"}
        return Observation(call, False, handle, ENCODER.encode(handle))

    async def call(self, call: ToolCall) -> Observation:
        role = self.names[call.tool]
        task_id = call.arguments.get("taskId")
        if not isinstance(task_id, str) or not task_id:
            return _refusal(call, "taskId is required: the id the long-running call answered.")
        known = self.tasks.get(task_id)
        try:
            if role == CANCEL:
                state = await self._cancel(task_id)
            else:
                if known is not None:
                    await anyio.sleep(max(0.0, known.heard_at + known.poll_s - time.monotonic()))
                state = await self._send("tasks/get", task_id)
        except MCPError as error:
            envelope = from_rpc_data(error.error.data)
            if envelope is not None:
                return Observation(call, True, envelope, ENCODER.encode(envelope))
            return Observation(call, True, None, f"{error.error.code}: {error.error.message}")
        if known is not None:
            known.heard_at = time.monotonic()
            poll_ms = state.get("pollIntervalMs")
            if isinstance(poll_ms, (int, float)) and poll_ms > 0:
                known.poll_s = min(poll_ms / 1000, MAX_WAIT_S)
        # What the agent reads: the task without the protocol's own markers, and a completed
        # task's result as a host shows a tool result (its data, not the data and its JSON copy).
        state = {k: v for k, v in state.items() if k not in ("resultType", "_meta")}
        text = ENCODER.encode(shown(state))
        failed = state.get("status") == "failed"
        ended = state.get("error")
        lost = from_rpc_data(ended.get("data")) if failed and isinstance(ended, dict) else None
        if failed:
            return Observation(call, True, lost, text)
        result = state.get("result")
        if isinstance(result, dict) and result.get("isError"):  # the tool's call failed
            return Observation(call, True, envelope_of(result), text)
        return Observation(call, failed, state, text)

    async def _cancel(self, task_id: str) -> dict[str, Any]:
        """Cancel, then the state it left: cancellation is cooperative, so the host waits
        (briefly) for the task to leave `working` before it reports."""
        await self._send("tasks/cancel", task_id)
        deadline = time.monotonic() + CANCEL_WAIT_S
        while True:
            state = await self._send("tasks/get", task_id)
            if state.get("status") != "working" or time.monotonic() > deadline:
                return state
            await anyio.sleep(0.1)

    async def _send(self, method: str, task_id: str) -> dict[str, Any]:
        request = _TaskRequest(method=method, params={"taskId": task_id})
        answer = await self.client.session.send_request(request, _Answer)
        dumped: dict[str, Any] = answer.model_dump(by_alias=True, mode="json", exclude_none=True)
        return dumped

    def attributed(self, obs: Observation) -> Observation:
        """For the scorer: a completed task read through the host is the result of the call
        that started it (the same text the agent read); anything else is itself."""
        known = self.tasks.get(str(obs.call.arguments.get("taskId")))
        if self.names.get(obs.call.tool) != GET or known is None:
            return obs
        if obs.is_error:  # the task's call failed (a tool error, a lost worker, an expired result)
            return Observation(known.call, True, obs.structured, obs.text)
        state = obs.structured or {}
        result = state.get("result")
        if state.get("status") != "completed" or not isinstance(result, dict):
            return obs
        structured = result.get("structuredContent")
        return Observation(
            known.call, False, structured if isinstance(structured, dict) else None, obs.text
        )


def shown(state: dict[str, Any]) -> dict[str, Any]:
    """A task state as the agent reads it: a completed task's `result` is the tool's data (its
    structuredContent), its envelope when it is an error, else its content blocks."""
    result = state.get("result")
    if not isinstance(result, dict):
        return state
    if result.get("isError"):
        view: Any = {"isError": True, "error": envelope_of(result) or result.get("content")}
    elif isinstance(result.get("structuredContent"), dict):
        view = result["structuredContent"]
    else:
        view = {"content": result.get("content") or []}
    return {**state, "result": view}


def _refusal(call: ToolCall, message: str) -> Observation:
    envelope = {
        "code": "invalid_arguments",
        "message": message,
        "hint": f"Call {call.tool} with the taskId a long-running tool answered.",
        "issues": [{"path": "taskId", "code": "missing_property", "message": message}],
        "temporary": False,
        "retry_after_ms": None,
        "request_id": "host",
    }
    return Observation(call, True, envelope, ENCODER.encode(envelope))
