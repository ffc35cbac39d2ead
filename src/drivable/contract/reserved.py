"""The fields the runtime adds beside a tool's own in every outputSchema (`tool.output_schema_of`):
what lenient reading repaired, the traps the call fell into, the entries set aside, and why a
result is not what the call asked for with the call to make next. A tool may not declare them.
"""

from __future__ import annotations

from typing import Any

from drivable.contract.echo import NEXT_CALL_SCHEMA
from drivable.contract.envelope import ISSUE_SCHEMA

__all__ = [
    "HINT_SCHEMA",
    "MESSAGE_SCHEMA",
    "NEXT_CALL_SCHEMA",
    "NOTES_SCHEMA",
    "REJECTED_SCHEMA",
    "RESERVED_FIELDS",
    "WARNINGS_SCHEMA",
]

# The output fields a tool may not declare: the runtime's own (and a dry run's confirm_token,
# which rides inside next_call).
RESERVED_FIELDS = ("message", "hint", "notes", "warnings", "rejected", "confirm_token", "next_call")

NOTES_SCHEMA: dict[str, Any] = {
    "type": "array",
    "items": {"type": "string"},
    "description": "How lenient reading repaired the arguments ('Read X as Y.'). Present when non-empty.",
}
MESSAGE_SCHEMA: dict[str, Any] = {
    "type": "string",
    "description": "Why this result is not what the call asked for (an empty page under filters). Present then.",
}
HINT_SCHEMA: dict[str, Any] = {
    "type": "string",
    "description": "What to do about it, naming the call in next_call. Present with message.",
}
WARNINGS_SCHEMA: dict[str, Any] = {
    "type": "array",
    "description": "Known traps the call probably fell into, with closed codes. Present when non-empty.",
    "items": {
        "type": "object",
        "additionalProperties": False,
        "required": ["code", "message"],
        "properties": {
            "code": {"type": "string"},
            "message": {"type": "string"},
            "path": {"type": "string"},
        },
    },
}


REJECTED_SCHEMA: dict[str, Any] = {
    "type": "array",
    "description": "Entries of a collection that were not applied, each with its issues; the valid entries were applied. Present when non-empty.",
    "items": {
        "type": "object",
        "additionalProperties": False,
        "required": ["path", "index", "issues"],
        "properties": {
            "path": {"type": "string"},
            "index": {"type": "integer", "minimum": 0},
            "issues": {"type": "array", "items": ISSUE_SCHEMA},
        },
    },
}
