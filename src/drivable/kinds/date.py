"""date: a calendar day, read from the spellings models use; sent back as "YYYY-MM-DD".

Every spelling of a day has one reader here; the words they read (CLDR's) are in `_date_words`,
how a day read is finished and refused in `_date_checks`.

Accepted without a question (each with a note "Read X as Y."): ISO ("2026-10-01"), ISO basic
("20261001"), day-month-year with dots and with or without spaces ("1. 10. 2026", "1.10.2026"),
year-first with any separator ("2026/10/01"), written months in English, Czech (nominative and
genitive), German, French, Slovak and Polish, in any case and with or without diacritics
("1 October 2026", "Oct 1, 2026", "1. října 2026", "1 rijna 2026"), and timestamps (the date part,
with a note that the time was dropped).

Also read: ISO weeks ("2026-W40-4" is 2026-10-01, with a note naming the week), and relative days
in CLDR's words ("yesterday", "zítra", "in 3 days", "vor 5 Tagen", "next Monday", "příští pátek")
only where the server passes its clock (`clock=` a callable returning today), with a note naming
the day it read as today. "next Friday" said on a Wednesday is the Friday of next week (CLDR's
meaning) or the first Friday after today: both are asked about (`_relative_weekday`).

Asked about: a slash- or dash-separated day and month that are both at most 12 and differ
("01/02/2026" is 1 February or 2 January), and a two-digit year ("1.10.26": 1926 or 2026).
"13/02/2026" and "02/02/2026" carry one meaning. Readings outside the field's bounds are not
offered; one left is the value, with a note naming the other.

A bare year, month or ISO week ("2020", "2020-05", "5/2020", "květen 2020") is a day only as a range bound:
its first day for `bound="from"`, its last day for `bound="to"`. Elsewhere it is refused with a hint,
because no single day is meant. 0001-01-01, 9999-12-31 and 0000-00-00 mean "no bound".
"""

from __future__ import annotations

import calendar
import datetime as _dt
import re
from typing import Annotated, Any

from drivable.kinds import absence
from drivable.kinds._date_checks import (
    EXPECTED,
    NO_BOUND,
    all_zero,
    checked,
    finish,
    impossible,
    invalid,
    long_day,
    make_day,
    no_bound,
    repaired,
    unreadable,
)
from drivable.kinds._date_words import (
    FILLER,
    month_of,
    relative_offset,
    relative_weekdays,
    weekday_names,
)
from drivable.kinds._kind import Kind
from drivable.kinds._reading import Reading, shown
from drivable.kinds._registry import NOT_CANONICAL, Options, kind
from drivable.kinds.text_folding import bare, nfkc


def _schema(options: Options) -> dict[str, Any]:
    if options.bound == "from":
        what = "The first day of the range, inclusive"
    elif options.bound == "to":
        what = "The last day of the range, inclusive"
    else:
        what = "A calendar day"
    return {
        "type": "string",
        "format": "date",
        "description": f"{what}, as YYYY-MM-DD.",
        "examples": ["2026-10-01"],
    }


_TIME = re.compile(
    r"^(?P<date>.+?)(?:[Tt]|\s*,\s*|\s+)"
    r"(?P<time>\d{1,2}:\d{2}(?::\d{2}(?:[.,]\d+)?)?\s*(?:[aApP]\.?[mM]\.?)?"
    r"\s*(?:[Zz]|UTC|GMT|[+-]\d{2}(?::?\d{2})?)?)$"
)
_BASIC_TIME = re.compile(r"^(?P<date>\d{8})T(?P<time>\d{2,6}(?:[.,]\d+)?(?:Z|[+-]\d{2}:?\d{2})?)$")
_YMD = re.compile(r"^(\d{4})([./-])(\d{1,2})\2(\d{1,2})\.?$")
_BASIC = re.compile(r"^(\d{4})(\d{2})(\d{2})$")
_DMY = re.compile(r"^(\d{1,2})([./-])(\d{1,2})\2(\d{4})\.?$")
_DMY_SHORT_YEAR = re.compile(r"^(\d{1,2})([./-])(\d{1,2})\2(\d{2})\.?$")
_WEEK = re.compile(r"^(\d{4})-?[Ww](\d{2})(?:-?([1-7]))?$")
_YEAR = re.compile(r"^(\d{4})\.?$")
_YEAR_MONTH = re.compile(r"^(\d{4})[./-](\d{1,2})\.?$")
_MONTH_YEAR = re.compile(r"^(\d{1,2})[./-](\d{4})\.?$")
_TOKENS = re.compile(r"\d+|[^\W\d_]+")


_fromisoformat = _dt.date.fromisoformat


