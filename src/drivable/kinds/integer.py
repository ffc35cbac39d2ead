"""integer: a whole number in every spelling `number` reads, and page sizes that clamp into bounds.

Spellings are read by `number`'s one parser ("4 000", "1.234.567", "1e3", "10.0"); the result must
be integral ("10.5" is refused, never rounded). A bare "1,234" has two readings, 1234 and 1.234; only
the ones the field accepts (whole, within its bounds) are offered: here 1.234 is not whole, so it
reads as 1234 with a note naming the other reading. "1,000" with a maximum of 500 is refused naming
both; a number field with no bounds still asks.

Bounds: by default a value outside [minimum, maximum] is refused naming the bounds. With
`clamp=True` (bound by name for limit, page_size, per_page, ...) it is clamped into them with a
note, "Read 500 as 100, the largest page size.", because a page size beyond the largest is a request
for as much as the server gives, not an error worth a round trip.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Annotated, Any

from drivable.kinds._kind import Kind
from drivable.kinds._reading import Reading, Warning_, shown
from drivable.kinds._registry import Options, kind
from drivable.kinds.number import (
    Wording,
    ambiguous,
    canonical,
    canonical_int,
    canonical_value,
    decimal_of,
    out_of_range,
    value_reading,
)

EXPECTED = "a JSON integer, such as 20"
INTEGER = Wording("a JSON integer", "20", EXPECTED, "invalid_integer", "an integer")


def _schema(options: Options) -> dict[str, Any]:
    schema: dict[str, Any] = {"type": "integer"}
    if options.minimum is not None:
        schema["minimum"] = options.minimum
    if options.maximum is not None:
        schema["maximum"] = options.maximum
    return schema


@kind("integer", schema=_schema, expected=EXPECTED, canonical=canonical_value)
def read_integer(value: Any, options: Options) -> Reading:
    fast = canonical(value, options)
    if fast is not None:
        return fast
    if canonical_int(value):
        result = int(value)  # plain digits out of bounds, or with leading zeros
    else:
        got = decimal_of(value, INTEGER)
        if isinstance(got, Reading):
            if got.outcome != "ask":
                return got
            # Only whole readings fit; a page size that clamps takes any whole one.
            bounded = options if not options.clamp else options.with_(minimum=None, maximum=None)
            asked = ambiguous(value, got.readings, bounded, INTEGER, fits=_whole)
            if asked.outcome != "value" or not options.clamp:
                return asked
            clamped = _clamped(value, asked.value, options)
            return clamped.with_notes() if not asked.notes else _renoted(clamped, asked.notes)
        if got != got.to_integral_value():
            return Reading.invalid(
                value,
                expected=EXPECTED,
                hint=f"{shown(value)} is not a whole number; send an integer such as {_nearby(got)}.",
                code="not_integer",
            )
        result = int(got)
    if options.clamp:
        return _clamped(value, result, options)
    refused = out_of_range(value, result, options, "an integer")
    if refused is not None:
        return refused
    return value_reading(value, result)


def _nearby(value: Decimal) -> int:
    return int(value.to_integral_value())


def _whole(value: Any) -> bool:
    return isinstance(value, int) or (isinstance(value, float) and value.is_integer())


def _renoted(reading: Reading, first: tuple[str, ...]) -> Reading:
    """A clamped reading whose first note says how the ambiguous spelling was read."""
    return Reading(
        "value",
        value=reading.value,
        notes=(*first, *reading.notes[1:]),
        warnings=reading.warnings,
    )


def _clamped(received: Any, result: int, options: Options) -> Reading:
    """Clamp into [minimum, maximum], saying so; the spelling's own note comes first."""
    label = str(options.extra.get("label", "page size"))
    low, high = options.minimum, options.maximum
    if low is not None and result < low:
        limit, which = low, "smallest"
    elif high is not None and result > high:
        limit, which = high, "largest"
    else:
        return value_reading(received, result)
    first = value_reading(received, result)
    clamp_note = (
        f"Read {shown(result) if first.notes else shown(received)} as {limit}, the {which} {label}."
    )
    return Reading(
        "value",
        value=limit,
        notes=(*first.notes, clamp_note),
        warnings=(Warning_("page_size_clamped", clamp_note),),
    )


Integer = Annotated[int, Kind("integer")]
"""An integer field; JSON Schema `{"type": "integer"}` (add bounds with `Kind("integer", ...)`)."""

PageSize = Annotated[int, Kind("integer", minimum=1, maximum=100, clamp=True)]
"""A page size from 1 to 100 that clamps: `Kind("integer", minimum=.., maximum=.., clamp=True)`."""

__all__ = ["EXPECTED", "Integer", "PageSize", "read_integer"]
