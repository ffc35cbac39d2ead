"""Taking over a task whose worker died (its lease ran out): run it again or fail it, as the tool's
declaration says (`LongRunning.on_worker_lost`), and say which in the status message.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from mcp_types import INTERNAL_ERROR

from drivable.contract import Envelope
from drivable.contract.envelope import rpc_data
from drivable.contract.long_running import LongRunning
from drivable.tasks.store import FORGET_AFTER_S, TaskRow

if TYPE_CHECKING:
    from drivable.tasks.runner import TaskRunner

log = logging.getLogger("drivable.tasks")


async def take_over(runner: TaskRunner, task_id: str) -> TaskRow | None:
    """Claim an abandoned task for this worker and settle it: cancelled if the client asked,
    started again if the tool may run twice and has attempts and time left, else failed. None
    when someone else took it, or it is another server's task."""
    seen = await runner.tasks.get(task_id)
    if seen is None or seen.tool not in runner.task_tools:
        return None  # another server's task (sharing the database): not ours to decide
    claimed = await runner.tasks.take_over(task_id, runner.owner, runner.lease_s)
    if claimed is None:
        return None
    spec = runner.contract.tools.get(claimed.tool)
    policy = spec.task if spec is not None else None
    keep = policy.keep_s if isinstance(policy, LongRunning) else 3_600.0
    if claimed.cancel_requested:
        await runner.tasks.finish(
            task_id,
            runner.owner,
            status="cancelled",
            status_message="Cancelled at the client's request; the worker running it had "
            "stopped, so the work did not finish and nothing of it was kept.",
            keep_s=keep,
            forget_s=FORGET_AFTER_S,
        )
        return claimed
    now = runner.tasks.clock()
    if (
        spec is not None
        and isinstance(policy, LongRunning)
        and policy.on_worker_lost == "restart"
        and claimed.attempt <= policy.max_attempts
        and now < claimed.deadline_at
    ):
        message = (
            "The worker running this task stopped; the work started again from the "
            f"beginning on another worker (attempt {claimed.attempt} of {policy.max_attempts})."
        )
        await runner.tasks.restart(task_id, runner.owner, message)
        log.info("restarted an abandoned task (tool=%s, attempt=%d)", claimed.tool, claimed.attempt)
        runner.start(claimed)
        return claimed
    reason = (
        "it may not run twice by itself"
        if not isinstance(policy, LongRunning) or policy.on_worker_lost == "fail"
        else "it had used all its attempts or its time"
    )
    envelope = _envelope(
        runner,
        "worker_lost",
        f"The worker running {claimed.tool} stopped before the task finished; it was not "
        f"run again because {reason}.",
        f"Call {claimed.tool} again"
        + (
            " with the same idempotency_key (an effect already applied is not applied again)."
            if claimed.idem_key
            else "."
        ),
        claimed.task_id,
    )
    await runner.tasks.finish(
        task_id,
        runner.owner,
        status="failed",
        status_message=envelope["human_message"]
        + " This failure is temporary: "
        + envelope["hint"],
        error={"code": INTERNAL_ERROR, "message": envelope["human_message"], "data": envelope},
        keep_s=keep,
        forget_s=FORGET_AFTER_S,
    )
    log.info("failed an abandoned task (tool=%s)", claimed.tool)
    return claimed


def _envelope(runner: TaskRunner, code: str, message: str, hint: str, rid: str) -> dict[str, Any]:
    """The contract's error envelope for a code, as a JSON-RPC error's `data` carries it."""
    return rpc_data(runner.contract.finish(Envelope(code, message, hint=hint), rid).structured)
