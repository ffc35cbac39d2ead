"""datetime: a moment, read from the spellings models use; sent back as RFC 3339 with its offset.

Read: ISO 8601 with an offset or Z ("2026-10-01T14:00:00+02:00", "2026-10-01T12:00Z",
"20261001T1400Z"), and a day and a time written one after the other, the day read by the date
kind and the time by the time kind, their owners ("2026-10-01 14:00 Europe/Prague",
"1. 10. 2026 14:00 CET", "Oct 1, 2026 2:30 PM EST", "1. října 2026 v 9:00 UTC", "tomorrow at 9",
"next Monday 14h"). A time with no minutes and no am/pm follows the day only after "T" or a word
such as "at" ("tomorrow at 9"), so that a year or a day is never read as an hour.

The zone is written after the time, or is the tool's: `zone="Europe/Prague"` (where its users
are), or the zone of an aware `clock=`. A moment with no zone and no tool's zone is asked about:
it is another instant in every zone. A wall time the clocks skip in spring is refused, one they
show twice in autumn is asked about with both offsets, and a zone abbreviation CLDR also gives as
the zone's local time ("CET") on a day of summer time is asked about with both offsets.

Relative days ("today", "tomorrow", "in 3 days", "next Monday") read only where the tool passes
a clock, `clock=lambda: datetime.now(ZoneInfo("Europe/Prague"))`: today is the clock's day in the
tool's zone. Without one they are refused, never read against the machine's clock.

`minimum`/`maximum` bound the moment (aware datetimes, or RFC 3339 text with an offset).
"""

from __future__ import annotations

import datetime as _dt
import re
from typing import Annotated, Any
from zoneinfo import ZoneInfo

from drivable.kinds._kind import Kind
from drivable.kinds._reading import Reading, shown
from drivable.kinds._registry import NOT_CANONICAL, Options, kind, make_options
from drivable.kinds._zone import Zone, offset_text, offsets_at, zone_of
from drivable.kinds.date import read_date
from drivable.kinds.text_folding import nfkc
from drivable.kinds.time import END_OF_DAY, Clock, is_day_word, parse

EXPECTED = "an RFC 3339 moment with its offset, e.g. 2026-10-01T14:00:00+02:00"

# Where a day ends and its time begins: ISO's T, a comma, a space, or a word such as "at".
_JOINT = re.compile(
    r"(?<=\d)[Tt](?=\d)|\s*,\s*(?:(?:at|um|v|ve|à|o|@)\s+)?|\s+(?:(?:at|um|v|ve|à|o|@)\s+)?",
    re.IGNORECASE,
)
_CONNECTIVE = re.compile(r"[Tt]|.*\b(?:at|um|v|ve|à|o)\b.*|.*@.*", re.IGNORECASE | re.DOTALL)
# A time that could be a number of something else: an hour alone ("9") or four digits ("2026").
_DIGIT = re.compile(r"\d")
_NUMBER_ONLY = re.compile(r"^\d{1,4}$")
_ISO = re.compile(r"^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}|^\d{8}T\d{2}")


def _schema(options: Options) -> dict[str, Any]:
    return {
        "type": "string",
        "format": "date-time",
        "description": "A moment with its UTC offset, as RFC 3339 (e.g. 2026-10-01T14:00:00+02:00).",
        "examples": ["2026-10-01T14:00:00+02:00"],
    }


_fromisoformat = _dt.datetime.fromisoformat


def _canonical(value: Any, options: Options) -> Any:
    """The seam's fast path: an unbounded "YYYY-MM-DDTHH:MM:SS+HH:MM", else NOT_CANONICAL (the
    other forms fromisoformat takes in 25 characters have no "T" at 10 or no sign at 19)."""
    if type(value) is not str or len(value) != 25:  # no exception raised for the other forms
        return NOT_CANONICAL
    try:
        moment = _fromisoformat(value)
    except ValueError:
        return NOT_CANONICAL
    shape = value[10] == "T" and value[19] in "+-"
    if shape and not options.bounded:
        return moment
    return NOT_CANONICAL


@kind("datetime", schema=_schema, expected=EXPECTED, canonical=_canonical)
def read_datetime(value: Any, options: Options) -> Reading:
    fast = _canonical(value, options)
    if fast is not NOT_CANONICAL:
        return Reading.of(fast)
    if isinstance(value, _dt.datetime):
        if value.tzinfo is not None and value.utcoffset() is not None:
            return _checked(value, [(value, [])], options)
        return _moments(value, value.date(), value.timetz(), None, [], options)
    if isinstance(value, _dt.date):
        return _invalid(value.isoformat(), _NO_TIME.format(day=value.isoformat()))
    if not isinstance(value, str):
        return _invalid(value, "Send the moment as a JSON string, e.g. 2026-10-01T14:00:00+02:00.")
    text = nfkc(value).strip()
    if _ISO.match(text):
        try:
            moment = _dt.datetime.fromisoformat(text)
        except ValueError:
            pass
        else:
            if moment.tzinfo is not None:
                return _checked(value, [(moment, [])], options)
            return _moments(value, moment.date(), moment.time(), None, [], options)
    return _read_text(value, text, options)


