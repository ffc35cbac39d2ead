"""time_range: every spelling of a span of one day reads back to it; a span that runs backward on
the 24-hour clock and forward on the 12-hour one asks, naming each forward reading."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from drivable.kinds import KINDS, KindModel, jsonable, read, validate
from drivable.kinds._registry import make_options
from drivable.kinds.time_range import TimeRange
from tests.kinds.strategies import OUTCOMES, anything

minutes = st.builds(dt.time, st.integers(0, 23), st.integers(0, 59))


@st.composite
def spans(draw: st.DrawFn) -> TimeRange:
    start, end = sorted(draw(st.lists(minutes, min_size=2, max_size=2, unique=True)))
    return TimeRange(start, end)


def value_of(spelling: object, **options: Any) -> TimeRange:
    reading = read("time_range", spelling, **options)
    assert reading.outcome == "value", (spelling, reading.to_dict())
    assert isinstance(reading.value, TimeRange)
    return reading.value


@given(spans() | st.builds(TimeRange, minutes, st.just(dt.time.max)))
def test_the_canonical_spelling_reads_back_without_a_note(span: TimeRange) -> None:
    reading = read("time_range", span.to_json())
    assert reading.outcome == "value" and reading.value == span and reading.notes == ()


def _explicit(t: dt.time, style: int) -> str:
    """A side that carries its time alone: two-digit 24-hour, or with am/pm."""
    twelve, half = t.hour % 12 or 12, "am" if t.hour < 12 else "pm"
    return [
        f"{t.hour:02d}:{t.minute:02d}",
        f"{t.hour:02d}h{t.minute:02d}",
        f"{twelve}:{t.minute:02d} {half.upper()}",
        f"{twelve}:{t.minute:02d}{half}",
    ][style]


SEPARATORS = [
    "{a}-{b}",
    "{a} - {b}",
    "{a} – {b}",
    "{a}/{b}",
    "from {a} to {b}",
    "{a} to {b}",
    "between {a} and {b}",
    "od {a} do {b}",
    "von {a} bis {b}",
    "de {a} à {b}",
    "{a}..{b}",
]


@given(spans(), st.integers(0, 3), st.integers(0, 3), st.sampled_from(SEPARATORS))
def test_every_spelling_of_explicit_sides_reads_back(
    span: TimeRange, left: int, right: int, template: str
) -> None:
    # Beside a side with am/pm, "10:00" and "12:01" may be on the 12-hour clock ("10:00-10:30
    # PM" is 22:00/22:30): only a leading zero or an hour past 12 says 24-hour there.
    for side, other in ((span.start, right), (span.end, left)):
        if other >= 2 and 10 <= side.hour <= 12:
            left, right = (2, right) if side is span.start else (left, 2)
    text = template.format(a=_explicit(span.start, left), b=_explicit(span.end, right))
    assert value_of(text) == span, text


@given(spans(), st.sampled_from(SEPARATORS))
def test_unpadded_sides_are_on_the_24_hour_clock(span: TimeRange, template: str) -> None:
    text = template.format(
        a=f"{span.start.hour}:{span.start.minute:02d}", b=f"{span.end.hour}:{span.end.minute:02d}"
    )
    reading = read("time_range", text)
    assert reading.value == span, (text, reading.to_dict())
    if text == span.to_json():  # "10:00/11:30" is the canonical spelling: no note
        assert reading.notes == ()
        return
    both_twelve = 1 <= span.start.hour <= 11 and 1 <= span.end.hour <= 11
    assert ("in the evening it is" in reading.notes[0]) == both_twelve


@given(st.integers(1, 11), st.integers(1, 11), st.sampled_from(["am", "pm", " AM", " p.m."]))
def test_an_am_or_pm_on_the_end_applies_to_the_start_when_the_range_then_runs_forward(
    start: int, end: int, marker: str
) -> None:
    pm = "p" in marker.lower()
    reading = read("time_range", f"{start} to {end}{marker}")
    if start < end:  # "2 to 4pm": both in the afternoon
        assert reading.value == TimeRange(dt.time(start + 12 * pm), dt.time(end + 12 * pm))
        assert "applies to both" in reading.notes[0]
    elif pm:  # "11 to 2pm": 11 pm would run backward, so 11 am
        assert reading.value == TimeRange(dt.time(start), dt.time(end + 12))
    else:  # "11 to 2am": runs backward either way, and a range is within one day
        assert reading.outcome in ("invalid", "ask")


@given(st.integers(1, 11), st.integers(1, 11), st.sampled_from(["{s}-{e}", "from {s} to {e}"]))
def test_a_range_backward_on_the_24_hour_clock_asks_with_every_forward_reading(
    start: int, end: int, template: str
) -> None:
    """ "from 9 to 5" is never re-read silently: 09:00/17:00 is asked about, even when it is the
    only reading that runs forward within the day."""
    assume(end <= start)
    reading = read("time_range", template.format(s=start, e=end))
    forward = [
        TimeRange(dt.time(s), dt.time(e))
        for s in (start, start + 12)
        for e in (end, end + 12)
        if s < e and (s, e) != (start, end)
    ]
    assert reading.outcome == "ask" and reading.code == "ambiguous_time_range", reading.to_dict()
    assert list(reading.readings) == forward
    assert all(r.to_json() in reading.hint for r in forward)


@given(st.integers(13, 23), st.integers(0, 12))
def test_a_range_that_crosses_midnight_is_refused(start: int, end: int) -> None:
    assume(end + 12 <= start or end == 0 or end == 12)
    reading = read("time_range", f"{start}:00-{end}:00")
    if end == 0:  # 00:00 as an end is the end of the day
        assert reading.value == TimeRange(dt.time(start), dt.time.max)
    else:
        assert reading.outcome == "invalid" and reading.code == "invalid_time_range"
        assert "ends before it starts" in reading.hint


@pytest.mark.parametrize(
    ("text", "canonical"),
    [
        ("9-11", "09:00/11:00"),
        ("9:00-11:30", "09:00/11:30"),
        ("9 to 11am", "09:00/11:00"),
        ("14h-16h", "14:00/16:00"),
        ("2 to 4pm", "14:00/16:00"),
        ("11 to 2pm", "11:00/14:00"),
        ("9am to 5", "09:00/17:00"),
        ("10pm to midnight", "22:00/24:00"),
        ("22:00-00:00", "22:00/24:00"),
        ("od 9 do 11", "09:00/11:00"),
        ("von 9 bis 11 Uhr", "09:00/11:00"),
        ("09:00-05:00/11:00-05:00", "09:00-05:00/11:00-05:00"),
    ],
)
def test_pinned_spellings(text: str, canonical: str) -> None:
    assert jsonable(value_of(text)) == canonical


def test_pinned_asks_and_refusals() -> None:
    nine_to_five = read("time_range", "from 9 to 5")
    assert [r.to_json() for r in nine_to_five.readings] == ["09:00/17:00"]
    assert read("time_range", "22-6").code == "invalid_time_range"
    assert read("time_range", "9-9").readings == (TimeRange(dt.time(9), dt.time(21)),)
    cet = read("time_range", "9-11 CET")
    assert [r.to_json() for r in cet.readings] == [
        "09:00+01:00/11:00+01:00",
        "09:00+02:00/11:00+02:00",
    ]


@given(spans())
def test_a_json_object_or_pair_reads_as_its_two_sides(span: TimeRange) -> None:
    a, b = jsonable(span.start), jsonable(span.end)
    assert value_of({"start": a, "end": b}) == span
    assert value_of([a, b]) == span


@given(spans())
def test_bounds_keep_both_ends_within_them(span: TimeRange) -> None:
    reading = read("time_range", span.to_json(), minimum="08:00", maximum="20:00")
    inside = span.start >= dt.time(8) and span.end <= dt.time(20)
    assert (reading.outcome == "value") == inside
    if not inside:
        assert reading.code == "out_of_range"


def test_an_ask_offers_only_the_readings_the_bounds_accept() -> None:
    assert read("time_range", "from 9 to 5", maximum="16:00").code == "out_of_range"


@settings(max_examples=500)  # the parsers' branches are many: more draws of junk
@given(anything)
def test_anything_reads_to_one_of_four_outcomes(value: object) -> None:
    for options in ({}, {"intent": "write"}, {"minimum": "08:00", "maximum": "20:00"}):
        reading = KINDS["time_range"].reader(value, make_options(**options))
        assert reading.outcome in OUTCOMES
        reading.to_dict()
        assert read("time_range", value, **options).outcome in OUTCOMES  # type: ignore[arg-type]


class Reserve(KindModel):
    slot: TimeRange
    time_range: TimeRange | None = None
    lunch_slot: str | None = None  # a str stays the author's


def test_a_range_field_binds_by_type_and_name() -> None:
    got = validate(Reserve, {"slot": "9-11", "time_range": "2 to 4pm", "lunch_slot": "12-13"})
    assert got.value.slot == TimeRange(dt.time(9), dt.time(11))
    assert got.value.time_range == TimeRange(dt.time(14), dt.time(16))
    assert got.value.lunch_slot == "12-13"
    assert got.value.model_dump(mode="json")["slot"] == "09:00/11:00"
    assert "/" in Reserve.model_json_schema()["properties"]["slot"]["pattern"]
