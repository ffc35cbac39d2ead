"""date: every unambiguous spelling of any day reads back to it; ambiguous ones ask with both."""

from __future__ import annotations

import calendar
import datetime as dt
import unicodedata
from typing import Any, Literal

import pytest
from babel.dates import get_month_names
from hypothesis import given
from hypothesis import strategies as st

from drivable.kinds import KindModel, read, validate
from drivable.kinds.date import Date, DateFrom, DateTo

OUTCOMES = {"value", "absent", "ask", "invalid"}
LOCALES = ("en", "cs", "de", "fr", "sk", "pl")

# 0001-01-01 and 9999-12-31 mean "no bound"; four-digit years for spellings that need them.
days = st.dates(min_value=dt.date(1000, 1, 1), max_value=dt.date(9999, 12, 30))
iso_days = st.dates(min_value=dt.date(1, 1, 2), max_value=dt.date(9999, 12, 30))


def strip_diacritics(text: str) -> str:
    decomposed = unicodedata.normalize("NFKD", text)
    return "".join(c for c in decomposed if not unicodedata.combining(c))


def value_of(value: object, **options: Any) -> object:
    reading = read("date", value, **options)
    assert reading.outcome == "value", reading.to_dict()
    return reading.value


@given(iso_days)
def test_iso_reads_without_a_note(day: dt.date) -> None:
    reading = read("date", day.isoformat())
    assert reading.outcome == "value"
    assert reading.value == day
    assert reading.notes == ()


@given(days, st.sampled_from(["{d}. {m}. {y}", "{d}.{m}.{y}", "{dd}.{mm}.{y}", "{dd}. {mm}. {y}"]))
def test_dotted_day_first(day: dt.date, template: str) -> None:
    text = template.format(
        d=day.day, m=day.month, y=day.year, dd=f"{day.day:02d}", mm=f"{day.month:02d}"
    )
    reading = read("date", text)
    assert reading.value == day
    assert reading.notes == (f"Read '{text}' as {day.isoformat()}.",)


@given(days)
def test_iso_basic_and_year_first(day: dt.date) -> None:
    assert value_of(day.strftime("%Y%m%d")) == day
    assert value_of(f"{day.year}/{day.month:02d}/{day.day:02d}") == day
    assert value_of(f"{day.year}.{day.month}.{day.day}.") == day


@given(
    days,
    st.times(),
    st.sampled_from(["Z", "+02:00", "-05:30", "+0100", ""]),
    st.sampled_from(["T", " "]),
)
def test_timestamps_keep_the_date_part_with_a_note(
    day: dt.date, time: dt.time, zone: str, separator: str
) -> None:
    text = f"{day.isoformat()}{separator}{time.strftime('%H:%M:%S')}{zone}"
    reading = read("date", text)
    assert reading.value == day
    assert len(reading.notes) == 1
    assert "time" in reading.notes[0] and "dropped" in reading.notes[0]


@given(
    days,
    st.sampled_from(LOCALES),
    st.sampled_from(["wide", "abbreviated"]),
    st.sampled_from(["format", "stand-alone"]),
    st.sampled_from([str.lower, str.upper, str.title, lambda s: s]),
    st.booleans(),
    st.sampled_from(["{d} {month} {y}", "{d}. {month} {y}", "{month} {d}, {y}", "{y} {month} {d}"]),
)
def test_written_months(
    day: dt.date,
    locale: str,
    width: Literal["abbreviated", "narrow", "wide"],
    context: Literal["format", "stand-alone"],
    case: object,
    plain: bool,
    template: str,
) -> None:
    month = get_month_names(width, context, locale)[day.month]
    month = case(month)  # type: ignore[operator]
    if plain:
        month = strip_diacritics(month)
    text = template.format(d=day.day, month=month, y=day.year)
    assert value_of(text) == day, text


