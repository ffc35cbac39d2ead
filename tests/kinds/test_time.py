"""time: every spelling of a time of day reads back to it; a zone with two offsets asks both."""

from __future__ import annotations

import datetime as dt
from typing import Any
from zoneinfo import ZoneInfo, available_timezones

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from drivable.kinds import KINDS, KindModel, jsonable, read, validate
from drivable.kinds._registry import make_options
from drivable.kinds._zone import _abbreviations, _metazone_offsets
from drivable.kinds.time import TimeOfDay
from tests.kinds.strategies import OUTCOMES, anything

YEAR = dt.date.today().year
minutes = st.builds(dt.time, st.integers(0, 23), st.integers(0, 59))
offsets = st.integers(-14 * 60, 14 * 60).map(lambda m: dt.timezone(dt.timedelta(minutes=m)))


def value_of(spelling: object, **options: Any) -> dt.time:
    reading = read("time", spelling, **options)
    assert reading.outcome == "value", (spelling, reading.to_dict())
    assert isinstance(reading.value, dt.time)
    return reading.value


# -- canonical values round-trip ---------------------------------------------------------------


@given(
    st.builds(
        dt.time,
        st.integers(0, 23),
        st.integers(0, 59),
        st.integers(0, 59),
        st.sampled_from([0, 0, 250000, 1]),
        tzinfo=st.none() | offsets,
    )
)
def test_the_canonical_spelling_reads_back_without_a_note(t: dt.time) -> None:
    canonical = jsonable(t)
    reading = read("time", canonical)
    assert reading.outcome == "value" and reading.value == t, (canonical, reading.to_dict())
    assert reading.notes == ()
    clock = canonical[:-6] if t.tzinfo is not None else canonical
    assert clock.count(":") == (2 if t.second or t.microsecond else 1)  # seconds only when set


def test_the_end_of_the_day_is_24_00() -> None:
    assert read("time", "24:00").to_dict() == {"outcome": "value", "value": "24:00", "notes": []}
    assert read("time", "24:00").value == dt.time.max
    assert read("time", "24:01").outcome == "invalid"


# -- every spelling of a time reads back --------------------------------------------------------


def _marker(half: str, style: int) -> str:
    return [
        half,
        half.upper(),
        f"{half[0]}.{half[1]}.",
        f"{half[0].upper()}.{half[1].upper()}.",
        f"{half[0]}. {half[1]}.",
    ][style]


@st.composite
def spelled(draw: st.DrawFn) -> tuple[dt.time, str]:
    """A time and one way people write it that carries that time and no other."""
    t = draw(minutes)
    h, m = t.hour, t.minute
    twelve, half = h % 12 or 12, "am" if h < 12 else "pm"
    forms = [
        f"{h:02d}:{m:02d}",
        f"{h}:{m:02d}",
        f"{h}.{m:02d}",
        f"{h}h{m:02d}",
        f"{h:02d}{m:02d}",
        f"T{h:02d}:{m:02d}",
        f"{h} h {m:02d}",
        f"{h}:{m:02d} Uhr",
    ]
    gap = draw(st.sampled_from(["", " "]))
    style = draw(st.integers(0, 4))
    forms += [f"{twelve}:{m:02d}{gap}{_marker(half, style)}"]
    if m == 0:
        forms += [
            f"{h}",
            f"{h}h",
            f"{h} Uhr",
            f"{h} o'clock",
            f"{twelve}{gap}{_marker(half, style)}",
        ]
        forms += {
            0: ["midnight", "Midnight", "12 midnight", "půlnoc", "minuit"],
            12: ["noon", "12 noon", "poledne", "midi", "Mittag" if False else "noon"],
        }.get(h, [])
    text = draw(st.sampled_from(forms))
    pad = draw(st.sampled_from(["", " ", "\u00a0"]))
    return t, f"{pad}{text}{pad}"


@given(spelled())
def test_every_spelling_reads_back_to_its_time(case: tuple[dt.time, str]) -> None:
    t, text = case
    reading = read("time", text)
    assert reading.outcome == "value" and reading.value == t, (text, reading.to_dict())
    if text != jsonable(t):
        assert reading.notes and reading.notes[0].startswith(f"Read '{text}' as {jsonable(t)}")


