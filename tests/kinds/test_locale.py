"""locale: POSIX names, any case and language names read to the canonical BCP 47 tag."""

from __future__ import annotations

import re

import langcodes
import pytest
from babel import Locale as CldrLocale
from babel.localedata import locale_identifiers
from hypothesis import given
from hypothesis import strategies as st

from drivable.kinds import KindModel, read, validate
from drivable.kinds.locale import PATTERN, Locale

OUTCOMES = {"value", "absent", "ask", "invalid"}
# Every CLDR locale with at most a language, a script and a region ("cs_CZ", "sr_Latn_RS").
CLDR = sorted(
    i for i in locale_identifiers() if "@" not in i and 1 <= i.count("_") <= 2 and i != "root"
)
locales = st.sampled_from(CLDR)
cases = st.sampled_from([str.lower, str.upper, lambda s: s])


def canonical(identifier: str) -> str:
    return str(langcodes.standardize_tag(identifier.replace("_", "-")))


@given(
    locales,
    cases,
    st.sampled_from(["", ".UTF-8", ".utf8", ".ISO-8859-2"]),
    st.sampled_from(["", "@euro"]),
    st.sampled_from(["_", "-"]),
)
def test_every_posix_spelling_reads_to_the_tag(
    identifier: str, case: object, codeset: str, modifier: str, separator: str
) -> None:
    tag = canonical(identifier)
    text = case(identifier.replace("_", separator)) + codeset + modifier  # type: ignore[operator]
    reading = read("locale", text)
    assert reading.value == tag, (text, reading.to_dict())
    assert re.match(PATTERN, reading.value)


@given(locales)
def test_canonical_tags_read_without_a_note(identifier: str) -> None:
    tag = canonical(identifier)
    reading = read("locale", tag)
    assert (reading.value, reading.notes) == (tag, ())


@given(st.sampled_from(["cs", "de", "pl", "sk", "fr", "en", "es", "it", "hu"]), cases)
def test_language_names_in_english_and_natively(code: str, case: object) -> None:
    for name in (CldrLocale("en").languages[code], CldrLocale(code).languages[code]):
        reading = read("locale", case(name))  # type: ignore[operator]
        assert reading.value == code, (name, reading.to_dict())


@pytest.mark.parametrize(
    ("text", "tag"),
    [
        ("cs_CZ.UTF-8", "cs-CZ"),
        ("cs_CZ@euro", "cs-CZ"),
        ("CS-cz", "cs-CZ"),
        ("cs", "cs"),
        ("Czech", "cs"),
        ("čeština", "cs"),
        ("cestina", "cs"),
        ("de_AT", "de-AT"),
        ("sr_RS@latin", "sr-Latn-RS"),
        ("iw", "he"),
        ("British English", "en-GB"),
        ("zh_Hant_TW", "zh-Hant-TW"),
    ],
)
def test_pinned_spellings(text: str, tag: str) -> None:
    assert read("locale", text).value == tag


@pytest.mark.parametrize("text", ["C", "POSIX", "C.UTF-8"])
def test_c_names_no_language(text: str) -> None:
    assert read("locale", text).outcome == "absent"
    assert read("locale", text, intent="write").outcome == "ask"


@pytest.mark.parametrize("text", ["xx", "zz-ZZ", "cs_CZ_bogus!", "12", "Elvish"])
def test_invalid_tags_are_invalid_with_an_example(text: str) -> None:
    reading = read("locale", text)
    assert (reading.outcome, reading.code) == ("invalid", "invalid_locale")
    assert "cs-CZ" in reading.expected and "cs-CZ" in reading.hint


@given(st.text(max_size=30) | st.integers() | st.booleans())
def test_anything_reads_to_one_of_four_outcomes(value: object) -> None:
    reading = read("locale", value)
    assert reading.outcome in OUTCOMES
    if reading.outcome == "value":
        assert re.match(PATTERN, reading.value), reading.value


class Settings(KindModel):
    locale: str
    ui_locale: Locale | None = None


def test_pydantic_seam() -> None:
    validated = validate(Settings, {"locale": "cs_CZ.UTF-8", "ui_locale": "Deutsch"})
    assert (validated.value.locale, validated.value.ui_locale) == ("cs-CZ", "de")
    assert Settings.model_json_schema()["properties"]["locale"]["pattern"] == PATTERN


@given(
    st.text(max_size=30)
    | st.from_regex(
        r"[a-zA-Z]{1,4}([_-][a-zA-Z0-9]{1,8}){0,3}(\.[A-Za-z0-9-]{1,8})?(@[a-z]{1,9})?",
        fullmatch=True,
    )
    | st.integers()
)
def test_the_reader_itself_never_raises(value: object) -> None:
    # read() turns a reader's exception into a refusal; the reader must not rely on that.
    from drivable.kinds import KINDS
    from drivable.kinds._registry import make_options

    for options in (
        {},
        {"intent": "write"},
    ):
        reading = KINDS["locale"].reader(value, make_options(**options))
        assert reading.outcome in {"value", "absent", "ask", "invalid"}
        reading.to_dict()
