"""Stage: run the author's handler, and turn what it raised into the envelope.

`ToolError` keeps the handler's code, hint and repair (the code must be registered, the repair
must validate against its tool); the store being down is `unavailable`; anything else is
`internal_error` with a request id and nothing of the exception.
"""

from __future__ import annotations

import logging
from typing import Any

from drivable.contract import boundary
from drivable.contract.call import Call
from drivable.contract.codes import Recovery
from drivable.contract.durable import unavailable_envelope
from drivable.contract.envelope import Envelope, ToolError
from drivable.contract.stages.base import Attempt, StageContext
from drivable.contract.strict import StrictError
from drivable.contract.validation import callable_repair
from drivable.effects import StoreUnavailableError
from drivable.effects.backend import READING

log = logging.getLogger("drivable.contract")


async def invoke(attempt: Attempt) -> Any:
    """The handler's own result (a model instance or a mapping; shaped by `shaping`)."""
    return await invoke_with(attempt, attempt.args, attempt.context)


async def invoke_with(attempt: Attempt, args: Any, call: Call) -> Any:
    """The handler run on `args` and `call` (a scratch context when the runtime runs a read-only
    tool again, `relaxing`). A read-only tool's store transactions read without taking SQLite's
    write lock (`READING`)."""
    spec = attempt.tool
    if not spec.effects.read_only:
        return await spec.handler(args, call)
    token = READING.set(True)
    try:
        return await spec.handler(args, call)
    finally:
        READING.reset(token)


def failure_envelope(attempt: Attempt, failure: Exception) -> Envelope:
    """The envelope for an exception that escaped the handler (or the effect around it)."""
    name = attempt.name
    if isinstance(failure, ToolError):
        return domain_error(attempt.contract, name, failure, attempt.request_id)
    if isinstance(failure, StoreUnavailableError):
        return unavailable_envelope(name, failure.outcome)
    # the exception's types and frames, never its message (messages quote values)
    boundary.log_failure(
        log, "tool %s failed (request_id=%s)", name, attempt.request_id, failure=failure
    )
    return internal_error(name, attempt.request_id)


def internal_error(name: str, request_id: str) -> Envelope:
    subject = f"{name} failed" if name else "The call failed"
    return Envelope(
        "internal_error",
        f"{subject} unexpectedly on the server.",
        hint=(
            f"Call {name or 'the tool'} once more with the same arguments; if it fails "
            f"again, stop and tell the user, quoting request_id {request_id} for the operator."
        ),
    )


def domain_error(
    contract: StageContext, name: str, failure: ToolError, request_id: str
) -> Envelope:
    if failure.code not in contract.codes:
        if contract.strict:
            raise StrictError(
                f"{name} raised the unregistered code {failure.code!r}: register it with "
                "Contract(domain_codes=[Code(...)]) or raise a registered one"
            )
        log.error("tool %s raised unregistered code %r (%s)", name, failure.code, request_id)
        return internal_error(name, request_id)
    repair = failure.repair
    if repair is not None and not callable_repair(contract, repair):
        if contract.strict:
            raise StrictError(
                f"{name} offered a repair calling {repair.tool} with arguments that do not "
                "validate against it: fix the repair's tool or arguments"
            )
        log.error("tool %s offered a repair that does not validate (%s)", name, request_id)
        repair = None
    hint = failure.hint
    code = contract.codes[failure.code]
    url = contract.settings_url
    if code.recovery is Recovery.ASK_USER and url and url not in hint:
        hint = f"{hint} A person can change this at {url}."
    return Envelope(
        failure.code,
        failure.message,
        hint=hint,
        issues=list(failure.issues),
        repair=repair,
        retry_after_ms=failure.retry_after_ms,
        details=failure.details,
    )
