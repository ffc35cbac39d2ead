"""§7 Long-Running Operations: the rules a reviewer decides (9), each with the question they answer."""

from __future__ import annotations

from drivable.audit.rules.declare import Rules

RULES = Rules()

RULES.declare(
    "7.execution-mode",
    "Choose blocking / progress / task deliberately.",
    "c",
    question="Was blocking, progress or a task chosen deliberately for each slow operation?",
)
RULES.declare(
    "7.progress-token",
    "Honour `progressToken`; rate-limited progress on the originating stream; then `statusMessage`.",
    "b",
    question="Does the server honour `progressToken` with rate-limited progress on the originating stream?",
)
RULES.declare(
    "7.cancellation",
    "HTTP: stream close; stdio: `notifications/cancelled`; tasks only `tasks/cancel` (empty ack, cooperative).",
    "b",
    question="Does cancellation work (stream close over HTTP, `notifications/cancelled` on stdio, `tasks/cancel` for tasks)?",
)
RULES.declare(
    "7.task-operations",
    "`tasks/get` (honour `pollIntervalMs`), `tasks/update`, `tasks/cancel`; durable before reply; Mcp-Name = taskId.",
    "b",
    question="Do `tasks/get`, `tasks/update` and `tasks/cancel` work, durably, with `pollIntervalMs` honoured?",
)
RULES.declare(
    "7.failed-task",
    "`failed` only for JSON-RPC errors; tool `isError` → `completed`; say so in summary.",
    "b+c",
    question="Is `failed` used only for JSON-RPC errors, a tool's `isError` ending as `completed`, and is that said in the summary?",
)
RULES.declare(
    "7.status-notification",
    "`notifications/tasks` optional push; polling authoritative.",
    "b+c",
    question="Is polling authoritative, with `notifications/tasks` only as an optional push?",
)
RULES.declare(
    "7.input-required",
    "`tasks/get` carries `inputRequests`, answer via `tasks/update`; document mechanism and no-answer outcome.",
    "b+c",
    question="Are input requests carried by `tasks/get` and answered through `tasks/update`, with the no-answer outcome documented?",
)
RULES.declare(
    "7.task-handles",
    "taskIds: high entropy, authz each call, `ttlMs` retention documented.",
    "b+c",
    question="Are task ids high-entropy, authorised on each call, with their retention documented?",
)
RULES.declare(
    "7.task-fallback",
    "Labelled domain status/cancel tools for clients without the extension.",
    "a+c",
    question="Do clients without the tasks extension get labelled status and cancel tools?",
)
