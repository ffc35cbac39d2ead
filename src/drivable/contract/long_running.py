"""How a tool declares long-running work: `Contract.tool(..., task=LongRunning(...))`.

The declaration is the author's decision, not a guess at call time ([7.execution-mode]): whether the
tool may answer with a task (`optional`) or only with one (`required`), how long it usually takes
(a duration class, which sets the poll interval a client is told to use), how long it may run before
the server stops it, how long a finished result is kept, and what happens when the worker running it
dies (run it again elsewhere, or report a temporary failure). A contract that declares one adds
`TASK_CODES` to its codes. The extension itself is served by `drivable.serve.tasks`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from drivable.contract.client import Request
from drivable.contract.codes import Code, Recovery

Support = Literal["optional", "required"]
Duration = Literal["seconds", "minutes", "hours"]
OnWorkerLost = Literal["restart", "fail"]

# The poll interval a client is told per duration class: often enough that a model does not wait
# long after the work ends, rarely enough that polls cost little next to the work.
POLL_INTERVAL_MS: dict[Duration, int] = {"seconds": 1_000, "minutes": 5_000, "hours": 30_000}


class TaskDeclarationError(ValueError):
    """A task declaration that cannot be served as written (raised when the tool is declared)."""


@dataclass(frozen=True)
class LongRunning:
    """A tool that may take long enough to answer with a task handle instead of blocking.

    `support`: "optional" runs as a task for clients that declared the tasks extension and blocks
    (with progress) for the others; "required" refuses clients without the extension (-32021).
    `timeout_s`: the work is stopped after this long, in a task or blocking; the answer says so.
    `keep_s`: how long a finished task's result stays readable through tasks/get.
    `on_worker_lost`: "restart" runs the work again on another worker (only for read-only or keyed
    tools, whose repetition changes nothing), "fail" reports a temporary failure.
    `max_attempts`: how many times a task may start in all (restarts included).
    `asks_first`: questions answered before the task starts (`{key: Elicit(...)}`, as the handler
    asks them with `call.client.ask(key, ...)`): on the 2026-07-28 wire the call answers with
    input-required rounds first and starts the task once they are answered; the handler finds
    the answers where it asks, restarts included.
    """

    duration: Duration
    timeout_s: float
    support: Support = "optional"
    keep_s: float = 3_600.0
    on_worker_lost: OnWorkerLost = "fail"
    max_attempts: int = 3
    poll_interval_ms: int | None = None
    asks_first: Mapping[str, Request] = field(default_factory=dict, hash=False)

    def __post_init__(self) -> None:
        if self.duration not in POLL_INTERVAL_MS:
            raise TaskDeclarationError(
                f"duration must be one of {sorted(POLL_INTERVAL_MS)}, not {self.duration!r}"
            )
        if self.support not in ("optional", "required"):
            raise TaskDeclarationError("support must be 'optional' or 'required'")
        if not self.timeout_s > 0 or not self.keep_s > 0:
            raise TaskDeclarationError("timeout_s and keep_s must be positive")
        if self.on_worker_lost not in ("restart", "fail"):
            raise TaskDeclarationError("on_worker_lost must be 'restart' or 'fail'")
        if self.max_attempts < 1:
            raise TaskDeclarationError("max_attempts must be at least 1")
        if self.poll_interval_ms is not None and self.poll_interval_ms < 1:
            raise TaskDeclarationError("poll_interval_ms must be a positive integer")

    @property
    def poll_ms(self) -> int:
        return self.poll_interval_ms or POLL_INTERVAL_MS[self.duration]

    def check_for(self, tool: str, *, read_only: bool, keyed: bool) -> None:
        """Restarting is honest only when running the work twice changes nothing."""
        if self.on_worker_lost == "restart" and not (read_only or keyed):
            raise TaskDeclarationError(
                f"tool {tool!r}: on_worker_lost='restart' needs a read-only tool or one with a "
                "required idempotency_key (a second run must not apply the effect twice)"
            )

    def duration_sentence(self) -> str:
        """How long it runs, for its description ([7.declare-duration]; `task-duration`)."""
        return f"Long-running (usually {self.duration}); stopped after {_span(self.timeout_s)}."

    def protocol_sentence(self) -> str:
        """How a client runs it as a task (`task-protocol`; `_meta` says it to clients too)."""
        if self.support == "required":
            mode = (
                "It always runs as a task: the client must declare the io.modelcontextprotocol/tasks "
                "extension; the call returns a task id to poll with tasks/get."
            )
        else:
            mode = (
                "With the io.modelcontextprotocol/tasks extension it returns a task id to poll with "
                "tasks/get; without it the call blocks and reports progress."
            )
        return f"{mode} A finished task's result is kept for {_span(self.keep_s)}."

    def to_meta(self) -> dict[str, Any]:
        return {
            "support": self.support,
            "duration": self.duration,
            "timeout_ms": int(self.timeout_s * 1000),
            "result_ttl_ms": int(self.keep_s * 1000),
            "poll_interval_ms": self.poll_ms,
            "on_worker_lost": self.on_worker_lost,
            **({"asks_first": sorted(self.asks_first)} if self.asks_first else {}),
        }


def _span(seconds: float) -> str:
    if seconds < 120:
        return f"{seconds:g} s"
    if seconds < 7_200:
        return f"{seconds / 60:g} min"
    return f"{seconds / 3_600:g} h"


# The error codes long-running work adds, each with one recovery class like every code in
# `drivable.contract.codes`.
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
