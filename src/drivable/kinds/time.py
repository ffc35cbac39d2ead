"""time: a time of day, read from the spellings models use; sent back as "HH:MM" (24-hour clock).

Read without a question, each with a note ("Read '2pm' as 14:00."): "9:00", "9.00", "9h", "14h30",
"14 Uhr", "9 o'clock", "0900" (ISO basic), "T09:00", seconds ("14:30:15", "14:30:15.250"), am and
pm as CLDR writes them in English, Czech, German, French, Slovak and Polish ("2pm", "2:30 P.M.",
"9a", "9 dop."), and CLDR's noon and midnight ("noon", "poledne", "minuit").

The clock is the 24-hour one: the field's schema says so, so a time without am or pm is on it.
"9" and "9:00" are 09:00, with a note saying that 9 pm is 21:00; "12am" is 00:00 and "12pm" is
12:00, each with a note saying so; "midnight" is 00:00, the start of the day; "24:00" is the end of
the day (a `datetime.time.max`, written back as 24:00). An am or pm that agrees with a 24-hour hour
("14:00 pm") is read; one that contradicts it ("14:00 am") is refused.

A zone written after the time ("09:00+02:00", "9:00 UTC", "9:00 EST") is kept as the time's
offset. A zone whose offset depends on the day ("9:00 Europe/Prague", and "9:00 CET": CLDR's
generic name of Central European time, +02:00 in summer) is asked about with both offsets: a time
of day has no day to settle it.

Seconds are written back only when they are not zero. `minimum`/`maximum` bound the time (opening
hours) and `choices` lists the times a field offers (slots); both compare the time as written on
its clock, and an ask offers only the readings they accept.
"""

from __future__ import annotations

import datetime as _dt
import re
from dataclasses import dataclass, replace
from functools import cache
from typing import Annotated, Any

from drivable.kinds._kind import Kind
from drivable.kinds._reading import Reading, jsonable, shown
from drivable.kinds._registry import NOT_CANONICAL, Options, kind
from drivable.kinds._zone import Zone, offset_text, offsets_any_day, split_zone
from drivable.kinds.text_folding import bare, caseless, nfkc

EXPECTED = "HH:MM on the 24-hour clock, e.g. 14:30"
END_OF_DAY = _dt.time.max

# The date kind's languages: CLDR's am/pm, noon and midnight are read in these.
_LOCALES = ("en", "cs", "de", "fr", "sk", "pl")
# Words written after an hour that say only "o'clock" ("9h", "14 Uhr", "9 hodin").
_HOUR_WORDS = frozenset({"h", "hr", "hrs", "hod", "hodin", "hodiny", "uhr", "o'clock", "oclock"})

_TAIL = re.compile(r"^(.*?\d)\s*([^\d]*)$")
_SPACES_AND_DOTS = re.compile(r"[\s.]")
_PLAIN = re.compile(r"(\d{1,2})(?:[:.h](\d{2}))?\Z")
_HOUR = re.compile(r"^(\d{1,2})$")
_HOUR_MINUTE = re.compile(r"^(\d{1,2})\s*[:.h]\s*(\d{2})$")
_WITH_SECONDS = re.compile(r"^(\d{1,2}):(\d{2}):(\d{2})(?:[.,](\d{1,6}))?$")
_DOTTED_SECONDS = re.compile(r"^(\d{1,2})\.(\d{2})\.(\d{2})$")
_BASIC = re.compile(r"^(\d{2})(\d{2})(?:(\d{2})(?:[.,](\d{1,6}))?)?$")
PATTERN = r"^(?:(?:[01]\d|2[0-3]):[0-5]\d(?::[0-5]\d(?:\.\d{1,6})?)?|24:00)(?:[+-]\d{2}:\d{2})?$"


