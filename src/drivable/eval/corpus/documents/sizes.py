"""file_size: a size in bytes as people write it, a kind this domain owns.

"2MB", "2 MB", "2,5 MB", "2048 KB", "1.5 gigabytes", "500k" and 2097152 (bytes) read as whole
bytes, in binary units (1 KB = 1024 bytes, 1 MB = 1024 KB), the units the store shows sizes in.
The number goes through the `number` kind, so "1,234 KB" is asked about (1234 KB or 1.234 KB)
and never guessed. A bare number is bytes. A bound of a range (`bound="from"` or "to") also reads
the words people put before it when they agree with it ("over 2 MB", "at least 2MB", "2 MB+" as a
lower bound; "under 5 MB" as an upper one) and refuses them when they do not.
Refused: a unit it does not know, a negative size.
"""

from __future__ import annotations

import re
from typing import Annotated, Any

from drivable.kinds import Kind, Options, Reading, kind, read
from drivable.kinds.text_folding import caseless

EXPECTED = "a size such as '2 MB', '500 KB' or '1.5 GB' (1 MB = 1024 KB), or a number of bytes"

_UNITS: dict[str, int] = {}
for _power, _names in enumerate(
    (
        ("b", "byte", "bytes"),
        ("k", "kb", "kib", "kbyte", "kbytes", "kilobyte", "kilobytes"),
        ("m", "mb", "mib", "meg", "megs", "mbyte", "mbytes", "megabyte", "megabytes"),
        ("g", "gb", "gib", "gbyte", "gbytes", "gigabyte", "gigabytes"),
    )
):
    _UNITS.update(dict.fromkeys(_names, 1024**_power))
_UNITS[""] = 1
_LABELS = {1: "bytes", 1024: "KB", 1024**2: "MB", 1024**3: "GB"}
# The number, then the unit: letters at the end, after optional space ("2,5 MB", "2048kb").
_SPLIT = re.compile(r"^(?P<number>.*?)\s*(?P<unit>[a-z]*)$")
# What people write before a bound, and which end of a range it means.
_SIDES = (
    (
        "from",
        re.compile(
            r"^(?:over|above|more than|larger than|bigger than|greater than|at least|min(?:imum)?|from|>=?|≥)\s*"
        ),
    ),
    (
        "to",
        re.compile(r"^(?:under|below|less than|smaller than|at most|max(?:imum)?|up to|<=?|≤)\s*"),
    ),
)


def _schema(options: Options) -> dict[str, Any]:
    # A size as people write it, or whole bytes: what the server echoes in a next_call.
    return {"type": ["string", "integer"], "minimum": 0, "maxLength": 32}


def _refused(value: Any, hint: str) -> Reading:
    return Reading.invalid(value, expected=EXPECTED, hint=hint, code="invalid_value")


@kind("file_size", schema=_schema, expected=EXPECTED)
def read_file_size(value: Any, options: Options) -> Reading:
    if isinstance(value, bool) or not isinstance(value, int | float | str):
        return _refused(value, "Send the size as a string such as '2 MB', or bytes as a number.")
    if isinstance(value, int | float):
        number, unit = value, 1
    else:
        text = caseless(value)
        side, text = _side(text)
        if side is not None and options.bound is not None and side != options.bound:
            other = "lower" if side == "from" else "upper"
            return _refused(
                value,
                f"{value!r} is a {other} bound, and this property is the other end of the "
                "range: send the size alone in the property for that end.",
            )
        found = _SPLIT.match(text)
        if found is None or found["unit"] not in _UNITS or not found["number"]:
            return _refused(
                value, f"{value!r} is not a size: write a number and KB, MB or GB, e.g. '2 MB'."
            )
        unit = _UNITS[found["unit"]]
        reading = read("number", found["number"])
        if reading.outcome == "ask":  # "1,234 KB": a thousands mark or a decimal mark
            sizes = [round(r * unit) for r in reading.readings]
            said = " or ".join(
                f"{r} {_LABELS[unit]} ({s} bytes)"
                for r, s in zip(reading.readings, sizes, strict=True)
            )
            return Reading.ask(
                value,
                expected=EXPECTED,
                hint=f"{value!r} could be {said}. Send the one you mean, e.g. '{reading.readings[0]} {_LABELS[unit]}'.",
                readings=sizes,
                code="ambiguous_number",
            )
        if reading.outcome != "value":
            return _refused(
                value, f"{value!r} is not a size: write a number and KB, MB or GB, e.g. '2 MB'."
            )
        number = reading.value
    if number < 0:
        return _refused(value, "A size is zero or more.")
    size = round(number * unit)
    if isinstance(value, int) and not isinstance(value, bool):
        return Reading.of(size)
    return Reading.of(size, f"Read {value!r} as {size} bytes (1 KB = 1024 bytes, 1 MB = 1024 KB).")


def _side(text: str) -> tuple[str | None, str]:
    """Which end of a range the words before (or a '+' after) a size name, and the size alone."""
    if text.endswith("+"):
        return "from", text[:-1].rstrip()
    for side, words in _SIDES:
        found = words.match(text)
        if found is not None and found.end() > 0:
            return side, text[found.end() :]
    return None, text


MinSize = Annotated[int, Kind("file_size", bound="from")]
"""The lower bound of a size range ("over 2 MB" reads too); the value is whole bytes."""
MaxSize = Annotated[int, Kind("file_size", bound="to")]
"""The upper bound of a size range ("under 5 MB" reads too); the value is whole bytes."""

__all__ = ["EXPECTED", "MaxSize", "MinSize", "read_file_size"]
