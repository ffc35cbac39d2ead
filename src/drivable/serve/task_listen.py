"""Task status pushes: `notifications/tasks` on a `subscriptions/listen` stream (SEP-2663).

A client lists the task ids it wants to follow under `notifications.taskIds`; the stream answers
with the acknowledgement naming the ids it honours (the caller's own, existing tasks), then one
`notifications/tasks` per change of a task (status or last update), each a complete DetailedTask
as tasks/get would answer it, and ends (with the listen result) once every followed task reached a
terminal state. The rows are read from the store, so a stream opened on any worker sees every
change, whichever worker runs the task. Polling stays authoritative: a push is a convenience.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Literal

import anyio
import mcp_types as types
from mcp.server.context import ServerRequestContext
from mcp.server.lowlevel import Server
from mcp.shared.exceptions import MCPError
from mcp.shared.subscriptions import SUBSCRIPTION_ID_META_KEY
from mcp_types import INVALID_REQUEST

from drivable.contract import Principal
from drivable.tasks.runner import TaskRunner
from drivable.tasks.store import TaskRow

# A stream follows at most this many tasks (the rest are not acknowledged).
MAX_FOLLOWED = 100


class TaskStatusNotification(types.Notification[dict[str, Any], Literal["notifications/tasks"]]):
    method: Literal["notifications/tasks"] = "notifications/tasks"
    params: dict[str, Any]


def install_listen(
    server: Server[Any],
    runner: TaskRunner,
    *,
    caller: Callable[[ServerRequestContext[Any]], Principal],
    declares_extension: Callable[[ServerRequestContext[Any]], bool],
    missing_extension: Callable[[str], MCPError],
    task_wire: Callable[..., dict[str, Any]],
) -> None:
    """Serve task ids on subscriptions/listen; other subscriptions go to the handler registered
    before (if any)."""
    existing = server.get_request_handler("subscriptions/listen")

    async def listen(
        ctx: ServerRequestContext[Any], params: types.SubscriptionsListenRequestParams
    ) -> Any:
        extra = params.notifications.model_extra or {}
        wanted = extra.get("taskIds")
        if not wanted and existing is not None:
            return await existing.handler(ctx, params)
        if wanted and not declares_extension(ctx):
            raise missing_extension("task status notifications")
        subscription_id = ctx.request_id
        if subscription_id is None:
            raise MCPError(INVALID_REQUEST, "subscriptions/listen requires a request id")
        await runner.prepare()
        principal = caller(ctx)
        meta: dict[str, Any] = {SUBSCRIPTION_ID_META_KEY: subscription_id}
        ids = [i for i in (wanted or []) if isinstance(i, str)][:MAX_FOLLOWED]
        followed: list[str] = []
        for task_id in ids:
            # Another caller's id is not acknowledged, exactly like an unknown one.
            found = await runner.tasks.get(task_id, principal.id)
            if found is not None and found.tool in runner.task_tools:
                followed.append(task_id)
        await ctx.session.send_notification(
            types.SubscriptionsAcknowledgedNotification(
                params=types.SubscriptionsAcknowledgedNotificationParams(
                    notifications=types.SubscriptionFilter.model_validate({"taskIds": followed}),
                    _meta=meta,
                )
            ),
            related_request_id=subscription_id,
        )
        seen: dict[str, tuple[str, float]] = {}
        pending = list(followed)
        while pending:
            for task_id in list(pending):
                row: TaskRow | None = await runner.tasks.get(task_id, principal.id)
                if row is None:
                    pending.remove(task_id)
                    continue
                stamp = (row.status, row.updated_at)
                if seen.get(task_id) != stamp:
                    seen[task_id] = stamp
                    pushed = {**task_wire(row, detailed=True), "_meta": meta}
                    await ctx.session.send_notification(
                        TaskStatusNotification(params=pushed),  # type: ignore[arg-type]
                        related_request_id=subscription_id,
                    )
                if row.terminal:
                    pending.remove(task_id)
            if pending:
                await anyio.sleep(runner.watch_s)
        return types.SubscriptionsListenResult(_meta=meta)

    server.add_request_handler(
        "subscriptions/listen", types.SubscriptionsListenRequestParams, listen
    )
