"""filter: the "everything" spellings mean not filtering; any other string is the filter, trimmed."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from drivable.kinds import absence, read
from drivable.kinds.filter import EVERYTHING, means_everything

OUTCOMES = {"value", "absent", "ask", "invalid"}


@pytest.mark.parametrize(
    "value",
    [" ", "", "all", "ALL", " any ", "*", "-", "everything", "vše", "všechny", "alle", "tous"],
)
def test_not_filtering(value: str) -> None:
    reading = read("filter", value)
    assert reading.outcome == "absent"
    assert reading.notes  # says what it made of the value


@given(
    word=st.sampled_from(sorted(EVERYTHING)),
    pad=st.sampled_from(["", " ", "  ", "\t"]),
    case=st.sampled_from([str.upper, str.lower, str.title, lambda s: s]),
)
def test_every_spelling_of_everything_is_absence_on_a_read(word: str, pad: str, case: Any) -> None:
    value = pad + case(word) + pad
    reading = read("filter", value)
    assert reading.outcome == "absent", value
    assert reading.notes


@given(st.sampled_from(sorted(EVERYTHING)))
def test_on_a_write_everything_is_asked_about(word: str) -> None:
    reading = read("filter", word, intent="write")
    assert reading.outcome == "ask" and reading.readings == (None, word)


@given(st.text(min_size=1, max_size=40))
def test_any_other_string_is_the_filter_trimmed(value: str) -> None:
    assume(not means_everything(value) and absence.placeholder_of(value) is None)
    reading = read("filter", value)
    assert reading.outcome == "value"
    assert reading.value == value.strip()
    assert bool(reading.notes) == (value != value.strip())


def test_a_declared_choice_is_never_everything() -> None:
    assert read("filter", "all", choices=["all", "mine"]).value == "all"


def test_numbers_read_as_their_text_and_the_rest_is_refused() -> None:
    assert read("filter", 2020).value == "2020"
    assert read("filter", True).outcome == "invalid"
    assert read("filter", ["a"]).outcome == "invalid"


@given(st.text() | st.integers() | st.floats() | st.none() | st.booleans() | st.lists(st.text()))
def test_nothing_raises(value: Any) -> None:
    for intent in ("read", "write"):
        reading = read("filter", value, intent=intent)
        assert reading.outcome in OUTCOMES
        json.dumps(reading.to_dict())
