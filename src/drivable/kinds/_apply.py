"""A reading applied to a pydantic field: its value, its default, or the error that asks.

Apart from the seam (`_pydantic`) so that `Kind`, which the seam imports, can apply a reading
without importing the seam back.
"""

from __future__ import annotations

from typing import Any

from pydantic_core import PydanticCustomError, PydanticUseDefault

from drivable.kinds._reading import Reading, jsonable

NOTES_KEY = "drivable.notes"
WARNINGS_KEY = "drivable.warnings"


def apply_reading(reading: Reading, field_name: str | None, context: dict[str, Any] | None) -> Any:
    """Turn a reading into the field's value, or into a validation error carrying the question."""
    if context is not None:
        prefix = f"{field_name}: " if field_name else ""
        notes = context.setdefault(NOTES_KEY, [])
        notes.extend(prefix + n for n in reading.notes)
        warnings = context.setdefault(WARNINGS_KEY, [])
        warnings.extend(
            {"code": w.code, "message": w.message, "path": field_name or ""}
            for w in reading.warnings
        )
    if reading.outcome == "value":
        return reading.value
    if reading.outcome == "absent":
        raise PydanticUseDefault()
    ctx: dict[str, Any] = {
        "received": jsonable(reading.received),
        "expected": reading.expected,
        "hint": reading.hint,
    }
    message = reading.hint or f"Expected {reading.expected}."
    if reading.outcome == "ask":
        ctx["readings"] = [jsonable(r) for r in reading.readings]
    raise PydanticCustomError(
        reading.code or "invalid_value", message.replace("{", "(").replace("}", ")"), ctx
    )
