"""Stage: the arguments are one JSON object within the contract's inline bound."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from drivable.contract.envelope import Envelope
from drivable.contract.stages.base import Attempt, Refused

# Built once: `json.dumps` with options builds a new encoder on every call (a third of its cost).
_SIZE_ENCODER = json.JSONEncoder(ensure_ascii=False, default=str)


def size_of(raw: Mapping[str, Any]) -> int:
    """The arguments' size in bytes of JSON (0 when they cannot be encoded)."""
    try:
        return len(_SIZE_ENCODER.encode(raw).encode())
    except (TypeError, ValueError):
        return 0


def bound_size(attempt: Attempt) -> None:
    """Refuse arguments that are not an object, or larger than `contract.max_inline_bytes`."""
    name, raw = attempt.name, attempt.raw
    if not isinstance(raw, Mapping):
        raise Refused(
            Envelope(
                "invalid_arguments",
                f"The arguments of {name} must be a JSON object.",
                hint=f"Call {name} with an object of named arguments, as its inputSchema shows.",
            )
        )
    limit = attempt.contract.max_inline_bytes
    size = size_of(raw)
    if size > limit:
        raise Refused(
            Envelope(
                "payload_too_large",
                f"The arguments of {name} are {size} bytes; the inline limit is {limit} bytes.",
                hint=(
                    "Pass a reference instead of inline content: the id or URI of something "
                    "already stored, as the tool's description says."
                ),
                details={"limit_bytes": limit, "received_bytes": size},
            )
        )
