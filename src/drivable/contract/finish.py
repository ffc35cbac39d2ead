"""The one finalizer of the envelope: every transport and every failure finishes it here.

A stage, a handler, a resource read, the HTTP layer (401, 413) each say *what* went wrong
(`Envelope(code, message, hint, issues, repair, details)`); `finish` adds what the registry and the
server decide, the same way everywhere: the code must be registered (else `internal_error`),
`temporary` comes from the code, a temporary code gets `retry_after_ms` (the caller's, else
`DEFAULT_RETRY_AFTER_MS`) and a permanent one none, one request id format, the fingerprint.
"""

from __future__ import annotations

import os
from collections.abc import Mapping

from drivable.contract.codes import ERROR_CODES, Code
from drivable.contract.envelope import Envelope

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
