"""time_range: a span within one day, sent back as "HH:MM/HH:MM" (ISO 8601's interval of times).

Read, each side through the time kind's one parser: "9-11", "9:00 – 11:30", "09:00/11:30",
"14h-16h", "9 to 11am", "from 9 to 11", "between 9 and 11", "od 9 do 11", "von 9 bis 11 Uhr",
"de 9h à 11h", and a JSON object or pair ({"start": "9:00", "end": "11:30"}, ["9:00", "11:30"]).

- The clock is the 24-hour one, as for a time: "9-11" is 09:00/11:00, with a note naming the
  evening reading (21:00/23:00).
- An am or pm written on one side only applies to the other when the range then runs forward
  ("9 to 11am" is 09:00/11:00, "2 to 4pm" 14:00/16:00); otherwise the other side is on the
  other half of the day ("11 to 2pm" is 11:00/14:00, "9am to 5" 09:00/17:00). A note says so.
- A range that ends at midnight ("22:00-00:00", "10pm to midnight") ends at 24:00.
- A range whose end, on the 24-hour clock, is not after its start is never re-read silently:
  when reading a side on the 12-hour clock makes it run forward ("from 9 to 5": 09:00/17:00), it
  is asked about with each such reading, even when only one is left; otherwise it is refused.
  A range that crosses midnight ("22-6") is refused: a range is within one day.
- A zone written on one side applies to both; one whose offset depends on the day is asked.

`minimum`/`maximum` bound both ends (opening hours: `minimum="08:00", maximum="20:00"`).
The value is a `TimeRange` (`start`, `end`: `datetime.time`; an end of 24:00 is `time.max`).
"""

from __future__ import annotations

import datetime as _dt
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Annotated, Any

from drivable.kinds._kind import Kind
from drivable.kinds._reading import KindValue, Reading, jsonable, shown
from drivable.kinds._registry import NOT_CANONICAL, Options, kind
from drivable.kinds._zone import offsets_any_day
from drivable.kinds.text_folding import nfkc
from drivable.kinds.time import END_OF_DAY, PATTERN, Clock, as_time, parse

EXPECTED = "HH:MM/HH:MM (start/end, 24-hour clock, within one day), e.g. 09:00/11:30"

_LEAD = re.compile(r"^(?:from|between|od|von|de|entre)\s+", re.IGNORECASE)
_SEPARATOR = re.compile(
    r"\s*(?:/|-|–|—|\.\.)\s*|\s+(?:to|till|til|until|and|do|až|az|bis|à|a)\s+", re.IGNORECASE
)


@dataclass(frozen=True)
class TimeRange(KindValue):
    """A span of one day: `start` < `end`; an `end` of 24:00 (the end of the day) is `time.max`."""

    start: _dt.time
    end: _dt.time

    def to_json(self) -> str:
        return f"{jsonable(self.start)}/{jsonable(self.end)}"

    def __contains__(self, moment: object) -> bool:
        return isinstance(moment, _dt.time) and self.start <= moment < self.end


def _schema(options: Options) -> dict[str, Any]:
    return {
        "type": "string",
        "pattern": "^" + PATTERN.strip("^$") + "/" + PATTERN.strip("^$") + "$",
        "description": "A span within one day, as HH:MM/HH:MM (start/end, 24-hour clock).",
        "examples": ["09:00/11:30"],
    }


_time = _dt.time.fromisoformat


def _canonical(value: Any, options: Options) -> Any:
    """The seam's fast path: an unbounded "HH:MM/HH:MM" running forward, else NOT_CANONICAL."""
    if type(value) is not str or len(value) != 11 or value[5] != "/" or options.bounded:
        return NOT_CANONICAL
    try:
        start, end = _time(value[:5]), _time(value[6:]) if value[6:] != "24:00" else END_OF_DAY
    except ValueError:
        return NOT_CANONICAL
    if value[2] == ":" and value[8] == ":" and start < end:
        return TimeRange(start, end)
    return NOT_CANONICAL


