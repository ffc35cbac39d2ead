"""timezone: every name of the IANA database reads as itself; every other reading is the same zone
spelled another way (its name in another case, its city, a country that keeps only it, its fixed
offset); what names several zones is asked, with each as a reading; nothing else is guessed."""

from __future__ import annotations

import datetime as dt
from zoneinfo import ZoneInfo, available_timezones

import pycountry
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from drivable.kinds import read
from drivable.kinds.timezone import (
    MAX_READINGS,
    _by_city,
    _by_country,
    _by_place,
    _country_zones,
    _fold,
    _links,
    _tab,
)
from tests.kinds.strategies import OUTCOMES, anything

NAMES = sorted(available_timezones())
PLACED = sorted({zone for _, zone in _tab()})
# two instants a year apart in each season: a zone's offsets at them tell zones apart
INSTANTS = [
    dt.datetime(year, month, 15, 12, tzinfo=dt.UTC) for year in (2025, 2026) for month in (1, 7)
]


def offsets(zone: str) -> tuple[dt.timedelta | None, ...]:
    return tuple(instant.astimezone(ZoneInfo(zone)).utcoffset() for instant in INSTANTS)


def same_zone(a: str, b: str) -> bool:
    """`a` and `b` are one zone: a link and its zone, or the same name."""
    links = _links()
    return links.get(a, a) == links.get(b, b)


@given(st.sampled_from(NAMES))
def test_every_name_of_the_database_reads_as_itself_without_a_note(name: str) -> None:
    reading = read("timezone", name)
    assert reading.outcome == "value" and reading.value == name and reading.notes == ()


@given(st.sampled_from(NAMES), st.sampled_from([str.lower, str.upper, str.swapcase]), st.booleans())
def test_a_name_in_another_case_or_with_spaces_reads_as_that_name(
    name: str, case: object, spaces: bool
) -> None:
    spelled = case(name)  # type: ignore[operator]
    if spaces:
        spelled = spelled.replace("_", " ")
    folding_alike = [n for n in NAMES if _fold(n) == _fold(spelled)]
    reading = read("timezone", spelled)
    assert reading.outcome == "value"
    assert reading.value in folding_alike  # the database's own spelling of what was sent
    if spelled != reading.value:
        assert reading.notes  # a repaired spelling is said


@given(st.sampled_from(PLACED), st.sampled_from([str.lower, str.title, lambda s: s]))
def test_a_zones_city_reads_as_that_zone_or_asks_with_it(zone: str, case: object) -> None:
    city = case(zone.rsplit("/", 1)[-1].replace("_", " "))  # type: ignore[operator]
    reading = read("timezone", city)
    if reading.outcome == "value":
        # the city's own zone, or (where the city is also a name of the database, e.g.
        # "Singapore") that name, which is the same zone
        assert same_zone(reading.value, zone) or offsets(reading.value) == offsets(zone)
    else:
        assert reading.outcome == "ask" and reading.code == "ambiguous_timezone"
        assert zone in reading.readings or len(reading.readings) == MAX_READINGS


@given(st.integers(-12, 14), st.sampled_from(["UTC{}{:d}", "GMT{}{:d}", "{}{:02d}:00", "{}{:d}"]))
def test_a_whole_hour_offset_reads_as_the_fixed_zone_with_that_offset(
    hours: int, form: str
) -> None:
    sign = "-" if hours < 0 else "+"
    reading = read("timezone", form.format(sign, abs(hours)))
    assert reading.outcome == "value"
    assert set(offsets(reading.value)) == {dt.timedelta(hours=hours)}


COUNTRIES = sorted(_by_country())


@given(st.sampled_from(COUNTRIES))
def test_a_country_reads_as_its_one_zone_or_asks_with_its_zones(code: str) -> None:
    country = pycountry.countries.get(alpha_2=code)
    if country is None or len(country.name) < 4 or country.name in NAMES:
        return  # a code, or a name the database itself has ("Japan"), is read above
    reading = read("timezone", country.name)
    zones = _by_country()[code]
    if reading.outcome == "value":
        assert any(same_zone(reading.value, zone) for zone in zones)
    elif reading.outcome == "ask":  # the country's zones, or a city's of the same name too
        assert len(reading.readings) >= 2
        assert any(same_zone(r, z) for r in reading.readings for z in zones)
    else:  # a name the country kind reads as another country, or as none: no zone guessed
        assert reading.outcome == "invalid"


@pytest.mark.parametrize("abbreviation", ["PST", "PDT", "JST", "IST", "CEST", "AEST", "BST"])
def test_an_abbreviation_the_database_does_not_name_is_refused_not_guessed(
    abbreviation: str,
) -> None:
    reading = read("timezone", abbreviation)
    assert reading.outcome == "invalid" and reading.code == "invalid_timezone"
    assert "IANA" in reading.hint


@settings(max_examples=300)
@given(anything)
def test_any_input_reads_to_a_name_of_the_database_or_says_why_not(value: object) -> None:
    reading = read("timezone", value)
    assert reading.outcome in OUTCOMES
    if reading.outcome == "value":
        assert reading.value in NAMES
    if reading.outcome == "ask":
        assert reading.readings and all(r in NAMES for r in reading.readings)
    if reading.outcome == "invalid":
        assert reading.code == "invalid_timezone" and reading.hint


def test_every_large_city_reads_as_the_zone_it_keeps_or_asks_among_them() -> None:
    """Over the whole table of cities of at least 100,000 people that no zone or country is
    named after: a city in one zone reads as it, also as "Area/City" with the zone's area and
    never with another area's; a name that cities in several zones carry is asked, with those
    zones (decision 0068)."""
    links = _links()
    for city, zones in sorted(_by_place().items()):
        if city in _by_city() or _country_zones(city):
            continue  # a zone's own city and a country come first (the tests above)
        kept = {links.get(z, z) for z in zones}
        reading = read("timezone", city)
        if len(kept) == 1:
            assert reading.outcome == "value", (city, reading)
            assert links.get(reading.value, reading.value) in kept
            (zone,) = sorted(zones)[:1]
            area = zone.split("/")[0]
            assert read("timezone", f"{area}/{city}").value == reading.value
            other = "Antarctica" if area != "Antarctica" else "Europe"
            assert read("timezone", f"{other}/{city}").outcome == "invalid"
        else:
            assert reading.outcome == "ask", (city, reading)
            assert {links.get(r, r) for r in reading.readings} <= kept
