"""integer: number's spellings, integral only; page sizes clamp into their bounds with a note."""

from __future__ import annotations

import json
from typing import Annotated, Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import Field, ValidationError

from drivable.kinds import Kind, KindModel, read, validate

OUTCOMES = {"value", "absent", "ask", "invalid"}
SPACES = [" ", "\u00a0", "\u2009", "\u202f", "'", "’"]


def group(digits: str, mark: str) -> str:
    head = len(digits) % 3 or 3
    return mark.join([digits[:head]] + [digits[i : i + 3] for i in range(head, len(digits), 3)])


def spellings(n: int) -> list[str]:
    """Every unambiguous spelling of n that the kind promises to read."""
    sign = "-" if n < 0 else ""
    digits = str(abs(n))
    out = [str(n), f"{n}.0", f"{n},00", f" {n} ", f"{sign}{digits}e0", f"{sign}{digits}0e-1"]
    if n >= 0:
        out.append(f"+{n}")
    if abs(n) >= 1000:
        out += [sign + group(digits, s) for s in SPACES]
        out += [f"{sign}{group(digits, '.')},0", f"{sign}{group(digits, ',')}.0"]
    if abs(n) >= 1_000_000:
        out += [sign + group(digits, "."), sign + group(digits, ",")]
    return out


@given(st.integers(min_value=-(10**18), max_value=10**18))
def test_every_unambiguous_spelling_reads_back(n: int) -> None:
    for spelling in spellings(n):
        reading = read("integer", spelling)
        assert reading.outcome == "value", (spelling, reading)
        assert reading.value == n and type(reading.value) is int, spelling


@given(st.integers(min_value=1, max_value=999), st.integers(min_value=0, max_value=999))
def test_a_bare_group_of_three_offers_only_whole_readings(whole: int, part: int) -> None:
    """ "1,000" is 1000 or 1 (both whole: asked); "1,234" is 1234, as 1.234 is no integer."""
    spelling = f"{whole},{part:03d}"
    reading = read("integer", spelling)
    if part == 0:
        assert reading.outcome == "ask" and reading.code == "ambiguous_number"
        assert reading.readings == (whole * 1000, whole)
    else:
        assert reading.outcome == "value" and reading.value == whole * 1000 + part
        other = float(f"{whole}.{part:03d}")
        assert reading.notes == (
            f"Read '{spelling}' as {whole * 1000 + part} ({other!r}, its other reading, "
            "is not an integer).",
        )


@given(st.integers(min_value=1, max_value=999), st.integers(min_value=0, max_value=999))
def test_readings_the_bounds_refuse_are_not_offered(whole: int, part: int) -> None:
    """`drivable read integer "1,234" --maximum 50`: neither reading fits; both are named."""
    spelling = f"{whole},{part:03d}"
    refused = read("integer", spelling, maximum=whole - 1) if whole > 1 else None
    if refused is not None:
        assert refused.outcome == "invalid" and refused.code == "out_of_range"
        assert str(whole * 1000 + part) in refused.hint
    if part == 0:
        one_left = read("integer", spelling, maximum=whole)
        assert one_left.outcome == "value" and one_left.value == whole
        assert one_left.notes and str(whole * 1000) in one_left.notes[0]


@given(st.integers(min_value=-(10**9), max_value=10**9), st.sampled_from(["5", "25", "9999"]))
def test_a_fraction_is_refused_never_rounded(n: int, fraction: str) -> None:
    reading = read("integer", f"{n}.{fraction}")
    assert reading.outcome == "invalid" and reading.code == "not_integer"


@given(st.integers(min_value=-(10**6), max_value=10**6))
def test_clamping_page_sizes(n: int) -> None:
    reading = read("limit", n, minimum=1, maximum=100)
    assert reading.outcome == "value"
    assert reading.value == min(max(n, 1), 100)
    if 1 <= n <= 100:
        assert reading.notes == ()
    else:
        which = "smallest" if n < 1 else "largest"
        assert reading.notes == (f"Read {n} as {reading.value}, the {which} page size.",)


@given(st.integers(min_value=-(10**6), max_value=10**6))
def test_without_clamp_out_of_bounds_is_refused_naming_the_bounds(n: int) -> None:
    reading = read("integer", n, minimum=1, maximum=100)
    if 1 <= n <= 100:
        assert reading.value == n
    else:
        assert reading.outcome == "invalid" and reading.code == "out_of_range"
        assert reading.expected == "an integer between 1 and 100"


def test_pinned() -> None:
    assert read("limit", "500", minimum=1, maximum=100).to_dict() == {
        "outcome": "value",
        "value": 100,
        "notes": ["Read '500' as 100, the largest page size."],
    }
    assert read("page_size", 500, maximum=100).notes == ("Read 500 as 100, the largest page size.",)
    five_thousand = read("limit", "5 000", minimum=1, maximum=100)
    assert five_thousand.value == 100 and len(five_thousand.notes) == 2
    assert read("integer", "10.0").value == 10
    assert read("integer", "10.5").outcome == "invalid"
    assert read("integer", "4 000").to_dict()["notes"] == ["Read '4 000' as 4000."]
    assert read("integer", True).outcome == "invalid"
    assert read("integer", "1e400").outcome == "invalid"
    assert read("integer", "-0").value == 0


@pytest.mark.parametrize("value", ["abc", "", "null", None, [], {}])
def test_non_integers(value: Any) -> None:
    assert read("integer", value).outcome in ("invalid", "absent")


@given(st.text() | st.integers() | st.floats() | st.none() | st.booleans())
def test_nothing_raises(value: Any) -> None:
    unbounded: dict[str, Any] = {}
    for options in (unbounded, {"minimum": 1, "maximum": 100, "clamp": True}):
        reading = read("integer", value, **options)
        assert reading.outcome in OUTCOMES
        json.dumps(reading.to_dict())
        if reading.outcome == "value":
            assert type(reading.value) is int


class Search(KindModel):
    query: str
    limit: int = Field(20, ge=1, le=100)
    size: Annotated[int, Kind("integer", minimum=0, maximum=10)] = 0


def test_pydantic_seam_clamps_and_keeps_the_schema_strict() -> None:
    validated = validate(Search, {"query": "x", "limit": "500"})
    assert validated.value.limit == 100
    assert validated.notes == ["limit: Read '500' as 100, the largest page size."]
    assert validate(Search, {"query": "x"}).value.limit == 20
    properties = Search.model_json_schema()["properties"]
    assert {k: properties["limit"][k] for k in ("type", "minimum", "maximum")} == {
        "type": "integer",
        "minimum": 1,
        "maximum": 100,
    }
    assert properties["size"]["type"] == "integer" and properties["size"]["maximum"] == 10
    with pytest.raises(ValidationError) as raised:
        validate(Search, {"query": "x", "size": "11"})
    assert raised.value.errors()[0]["type"] == "out_of_range"
    with pytest.raises(ValidationError) as raised:
        validate(Search, {"query": "x", "size": "1,234"})
    error = raised.value.errors()[0]
    assert error["type"] == "out_of_range"  # 1234 is over 10 and 1.234 is no integer
    assert "1234 or 1.234" in error["ctx"]["hint"]
    assert validate(Search, {"query": "x", "size": "1,000"}).value.size == 1
