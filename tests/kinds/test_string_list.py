"""string_list: a lone string is one item; only constrained tokens split; placeholders drop."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from drivable.kinds import absence, read

OUTCOMES = {"value", "absent", "ask", "invalid"}
MEMBERS = ("civil", "criminal", "administrative", "constitutional")

free = st.text(min_size=1, max_size=30).filter(
    lambda s: s.strip() != "" and absence.placeholder_of(s) is None
)


def deduped(items: list[str]) -> list[str]:
    return list(dict.fromkeys(items))


@given(free)
def test_a_lone_free_string_is_one_item_and_never_splits(value: str) -> None:
    stripped = value.strip()
    assume(not (stripped.startswith("[") and stripped.endswith("]")))
    reading = read("string_list", value)
    assert reading.outcome == "value"
    assert reading.value == [stripped]
    assert reading.notes and reading.notes[0].startswith("Read ")


def test_free_strings_with_commas_stay_whole() -> None:
    assert read("string_list", "Novák, Jan").value == ["Novák, Jan"]


@given(st.lists(free, min_size=1, max_size=8))
def test_an_array_of_free_strings_passes(items: list[str]) -> None:
    reading = read("string_list", items)
    assert reading.outcome == "value"
    assert reading.value == deduped([s.strip() for s in items])


@given(
    st.lists(st.sampled_from(MEMBERS), min_size=1, max_size=6),
    st.sampled_from([",", ", ", ";", " ; ", " , "]),
    st.sampled_from([str.upper, str.title, lambda s: s, lambda s: f"'{s}'"]),
    st.booleans(),
)
def test_constrained_tokens_split(
    members: list[str], separator: str, case: Any, bracketed: bool
) -> None:
    spelling = separator.join(case(m) for m in members)
    if bracketed:
        spelling = f"[{spelling}]"
    reading = read("string_list", spelling, choices=MEMBERS)
    assert reading.outcome == "value", (spelling, reading)
    assert reading.value == deduped(members)


@given(st.lists(st.sampled_from(MEMBERS) | free, min_size=1, max_size=6))
def test_a_json_array_inside_a_string_is_read_as_the_array(items: list[str]) -> None:
    spelling = json.dumps(items, ensure_ascii=False)
    assume(len(spelling) <= 512)
    reading = read("string_list", spelling)
    assert reading.outcome == "value"
    assert reading.value == deduped([s.strip() for s in items])
    assert "JSON array" in reading.notes[0]


def test_placeholders_drop_and_an_empty_result_is_absence() -> None:
    reading = read("string_list", ["a", "none", "", "a", "n/a", "b"])
    assert reading.value == ["a", "b"]
    assert len(reading.notes) == 4
    assert read("string_list", ["none", ""]).outcome == "absent"
    assert read("string_list", "none").to_dict() == {
        "outcome": "absent",
        "notes": ["Read 'none' as no value."],
    }
    assert read("string_list", []).outcome == "absent"
    assert read("string_list", [], intent="write").value == []
    assert read("string_list", ["a", "none"], intent="write").outcome == "ask"


def test_an_item_outside_the_choices_is_refused_naming_them() -> None:
    reading = read("string_list", "civil, crimnal", choices=MEMBERS)
    assert reading.outcome == "invalid" and reading.code == "invalid_choice"
    assert reading.hint.startswith("Item 2:") and "criminal" in reading.hint
    assert "civil" in reading.expected


def test_an_ambiguous_item_asks_with_whole_lists() -> None:
    reading = read("string_list", ["x", "A B"], choices=["x", "a-b", "a_b"])
    assert reading.outcome == "ask"
    assert [list(r) for r in reading.readings] == [["x", "a-b"], ["x", "a_b"]]


def test_items_through_another_kind() -> None:
    reading = read("string_list", ["4 000", "7"], item_kind="integer")
    assert reading.value == [4000, 7]


def test_work_is_bounded() -> None:
    # refused at a bound before the items are read one by one (no timed assertion: the cost is in
    # benchmarks/bench_kinds.py)
    assert read("string_list", "x" * 1_000_000).code == "value_too_long"
    assert read("string_list", ["a"] * 1_000_000).code == "too_many_items"
    joined = ",".join(["civil"] * 200_000)
    assert read("string_list", joined, choices=MEMBERS).code == "value_too_long"
    one_too_long = read("string_list", ["a", "x" * 1_000_000])
    assert one_too_long.code == "value_too_long"
    assert one_too_long.received == "<1000000 characters>"


def test_schema_is_strict() -> None:
    from drivable.kinds import KINDS
    from drivable.kinds._registry import make_options

    schema = KINDS["string_list"].schema(make_options(choices=MEMBERS))
    assert schema["type"] == "array" and schema["items"]["enum"] == list(MEMBERS)
    assert KINDS["string_list"].schema(make_options())["items"]["type"] == "string"


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(), children),
    max_leaves=10,
)


@pytest.mark.parametrize("choices", [None, MEMBERS])
@given(value=st.text() | json_values)
def test_nothing_raises(choices: tuple[str, ...] | None, value: Any) -> None:
    for intent in ("read", "write"):
        reading = read("string_list", value, intent=intent, choices=choices)
        assert reading.outcome in OUTCOMES
        json.dumps(reading.to_dict())
        if reading.outcome == "value":
            assert isinstance(reading.value, list)