@given(st.integers(1, 11), st.integers(0, 59), st.booleans())
def test_an_hour_without_am_or_pm_is_on_the_24_hour_clock_with_a_note(
    hour: int, minute: int, bare: bool
) -> None:
    text = str(hour) if bare and not minute else f"{hour}:{minute:02d}"
    reading = read("time", text)
    assert reading.value == dt.time(hour, minute)
    if text == jsonable(reading.value):  # "10:30" is the canonical spelling: no note
        assert reading.notes == ()
    else:
        assert f"{hour} pm is {hour + 12}:{minute:02d}" in reading.notes[0]


@pytest.mark.parametrize(
    ("text", "value", "because"),
    [
        ("12am", "00:00", "12 am is midnight"),
        ("12:30 AM", "00:30", "12 am is midnight"),
        ("12pm", "12:00", "12 pm is noon"),
        ("12:45 p.m.", "12:45", "12 pm is noon"),
        ("midnight", "00:00", "the start of the day"),
    ],
)
def test_twelve_am_and_pm_follow_the_usual_convention_with_a_note(
    text: str, value: str, because: str
) -> None:
    reading = read("time", text)
    assert jsonable(reading.value) == value
    assert because in reading.notes[0]


@given(st.integers(13, 23), st.integers(0, 59))
def test_am_after_an_afternoon_hour_is_refused_and_pm_is_read(hour: int, minute: int) -> None:
    assert read("time", f"{hour}:{minute:02d} am").code == "invalid_time"
    assert value_of(f"{hour}:{minute:02d} pm") == dt.time(hour, minute)


# -- zones ---------------------------------------------------------------------------------------


@given(minutes, offsets, st.sampled_from(["{o}", " {o}", " UTC{o}", " GMT{o}"]))
def test_an_offset_is_kept(t: dt.time, tz: dt.tzinfo, template: str) -> None:
    offset = jsonable(dt.time(0, tzinfo=tz))[5:]
    text = f"{t.hour:02d}:{t.minute:02d}" + template.format(o=offset)
    assert value_of(text) == t.replace(tzinfo=tz)


@given(minutes, st.sampled_from(["Z", " Z", " UTC", " utc", " GMT"]))
def test_utc_spellings(t: dt.time, zone: str) -> None:
    assert value_of(f"{t.hour:02d}:{t.minute:02d}{zone}") == t.replace(tzinfo=dt.UTC)


# IANA names are Area/Location; single words ("Poland", "EST") are the database's old aliases.
ZONES = sorted(z for z in available_timezones() if "/" in z)


@given(minutes, st.sampled_from(ZONES))
def test_a_named_zone_asks_both_offsets_when_it_keeps_two(t: dt.time, name: str) -> None:
    year = {
        offset
        for m in range(1, 13)
        for d in (1, 15)
        if (offset := dt.datetime(YEAR, m, d, 12, tzinfo=ZoneInfo(name)).utcoffset()) is not None
    }
    reading = read("time", f"{t.hour:02d}:{t.minute:02d} {name}")
    got = (
        {r.utcoffset() for r in reading.readings}
        if reading.outcome == "ask"
        else {reading.value.utcoffset()}
    )
    assert got == {min(year), max(year)}, (name, reading.to_dict())
    assert reading.outcome == ("ask" if len(year) > 1 else "value")
    assert {r.replace(tzinfo=None) for r in reading.readings} <= {t}


@given(minutes, st.sampled_from(sorted(_abbreviations())))
def test_an_abbreviation_reads_as_cldr_names_it(t: dt.time, abbreviation: str) -> None:
    """A standard or daylight name is one offset; a generic one (CET is also the generic name of
    Central European time) is both of its zone's; names of several zones (IST) are each zone's."""
    expected: set[dt.timedelta] = set()
    for metazone, kind in _abbreviations()[abbreviation]:
        lo, hi = _metazone_offsets(metazone, YEAR)
        expected |= {"standard": {lo}, "daylight": {hi}, "generic": {lo, hi}}[kind]
    reading = read("time", f"{t.hour:02d}:{t.minute:02d} {abbreviation}")
    if len(expected) == 1:
        assert reading.outcome == "value" and reading.value.utcoffset() == expected.pop()
        assert abbreviation in reading.notes[0]
    else:
        assert reading.outcome == "ask" and reading.code == "ambiguous_time"
        assert {r.utcoffset() for r in reading.readings} == expected
        assert all(jsonable(r) in reading.hint for r in reading.readings)


