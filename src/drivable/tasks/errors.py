"""The error codes long-running work adds to a contract that declares task tools.

They are domain codes of the tasks package (registered on the contract by `drivable.tasks.install`),
each with one recovery class, like every code in `drivable.contract.codes`.
"""

from __future__ import annotations

from drivable.contract.codes import Code, Recovery

TASK_CODES: tuple[Code, ...] = (
    Code(
        "task_timeout",
        Recovery.RETRY_LATER,
        "The work ran longer than the tool's declared timeout and was stopped; nothing of it was "
        "kept. Retry once later; if it times out again, narrow the request.",
        temporary=True,
    ),
    Code(
        "task_expired",
        Recovery.REREAD_STATE,
        "The task finished longer ago than its result is kept (ttlMs), so the result is gone. "
        "Call the tool in `repair` again to run the work anew.",
    ),
    Code(
        "worker_lost",
        Recovery.RETRY_LATER,
        "The server process running the task stopped before the task finished, and the tool is "
        "not one that may run twice by itself. Call the tool again (with the same idempotency_key "
        "if it has one: an effect that was applied is not applied again).",
        temporary=True,
    ),
)