def _read_text(received: str, text: str, options: Options) -> Reading:
    """A day, then a time: the text is cut where its shortest end that reads as a time follows
    a beginning that reads as a day (the time is written last, and is the shorter part)."""
    day_options = options.derived("datetime.day", _day_options)
    bare_hour = False
    for joint in reversed(list(_JOINT.finditer(text))):
        day_text, time_text = text[: joint.start()], text[joint.end() :]
        if not day_text or not time_text:
            continue
        if _NUMBER_ONLY.match(time_text.strip()) and not _CONNECTIVE.fullmatch(
            joint.group(0).strip() or "x"
        ):
            bare_hour = bare_hour or read_date(day_text, day_options).outcome != "invalid"
            continue
        if not _DIGIT.search(time_text) and not is_day_word(time_text.split()[0]):
            continue  # "UTC", "PM EST": no time
        clock = parse(time_text)
        wall = None if isinstance(clock, str) else clock.wall()
        if isinstance(clock, str) or wall is None:
            continue
        day = read_date(day_text, day_options)
        if day.outcome == "invalid" and "relative" in day.hint:  # the date kind's refusal
            return _invalid(
                received,
                f"{shown(received)} is relative to today, and this property reads no relative "
                "days (the tool passes no clock). Send the moment as RFC 3339, e.g. "
                "2026-10-01T14:00:00+02:00.",
            )
        if day.outcome not in ("value", "ask"):
            continue
        days = [day.value] if day.outcome == "value" else list(day.readings)
        # the day's own notes only where they say why ("today is ... by the server's clock")
        explained = [n for n in day.notes if n.endswith(").")]
        return _moments(received, days, wall, clock, explained, options, day.hint)
    if bare_hour:
        return _invalid(
            received,
            f"{shown(received)} ends in a number alone, which is read as an hour only after 'at' "
            "or 'T'. Send the moment as RFC 3339, e.g. 2026-10-01T09:00:00+02:00.",
        )
    day = read_date(text, day_options)
    if day.outcome == "value":
        return _invalid(received, _NO_TIME.format(day=day.value.isoformat()))
    return _invalid(received, "Send the moment as RFC 3339, e.g. 2026-10-01T14:00:00+02:00.")


_NO_TIME = "That names a day, {day}, and no time. Send the moment with its time, e.g. {day}T14:00:00+02:00."


def _moments(
    received: Any,
    days: Any,
    wall: _dt.time,
    clock: Clock | None,
    notes: list[str],
    options: Options,
    day_hint: str = "",
) -> Reading:
    """Every moment a day (or the days it may be) and a wall time name in their zone."""
    if isinstance(days, _dt.date):
        days = [days]
    zone = clock.zone if clock is not None else None
    why = clock.why() if clock is not None else []
    if zone is None and wall.tzinfo is not None:
        fixed = wall.utcoffset()
        zone = None if fixed is None else Zone(offset_text(fixed), fixed=fixed)
        wall = wall.replace(tzinfo=None)
    tool_zone = False
    if zone is None:
        zone = _tool_zone(options)
        tool_zone = zone is not None
    if zone is None:
        return Reading.ask(
            received,
            expected=EXPECTED,
            hint=f"{shown(received)} names no time zone, and is another moment in each. Send it "
            "with the offset of its zone (2026-10-01T14:00:00+02:00; Z for UTC), or with the "
            "zone's name after the time (2026-10-01 14:00 Europe/Prague).",
            readings=(),
            code="ambiguous_datetime",
        )
    moments: list[tuple[_dt.datetime, list[str]]] = []
    for day in days:
        local = _dt.datetime.combine(day, wall)
        if wall == END_OF_DAY:
            local = _dt.datetime.combine(day + _dt.timedelta(days=1), _dt.time(0))
        offsets = offsets_at(zone, local)
        if not offsets:
            return _invalid(
                received,
                f"{local.isoformat(timespec='minutes')} does not exist in {zone.written}: the "
                "clocks skip that hour. Send the moment with its offset.",
            )
        for offset in offsets:
            said = list(why)
            if wall == END_OF_DAY:
                said = [f"24:00 is the end of {day.isoformat()}"]
            if tool_zone:
                said.append(f"in {zone.written}, the tool's zone")
            if zone.fixed is None:
                said.append(offset.why)
            moments.append((local.replace(tzinfo=_dt.timezone(offset.offset)), said))
    return _checked(received, moments, options, notes, day_hint)