@dataclass(slots=True)  # not frozen: built on every parse, and a frozen __init__ costs 3x
class Clock:
    """What one spelling of a time of day says, before a zone or a range settles it."""

    hour: int  # as written: 0 to 24, or 1 to 12 with a marker
    minute: int = 0
    second: int = 0
    micro: int = 0
    marker: str | None = None  # "am" or "pm"
    padded: bool = False  # the hour was written with a leading zero ("09"), or in ISO's basic form
    word: str | None = None  # "noon" or "midnight"
    zone: Zone | None = None

    @property
    def twelve(self) -> bool:
        """The hour could be one on the 12-hour clock: 1 to 11, no marker, no leading zero."""
        return (
            self.marker is None and self.word is None and 1 <= self.hour <= 11 and not self.padded
        )

    def with_marker(self, marker: str) -> Clock:
        return replace(self, marker=marker)

    def hour24(self) -> int | None:
        """The hour on the 24-hour clock, or None when the marker contradicts it."""
        h, marker = self.hour, self.marker
        if marker is None:
            return (
                h
                if h <= 23 or (h == 24 and not (self.minute or self.second or self.micro))
                else None
            )
        if h == 0 or h == 24:
            return None
        if h >= 13:  # "14:00 pm" agrees; "14:00 am" and "30 pm" name no hour
            return h if marker == "pm" and h <= 23 else None
        if marker == "am":
            return 0 if h == 12 else h
        return 12 if h == 12 else h + 12

    def wall(self) -> _dt.time | None:
        """The naive time it names (24:00 as `END_OF_DAY`), or None when it names none."""
        h = self.hour24()
        if h is None or self.minute > 59 or self.second > 59:
            return None
        if h == 24:
            return END_OF_DAY
        return _dt.time(h, self.minute, self.second, self.micro)

    def why(self) -> list[str]:
        """The reasons a note gives for reading it so (without the zone's)."""
        h = self.hour24()
        if self.word == "midnight":
            return ["the start of the day; a range that ends at midnight ends at 24:00"]
        if self.word == "noon" or h is None:
            return []
        if self.marker is not None and self.hour == 12:
            return ["12 am is midnight, the start of the day" if h == 0 else "12 pm is noon"]
        if self.twelve:
            return [f"on the 24-hour clock; {self.hour} pm is {self.hour + 12}:{self.minute:02d}"]
        if h == 24:
            return ["the end of the day"]
        return []


def parse(text: str) -> Clock | str:
    """What `text` says as a time of day, or a hint saying why it says none."""
    text = nfkc(text).strip()
    if m := _PLAIN.match(text):  # "9", "9:30", "14.00", "14h30": most spellings, decided here
        return Clock(int(m[1]), int(m[2] or 0), padded=_padded(m[1]))
    if text[:1] in ("T", "t") and text[1:2].isdigit():  # ISO's time designator
        text = text[1:]
    body, zone = split_zone(text)
    if m := _PLAIN.match(body):  # "14:00 UTC"
        return Clock(int(m[1]), int(m[2] or 0), padded=_padded(m[1]), zone=zone)
    folded = caseless(body)
    words = _day_words()
    plain = bare(folded).removeprefix("12").strip()
    if plain in words:
        noon = words[plain] == 12
        return Clock(12 if noon else 0, word="noon" if noon else "midnight", zone=zone)
    tail = _TAIL.match(folded)
    if tail is None:
        return _UNREADABLE
    digits, after = tail.group(1), _SPACES_AND_DOTS.sub("", tail.group(2))
    marker = None
    if after:
        marker = _markers().get(bare(after))
        if marker is None and after.replace("’", "'") not in _HOUR_WORDS:
            return _UNREADABLE
    if m := _HOUR.match(digits):
        clock = Clock(int(m[1]), padded=_padded(m[1]), marker=marker, zone=zone)
    elif m := _HOUR_MINUTE.match(digits):
        clock = Clock(int(m[1]), int(m[2]), padded=_padded(m[1]), marker=marker, zone=zone)
    elif (m := _WITH_SECONDS.match(digits)) or (m := _DOTTED_SECONDS.match(digits)):
        micro = int((m[4] or "0").ljust(6, "0")) if m.re is _WITH_SECONDS else 0
        clock = Clock(int(m[1]), int(m[2]), int(m[3]), micro, marker, _padded(m[1]), zone=zone)
    elif (m := _BASIC.match(digits.replace(" ", ""))) and marker is None:
        micro = int((m[4] or "0").ljust(6, "0"))
        clock = Clock(int(m[1]), int(m[2]), int(m[3] or 0), micro, padded=True, zone=zone)
    else:
        return _UNREADABLE
    if clock.wall() is None:
        if clock.marker is not None and clock.hour24() is None:
            return f"{clock.hour} {clock.marker} is no hour of the 12-hour clock. Send HH:MM on the 24-hour clock."
        return "That is no time of the day. Send HH:MM on the 24-hour clock, e.g. 14:30."
    return clock


def _padded(hour: str) -> bool:
    return len(hour) == 2 and hour[0] == "0"


_UNREADABLE = "Send the time as HH:MM on the 24-hour clock, e.g. 14:30."


