"""datetime: every spelling of a moment reads back to it, with its offset; a moment without a zone,
a wall time the clocks show twice and CET on a summer day are asked about; relative days read
only against a clock the tool passes."""

from __future__ import annotations

import calendar
import datetime as dt
from typing import Any
from zoneinfo import ZoneInfo, available_timezones

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from drivable.kinds import KINDS, KindModel, jsonable, read, validate
from drivable.kinds._registry import make_options
from drivable.kinds.datetime import Moment
from tests.kinds.strategies import OUTCOMES, anything

PRAGUE = ZoneInfo("Europe/Prague")
offsets = st.integers(-14 * 4, 14 * 4).map(lambda q: dt.timezone(dt.timedelta(minutes=15 * q)))
moments = st.datetimes(
    min_value=dt.datetime(1000, 1, 2), max_value=dt.datetime(9999, 12, 30), timezones=offsets
)
whole_minutes = moments.map(lambda m: m.replace(second=0, microsecond=0))


def value_of(spelling: object, **options: Any) -> dt.datetime:
    reading = read("datetime", spelling, **options)
    assert reading.outcome == "value", (spelling, reading.to_dict())
    assert isinstance(reading.value, dt.datetime)
    return reading.value


def same(a: dt.datetime, b: dt.datetime) -> bool:
    """The same instant, with the same offset (RFC 3339 writes both)."""
    return a == b and a.utcoffset() == b.utcoffset()


@given(moments)
def test_rfc_3339_reads_back_without_a_note(moment: dt.datetime) -> None:
    reading = read("datetime", moment.isoformat())
    assert reading.outcome == "value" and same(reading.value, moment)
    assert reading.notes == ()


def _offset(moment: dt.datetime, style: int) -> str:
    text = moment.isoformat()[-6:]
    if text == "+00:00":
        return ["Z", "UTC", "GMT", "+00:00"][style]
    whole = text.endswith(":00")
    return [
        text,
        text.replace(":", ""),
        f"UTC{text}",
        f"UTC{text[0]}{int(text[1:3])}" if whole else text,
    ][style]


@st.composite
def spelled(draw: st.DrawFn) -> tuple[dt.datetime, str]:
    """A moment with a fixed offset and a spelling of it: a day (the date kind's), a time (the
    time kind's, one that carries its time alone) and the offset, joined as people join them."""
    moment = draw(whole_minutes)
    day, h, m = moment.date(), moment.hour, moment.minute
    twelve, half = h % 12 or 12, "am" if h < 12 else "pm"
    days = [
        day.isoformat(),
        f"{day.day}. {day.month}. {day.year}",
        f"{day.day}.{day.month}.{day.year}",
        f"{day.day} {calendar.month_name[day.month]} {day.year}",
        f"{calendar.month_abbr[day.month]} {day.day}, {day.year}",
    ]
    times = [f"{h:02d}:{m:02d}", f"{h}:{m:02d}", f"{twelve}:{m:02d} {half.upper()}", f"{h}h{m:02d}"]
    joints = [" ", ", ", " at ", " um "]
    offset = _offset(moment, draw(st.integers(0, 3)))
    iso = draw(st.booleans())
    if iso:
        text = f"{day.isoformat()}T{h:02d}:{m:02d}{offset if offset[0] in '+-' or offset == 'Z' else ' ' + offset}"
    else:
        text = f"{draw(st.sampled_from(days))}{draw(st.sampled_from(joints))}{draw(st.sampled_from(times))} {offset}"
    return moment, text


@given(spelled())
def test_every_spelling_reads_back_to_its_moment_and_offset(case: tuple[dt.datetime, str]) -> None:
    moment, text = case
    reading = read("datetime", text)
    assert reading.outcome == "value" and same(reading.value, moment), (text, reading.to_dict())
    if text.replace("Z", "+00:00") != moment.isoformat():
        assert reading.notes[0].startswith(f"Read '{text}' as {moment.isoformat()}")


ZONES = sorted(z for z in available_timezones() if "/" in z)


