"""How the date kind finishes a day it read: the field's bounds, the spellings of "no bound", the
note that says what was read, and the refusals every reader of a day shares."""

from __future__ import annotations

import calendar
import datetime as _dt
from typing import Any

from drivable.kinds import absence
from drivable.kinds._reading import Reading, read_note, shown
from drivable.kinds._registry import Options

EXPECTED = "YYYY-MM-DD"
FIRST = _dt.date(1, 1, 1)
LAST = _dt.date(9999, 12, 31)
NO_BOUND = (FIRST, LAST)


def finish(received: Any, day: _dt.date, options: Options, dropped: str | None = None) -> Reading:
    if day in NO_BOUND:
        return no_bound(received, options)
    if dropped is not None:
        note = read_note(received, day)[:-1] + f" (the time {dropped} was dropped)."
        reading = Reading.of(day, note)
    else:
        reading = repaired(received, day)
    return checked(received, day, options, reading)


def repaired(received: Any, day: _dt.date) -> Reading:
    """The day with its note, written directly (the generic note renders the value twice)."""
    if not isinstance(received, str):
        return Reading.repaired(received, day)
    iso = day.isoformat()
    return (
        Reading.of(day) if received == iso else Reading.of(day, f"Read {shown(received)} as {iso}.")
    )


def checked(received: Any, day: _dt.date, options: Options, reading: Reading) -> Reading:
    low, high = as_date(options.minimum), as_date(options.maximum)
    if (low is not None and day < low) or (high is not None and day > high):
        span = f"from {low.isoformat() if low else 'any day'} to {high.isoformat() if high else 'any day'}"
        return Reading.invalid(
            received,
            expected=f"{EXPECTED}, {span}",
            hint=f"{day.isoformat()} is outside the accepted days ({span}). Send a day in that range.",
            code="date_out_of_range",
        )
    return reading


def as_date(bound: Any) -> _dt.date | None:
    if bound is None:
        return None
    if isinstance(bound, _dt.datetime):
        return bound.date()
    if isinstance(bound, _dt.date):
        return bound
    return _dt.date.fromisoformat(str(bound))


def no_bound(received: Any, options: Options) -> Reading:
    """0001-01-01, 9999-12-31, 0000-00-00: the spellings of "no bound"."""
    if options.bound is not None:
        return Reading.absent(f"Read {shown(received)} as no bound.")
    return absence.reading_for(received, options.intent, EXPECTED)


def all_zero(text: str) -> bool:
    return not text.strip("0-./: ") and text.count("0") >= 6


def make_day(year: int, month: int, day: int) -> _dt.date | None:
    try:
        return _dt.date(year, month, day)
    except ValueError:
        return None


def long_day(day: _dt.date) -> str:
    return f"{day.day} {calendar.month_name[day.month]} {day.year}"


def impossible(received: Any) -> Reading:
    return invalid(
        received, f"{shown(received)} is not a day of the calendar. Send a real day as YYYY-MM-DD."
    )


def unreadable(received: Any) -> Reading:
    return invalid(received, "Send the date as YYYY-MM-DD, e.g. 2026-10-01.")


def invalid(received: Any, hint: str) -> Reading:
    return Reading.invalid(received, expected=EXPECTED, hint=hint, code="invalid_date")
