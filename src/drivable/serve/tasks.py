"""The tasks extension on the wire (`io.modelcontextprotocol/tasks`, SEP-2663).

`install(server, contract)` advertises the extension in server/discover, wraps tools/call so that a
tool declared `LongRunning` answers with a task handle (`resultType: "task"`) to a request whose
`_meta` client capabilities declare the extension, and serves tasks/get, tasks/update and
tasks/cancel. Without the extension a task tool blocks (with progress, under its timeout) or, when
it only runs as a task, is refused with -32021 naming the extension to declare.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any

import anyio
import mcp_types as types
from mcp.server.context import ServerRequestContext
from mcp.server.lowlevel import Server
from mcp.shared.exceptions import MCPError
from mcp.shared.inbound import MCP_NAME_HEADER, decode_header_value
from mcp_types import (
    CLIENT_CAPABILITIES_META_KEY,
    HEADER_MISMATCH,
    INVALID_PARAMS,
    MISSING_REQUIRED_CLIENT_CAPABILITY,
)
from mcp_types.version import MODERN_PROTOCOL_VERSIONS
from pydantic import Field, ValidationError

from drivable import settings
from drivable.contract import Contract, Envelope, Principal, Repair, ToolSpec, boundary
from drivable.contract.client import InputRequired, MissingCapability
from drivable.contract.durable import key_of_change, unavailable_envelope
from drivable.contract.long_running import LongRunning
from drivable.contract.resources import ResourceError
from drivable.contract.stages.access import missing_scopes
from drivable.contract.validation import callable_repair
from drivable.effects import StoreUnavailableError, arguments_digest
from drivable.serve.asking import Asking
from drivable.serve.results import principal_of, resource_failure, tool_result
from drivable.serve.task_listen import install_listen
from drivable.tasks import EXTENSION
from drivable.tasks.control import before_task
from drivable.tasks.runner import TaskRunner
from drivable.tasks.store import TaskRow

REQUIRED: dict[str, Any] = {"requiredCapabilities": {"extensions": {EXTENSION: {}}}}


class TaskParams(types.RequestParams):
    task_id: str = Field(alias="taskId")


class UpdateParams(TaskParams):
    input_responses: dict[str, Any] = Field(alias="inputResponses", default_factory=dict)


def iso(t: float) -> str:
    return datetime.fromtimestamp(t, UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def task_wire(row: TaskRow, *, detailed: bool) -> dict[str, Any]:
    """The Task fields (CreateTaskResult is `resultType: "task"` plus these; tasks/get adds the
    status's payload: inputRequests, result or error)."""
    out: dict[str, Any] = {
        "taskId": row.task_id,
        "status": row.status,
        "createdAt": iso(row.created_at),
        "lastUpdatedAt": iso(row.updated_at),
        "ttlMs": row.ttl_ms,
        "pollIntervalMs": row.poll_ms,
    }
    if row.status_message:
        out["statusMessage"] = row.status_message
    if detailed:
        if row.status == "input_required":
            out["inputRequests"] = row.input_requests
        elif row.status == "completed" and row.result is not None:
            out["result"] = row.result
        elif row.status == "failed" and row.error is not None:
            out["error"] = row.error
    return out


def declares_extension(ctx: ServerRequestContext[Any]) -> bool:
    """Whether this request's own `_meta` client capabilities declare the extension (the
    2026-07-28 wire carries them on every request; older eras never get a task)."""
    if ctx.protocol_version not in MODERN_PROTOCOL_VERSIONS:
        return False
    caps = (ctx.meta or {}).get(CLIENT_CAPABILITIES_META_KEY)
    extensions = caps.get("extensions") if isinstance(caps, Mapping) else None
    return isinstance(extensions, Mapping) and EXTENSION in extensions


def _missing_extension(what: str) -> MCPError:
    return MCPError(
        code=MISSING_REQUIRED_CLIENT_CAPABILITY,
        message=f"Missing required client capability: {what} needs the {EXTENSION} extension.",
        data={
            **REQUIRED,
            "hint": f"Declare {EXTENSION} under _meta['{CLIENT_CAPABILITIES_META_KEY}'].extensions "
            "on the request and send it again.",
        },
    )


def install(
    server: Server[Any], contract: Contract, *, asking: Asking | None = None, **runner_options: Any
) -> TaskRunner | None:
    """Serve the tasks extension for the contract's `LongRunning` tools (none: nothing changes).
    `asking`: the server's input-required machinery (its request-state seal), for the rounds a
    tool declares before its task starts (`LongRunning.asks_first`)."""
    if not any(spec.task is not None for spec in contract.tools.values()):
        return None
    asking = asking or Asking()

    if "lease_s" not in runner_options:
        # How soon a dead worker's task is noticed: the `tasks_lease_s` setting (docs/settings.md).
        runner_options["lease_s"] = settings.current().tasks_lease_s
    runner = TaskRunner(contract, render=tool_result, **runner_options)
    server.extensions[EXTENSION] = {}
    entry = server.get_request_handler("tools/call")
    assert entry is not None, "install tasks after the contract's tools/call handler"
    blocking_call = entry.handler

    def caller(ctx: ServerRequestContext[Any]) -> Principal:
        return principal_of(ctx) or Principal()

    async def call_tool(ctx: ServerRequestContext[Any], params: types.CallToolRequestParams) -> Any:
        spec = contract.tools.get(params.name)
        policy = spec.task if spec is not None else None
        if spec is None or not isinstance(policy, LongRunning):
            return await blocking_call(ctx, params)
        principal = caller(ctx)
        raw = params.arguments if params.arguments is not None else {}
        if boundary.refusal(spec.name, raw, contract.max_inline_bytes) is not None:
            # Values no reader may see (too deep, too large, NUL, lone surrogates): the blocking
            # pipeline refuses them with the envelope before anything validates them.
            return await blocking_call(ctx, params)
        try:
            validated = contract.validate(spec.name, raw)
        except (ValidationError, TypeError, ValueError):
            # Refusals that need no work are answered now, as a blocking call answers them, and
            # before the extension is asked for: arguments are what a model can fix itself.
            return await blocking_call(ctx, params)
        if missing_scopes(spec.scopes, principal):
            return await blocking_call(ctx, params)
        if not declares_extension(ctx):
            if policy.support == "required":
                raise _missing_extension(f"the tool {spec.name}")
            return await _blocking(ctx, params, spec, policy)
        # The request's client side: what it declared, and its answers to the questions the
        # tool asks before its task starts (input-required rounds, as a blocking call has them).
        client = asking.client_side(ctx, "tools/call", spec.name, raw, params, principal.id)
        if policy.asks_first:
            try:
                await client.ask_all(policy.asks_first)
            except InputRequired as pending:
                return asking.input_required(pending, "tools/call", spec.name, raw, principal.id)
            except MissingCapability as lacking:
                raise asking.missing_capability(lacking) from None
        before = before_task(client.capabilities, client.answers())
        value = validated.value
        key = getattr(value, "idempotency_key", None) if spec.keyed else None
        digest = arguments_digest(value.model_dump(mode="json"))
        try:
            await runner.prepare()
            row = await _create(spec, policy, principal, raw, key, digest, before)
        except StoreUnavailableError as down:
            return tool_result(contract.finish(unavailable_envelope(spec.name, down.outcome), ""))
        if isinstance(row, dict):
            return row
        return {"resultType": "task", **task_wire(row, detailed=False)}

    async def _create(
        spec: ToolSpec,
        policy: LongRunning,
        principal: Principal,
        raw: Mapping[str, Any],
        key: str | None,
        digest: str,
        before: Mapping[str, Any],
    ) -> TaskRow | dict[str, Any]:
        tasks = runner.tasks
        for _ in range(3):
            if key is not None:
                found = await tasks.by_key(principal.id, spec.name, key)
                if found is not None and found.terminal and found.expires_at < tasks.clock():
                    # Its result is gone: the same call starts a new task (whose receipt, if
                    # still kept, replays the effect's result rather than applying it again).
                    await tasks.release_key(found.task_id)
                    found = None
                if found is not None:
                    if found.digest != digest:
                        outcome = contract.finish(
                            Envelope(
                                "idempotency_mismatch",
                                f"This idempotency_key already started a {spec.name} task with "
                                "different arguments.",
                                hint=f"To start this task, call {spec.name} as in `repair` (this "
                                "call with a new idempotency_key of its own); resend the original "
                                "arguments to get the task they started.",
                                repair=Repair(
                                    spec.name,
                                    {**raw, "idempotency_key": key_of_change(key, digest)},
                                    "new_idempotency_key_for_a_new_change",
                                ),
                            ),
                            found.task_id[:16],
                        )
                        return tool_result(outcome)
                    # The same call again: the same task, not a second run.
                    return found
            row = runner.new_row(spec, policy, principal, raw, key, digest, before)
            if await tasks.create(row):
                runner.start(row)
                return row
        raise MCPError(code=types.INTERNAL_ERROR, message="The task could not be created.")

    async def _blocking(
        ctx: ServerRequestContext[Any],
        params: types.CallToolRequestParams,
        spec: ToolSpec,
        policy: LongRunning,
    ) -> Any:
        with anyio.move_on_after(policy.timeout_s) as timer:
            return await blocking_call(ctx, params)
        assert timer.cancelled_caught
        outcome = contract.finish(
            Envelope(
                "task_timeout",
                f"{spec.name} ran longer than its declared timeout of {policy.timeout_s:g} s and "
                "was stopped; nothing of it was kept.",
                hint=f"Call {spec.name} again later; if it times out again, narrow the request "
                f"(or declare the {EXTENSION} extension to run it as a task).",
            ),
            "",
        )
        return tool_result(outcome)

    def _check(ctx: ServerRequestContext[Any], params: TaskParams, method: str) -> None:
        request = ctx.request
        headers = getattr(request, "headers", None)
        # SEP-2663 puts the task id in Mcp-Name so intermediaries can route on it; a header that
        # disagrees with the body is refused like any other routing-header mismatch.
        if (
            headers is not None
            and ctx.protocol_version in MODERN_PROTOCOL_VERSIONS
            and decode_header_value(headers.get(MCP_NAME_HEADER)) != params.task_id
        ):
            raise MCPError(
                code=HEADER_MISMATCH,
                message=f"{MCP_NAME_HEADER} header does not match params.taskId",
            )
        if not declares_extension(ctx):
            raise _missing_extension(method)

    def _unknown(task_id: str) -> MCPError:
        return resource_failure(
            contract,
            ResourceError(
                "not_found",
                f"No task {task_id!r} exists for this caller.",
                hint='Task ids come from a tools/call answered with resultType "task"; call '
                "the tool again to start a new task.",
            ),
            None,
            rpc=INVALID_PARAMS,
        )

    async def _owned(task_id: str, principal: Principal) -> None:
        row = await runner.tasks.get(task_id, principal.id)
        if row is None or row.tool not in runner.task_tools:
            raise _unknown(task_id)

    async def _current(task_id: str, principal: Principal) -> TaskRow:
        tasks = runner.tasks
        row = await tasks.get(task_id, principal.id)
        if row is None or row.tool not in runner.task_tools:
            raise _unknown(task_id)
        if not row.terminal and row.lease_until < tasks.clock():
            # Its worker died: decide now (run again or fail), so the answer says which.
            await runner.recover(task_id)
            row = await tasks.get(task_id, principal.id) or row
        return row

    async def get_task(ctx: ServerRequestContext[Any], params: TaskParams) -> dict[str, Any]:
        _check(ctx, params, "tasks/get")
        runner.ensure_sweeper()
        row = await _current(params.task_id, caller(ctx))
        if row.terminal and row.expires_at < runner.tasks.clock():
            repair = None
            spec = contract.tools.get(row.tool)
            if spec is not None and callable_repair(
                contract, Repair(row.tool, row.arguments, "run_again")
            ):
                repair = Repair(row.tool, row.arguments, "run_again")
            raise resource_failure(
                contract,
                ResourceError(
                    "task_expired",
                    f"Task {row.task_id!r} finished at {iso(row.updated_at)} and its result was "
                    f"kept until {iso(row.expires_at)}; it is gone now.",
                    hint=f"Call {row.tool} again to run the work anew (the call in `repair`).",
                    repair=repair,
                ),
                None,
                rpc=INVALID_PARAMS,
            )
        return {"resultType": "complete", **task_wire(row, detailed=True)}

    async def update_task(ctx: ServerRequestContext[Any], params: UpdateParams) -> dict[str, Any]:
        _check(ctx, params, "tasks/update")
        await _owned(params.task_id, caller(ctx))
        row = await runner.tasks.answer(params.task_id, caller(ctx).id, params.input_responses)
        if row is None:
            raise _unknown(params.task_id)
        runner.wake(params.task_id)
        return {"resultType": "complete"}

    async def cancel_task(ctx: ServerRequestContext[Any], params: TaskParams) -> dict[str, Any]:
        _check(ctx, params, "tasks/cancel")
        await _owned(params.task_id, caller(ctx))
        row = await runner.tasks.request_cancel(params.task_id, caller(ctx).id)
        if row is None:
            raise _unknown(params.task_id)
        # Here at once; on another worker at its next look at the row (watch interval).
        runner.cancel_local(params.task_id)
        return {"resultType": "complete"}

    def guarded(handler: Any, method: str) -> Any:
        async def answer(ctx: ServerRequestContext[Any], params: Any) -> dict[str, Any]:
            try:
                await runner.prepare()
                result: dict[str, Any] = await handler(ctx, params)
            except StoreUnavailableError as down:
                # The rows are out of reach for now: a temporary error, never a made-up state.
                raise resource_failure(
                    contract,
                    ResourceError(
                        "unavailable",
                        f"The task store is unavailable right now, so {method} could not be "
                        "answered.",
                        hint=f"Send {method} again after {down.outcome.retry_after_ms} ms.",
                    ),
                    None,
                ) from None
            return result

        return answer

    install_listen(
        server,
        runner,
        caller=caller,
        declares_extension=declares_extension,
        missing_extension=_missing_extension,
        task_wire=task_wire,
    )
    server.add_request_handler("tools/call", types.CallToolRequestParams, call_tool)
    server.add_request_handler("tasks/get", TaskParams, guarded(get_task, "tasks/get"))
    server.add_request_handler("tasks/update", UpdateParams, guarded(update_task, "tasks/update"))
    server.add_request_handler("tasks/cancel", TaskParams, guarded(cancel_task, "tasks/cancel"))
    return runner