def _canonical(value: Any, options: Options) -> Any:
    """The seam's fast path: an unbounded canonical ISO day, as a `date`, else NOT_CANONICAL.

    The parse goes first and the shape is checked after it, because nearly every value that
    reaches here is canonical: fromisoformat refuses non-strings itself, and one character tells
    "2026-10-01" from the other forms it accepts: of "20261001", "2026-W40", "2026W404",
    "2026-W40-4" and "2026W40" (too short: IndexError), only YYYY-MM-DD has a dash at 7. Every
    operation here costs about a fifth of the parse, so there are as few as the rule needs.
    """
    try:
        day = _fromisoformat(value)
        dash = value[7]
    except (TypeError, ValueError, IndexError):
        return NOT_CANONICAL
    if (
        dash == "-"
        and not options.bounded
        and value[0] != "0"  # 0001-01-01 means no bound
        and value != "9999-12-31"
    ):
        return day
    return NOT_CANONICAL


# The canonical spelling cannot be a placeholder, so this reader runs the shared placeholder
# check itself, after its fast path.
@kind("date", schema=_schema, expected=EXPECTED, handles_placeholders=True, canonical=_canonical)
def read_date(value: Any, options: Options) -> Reading:
    # Fast path: the canonical spelling.
    if type(value) is str and len(value) == 10 and value[4] == "-" and value[7] == "-":
        try:
            day = _dt.date.fromisoformat(value)
        except ValueError:
            pass
        else:
            if day in NO_BOUND:
                return no_bound(value, options)
            if options.minimum is None and options.maximum is None:
                return Reading.of(day)
            return checked(value, day, options, Reading.of(day))
    if isinstance(value, _dt.datetime):
        return finish(value, value.date(), options, dropped=value.time().isoformat())
    if isinstance(value, _dt.date):
        return finish(value, value, options)
    if isinstance(value, int) and not isinstance(value, bool) and 0 < value <= 99991231:
        return _read_text(value, str(value), options)
    if not isinstance(value, str):
        return invalid(value, "Send the date as a JSON string, YYYY-MM-DD (e.g. 2026-10-01).")
    if absence.placeholder_of(value) is not None:
        return absence.reading_for(value, options.intent, EXPECTED)
    return _read_text(value, value, options)


def _read_text(received: Any, text: str, options: Options) -> Reading:
    if not text.isascii():
        text = nfkc(text)
    text = text.strip()
    dropped = None
    timed = (_BASIC_TIME.match(text) if "T" in text else None) or (
        _TIME.match(text) if ":" in text else None
    )
    if timed is not None:
        text, dropped = timed.group("date").strip(), timed.group("time")
    if "0" in text and all_zero(text):
        return no_bound(received, options)
    # Spaces around separators carry nothing ("1. 10. 2026"); the patterns below are all digits.
    compact = "".join(text.split()) if ("." in text or "/" in text or "-" in text) else text

    if m := _YMD.match(compact):
        return _day(received, int(m[1]), int(m[3]), int(m[4]), options, dropped)
    if m := _BASIC.match(compact):
        return _day(received, int(m[1]), int(m[2]), int(m[3]), options, dropped)
    if m := _DMY.match(compact):
        first, separator, second, year = int(m[1]), m[2], int(m[3]), int(m[4])
        if separator == ".":  # dots are day-first wherever they are written
            return _day(received, year, second, first, options, dropped)
        return _day_or_month_first(received, first, second, year, options, dropped)
    if m := _DMY_SHORT_YEAR.match(compact):
        return _short_year(received, int(m[1]), m[2], int(m[3]), int(m[4]), options, dropped)
    if m := _WEEK.match(compact):
        return _week(received, int(m[1]), int(m[2]), m[3], options, dropped)
    if dropped is None:
        if m := _YEAR.match(compact):
            return _period(received, int(m[1]), None, options)
        if m := _YEAR_MONTH.match(compact):
            return _period(received, int(m[1]), int(m[2]), options)
        if m := _MONTH_YEAR.match(compact):
            return _period(received, int(m[2]), int(m[1]), options)
    written = _written(received, text, options, dropped)
    if written.outcome == "invalid" and dropped is None:  # relative days are rarer: tried last
        offset = relative_offset(text)
        if offset is not None:
            return _relative_day(received, offset, options)
        weekday = relative_weekdays().get(bare(text).rstrip("."))
        if weekday is not None:
            return _relative_weekday(received, *weekday, options)
    return written


def _short_year(
    received: Any,
    first: int,
    separator: str,
    second: int,
    short: int,
    options: Options,
    dropped: str | None,
) -> Reading:
    """ "1.10.26": 1926 or 2026, never guessed; with slashes, day or month first as well."""
    orders = [(second, first)] if separator == "." else [(second, first), (first, second)]
    days: list[_dt.date] = []
    for century in (1900, 2000):
        for month, day in orders:
            made = make_day(century + short, month, day)
            if made is not None and made not in days:
                days.append(made)
    return _one_of(received, days, options, dropped, "the year has two digits")


