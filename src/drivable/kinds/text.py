"""text: free text in an optional property. Only absence and bounds apply; the words are the caller's."""

from __future__ import annotations

from typing import Any

from drivable.kinds._reading import Reading
from drivable.kinds._registry import NOT_CANONICAL, Options, kind
from drivable.kinds.absence import placeholder_of


def _schema(options: Options) -> dict[str, Any]:
    return {"type": "string", "minLength": 1}


def _canonical(value: Any, options: Options) -> Any:
    """Text with nothing to trim and no placeholder: itself, without a Reading. Text is bounded
    by its field alone (its max_length, checked on the value read), never by the kinds."""
    if (
        type(value) is str
        and value
        and not value[0].isspace()
        and not value[-1].isspace()
        and placeholder_of(value) is None
    ):
        return value
    return NOT_CANONICAL


@kind("text", schema=_schema, expected="a non-empty string", canonical=_canonical, max_chars=None)
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