@given(days)
def test_slashes_with_one_possible_reading(day: dt.date) -> None:
    text = f"{day.day:02d}/{day.month:02d}/{day.year}"
    swapped = f"{day.month:02d}/{day.day:02d}/{day.year}"
    if day.day > 12 or day.day == day.month:
        assert value_of(text) == day
        assert value_of(swapped) == day


@given(
    st.integers(1, 12),
    st.integers(1, 12),
    st.integers(1000, 9999),
    st.sampled_from(["/", "-"]),
    st.booleans(),
)
def test_ambiguous_day_and_month_ask_with_both_readings(
    first: int, second: int, year: int, separator: str, padded: bool
) -> None:
    if first == second:
        return
    a, b = (f"{first:02d}", f"{second:02d}") if padded else (str(first), str(second))
    text = f"{a}{separator}{b}{separator}{year}"
    reading = read("date", text)
    assert reading.outcome == "ask"
    assert reading.code == "ambiguous_date"
    assert reading.readings == (dt.date(year, second, first), dt.date(year, first, second))
    assert reading.to_dict()["expected"] == "YYYY-MM-DD"


@given(st.integers(1000, 9998), st.integers(1, 12))
def test_range_bounds_read_periods_as_first_and_last_day(year: int, month: int) -> None:
    last = calendar.monthrange(year, month)[1]
    assert value_of(str(year), bound="from") == dt.date(year, 1, 1)
    assert value_of(str(year), bound="to") == dt.date(year, 12, 31)
    for text in (f"{year}-{month:02d}", f"{month}/{year}", f"{month:02d}.{year}"):
        assert value_of(text, bound="from") == dt.date(year, month, 1)
        assert value_of(text, bound="to") == dt.date(year, month, last)
    czech = get_month_names("wide", "stand-alone", "cs")[month]
    assert value_of(f"{czech} {year}", bound="to") == dt.date(year, month, last)


@given(st.text(max_size=40) | st.from_regex(r"[0-9 ./:T-]{0,24}", fullmatch=True))
def test_any_text_reads_to_one_of_four_outcomes(text: str) -> None:
    for options in ({}, {"bound": "from"}, {"bound": "to"}, {"intent": "write"}):
        reading = read("date", text, **options)  # type: ignore[arg-type]
        assert reading.outcome in OUTCOMES
        reading.to_dict()


@given(st.integers() | st.floats() | st.booleans() | st.lists(st.integers(), max_size=2))
def test_any_json_value_reads_to_one_of_four_outcomes(value: object) -> None:
    assert read("date", value).outcome in OUTCOMES


@pytest.mark.parametrize(
    ("text", "iso"),
    [
        ("2026-10-01", "2026-10-01"),
        ("1. 10. 2026", "2026-10-01"),
        ("1.10.2026", "2026-10-01"),
        ("1 October 2026", "2026-10-01"),
        ("Oct 1, 2026", "2026-10-01"),
        ("1. října 2026", "2026-10-01"),
        ("1 rijna 2026", "2026-10-01"),
        ("20261001", "2026-10-01"),
        ("2026-10-01T12:30:00Z", "2026-10-01"),
        ("2026-10-01T23:30:00-05:00", "2026-10-01"),
        ("13/02/2026", "2026-02-13"),
        ("02/02/2026", "2026-02-02"),
        ("Thursday, 1st of October 2026", "2026-10-01"),
    ],
)
def test_pinned_spellings(text: str, iso: str) -> None:
    assert read("date", text).to_dict()["value"] == iso