def _week(
    received: Any, year: int, week: int, weekday: str | None, options: Options, dropped: str | None
) -> Reading:
    """ISO 8601 weeks: "2026-W40-4" is a day; "2026-W40" is a week, a day only as a range bound."""
    try:
        monday = _dt.date.fromisocalendar(year, week, 1)
    except ValueError:
        return impossible(received)
    if weekday is not None:
        day = monday + _dt.timedelta(days=int(weekday) - 1)
        note = f"Read {shown(received)} as {day.isoformat()} (ISO week {week} of {year}, day {weekday})."
        return checked(received, day, options, Reading.of(day, note))
    if options.bound is None:
        return invalid(
            received,
            f"{shown(received)} names a week ({monday.isoformat()} to "
            f"{(monday + _dt.timedelta(days=6)).isoformat()}), not a day. Send one day as "
            "YYYY-MM-DD; to cover the week, use the range's from/to properties.",
        )
    day = monday if options.bound == "from" else monday + _dt.timedelta(days=6)
    note = f"Read {shown(received)} as {day.isoformat()} (the {'first' if options.bound == 'from' else 'last'} day of ISO week {week} of {year})."
    return checked(received, day, options, Reading.of(day, note))


def _relative_day(received: Any, offset: int, options: Options) -> Reading:
    """A relative date, only where the server passes its clock, with a note naming the day."""
    clock = options.extra.get("clock")
    if not callable(clock):
        return invalid(
            received,
            f"{shown(received)} is relative to today, and this property does not read relative "
            "dates. Send the day as YYYY-MM-DD.",
        )
    now = clock()
    today = now.date() if isinstance(now, _dt.datetime) else now
    day = today + _dt.timedelta(days=offset)
    note = f"Read {shown(received)} as {day.isoformat()} (today is {today.isoformat()} by the server's clock)."
    return checked(received, day, options, Reading.of(day, note))


def _relative_weekday(received: Any, weekday: int, week: int, options: Options) -> Reading:
    """ "next Friday": the Friday of next week, as CLDR means it (weeks start on Monday, as in
    ISO 8601), or the first Friday after today, as many people mean it. When the two are one day
    (next Monday, this Friday said on a Wednesday) it is that day; when they differ (next Friday
    said on a Wednesday) both are asked about. "last" and "this" likewise: the day in last or
    this week, or the nearest one before today or from today on."""
    clock = options.extra.get("clock")
    if not callable(clock):
        return invalid(
            received,
            f"{shown(received)} is relative to today, and this property does not read relative "
            "dates. Send the day as YYYY-MM-DD.",
        )
    now = clock()
    today = now.date() if isinstance(now, _dt.datetime) else now
    name = calendar.day_name[weekday]
    in_week = today - _dt.timedelta(days=today.weekday() - weekday - 7 * week)
    if week > 0:
        nearest = today + _dt.timedelta(days=(weekday - today.weekday() - 1) % 7 + 1)
    elif week < 0:
        nearest = today - _dt.timedelta(days=(today.weekday() - weekday - 1) % 7 + 1)
    else:
        nearest = today + _dt.timedelta(days=(weekday - today.weekday()) % 7)
    said = f"today is {today.isoformat()}, a {calendar.day_name[today.weekday()]}, by the server's clock"
    if in_week == nearest:
        note = f"Read {shown(received)} as {in_week.isoformat()} ({said})."
        return checked(received, in_week, options, Reading.of(in_week, note))
    which = {-1: "last week", 0: "this week", 1: "next week"}[week]
    direction = {
        -1: "the last " + name + " before today",
        0: "the coming " + name,
        1: "the first " + name + " after today",
    }[week]
    labels = {in_week: f"it means the {name} of {which}", nearest: f"it means {direction}"}
    reading = _one_of(received, [in_week, nearest], options, None, labels=labels)
    if reading.outcome == "ask":
        return Reading.ask(
            received,
            expected=EXPECTED,
            hint=f"{reading.hint[:-1]} ({said}).",
            readings=reading.readings,
            code="ambiguous_date",
        )
    return reading


