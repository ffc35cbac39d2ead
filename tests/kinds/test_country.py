"""country: every ISO country by code, number and name reads to its alpha-2 code."""

from __future__ import annotations

import pycountry
import pytest
from babel import Locale
from hypothesis import given
from hypothesis import strategies as st

from drivable.kinds import KindModel, read, validate
from drivable.kinds.country import NAME_LOCALES, Country

OUTCOMES = {"value", "absent", "ask", "invalid"}
COUNTRIES = sorted(pycountry.countries, key=lambda c: c.alpha_2)
countries = st.sampled_from(COUNTRIES)
cases = st.sampled_from([str.lower, str.upper, str.title, lambda s: s])


@pytest.mark.parametrize("country", COUNTRIES, ids=lambda c: c.alpha_2)
def test_every_country_by_code_number_and_name(country: object) -> None:
    code = country.alpha_2  # type: ignore[attr-defined]
    assert read("country", code).to_dict() == {"outcome": "value", "value": code, "notes": []}
    spellings = [code.lower(), country.alpha_3, country.numeric, int(country.numeric)]  # type: ignore[attr-defined]
    for text in spellings:
        reading = read("country", text)
        assert reading.value == code, (text, reading.to_dict())
        assert len(reading.notes) == 1
    # A name two countries share asks; every other name reads to its country.
    for attribute in ("name", "official_name", "common_name"):
        name = getattr(country, attribute, None)
        if name:
            reading = read("country", name)
            assert reading.outcome in ("value", "ask"), (name, reading.to_dict())
            assert code == reading.value or code in reading.readings


@given(countries, st.sampled_from(NAME_LOCALES), cases)
def test_names_in_our_languages_in_any_case(country: object, locale: str, case: object) -> None:
    code = country.alpha_2  # type: ignore[attr-defined]
    name = Locale.parse(locale).territories.get(code)
    if not name:
        return
    reading = read("country", case(name))  # type: ignore[operator]
    assert code == reading.value or code in reading.readings, (name, reading.to_dict())


@pytest.mark.parametrize(
    ("text", "code"),
    [
        ("Czech Republic", "CZ"),
        ("Czechia", "CZ"),
        ("Česko", "CZ"),
        ("cesko", "CZ"),
        ("Česká republika", "CZ"),
        ("Deutschland", "DE"),
        ("Österreich", "AT"),
        ("Slovensko", "SK"),
        ("Polska", "PL"),
        ("UK", "GB"),
        ("Great Britain", "GB"),
        ("Holland", "NL"),
        ("USA", "US"),
        ("the Netherlands", "NL"),
        ("Korea, Republic of", "KR"),
        (" cz ", "CZ"),
    ],
)
def test_pinned_names_and_aliases(text: str, code: str) -> None:
    assert read("country", text).value == code


def test_a_near_miss_is_invalid_and_guesses_no_country() -> None:
    reading = read("country", "Germny")
    assert (reading.outcome, reading.code) == ("invalid", "invalid_country")
    assert "DE" not in reading.hint and "Germany" not in reading.hint


@given(st.text(max_size=40) | st.integers() | st.floats() | st.booleans())
def test_anything_reads_to_one_of_four_outcomes(value: object) -> None:
    reading = read("country", value)
    assert reading.outcome in OUTCOMES
    if reading.outcome == "value":
        assert len(reading.value) == 2 and reading.value.isupper()


class Address(KindModel):
    country: str
    billing_country: Country | None = None


def test_pydantic_seam() -> None:
    validated = validate(Address, {"country": "Česko", "billing_country": "Deutschland"})
    assert (validated.value.country, validated.value.billing_country) == ("CZ", "DE")
    schema = Address.model_json_schema()["properties"]["country"]
    assert schema["pattern"] == "^[A-Z]{2}$"


@pytest.mark.parametrize("text", ["", "n/a", "N/A", "TBD", "nic", "<country>", "string"])
def test_placeholders_are_absent_but_codes_never_are(text: str) -> None:
    assert read("country", text).outcome == "absent"
    assert read("country", text, intent="write").outcome == "ask"
    assert read("country", "NIC").value == "NI"
    assert read("country", "NA").value == "NA"


@given(st.text(max_size=40) | st.integers() | st.floats() | st.booleans())
def test_the_reader_itself_never_raises(value: object) -> None:
    # read() turns a reader's exception into a refusal; the reader must not rely on that.
    from drivable.kinds import KINDS
    from drivable.kinds._registry import make_options

    for options in (
        {},
        {"intent": "write"},
    ):
        reading = KINDS["country"].reader(value, make_options(**options))
        assert reading.outcome in {"value", "absent", "ask", "invalid"}
        reading.to_dict()


def test_a_partial_name_reads_when_it_names_one_country_and_asks_when_it_names_a_few() -> None:
    assert read("country", "Bosnia").value == "BA"
    korea = read("country", "Korea")
    assert (korea.outcome, korea.readings) == ("ask", ("KP", "KR"))
    assert read("country", "Republic").outcome == "invalid"


@pytest.mark.parametrize("name", ["Congo", "congo", "Kongo", "Kongó", "the Congo"])
def test_a_name_several_countries_share_is_asked_about(name: str) -> None:
    reading = read("country", name)
    assert reading.outcome == "ask" and reading.code == "ambiguous_country", reading
    assert reading.readings == ("CD", "CG")


@pytest.mark.parametrize(
    ("name", "code"),
    [("Congo-Brazzaville", "CG"), ("Congo - Kinshasa", "CD"), ("Republic of the Congo", "CG")],
)
def test_a_qualified_shared_name_names_one(name: str, code: str) -> None:
    assert read("country", name).value == code