def test_pinned_outcomes() -> None:
    assert read("date", "01/02/2026").to_dict() == {
        "outcome": "ask",
        "received": "01/02/2026",
        "expected": "YYYY-MM-DD",
        "hint": read("date", "01/02/2026").hint,
        "readings": ["2026-02-01", "2026-01-02"],
    }
    impossible = read("date", "31. 2. 2026")
    assert (impossible.outcome, impossible.code, impossible.expected) == (
        "invalid",
        "invalid_date",
        "YYYY-MM-DD",
    )
    assert read("date", "1. 10. 2026").notes == ("Read '1. 10. 2026' as 2026-10-01.",)
    assert read("date_from", "2020").to_dict() == {
        "outcome": "value",
        "value": "2020-01-01",
        "notes": ["Read '2020' as 2020-01-01."],
    }
    assert read("date_to", "2020").value == dt.date(2020, 12, 31)
    assert read("date_to", "2024-02").value == dt.date(2024, 2, 29)
    assert read("date_to", "2023-02").value == dt.date(2023, 2, 28)
    assert read("date_from", "květen 2020").value == dt.date(2020, 5, 1)


def test_a_bare_period_is_no_day_without_a_bound() -> None:
    for text in ("2020", "2020-05", "říjen 2026"):
        reading = read("date", text)
        assert reading.outcome == "invalid"
        assert "names a" in reading.hint and "from/to" in reading.hint


@pytest.mark.parametrize("text", ["0001-01-01", "9999-12-31", "0000-00-00"])
def test_no_bound_spellings(text: str) -> None:
    assert read("date_from", text).outcome == "absent"
    assert read("date_to", text).outcome == "absent"
    assert read("date", text).outcome == "absent"
    assert read("date", text, intent="write").outcome == "ask"


def test_minimum_and_maximum() -> None:
    assert read("date", "2026-10-01", minimum="2026-01-01", maximum=dt.date(2026, 12, 31)).ok
    late = read("date", "1. 1. 2027", maximum="2026-12-31")
    assert (late.outcome, late.code) == ("invalid", "date_out_of_range")


def test_a_huge_string_is_refused_unparsed() -> None:
    assert read("date", "1" * 1_000_000).code == "value_too_long"


class Search(KindModel):
    date_from: dt.date | None = None
    date_to: dt.date | None = None
    decided_on: Date | None = None


def test_pydantic_seam_reads_bounds_and_keeps_notes() -> None:
    validated = validate(
        Search, {"date_from": "2020", "date_to": "2020", "decided_on": "1.10.2026"}
    )
    assert validated.value.date_from == dt.date(2020, 1, 1)
    assert validated.value.date_to == dt.date(2020, 12, 31)
    assert validated.value.decided_on == dt.date(2026, 10, 1)
    assert "date_from: Read '2020' as 2020-01-01." in validated.notes
    assert validate(Search, {"date_from": "0001-01-01"}).value.date_from is None


def test_pydantic_seam_advertises_the_strict_schema() -> None:
    properties = Search.model_json_schema()["properties"]
    for name in ("date_from", "date_to", "decided_on"):
        members = properties[name].get("anyOf", [properties[name]])
        strict = next(m for m in members if m.get("type") == "string")
        assert strict["format"] == "date"
        assert "pattern" not in strict and "anyOf" not in strict


def test_aliases_carry_their_bounds() -> None:
    class Range(KindModel):
        start: DateFrom
        end: DateTo

    validated = validate(Range, {"start": "2020-05", "end": "2020-05"})
    assert (validated.value.start, validated.value.end) == (
        dt.date(2020, 5, 1),
        dt.date(2020, 5, 31),
    )


@given(
    st.text(max_size=40)
    | st.from_regex(r"[0-9 ./:TZ+-]{0,24}", fullmatch=True)
    | st.integers()
    | st.floats()
    | st.dates()
    | st.datetimes()
)
def test_the_reader_itself_never_raises(value: object) -> None:
    # read() turns a reader's exception into a refusal; the reader must not rely on that.
    from drivable.kinds import KINDS
    from drivable.kinds._registry import make_options

    for options in (
        {},
        {"bound": "from"},
        {"bound": "to"},
        {"intent": "write"},
    ):
        reading = KINDS["date"].reader(value, make_options(**options))
        assert reading.outcome in {"value", "absent", "ask", "invalid"}
        reading.to_dict()