def _written(received: Any, text: str, options: Options, dropped: str | None) -> Reading:
    """A date with its month written as a word, in any order of day, month and year."""
    numbers: list[str] = []
    months: list[frozenset[int]] = []
    weekdays = weekday_names()
    for word in _TOKENS.findall(text):
        if word.isdigit():
            numbers.append(word)
            continue
        token = bare(word)
        found = month_of(token)
        if found:
            months.append(found)
        elif token not in FILLER and token not in weekdays:
            return unreadable(received)
    if len(months) != 1:
        return unreadable(received)
    years = [n for n in numbers if len(n) == 4]
    days = [n for n in numbers if len(n) <= 2]
    if len(years) != 1 or len(days) + len(years) != len(numbers) or len(days) > 1:
        return unreadable(received)
    year = int(years[0])
    candidates = sorted(months[0])
    if len(candidates) > 1:
        readings = [
            f"{year:04d}-{month:02d}" + (f"-{int(days[0]):02d}" if days else "")
            for month in candidates
        ]
        return Reading.ask(
            received,
            expected=EXPECTED,
            hint=f"{shown(received)} names a month that differs between languages. "
            "Send the date as YYYY-MM-DD.",
            readings=readings,
            code="ambiguous_date",
        )
    month = candidates[0]
    if not days:
        return _period(received, year, month, options)
    return _day(received, year, month, int(days[0]), options, dropped)


def _day_or_month_first(
    received: Any, first: int, second: int, year: int, options: Options, dropped: str | None
) -> Reading:
    """ "01/02/2026": day first in most of the world, month first in the US. Ask when both fit."""
    day_first = make_day(year, second, first)
    month_first = make_day(year, first, second)
    days = [d for d in (day_first, month_first) if d is not None]
    if day_first is not None and month_first is not None and day_first != month_first:
        # each reading says which way it is written: told "could be 1 February or 2 January", a
        # model told the user writes the day first still took the second
        labels = {day_first: "the day is written first", month_first: "the month is written first"}
        return _one_of(received, days, options, dropped, labels=labels)
    if not days:
        return impossible(received)
    return finish(received, days[0], options, dropped)


def _one_of(
    received: Any,
    days: list[_dt.date],
    options: Options,
    dropped: str | None,
    why: str = "",
    labels: dict[_dt.date, str] | None = None,
) -> Reading:
    """Several days a spelling can mean: only those the field accepts are offered; one is read."""
    if not days:
        return impossible(received)
    fitting = [d for d in days if checked(received, d, options, _OK).outcome == "value"]
    if not fitting:
        return checked(received, days[0], options, _OK)
    if len(fitting) == 1:
        (day,) = fitting
        others = ", ".join(d.isoformat() for d in days if d != day)
        reading = finish(received, day, options, dropped)
        if others and reading.outcome == "value":
            return reading.with_notes(f"Its other reading, {others}, is outside the accepted days.")
        return reading
    if labels and all(d in labels for d in fitting):
        # each reading in words, as it is to be sent, and when it is the one meant
        # (docs/decisions/0024-how-a-next-step-is-said.md, 3)
        said = ", or ".join(f"{long_day(d)} ({d.isoformat()}) if {labels[d]}" for d in fitting)
        hint = f"{shown(received)} is {said}."
    else:
        named = " or ".join(long_day(d) for d in fitting)
        hint = f"{shown(received)} could be {named} ({why}). Send the date as YYYY-MM-DD."
    return Reading.ask(
        received,
        expected=EXPECTED,
        hint=hint,
        readings=tuple(fitting),
        code="ambiguous_date",
    )


_OK = Reading.of(None)


def _day(
    received: Any, year: int, month: int, day: int, options: Options, dropped: str | None
) -> Reading:
    made = make_day(year, month, day)
    if made is None:
        return impossible(received)
    return finish(received, made, options, dropped)


def _period(received: Any, year: int, month: int | None, options: Options) -> Reading:
    """A bare year or month: a day only as a range bound (its first or last day)."""
    if year < 1 or (month is not None and not 1 <= month <= 12):
        return impossible(received)
    named = f"{year:04d}" if month is None else f"{year:04d}-{month:02d}"
    if options.bound is None:
        return invalid(
            received,
            f"{shown(received)} names a {'year' if month is None else 'month'}, not a day. "
            f"Send one day as YYYY-MM-DD (e.g. {named}-01"
            + ("-01" if month is None else "")
            + "); to cover a whole period, use the range's from/to properties.",
        )
    if options.bound == "from":
        day = _dt.date(year, month or 1, 1)
    else:
        last_month = month or 12
        day = _dt.date(year, last_month, calendar.monthrange(year, last_month)[1])
    if day in NO_BOUND:
        return no_bound(received, options)
    return checked(received, day, options, repaired(received, day))


Date = Annotated[_dt.date, Kind("date")]
"""A calendar day, read from the spellings models use; sent back as "YYYY-MM-DD"."""
DateFrom = Annotated[_dt.date, Kind("date", bound="from")]
"""The first day of a range: a month or a year alone ("2026-10") reads as its first day."""
DateTo = Annotated[_dt.date, Kind("date", bound="to")]
"""The last day of a range: a month or a year alone ("2026-10") reads as its last day."""

__all__ = ["EXPECTED", "Date", "DateFrom", "DateTo", "read_date"]
