"""enum: case, spacing, separators and diacritics map to the one declared member; a miss names them."""

from __future__ import annotations

import json
import unicodedata
from typing import Annotated, Any

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st
from pydantic import ValidationError

from drivable.kinds import KindModel, read, validate
from drivable.kinds.enum import one_of
from drivable.kinds.text_folding import spelling

OUTCOMES = {"value", "absent", "ask", "invalid"}
MEMBERS = ("prehled", "detail", "public_law", "Přehled_změn", "full-text", "none")


def strip_marks(text: str) -> str:
    return "".join(c for c in unicodedata.normalize("NFKD", text) if not unicodedata.combining(c))


variants = st.sampled_from(
    [
        str.upper,
        str.lower,
        str.title,
        lambda s: f"  {s} ",
        lambda s: s.replace("_", " "),
        lambda s: s.replace("_", "-").replace("-", " - "),
        lambda s: s.replace("-", "_"),
        strip_marks,
        lambda s: strip_marks(s).upper().replace("_", " "),
        lambda s: s.replace("_", "").replace("-", ""),
    ]
)


@given(member=st.sampled_from(MEMBERS), variant=variants)
def test_every_spelling_of_a_member_reads_as_it(member: str, variant: Any) -> None:
    spelling = variant(member)
    reading = read("enum", spelling, choices=MEMBERS)
    assert reading.outcome == "value", (spelling, reading)
    assert reading.value == member
    assert bool(reading.notes) == (spelling != member)


def test_pinned() -> None:
    choices = ["prehled", "detail"]
    assert read("enum", "Přehled", choices=choices).to_dict() == {
        "outcome": "value",
        "value": "prehled",
        "notes": ["Read 'Přehled' as prehled."],
    }
    miss = read("enum", "detial", choices=choices)
    assert miss.outcome == "invalid" and miss.code == "invalid_choice"
    assert miss.expected == "one of: prehled, detail"
    # a near miss by characters is another value: listed with the others, never guessed
    assert miss.hint == "'detial' is none of the allowed values. Send one of: prehled, detail."
    # a declared member that is also a placeholder spelling is a value, not absence
    assert read("enum", "None", choices=MEMBERS).value == "none"


def test_two_members_that_fold_alike_are_asked_about() -> None:
    reading = read("enum", "A B", choices=["a-b", "a_b", "c"])
    assert reading.outcome == "ask" and set(reading.readings) == {"a-b", "a_b"}
    assert read("enum", "a_b", choices=["a-b", "a_b"]).value == "a_b"  # exact wins


trimmed = st.text(min_size=1, max_size=12).filter(lambda s: s == s.strip() != "")


@given(st.lists(trimmed, min_size=1, max_size=6, unique=True))
def test_members_always_read_as_themselves(members: list[str]) -> None:
    for member in members:
        reading = read("enum", member, choices=members)
        assert reading.outcome == "value" and reading.value == member


@given(st.text(max_size=20))
def test_a_miss_names_the_allowed_values(value: str) -> None:
    folded = spelling(value)
    assume(folded and all(spelling(m) != folded for m in MEMBERS))
    reading = read("enum", value, choices=MEMBERS)
    assert reading.outcome in ("invalid", "absent")
    if reading.outcome == "invalid":
        assert reading.code == "invalid_choice"
        assert all(m in reading.expected for m in MEMBERS)


@given(st.text() | st.integers() | st.booleans() | st.none() | st.lists(st.text()))
def test_nothing_raises(value: Any) -> None:
    reading = read("enum", value, choices=MEMBERS)
    assert reading.outcome in OUTCOMES
    json.dumps(reading.to_dict())
    assert read("enum", value).outcome in OUTCOMES  # no choices declared: refused, not raised


class View(KindModel):
    view: Annotated[str, one_of("prehled", "detail")] = "prehled"


def test_pydantic_seam() -> None:
    schema = View.model_json_schema()["properties"]["view"]
    assert schema["type"] == "string" and schema["enum"] == ["prehled", "detail"]
    validated = validate(View, {"view": " DETAIL "})
    assert validated.value.view == "detail"
    assert validated.notes == ["view: Read ' DETAIL ' as detail."]
    with pytest.raises(ValidationError) as raised:
        validate(View, {"view": "summary"})
    error = raised.value.errors()[0]
    assert error["type"] == "invalid_choice"
    assert error["ctx"]["expected"] == "one of: prehled, detail"