def is_day_word(text: str) -> bool:
    """True for CLDR's noon and midnight ("noon", "Mitternacht"): a time written without a digit."""
    return bare(text).rstrip(".") in _day_words()


@cache
def _markers() -> dict[str, str]:
    """CLDR's am and pm in the read languages, folded without dots: "am", "a", "dop" -> "am"."""
    from babel.dates import get_period_names

    found: dict[str, str] = {}
    for locale in _LOCALES:
        for width in ("abbreviated", "wide", "narrow"):
            for context in ("format", "stand-alone"):
                names = get_period_names(width, context, locale)
                for period in ("am", "pm"):
                    if period in names:
                        found[_SPACES_AND_DOTS.sub("", bare(names[period]))] = period
    return found


@cache
def _day_words() -> dict[str, int]:
    """CLDR's noon and midnight in the read languages, folded -> the hour they name (12, 0)."""
    from babel.dates import get_period_names

    found: dict[str, int] = {"midday": 12}
    for locale in _LOCALES:
        for width in ("abbreviated", "wide"):
            names = get_period_names(width, "format", locale)
            for period, hour in (("noon", 12), ("midnight", 0)):
                if period in names:
                    found[bare(names[period]).rstrip(".")] = hour
    return found


# -- the kind ----------------------------------------------------------------------------------


def _schema(options: Options) -> dict[str, Any]:
    schema: dict[str, Any] = {
        "type": "string",
        "pattern": PATTERN,
        "description": "A time of day on the 24-hour clock, as HH:MM (e.g. 14:30).",
        "examples": ["14:30"],
    }
    if options.choices:
        schema["enum"] = [jsonable(t) for t in _choices(options)]
    return schema


_fromisoformat = _dt.time.fromisoformat


def _canonical(value: Any, options: Options) -> Any:
    """The seam's fast path: an unbounded "HH:MM" as a `time`, else NOT_CANONICAL.

    The parse goes first and the shape is checked after it, as the date kind's does: of what
    fromisoformat accepts in five characters ("09:00", "T0900", "0900Z"), only HH:MM has a colon
    at 2."""
    try:
        t = _fromisoformat(value)
        colon = value[2]
    except (TypeError, ValueError, IndexError):
        return NOT_CANONICAL
    if colon == ":" and len(value) == 5 and not options.bounded and not options.choices:
        return t
    return NOT_CANONICAL


@kind("time", schema=_schema, expected=EXPECTED, canonical=_canonical)
def read_time(value: Any, options: Options) -> Reading:
    fast = _canonical(value, options)
    if fast is not NOT_CANONICAL:
        return Reading.of(fast)
    if isinstance(value, _dt.datetime):
        return _invalid(value, "Send the time of day alone, as HH:MM, e.g. 14:30.")
    if isinstance(value, _dt.time):
        return settled(value, [(value, [])], options)
    if isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= 24:
        parsed: Clock | str = Clock(value)
    elif isinstance(value, str):
        parsed = parse(value)
    else:
        return _invalid(value, "Send the time as a JSON string, HH:MM, e.g. 14:30.")
    if isinstance(parsed, str):
        return _invalid(value, parsed)
    return read_clock(value, parsed, options)


def read_clock(received: Any, clock: Clock, options: Options) -> Reading:
    """The reading of a parsed time of day: its zone's offsets on any day, each a reading."""
    wall = clock.wall()
    if wall is None:
        return _invalid(received, _UNREADABLE)
    why = clock.why()
    if clock.zone is None:
        return settled(received, [(wall, why)], options)
    offsets = offsets_any_day(clock.zone, _dt.date.today().year)
    readings = [
        (
            wall.replace(tzinfo=_dt.timezone(o.offset)),
            [*why, o.why] if clock.zone.fixed is None else why,
        )
        for o in offsets
    ]
    return settled(received, readings, options, because="the zone's offset depends on the day")