@given(
    st.datetimes(min_value=dt.datetime(1970, 1, 1), max_value=dt.datetime(2037, 12, 31)),
    st.sampled_from(ZONES),
)
def test_a_named_zone_reads_its_offset_that_day_asks_in_the_repeated_hour_refuses_the_skipped(
    wall: dt.datetime, name: str
) -> None:
    wall = wall.replace(second=0, microsecond=0)
    zone = ZoneInfo(name)
    text = f"{wall.date().isoformat()} {wall.hour:02d}:{wall.minute:02d} {name}"
    first, second = wall.replace(tzinfo=zone, fold=0), wall.replace(tzinfo=zone, fold=1)
    reading = read("datetime", text)
    if first.utcoffset() == second.utcoffset():
        assert reading.outcome == "value", (text, reading.to_dict())
        assert reading.value == first and reading.value.utcoffset() == first.utcoffset()
    elif first.astimezone(dt.UTC).astimezone(zone).replace(tzinfo=None) != wall:
        assert reading.outcome == "invalid" and "does not exist" in reading.hint
    else:
        assert reading.outcome == "ask" and reading.code == "ambiguous_datetime"
        assert [r.utcoffset() for r in reading.readings] == [first.utcoffset(), second.utcoffset()]


@given(st.dates(min_value=dt.date(1980, 1, 1), max_value=dt.date(2037, 12, 31)), st.integers(0, 23))
@example(dt.date(2000, 3, 26), 2)  # clocks go forward at 02:00: 02:30 is no local time
def test_cet_on_a_day_of_summer_time_asks_both_offsets(day: dt.date, hour: int) -> None:
    """CLDR gives CET as Central European time's standard name and as its generic one: +01:00 as
    written, or the local time, +02:00 on a day of summer time. In winter the two are one."""
    text = f"{day.day}. {day.month}. {day.year} {hour:02d}:30 CET"
    local = dt.datetime.combine(day, dt.time(hour, 30))
    # the local reading exists only where the wall time does: 02:30 on the day clocks go forward
    # is no Prague time, so CET there is only its standard +01:00
    readings = {dt.timedelta(hours=1)} | {
        at.utcoffset()
        for at in (local.replace(tzinfo=PRAGUE, fold=f) for f in (0, 1))
        if at.astimezone(dt.UTC).astimezone(PRAGUE).replace(tzinfo=None) == local
    }
    reading = read("datetime", text)
    if len(readings) == 1:
        assert reading.outcome == "value" and reading.value.utcoffset() == dt.timedelta(hours=1)
    else:
        assert reading.outcome == "ask", (text, reading.to_dict())
        assert {r.utcoffset() for r in reading.readings} == readings
        assert reading.readings[0].utcoffset() == dt.timedelta(hours=1)  # as written first


@given(whole_minutes)
def test_a_moment_without_a_zone_is_asked_unless_the_tool_has_one(moment: dt.datetime) -> None:
    text = f"{moment.date().isoformat()} {moment.hour:02d}:{moment.minute:02d}"
    asked = read("datetime", text)
    assert asked.outcome == "ask" and asked.code == "ambiguous_datetime" and asked.readings == ()
    assert "no time zone" in asked.hint
    tz = moment.tzinfo
    assert tz is not None
    offset = moment.isoformat()[-6:]
    assert same(value_of(text, zone=offset), moment)
    assert same(value_of(text, zone=tz), moment)
    assert "the tool's zone" in read("datetime", text, zone=tz).notes[0]


# -- relative days -------------------------------------------------------------------------------


@given(
    st.datetimes(min_value=dt.datetime(1990, 1, 1), max_value=dt.datetime(2035, 12, 31)),
    st.integers(-1, 1),
    st.integers(0, 23),
    st.sampled_from([" at {h}", " {h}:00", " at {h}:00", ", {h}h"]),
)
def test_relative_days_read_against_the_tools_clock_in_its_zone(
    now: dt.datetime, offset: int, hour: int, template: str
) -> None:
    word = {-1: "yesterday", 0: "today", 1: "tomorrow"}[offset]
    text = word + template.format(h=hour)
    clock_now = now.replace(tzinfo=dt.UTC)
    reading = read("datetime", text, clock=lambda: clock_now, zone="Europe/Prague")
    day = clock_now.astimezone(PRAGUE).date() + dt.timedelta(days=offset)
    local = dt.datetime.combine(day, dt.time(hour))
    skipped = (
        local.replace(tzinfo=PRAGUE).astimezone(dt.UTC).astimezone(PRAGUE).replace(tzinfo=None)
        != local
    )
    if skipped:
        assert reading.outcome == "invalid"
        return
    if reading.outcome == "ask":  # the hour repeated in autumn
        assert {r.replace(tzinfo=None) for r in reading.readings} == {local}
        return
    assert reading.outcome == "value", (text, reading.to_dict())
    assert reading.value.replace(tzinfo=None) == local
    assert reading.value.utcoffset() == local.replace(tzinfo=PRAGUE).utcoffset()
    assert any("by the server's clock" in n for n in reading.notes)


