"""uuid: every spelling of any id reads back to it; placeholders are absence on read, ask on write."""

from __future__ import annotations

import uuid

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from drivable.kinds import KindModel, read, validate
from drivable.kinds.uuid import EXAMPLE_IDS, Uuid, is_placeholder

OUTCOMES = {"value", "absent", "ask", "invalid"}
real_ids = st.uuids().filter(lambda u: not is_placeholder(u))


def spellings(u: uuid.UUID) -> list[str]:
    text = str(u)
    return [
        text.upper(),
        f"{{{text}}}",
        f"{{{text.upper()}}}",
        f"urn:uuid:{text}",
        f"URN:UUID:{text.upper()}",
        u.hex,
        u.hex.upper(),
        f"  {text}\n",
        f'"{text}"',
        f"({u.hex})",
    ]


@given(real_ids)
def test_canonical_reads_without_a_note(u: uuid.UUID) -> None:
    reading = read("uuid", str(u))
    assert (reading.outcome, reading.value, reading.notes) == ("value", u, ())


@given(real_ids)
def test_every_spelling_reads_back_with_a_note(u: uuid.UUID) -> None:
    for text in spellings(u):
        reading = read("uuid", text)
        assert reading.value == u, text
        assert reading.notes == (f"Read '{text}' as {u}.",)


@given(st.sampled_from("0f"), st.booleans())
def test_the_nil_and_max_ids_are_placeholders(digit: str, upper: bool) -> None:
    text = str(uuid.UUID(hex=digit * 32))
    text = text.upper() if upper else text
    assert read("uuid", text).outcome == "absent"
    assert read("uuid", text, intent="write").outcome == "ask"


@given(st.integers(1, 1000))
def test_small_counters_are_ids(number: int) -> None:
    # seeded databases issue them (docs/decisions/0013-placeholders-carry-no-information.md)
    assert read("uuid", str(uuid.UUID(int=number))).value == uuid.UUID(int=number)


@pytest.mark.parametrize(
    "text",
    [
        "00000000-0000-0000-0000-000000000000",
        "ffffffff-ffff-ffff-ffff-ffffffffffff",
        "123e4567-e89b-12d3-a456-426614174000",
        "123e4567-e89b-12d3-a456-426655440000",
        "550E8400-E29B-41D4-A716-446655440000",
        "{00000000-0000-0000-0000-000000000000}",
        "<uuid>",
        "string",
    ],
)
def test_pinned_placeholders(text: str) -> None:
    assert read("uuid", text).to_dict() == {
        "outcome": "absent",
        "notes": [f"Read '{text}' as no value."],
    }
    write = read("uuid", text, intent="write")
    assert (write.outcome, write.code) == ("ask", "placeholder_value")


def test_every_example_id_is_a_placeholder() -> None:
    for number in EXAMPLE_IDS:
        assert read("uuid", str(uuid.UUID(int=number))).outcome == "absent"


@given(st.text(max_size=60))
def test_any_text_reads_to_one_of_four_outcomes(text: str) -> None:
    reading = read("uuid", text)
    assert reading.outcome in OUTCOMES
    if reading.outcome == "invalid":
        assert reading.code == "invalid_id" and reading.expected and reading.hint


@given(st.from_regex(r"[0-9a-fA-F-]{30,40}", fullmatch=True))
def test_near_ids_never_raise(text: str) -> None:
    assume(text)
    assert read("uuid", text).outcome in OUTCOMES


@given(st.integers() | st.floats() | st.booleans() | st.lists(st.text(), max_size=2))
def test_any_json_value_reads_to_one_of_four_outcomes(value: object) -> None:
    assert read("uuid", value).outcome in OUTCOMES


@pytest.mark.parametrize(
    "text", ["42", "not-an-id", "3f2c6a1e-8b4d-4c2a-9e51-0d7b6f1a2c3", "g" * 32]
)
def test_malformed_ids_are_invalid_with_a_hint(text: str) -> None:
    reading = read("uuid", text)
    assert (reading.outcome, reading.code) == ("invalid", "invalid_id")
    assert "UUID" in reading.expected and reading.hint


class Update(KindModel):
    matter_id: uuid.UUID | None = None
    owner: Uuid | None = None


def test_pydantic_seam_binds_ids_by_name_and_reads_placeholders_by_intent() -> None:
    real = uuid.UUID("7d444840-9dc0-11d1-b245-5ffdce74fad2")
    validated = validate(Update, {"matter_id": real.hex.upper(), "owner": f"{{{real}}}"})
    assert validated.value.matter_id == real and validated.value.owner == real
    assert len(validated.notes) == 2
    assert (
        validate(Update, {"matter_id": "00000000-0000-0000-0000-000000000000"}).value.matter_id
        is None
    )
    properties = Update.model_json_schema()["properties"]
    assert properties["matter_id"]["format"] == "uuid"


@given(
    st.text(max_size=60)
    | st.from_regex(r"[{(]?(urn:uuid:)?[0-9a-fA-F -]{28,40}[)}]?", fullmatch=True)
    | st.uuids()
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
        reading = KINDS["uuid"].reader(value, make_options(**options))
        assert reading.outcome in {"value", "absent", "ask", "invalid"}
        reading.to_dict()
