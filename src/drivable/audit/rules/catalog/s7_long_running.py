"""§7 Long-Running Operations: 11 rule ids, one line of requirement each."""

from __future__ import annotations

ROWS: tuple[tuple[str, str, str], ...] = (
    ("7.execution-mode", "Choose blocking / progress / task deliberately.", "c"),
    (
        "7.declare-duration",
        "Describe duration, timeout, progress, and when a task may be returned.",
        "a+c",
    ),
    (
        "7.progress-token",
        "Honour `progressToken`; rate-limited progress on the originating stream; then `statusMessage`.",
        "b",
    ),
    (
        "7.cancellation",
        "HTTP: stream close; stdio: `notifications/cancelled`; tasks only `tasks/cancel` (empty ack, cooperative).",
        "b",
    ),
    (
        "7.task-support",
        "Tasks only for requests declaring the extension + server advertising it; else never; can't proceed → -32021.",
        "a+b",
    ),
    (
        "7.task-operations",
        "`tasks/get` (honour `pollIntervalMs`), `tasks/update`, `tasks/cancel`; durable before reply; Mcp-Name = taskId.",
        "b",
    ),
    (
        "7.failed-task",
        "`failed` only for JSON-RPC errors; tool `isError` → `completed`; say so in summary.",
        "b+c",
    ),
    ("7.status-notification", "`notifications/tasks` optional push; polling authoritative.", "b+c"),
    (
        "7.input-required",
        "`tasks/get` carries `inputRequests`, answer via `tasks/update`; document mechanism and no-answer outcome.",
        "b+c",
    ),
    (
        "7.task-handles",
        "taskIds: high entropy, authz each call, `ttlMs` retention documented.",
        "b+c",
    ),
    (
        "7.task-fallback",
        "Labelled domain status/cancel tools for clients without the extension.",
        "a+c",
    ),
)