def settled(
    received: Any,
    readings: list[tuple[_dt.time, list[str]]],
    options: Options,
    because: str = "",
) -> Reading:
    """One reading is the value (with its note); several are asked about. Readings the field's
    bounds or choices refuse are not offered; one left is the value, with a note naming the rest."""
    fitting = [(t, why) for t, why in readings if _refusal(t, options) is None]
    if not fitting:
        problem = _refusal(readings[0][0], options)
        assert problem is not None
        return problem if len(readings) == 1 else _refused_all(received, readings, options)
    if len(fitting) == 1:
        value, why = fitting[0]
        note = _note(received, value, why)
        others = [jsonable(t) for t, _ in readings if t is not value]
        extra = (
            (f"Its other reading, {', '.join(others)}, is not accepted here.",) if others else ()
        )
        return Reading.of(value, *note, *extra)
    said = ", or ".join(f"{jsonable(t)} ({'; '.join(why[-1:])})" for t, why in fitting)
    return Reading.ask(
        received,
        expected=EXPECTED,
        hint=f"{shown(received)} is {said}: {because}. Send the one meant, with its offset.",
        readings=tuple(t for t, _ in fitting),
        code="ambiguous_time",
    )


def _note(received: Any, value: _dt.time, why: list[str]) -> tuple[str, ...]:
    canonical = jsonable(value)
    # RFC 3339's Z is +00:00: the one difference a canonical spelling may have.
    if isinstance(received, str) and received.replace("Z", "+00:00") == canonical:
        return ()
    if isinstance(received, _dt.time) and received == value:
        return ()
    reasons = f" ({'; '.join(why)})" if why else ""
    return (f"Read {shown(received)} as {canonical}{reasons}.",)


def _refusal(value: _dt.time, options: Options) -> Reading | None:
    """Why the field does not accept `value` (bounds, choices), or None when it does."""
    if options.choices:
        offered = _choices(options)
        if _naive(value) not in {_naive(c) for c in offered}:
            return Reading.invalid(
                jsonable(value),
                expected="one of: " + ", ".join(jsonable(c) for c in offered),
                hint=f"{jsonable(value)} is not offered here. Send one of: "
                + ", ".join(jsonable(c) for c in offered)
                + ".",
                code="invalid_choice",
            )
    if options.bounded:
        low, high = _bounds(options)
        wall = _naive(value)
        if (low is not None and wall < low) or (high is not None and wall > high):
            span = (
                f"from {jsonable(low) if low else '00:00'} to {jsonable(high) if high else '24:00'}"
            )
            return Reading.invalid(
                jsonable(value),
                expected=f"{EXPECTED}, {span}",
                hint=f"{jsonable(value)} is outside the accepted times ({span}). Send a time in that range.",
                code="out_of_range",
            )
    return None


def _refused_all(
    received: Any, readings: list[tuple[_dt.time, list[str]]], options: Options
) -> Reading:
    named = " or ".join(str(jsonable(t)) for t, _ in readings)
    return Reading.invalid(
        received,
        expected=EXPECTED,
        hint=f"{shown(received)} is {named}, and this property accepts neither. Send an accepted time as HH:MM.",
        code="out_of_range",
    )


def _naive(value: _dt.time) -> _dt.time:
    return value.replace(tzinfo=None)


def _bounds(options: Options) -> tuple[_dt.time | None, _dt.time | None]:
    return options.derived("time.bounds", lambda o: (as_time(o.minimum), as_time(o.maximum)))


def _choices(options: Options) -> tuple[_dt.time, ...]:
    def derive(o: Options) -> tuple[_dt.time, ...]:
        return tuple(t for t in (as_time(c) for c in o.choices or ()) if t is not None)

    return options.derived("time.choices", derive)


def as_time(given: Any) -> _dt.time | None:
    """A bound or a choice the author gave ("08:00", a `time`), as a naive time."""
    if given is None:
        return None
    if isinstance(given, _dt.time):
        return _naive(given)
    parsed = parse(str(given))
    wall = parsed.wall() if isinstance(parsed, Clock) else None
    if wall is None:
        raise ValueError(f"not a time of day: {given!r}")
    return wall


def _invalid(received: Any, hint: str) -> Reading:
    shown_value = (
        received if isinstance(received, str | int | float | bool) else type(received).__name__
    )
    return Reading.invalid(shown_value, expected=EXPECTED, hint=hint, code="invalid_time")


def time_text(value: _dt.time) -> str:
    """A time as the kind writes it: "HH:MM", seconds when not zero, "24:00", then the offset."""
    return str(jsonable(value))


TimeOfDay = Annotated[_dt.time, Kind("time")]
"""A time of day, read from the spellings models use ("2pm", "14h30"); sent back as "HH:MM"."""

__all__ = [
    "END_OF_DAY",
    "EXPECTED",
    "Clock",
    "TimeOfDay",
    "as_time",
    "is_day_word",
    "offset_text",
    "parse",
    "read_clock",
    "read_time",
    "settled",
    "time_text",
]
