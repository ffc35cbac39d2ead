"""A value with a known meaning is read by it (docs/kinds.md, "Countries").

ISO 3166's reserved codes and the codes other systems use have a meaning: one that names a country
or a part of one reads as that country, with a note that says what the code names; one that names
a group of countries is no country: a field that takes groups reads it as the group (its code, its
name, its members), any other refuses it naming the group and its members. None of them is "no
country", and none gets another country guessed for it.
"""

from __future__ import annotations

import pycountry
from hypothesis import given
from hypothesis import strategies as st

from drivable.kinds import read
from drivable.kinds.country import CountryGroup

# ISO 3166-1's exceptionally reserved codes, the EU's code for Greece, and the transitionally
# reserved codes of countries since renamed, joined or split (CS is left out: it was
# Czechoslovakia's code, then Serbia and Montenegro's).
EXCEPTIONALLY_RESERVED = ["AC", "CP", "DG", "EA", "EU", "EZ", "FX", "IC", "SU", "TA", "UK", "UN"]
WELL_KNOWN = ["EL"]
TRANSITIONALLY_RESERVED = ["AN", "BU", "DD", "TP", "YD", "YU", "ZR"]
CODES = EXCEPTIONALLY_RESERVED + WELL_KNOWN + TRANSITIONALLY_RESERVED
COUNTRIES = {c.alpha_2 for c in pycountry.countries}

spellings = st.sampled_from([str.upper, str.lower, lambda s: f" {s} ", str.title])


@given(st.sampled_from(CODES), spellings, st.booleans())
def test_a_code_with_a_known_meaning_is_read_by_it(code: str, spell: object, groups: bool) -> None:
    sent = spell(code)  # type: ignore[operator]
    reading = read("country", sent, groups=groups)
    if reading.outcome == "value" and isinstance(reading.value, CountryGroup):
        assert groups and reading.value == code and reading.value.name
        assert reading.value.name in reading.notes[0]  # the note says what the group is
        assert set(reading.value.members) <= COUNTRIES
    elif reading.outcome == "value":
        assert reading.value in COUNTRIES
        assert reading.notes and "(" in reading.notes[0], reading.notes  # "Read 'IC' (the ...)"
    else:
        assert reading.outcome == "invalid" and not groups, reading
        assert "a group of countries" in reading.hint, reading.hint
        assert "names no country" not in reading.hint


@given(st.sampled_from(["EU", "European Union", "eurozone", "euro area", "Soviet Union"]))
def test_a_group_lists_its_members_and_guesses_none(sent: str) -> None:
    refused = read("country", sent)
    assert refused.outcome == "invalid" and refused.code == "invalid_country"
    group = read("country", sent, groups=True).value
    assert isinstance(group, CountryGroup) and group.members
    assert all(m in refused.hint for m in group.members)


def test_the_reported_case() -> None:
    # was: "'EU' names no country, e.g. CZ", resent by the model until it stopped
    eu = read("country", "EU", groups=True)
    assert eu.outcome == "value" and eu.value == "EU" and "European Union" in eu.notes[0]
    assert len(eu.value.members) == 27
    assert read("country", "UK").value == "GB"


@given(st.sampled_from(["Germny", "Austrlia", "Slovakai", "Frnace"]))
def test_a_spelling_that_names_nothing_guesses_no_country(sent: str) -> None:
    reading = read("country", sent)
    assert reading.outcome == "invalid"
    assert not any(f"{code} (" in reading.hint for code in COUNTRIES), reading.hint
