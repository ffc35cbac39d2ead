"""Stages: the arguments are one JSON object that every backend can keep (`drivable.contract.boundary`).

`bound_size` runs first, before the tool is even looked up: nesting, size, text without NUL or
unpaired surrogates, integers within 64 bits. `bound_read` checks what the lenient readers
produced from them (text read as a too-large integer).
"""

from __future__ import annotations

from collections.abc import Mapping

from drivable.contract import boundary
from drivable.contract.envelope import Envelope
from drivable.contract.stages.base import Attempt, Refused


def bound_size(attempt: Attempt) -> None:
    """Refuse arguments that are not an object, or that the boundary refuses."""
    name, raw = attempt.name, attempt.raw
    if type(raw) is not dict and not isinstance(raw, Mapping):  # the ABC check only off the wire
        raise Refused(
            Envelope(
                "invalid_arguments",
                f"The arguments of {name} must be a JSON object.",
                hint=f"Call {name} with an object of named arguments, as its inputSchema shows.",
            )
        )
    refused = boundary.refusal(boundary.safe_text(name), raw, attempt.contract.max_inline_bytes)
    if refused is not None:
        raise Refused(refused)


def bound_read(attempt: Attempt) -> None:
    """Refuse a validated input whose numbers a reader produced outside the stored range."""
    refused = boundary.check_validated(attempt.name, attempt.args)
    if refused is not None:
        raise Refused(refused)
