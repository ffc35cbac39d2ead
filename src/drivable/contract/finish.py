"""The one finalizer of the envelope: every transport and every failure finishes it here.

A stage, a handler, a resource read, the HTTP layer (401, 413) each say *what* went wrong
(`Envelope(code, message, hint, issues, repair, details)`); `finish` adds what the registry and the
server decide, the same way everywhere: the code must be registered (else `internal_error`),
`temporary` comes from the code, a temporary code gets `retry_after_ms` (the caller's, else
`DEFAULT_RETRY_AFTER_MS`) and a permanent one none, one request id format, the fingerprint.

A refusal to retry later names its next call like every other: the same call, as `repair`
(`retry_repair`), so no client has to rebuild it from the hint. (Replayed with the 1.5B model after
a forced `unavailable`: 8 of 10 resent with the repair and 8 of 10 without; the same two seeds
answered in prose either way.)
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from drivable.contract.codes import ERROR_CODES, Code, Recovery
from drivable.contract.envelope import Envelope, Repair
from drivable.contract.validation import callable_repair

if TYPE_CHECKING:
    from drivable.contract.runtime import Contract
    from drivable.contract.tool import ToolSpec

DEFAULT_RETRY_AFTER_MS = 1000


def request_id() -> str:
    """A fresh request id (16 hex digits): what a user quotes to the operator."""
    return os.urandom(8).hex()


def finish(
    envelope: Envelope,
    *,
    request_id: str,
    codes: Mapping[str, Code] = ERROR_CODES,
    fingerprint: str | None = None,
) -> Envelope:
    """`envelope` finished in place (and returned). An unregistered code becomes
    `internal_error`, keeping nothing of the original message."""
    code = codes.get(envelope.code)
    if code is None:
        envelope.code = "internal_error"
        envelope.message = "The call failed unexpectedly on the server."
        envelope.hint = (
            "Call the tool once more with the same arguments; if it fails again, stop and tell "
            f"the user, quoting request_id {request_id} for the operator."
        )
        envelope.issues, envelope.repair, envelope.details = [], None, {}
        code = codes.get("internal_error", ERROR_CODES["internal_error"])
    envelope.temporary = code.temporary
    if not code.temporary:
        envelope.retry_after_ms = None
    elif envelope.retry_after_ms is None:
        envelope.retry_after_ms = DEFAULT_RETRY_AFTER_MS
    envelope.request_id = request_id
    envelope.fingerprint = fingerprint
    return envelope


RESEND = "resend_the_same_call_after_retry_after_ms"
# A failure the server cannot explain is retried once at most (its hint says so, then "stop and
# tell the user"); a repair would be followed every time, so internal_error names none.
NOT_RESENT = frozenset({"internal_error"})


def retry_repair(
    contract: Contract, code: Code, tool: ToolSpec, arguments: Mapping[str, Any]
) -> Repair | None:
    """The same call again, for a code whose recovery is to retry later; None for any other code
    and when the arguments do not validate. Resending is safe for every tool a contract holds:
    it reads, or is idempotent, or requires an idempotency_key whose duplicate replays its
    receipt and never runs twice (`check_effect_inputs` refuses any other tool)."""
    if code.recovery is not Recovery.RETRY_LATER or code.id in NOT_RESENT:
        return None
    repair = Repair(tool.name, dict(arguments), RESEND)
    return repair if callable_repair(contract, repair) else None