def _tool_zone(options: Options) -> Zone | None:
    """The zone a tool declares: `zone=` (a name, an offset, a tzinfo), else its clock's."""
    given = options.extra.get("zone")
    if given is None:
        clock = options.extra.get("clock")
        now = clock() if callable(clock) else None
        given = now.tzinfo if isinstance(now, _dt.datetime) else None
    if given is None:
        return None
    if isinstance(given, str):
        zone = zone_of(given)
        if zone is None:
            raise ValueError(f"not a time zone: {given!r}")
        return zone
    if isinstance(given, ZoneInfo):
        return Zone(given.key, iana=given.key)
    if isinstance(given, _dt.tzinfo):
        offset = given.utcoffset(None)
        if offset is not None:
            return Zone(offset_text(offset), fixed=offset)
    raise ValueError(f"not a time zone: {given!r}")


def _tzinfo(zone: Zone) -> _dt.tzinfo:
    if zone.iana is not None:
        return ZoneInfo(zone.iana)
    if zone.fixed is not None:
        return _dt.timezone(zone.fixed)
    raise ValueError(f"a tool's zone is a name or an offset, not an abbreviation: {zone.written!r}")


def _day_options(options: Options) -> Options:
    """The date kind's options: the tool's clock, as today in the tool's zone."""
    clock = options.extra.get("clock")
    if not callable(clock):
        return make_options(intent=options.intent)

    def today() -> _dt.date:
        now = clock()
        if not isinstance(now, _dt.datetime):
            return now  # type: ignore[no-any-return]
        zone = _tool_zone(options)
        if now.tzinfo is not None and zone is not None:
            now = now.astimezone(_tzinfo(zone))
        return now.date()

    return make_options(intent=options.intent, clock=today)


def _checked(
    received: Any,
    moments: list[tuple[_dt.datetime, list[str]]],
    options: Options,
    notes: list[str] | None = None,
    day_hint: str = "",
) -> Reading:
    """One moment is the value; several are asked about. Moments outside the bounds are not
    offered; one left is the value, with a note naming the others."""
    low, high = _bounds(options)
    fitting = [
        (m, why) for m, why in moments if (low is None or m >= low) and (high is None or m <= high)
    ]
    if not fitting:
        span = f"from {low.isoformat() if low else 'any moment'} to {high.isoformat() if high else 'any moment'}"
        return Reading.invalid(
            received if isinstance(received, str) else moments[0][0].isoformat(),
            expected=f"{EXPECTED}, {span}",
            hint=f"{moments[0][0].isoformat()} is outside the accepted moments ({span}). Send one in that range.",
            code="out_of_range",
        )
    if len(fitting) == 1:
        moment, why = fitting[0]
        canonical = moment.isoformat()
        others = [m.isoformat() for m, _ in moments if m is not moment]
        extra = (
            [f"Its other reading, {', '.join(others)}, is outside the accepted moments."]
            if others
            else []
        )
        if isinstance(received, _dt.datetime) or (
            isinstance(received, str) and received.replace("Z", "+00:00") == canonical
        ):
            return Reading.of(moment, *extra)
        reasons = f" ({'; '.join(why)})" if why else ""
        return Reading.of(
            moment, f"Read {shown(received)} as {canonical}{reasons}.", *(notes or []), *extra
        )
    said = ", or ".join(f"{m.isoformat()}" + (f" ({why[-1]})" if why else "") for m, why in fitting)
    hint = f"{shown(received)} is {said}."
    if day_hint and len({m.date() for m, _ in fitting}) > 1:
        hint += f" {day_hint}"
    return Reading.ask(
        received,
        expected=EXPECTED,
        hint=hint + " Send the one meant as RFC 3339.",
        readings=tuple(m for m, _ in fitting),
        code="ambiguous_datetime",
    )


def _bounds(options: Options) -> tuple[_dt.datetime | None, _dt.datetime | None]:
    def derive(o: Options) -> tuple[_dt.datetime | None, _dt.datetime | None]:
        return _as_moment(o.minimum), _as_moment(o.maximum)

    return options.derived("datetime.bounds", derive) if options.bounded else (None, None)


def _as_moment(given: Any) -> _dt.datetime | None:
    if given is None:
        return None
    moment = given if isinstance(given, _dt.datetime) else _dt.datetime.fromisoformat(str(given))
    if moment.tzinfo is None:
        raise ValueError(f"a datetime bound needs its offset: {given!r}")
    return moment


def _invalid(received: Any, hint: str) -> Reading:
    shown_value = (
        received if isinstance(received, str | int | float | bool) else type(received).__name__
    )
    return Reading.invalid(shown_value, expected=EXPECTED, hint=hint, code="invalid_datetime")


Moment = Annotated[_dt.datetime, Kind("datetime")]
"""A moment with its offset, read from the spellings models use; sent back as RFC 3339."""

__all__ = ["EXPECTED", "Moment", "read_datetime"]