def test_pinned_zones() -> None:
    cet = read("time", "9:00 CET")
    assert [jsonable(r) for r in cet.readings] == ["09:00+01:00", "09:00+02:00"]
    assert jsonable(value_of("9:00 EST")) == "09:00-05:00"
    assert jsonable(value_of("09:00+02:00")) == "09:00+02:00"
    # "9:00-11:00" is a range, not 09:00 at UTC-11:00: an offset follows an ISO time.
    assert read("time", "9:00-11:00").outcome == "invalid"
    assert read("time", "9-11").outcome == "invalid"


# -- bounds and choices --------------------------------------------------------------------------


@given(minutes)
def test_bounds_refuse_outside_and_keep_inside(t: dt.time) -> None:
    reading = read("time", jsonable(t), minimum="08:00", maximum="20:00")
    if dt.time(8) <= t <= dt.time(20):
        assert reading.outcome == "value"
    else:
        assert reading.outcome == "invalid" and reading.code == "out_of_range"
        assert "08:00" in reading.hint and "20:00" in reading.hint


SLOTS = tuple(f"{h:02d}:{m:02d}" for h in range(8, 18) for m in (0, 30))


@given(spelled())
def test_choices_read_every_spelling_and_never_suggest_another_time(
    case: tuple[dt.time, str],
) -> None:
    """Half-hour slots: "9:00" is the slot 09:00, never "Did you mean 19:00"."""
    t, text = case
    reading = read("time", text, choices=SLOTS)
    if jsonable(t) in SLOTS:
        assert reading.outcome == "value" and reading.value == t
    else:
        assert reading.outcome == "invalid" and reading.code == "invalid_choice"
        assert "Did you mean" not in reading.hint


def test_bounds_compare_the_time_as_written_on_its_clock() -> None:
    # Both readings of "9:00 CET" are 09:00 on their clocks: a bound keeps or refuses both.
    assert read("time", "9:00 CET", minimum="08:00").outcome == "ask"
    assert read("time", "9:00 CET", maximum="08:00").code == "out_of_range"


# -- nothing raises ------------------------------------------------------------------------------


@settings(max_examples=500)  # the parsers' branches are many: more draws of junk
@given(anything)
def test_anything_reads_to_one_of_four_outcomes(value: object) -> None:
    for options in (
        {},
        {"intent": "write"},
        {"minimum": "08:00", "maximum": "20:00"},
        {"choices": SLOTS},
    ):
        reading = KINDS["time"].reader(value, make_options(**options))
        assert reading.outcome in OUTCOMES
        reading.to_dict()
        assert read("time", value, **options).outcome in OUTCOMES


# -- on a field ----------------------------------------------------------------------------------


class Booking(KindModel):
    start_time: dt.time
    end_time: dt.time | None = None
    opens: TimeOfDay | None = None
    note_time: str | None = None  # a str stays the author's: bound only on a `time`


def test_a_time_field_binds_by_type_and_name_and_keeps_the_notes() -> None:
    got = validate(
        Booking, {"start_time": "2pm", "end_time": "16h", "opens": "9.00", "note_time": "2pm"}
    )
    assert (got.value.start_time, got.value.end_time, got.value.opens) == (
        dt.time(14),
        dt.time(16),
        dt.time(9),
    )
    assert got.value.note_time == "2pm"
    assert "start_time: Read '2pm' as 14:00." in got.notes
    schema = Booking.model_json_schema()["properties"]["start_time"]
    assert schema["type"] == "string" and schema["examples"] == ["14:30"]
    assert read("start_time", "2pm").value == dt.time(14)
