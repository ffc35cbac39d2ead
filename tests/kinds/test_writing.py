"""writing: every spelling the writer makes reads back, through its kind, to the value written."""

from __future__ import annotations

import datetime as dt
import random
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from drivable.kinds import read
from drivable.kinds.money import exponent_of
from drivable.kinds.writing import spell, spellings


def reads_back(kind: str, value: object, **options: Any) -> None:
    found = spellings(kind, value, **options)
    for spelling in found:
        reading = read(kind, spelling, **options)
        assert reading.outcome == "value", (spelling, reading)
        assert reading.value == (
            dt.date.fromisoformat(value) if kind == "date" and isinstance(value, str) else value
        )


@given(st.integers(min_value=-(10**12), max_value=10**12))
def test_integers(n: int) -> None:
    reads_back("integer", n)
    if abs(n) >= 1000:
        assert spellings("integer", n) == [f"{n:,}".replace(",", " ")]


@given(st.dates(min_value=dt.date(1, 1, 1), max_value=dt.date(9999, 12, 31)))
def test_dates(day: dt.date) -> None:
    reads_back("date", day.isoformat())


@given(st.booleans(), st.integers(0, 2**32))
def test_booleans(value: bool, seed: int) -> None:
    reads_back("boolean", value)
    assert read("boolean", spell("boolean", value, random.Random(seed))).value is value


@given(st.sampled_from(["EUR", "JPY", "KWD", "GBP", "CZK"]), st.integers(0, 10**9))
def test_money(currency: str, minor: int) -> None:
    reads_back("money", minor, currency=currency)
    e = exponent_of(currency)
    spelled = spell("money", minor, random.Random(0), currency=currency)
    if e == 3 and 0 < minor // 1000 < 1000:  # "1.000 KWD" would be a question: plain digits
        assert spelled == str(minor)
    else:
        assert spelled.endswith(currency) and ("." in spelled) == (e > 0)


def test_money_without_a_currency_is_grouped_minor_units() -> None:
    assert spellings("money", 4000) == ["4 000"]
    assert read("amount_cents", "4 000").value == 4000


def test_locales_and_values_without_another_spelling() -> None:
    assert spellings("locale", "cs-CZ") == ["cs_CZ"]
    assert spell("integer", 42, random.Random(0)) == "42"
    assert spell("text", "anything", random.Random(0)) == "anything"


@given(st.builds(dt.time, st.integers(0, 23), st.sampled_from([0, 5, 30, 59])))
def test_times(t: dt.time) -> None:
    canonical = f"{t.hour:02d}:{t.minute:02d}"
    found = spellings("time", canonical)
    assert len(found) >= 4  # "2pm", "14h", "14.00", "1400", ...
    for spelling in found:
        assert read("time", spelling).value == t, spelling


@given(st.integers(0, 22), st.integers(1, 23))
def test_time_ranges(start: int, length: int) -> None:
    end = min(start + length, 23)
    canonical = f"{start:02d}:00/{end:02d}:00"
    found = spellings("time_range", canonical)
    assert found
    for spelling in found:
        assert read("time_range", spelling).to_dict()["value"] == canonical, spelling


@given(
    st.datetimes(min_value=dt.datetime(1000, 1, 2), max_value=dt.datetime(9999, 12, 30)).map(
        lambda m: m.replace(second=0, microsecond=0, tzinfo=dt.timezone(dt.timedelta(hours=2)))
    )
)
def test_datetimes(moment: dt.datetime) -> None:
    found = spellings("datetime", moment.isoformat())
    assert len(found) == 3
    for spelling in found:
        assert read("datetime", spelling).value == moment, spelling


def test_emails() -> None:
    assert spellings("email", "Jana@firma.cz") == [
        " Jana@firma.cz ",
        "<Jana@firma.cz>",
        "Jana@FIRMA.CZ",
        "mailto:Jana@firma.cz",
    ]