@given(
    st.sampled_from(
        ["today at 9", "tomorrow 14:00", "in 3 days at 10:00", "next Monday 14h", "zítra v 9:00"]
    )
)
def test_without_a_clock_relative_days_are_refused(text: str) -> None:
    reading = read("datetime", text, zone="Europe/Prague")
    assert reading.outcome == "invalid" and "relative" in reading.hint


def test_a_number_alone_after_a_day_is_no_hour() -> None:
    """ "1.10.2026 9": a bare number is an hour only after "at" or "T"; "2026" never is."""
    assert read("datetime", "1.10.2026 9", zone="UTC").outcome == "invalid"
    assert jsonable(value_of("1.10.2026 at 9", zone="UTC")) == "2026-10-01T09:00:00+00:00"
    assert read("datetime", "1 October 2026", zone="UTC").outcome == "invalid"


# -- dates with two readings ---------------------------------------------------------------------


@given(st.integers(1, 12), st.integers(1, 12), st.integers(1000, 9999))
def test_a_day_with_two_readings_asks_with_both_moments(first: int, second: int, year: int) -> None:
    text = f"{first:02d}/{second:02d}/{year} 14:00 UTC"
    reading = read("datetime", text)
    if first == second:
        assert reading.outcome == "value"
        return
    assert reading.outcome == "ask"
    assert [r.date() for r in reading.readings] == [
        dt.date(year, second, first),
        dt.date(year, first, second),
    ]
    assert "day is written first" in reading.hint


@pytest.mark.parametrize(
    ("text", "canonical"),
    [
        ("2026-10-01T14:00:00+02:00", "2026-10-01T14:00:00+02:00"),
        ("2026-10-01T12:00Z", "2026-10-01T12:00:00+00:00"),
        ("20261001T1400Z", "2026-10-01T14:00:00+00:00"),
        ("2026-10-01 14:00 Europe/Prague", "2026-10-01T14:00:00+02:00"),
        ("1. 12. 2026 14:00 CET", "2026-12-01T14:00:00+01:00"),
        ("Oct 1, 2026 2:30 PM EST", "2026-10-01T14:30:00-05:00"),
        ("1. října 2026 v 9:00 UTC", "2026-10-01T09:00:00+00:00"),
        ("2026-10-01 24:00 UTC", "2026-10-02T00:00:00+00:00"),
    ],
)
def test_pinned_spellings(text: str, canonical: str) -> None:
    assert jsonable(value_of(text)) == canonical


def test_bounds() -> None:
    low, high = "2026-01-01T00:00:00+00:00", "2026-12-31T23:59:59+00:00"
    assert read("datetime", "2026-10-01 14:00 UTC", minimum=low, maximum=high).outcome == "value"
    assert (
        read("datetime", "2027-10-01 14:00 UTC", minimum=low, maximum=high).code == "out_of_range"
    )
    # Of CET's two readings on 25 October 2026 at 02:30, bounds keep one: it is the value.
    edge = read("datetime", "2026-10-25 02:30 Europe/Prague", maximum="2026-10-25T00:45:00+00:00")
    assert edge.outcome == "value" and jsonable(edge.value) == "2026-10-25T02:30:00+02:00"
    assert "outside" in edge.notes[-1]


@settings(max_examples=500)  # the parsers' branches are many: more draws of junk
@given(anything)
def test_anything_reads_to_one_of_four_outcomes(value: object) -> None:
    now = dt.datetime(2026, 12, 2, 10, tzinfo=PRAGUE)
    for options in ({}, {"intent": "write"}, {"zone": "Europe/Prague", "clock": lambda: now}):
        reading = KINDS["datetime"].reader(value, make_options(**options))
        assert reading.outcome in OUTCOMES
        reading.to_dict()
        assert read("datetime", value, **options).outcome in OUTCOMES


class Event(KindModel):
    starts_at: dt.datetime
    ends_at: Moment | None = None
    created_at: str | None = None  # a str stays the author's


def test_a_moment_field_binds_by_type_and_name() -> None:
    got = validate(
        Event,
        {"starts_at": "1. 12. 2026 14:00 CET", "ends_at": "2026-12-01T15:00Z", "created_at": "now"},
    )
    assert jsonable(got.value.starts_at) == "2026-12-01T14:00:00+01:00"
    assert jsonable(got.value.ends_at) == "2026-12-01T15:00:00+00:00"
    assert got.value.created_at == "now"
    assert Event.model_json_schema()["properties"]["starts_at"]["format"] == "date-time"