@kind("time_range", schema=_schema, expected=EXPECTED, canonical=_canonical)
def read_time_range(value: Any, options: Options) -> Reading:
    fast = _canonical(value, options)
    if fast is not NOT_CANONICAL:
        return Reading.of(fast)
    if isinstance(value, TimeRange):
        return _checked(value, [(value, [])], options, "")
    sides = _sides_of(value)
    if sides is not None:
        return _read_sides(value, sides[0], sides[1], options)
    if not isinstance(value, str):
        return _invalid(value, "Send the range as a JSON string, HH:MM/HH:MM, e.g. 09:00/11:30.")
    text = _LEAD.sub("", nfkc(value).strip())
    refused: Reading | None = None
    found: dict[tuple[Any, ...], Reading] = {}
    for separator in _SEPARATOR.finditer(text):
        left, right = text[: separator.start()], text[separator.end() :]
        if left and right:
            reading = _read_sides(value, left, right, options)
            if reading.outcome == "invalid":
                refused = refused or reading
            else:
                found.setdefault((reading.outcome, reading.value, reading.readings), reading)
    if len(found) == 1:
        return next(iter(found.values()))
    if found:  # two ways to split it that read differently (no spelling found so far does)
        return _invalid(value, "Send the range as HH:MM/HH:MM, e.g. 09:00/11:30.")
    return refused or _invalid(value, "Send the range as start/end, HH:MM/HH:MM, e.g. 09:00/11:30.")


def _sides_of(value: Any) -> tuple[Any, Any] | None:
    """The two sides of a range sent as a JSON object or pair."""
    if isinstance(value, Mapping):
        for a, b in (("start", "end"), ("from", "to"), ("begin", "end")):
            if set(value) == {a, b}:
                return value[a], value[b]
        return None
    if isinstance(value, list | tuple) and len(value) == 2:
        return value[0], value[1]
    return None


def _side(value: Any) -> Clock | str:
    if isinstance(value, str):
        return parse(value)
    if isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= 24:
        return Clock(value)
    return "Send each end of the range as HH:MM."


def _read_sides(received: Any, left_given: Any, right_given: Any, options: Options) -> Reading:
    left, right = _side(left_given), _side(right_given)
    if isinstance(left, str) or isinstance(right, str):
        return _invalid(received, left if isinstance(left, str) else str(right))
    why: list[str] = []
    left, right, said = _shared_marker(left, right)
    why += said
    start, end = left.wall(), right.wall()
    if start is None or end is None or start == END_OF_DAY:
        return _invalid(received, "Send the range as HH:MM/HH:MM, e.g. 09:00/11:30.")
    if end == _dt.time(0) or right.word == "midnight":
        end = END_OF_DAY
        why.append("a range that ends at midnight ends at 24:00")
    if start < end:
        evening = _evening(left, right)
        if evening is not None and evening.start < evening.end:
            why.append(f"on the 24-hour clock; in the evening it is {evening.to_json()}")
        return _zoned(received, left, right, start, end, why, options)
    readings = [
        (s, e)
        for s, e in _twelve_hour_readings(left, right, start, end)
        if s < e and (s, e) != (start, end)
    ]
    if not readings:
        return _invalid(
            received,
            f"{shown(received)} ends before it starts ({jsonable(start)} to {jsonable(end)}); a "
            "range is within one day. Send HH:MM/HH:MM with the end after the start.",
        )
    fitting = [TimeRange(s, e) for s, e in readings if _refusal(TimeRange(s, e), options) is None]
    if not fitting:
        return _refusal(TimeRange(*readings[0]), options) or _invalid(received, "")
    named = ", or ".join(r.to_json() for r in fitting)
    return Reading.ask(
        received,
        expected=EXPECTED,
        hint=f"On the 24-hour clock {shown(received)} ends before it starts ({jsonable(start)} to "
        f"{jsonable(end)}). Read on the 12-hour clock it is {named}. Send the range meant as "
        "HH:MM/HH:MM.",
        readings=tuple(fitting),
        code="ambiguous_time_range",
    )


def _shared_marker(left: Clock, right: Clock) -> tuple[Clock, Clock, list[str]]:
    """An am or pm on one side only, applied to the other side where it may be on the 12-hour
    clock: the same half of the day when the range then runs forward, else the other half; and
    only when neither does, an end at 12 am, the end of the day ("10pm to 12")."""
    for mine, other, flip in ((left, right, False), (right, left, True)):
        if mine.marker is not None or other.marker is None:
            continue
        if mine.word is not None or mine.padded or not 1 <= mine.hour <= 12:
            continue
        markers = (other.marker, "pm" if other.marker == "am" else "am")
        for until_midnight in (False, True):
            for marker in markers:
                moved = mine.with_marker(marker)
                start, end = (other, moved) if flip else (moved, other)
                a, b = start.wall(), end.wall()
                if a is None or b is None:
                    continue
                if (a < b) if not until_midnight else (flip and b == _dt.time(0)):
                    said = (
                        f"the {marker} applies to both"
                        if marker == other.marker
                        else f"{mine.hour} is {mine.hour} {marker}"
                    )
                    return start, end, [said]
    return left, right, []