@pytest.mark.parametrize("text", ["", "null", "n/a", "<YYYY-MM-DD>", "{date}", "-", "string"])
def test_placeholders_are_absent_on_read_and_asked_on_write(text: str) -> None:
    assert read("date", text).outcome == "absent"
    assert read("date_from", text).outcome == "absent"
    assert read("date", text, intent="write").outcome == "ask"


# -- ISO weeks, two-digit years, relative dates ------------------------------------------------

iso_days = st.dates(min_value=dt.date(1, 1, 8), max_value=dt.date(9999, 12, 24))


@given(iso_days, st.booleans())
def test_every_iso_week_day_reads_to_its_day(day: dt.date, basic: bool) -> None:
    year, week, weekday = day.isocalendar()
    spelling = f"{year:04d}W{week:02d}{weekday}" if basic else f"{year:04d}-W{week:02d}-{weekday}"
    reading = read("date", spelling)
    assert reading.outcome == "value" and reading.value == day, (spelling, reading)
    assert reading.notes == (
        f"Read '{spelling}' as {day.isoformat()} (ISO week {week} of {year}, day {weekday}).",
    )


@given(iso_days)
def test_an_iso_week_is_a_day_only_as_a_range_bound(day: dt.date) -> None:
    year, week, _ = day.isocalendar()
    spelling = f"{year:04d}-W{week:02d}"
    monday = dt.date.fromisocalendar(year, week, 1)
    assert read("date", spelling).outcome == "invalid"
    assert read("date_from", spelling).value == monday
    assert read("date_to", spelling).value == monday + dt.timedelta(days=6)


@given(st.dates(min_value=dt.date(1900, 1, 1), max_value=dt.date(1999, 12, 31)))
def test_a_two_digit_year_is_asked_with_both_centuries(day: dt.date) -> None:
    spelling = f"{day.day}.{day.month}.{day.year % 100:02d}"
    later = day.replace(year=day.year + 100) if not (day.month == 2 and day.day == 29) else None
    reading = read("date", spelling)
    if later is None:  # 29 February exists in only one of the two years
        assert reading.outcome in ("value", "ask")
        return
    assert reading.outcome == "ask" and reading.code == "ambiguous_date", reading
    assert reading.readings == (day, later)
    assert str(day.year) in reading.hint and str(later.year) in reading.hint
    # Bounds leave one reading: it is the value, with a note naming the other.
    bounded = read("date", spelling, minimum="2000-01-01")
    assert bounded.outcome == "value" and bounded.value == later
    assert day.isoformat() in bounded.notes[-1]


def test_slashes_and_a_two_digit_year_ask_with_every_reading() -> None:
    reading = read("date", "01/02/26")
    assert reading.outcome == "ask"
    assert [d.isoformat() for d in reading.readings] == [
        "1926-02-01",
        "1926-01-02",
        "2026-02-01",
        "2026-01-02",
    ]


TODAY = dt.date(2026, 12, 1)


@given(st.integers(min_value=0, max_value=999), st.sampled_from(["en", "cs", "de"]))
def test_relative_days_read_only_with_the_servers_clock(days: int, language: str) -> None:
    later, earlier = {
        "en": (f"in {days} days", f"{days} days ago"),
        "cs": (f"za {days} dní", f"před {days} dny"),
        "de": (f"in {days} Tagen", f"vor {days} Tagen"),
    }[language]
    for spelling, sign in ((later, 1), (earlier, -1)):
        reading = read("date", spelling, clock=lambda: TODAY)
        expected = TODAY + dt.timedelta(days=sign * days)
        assert reading.outcome == "value" and reading.value == expected, (spelling, reading)
        assert reading.notes == (
            f"Read '{spelling}' as {expected.isoformat()} (today is 2026-12-01 by the server's "
            "clock).",
        )
        refused = read("date", spelling)
        assert refused.outcome == "invalid" and "relative" in refused.hint


