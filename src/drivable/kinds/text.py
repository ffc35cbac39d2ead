"""text: free text in an optional property. Only absence and bounds apply; the words are the caller's."""

from __future__ import annotations

from typing import Any

from drivable.kinds._reading import Reading
from drivable.kinds._registry import Options, kind


def _schema(options: Options) -> dict[str, Any]:
    return {"type": "string", "minLength": 1}


@kind("text", schema=_schema, expected="a non-empty string")
def read_text(value: Any, options: Options) -> Reading:
    if not isinstance(value, str):
        return Reading.invalid(
            value,
            expected="a string",
            hint="Send this property as a JSON string.",
            code="invalid_text",
        )
    stripped = value.strip()
    if stripped != value:
        return Reading.of(stripped)
    return Reading.of(value)