def _twelve_hour_readings(
    left: Clock, right: Clock, start: _dt.time, end: _dt.time
) -> list[tuple[_dt.time, _dt.time]]:
    """Each (start, end) a range has when a side that may be on the 12-hour clock is read in
    the afternoon."""
    starts = [start] + ([_later(start)] if left.twelve else [])
    ends = [end] + ([_later(end)] if right.twelve else [])
    return [(s, e) for s in starts for e in ends]


def _later(t: _dt.time) -> _dt.time:
    return t.replace(hour=t.hour + 12)


def _evening(left: Clock, right: Clock) -> TimeRange | None:
    """The range both sides make in the afternoon, when both may be on the 12-hour clock."""
    if not (left.twelve and right.twelve):
        return None
    start, end = left.wall(), right.wall()
    if start is None or end is None:
        return None
    return TimeRange(_later(start), _later(end))


def _zoned(
    received: Any,
    left: Clock,
    right: Clock,
    start: _dt.time,
    end: _dt.time,
    why: list[str],
    options: Options,
) -> Reading:
    zone = right.zone or left.zone
    if zone is None:
        return _checked(received, [(TimeRange(start, end), why)], options, "")
    if left.zone is not None and right.zone is not None and left.zone != right.zone:
        return _invalid(received, "Send both ends of the range in one zone, HH:MM/HH:MM.")
    if (left.zone is None) != (right.zone is None):
        why = [*why, f"the zone {zone.written} applies to both"]
    readings = []
    for offset in offsets_any_day(zone, _dt.date.today().year):
        tz = _dt.timezone(offset.offset)
        said = why if zone.fixed is not None else [*why, offset.why]
        readings.append((TimeRange(start.replace(tzinfo=tz), end.replace(tzinfo=tz)), said))
    return _checked(received, readings, options, "the zone's offset depends on the day")


def _checked(
    received: Any, readings: list[tuple[TimeRange, list[str]]], options: Options, because: str
) -> Reading:
    fitting = [(r, why) for r, why in readings if _refusal(r, options) is None]
    if not fitting:
        refusal = _refusal(readings[0][0], options)
        assert refusal is not None
        return refusal
    if len(fitting) == 1:
        value, why = fitting[0]
        canonical = value.to_json()
        if isinstance(received, TimeRange) or (
            isinstance(received, str) and received.replace("Z", "+00:00") == canonical
        ):
            return Reading.of(value)
        reasons = f" ({'; '.join(why)})" if why else ""
        return Reading.of(value, f"Read {shown(received)} as {canonical}{reasons}.")
    said = ", or ".join(f"{r.to_json()} ({why[-1]})" for r, why in fitting)
    return Reading.ask(
        received,
        expected=EXPECTED,
        hint=f"{shown(received)} is {said}: {because}. Send the one meant, with its offset.",
        readings=tuple(r for r, _ in fitting),
        code="ambiguous_time_range",
    )


def _refusal(value: TimeRange, options: Options) -> Reading | None:
    if not options.bounded:
        return None
    low, high = options.derived(
        "time_range.bounds", lambda o: (as_time(o.minimum), as_time(o.maximum))
    )
    start, end = value.start.replace(tzinfo=None), value.end.replace(tzinfo=None)
    if (low is not None and start < low) or (high is not None and end > high):
        span = f"{jsonable(low) if low else '00:00'}/{jsonable(high) if high else '24:00'}"
        return Reading.invalid(
            value.to_json(),
            expected=f"a range within {span}",
            hint=f"{value.to_json()} is outside the accepted times ({span}). Send a range within them.",
            code="out_of_range",
        )
    return None


def _invalid(received: Any, hint: str) -> Reading:
    shown_value = (
        received
        if isinstance(received, str | int | float | bool | list | dict)
        else type(received).__name__
    )
    return Reading.invalid(
        shown_value,
        expected=EXPECTED,
        hint=hint or "Send the range as HH:MM/HH:MM, e.g. 09:00/11:30.",
        code="invalid_time_range",
    )


TimeRangeField = Annotated[TimeRange, Kind("time_range")]

__all__ = ["EXPECTED", "TimeRange", "TimeRangeField", "read_time_range"]