@pytest.mark.parametrize(
    ("word", "offset"),
    [("today", 0), ("yesterday", -1), ("Zítra", 1), ("předevčírem", -2), ("übermorgen", 2)],
)
def test_relative_words_from_cldr(word: str, offset: int) -> None:
    now = dt.datetime(2026, 12, 1, 23, 59)
    reading = read("date", word, clock=lambda: now)
    assert reading.value == TODAY + dt.timedelta(days=offset)
    assert "2026-12-01" in reading.notes[0]


# -- relative weekdays ("next Friday") -----------------------------------------------------------

# CLDR's phrases in two languages whose weekday names do not inflect (Czech's do: pinned below).
RELATIVE_WEEKDAYS = {
    "en": ("last {d}", "this {d}", "next {d}"),
    "de": ("letzten {d}", "diesen {d}", "nächsten {d}"),
}


@given(
    st.dates(min_value=dt.date(1000, 1, 8), max_value=dt.date(9999, 12, 20)),
    st.integers(0, 6),
    st.integers(-1, 1),
    st.sampled_from(["en", "de"]),
)
def test_a_relative_weekday_is_the_day_when_its_two_meanings_agree_and_asks_when_they_differ(
    today: dt.date, weekday: int, week: int, language: str
) -> None:
    """CLDR's "next Friday" is the Friday of next week; many people mean the first Friday after
    today. Said on a Wednesday they differ and both are asked about; "next Monday" is one day."""
    name = {"en": list(calendar.day_name), "de": get_day_names_de()}[language][weekday]
    spelling = RELATIVE_WEEKDAYS[language][week + 1].format(d=name)
    in_week = today - dt.timedelta(days=today.weekday()) + dt.timedelta(days=7 * week + weekday)
    if week > 0:
        nearest = next(
            today + dt.timedelta(days=n)
            for n in range(1, 8)
            if (today.weekday() + n) % 7 == weekday
        )
    elif week < 0:
        nearest = next(
            today - dt.timedelta(days=n)
            for n in range(1, 8)
            if (today.weekday() - n) % 7 == weekday
        )
    else:
        nearest = next(
            today + dt.timedelta(days=n)
            for n in range(0, 7)
            if (today.weekday() + n) % 7 == weekday
        )
    reading = read("date", spelling, clock=lambda: today)
    if in_week == nearest:
        assert reading.outcome == "value" and reading.value == in_week, (
            spelling,
            reading.to_dict(),
        )
        assert today.isoformat() in reading.notes[0]
    else:
        assert reading.outcome == "ask" and reading.readings == (in_week, nearest), (
            reading.to_dict()
        )
        assert in_week.isoformat() in reading.hint and nearest.isoformat() in reading.hint
    assert read("date", spelling).outcome == "invalid"  # no clock: never the machine's


def get_day_names_de() -> list[str]:
    from babel.dates import get_day_names

    names = get_day_names("wide", "format", "de")
    return [names[i] for i in range(7)]


def test_pinned_relative_weekdays() -> None:
    wednesday = dt.date(2026, 12, 2)
    assert read("date", "next Monday", clock=lambda: wednesday).value == dt.date(2026, 12, 7)
    assert read("date", "příští pondělí", clock=lambda: wednesday).value == dt.date(2026, 12, 7)
    friday = read("date", "next Friday", clock=lambda: wednesday)
    assert friday.readings == (dt.date(2026, 12, 11), dt.date(2026, 12, 4))
    assert read("date", "this Friday", clock=lambda: wednesday).value == dt.date(2026, 12, 4)
    # A bound leaves one reading: it is the day, with a note naming the other.
    bounded = read("date", "next Friday", clock=lambda: wednesday, maximum="2026-12-06")
    assert bounded.value == dt.date(2026, 12, 4) and "2026-12-11" in bounded.notes[-1]
