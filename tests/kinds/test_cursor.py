"""cursor: invented first-page values are no cursor; a damaged or foreign token is refused, never restarted."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from drivable.kinds import KindModel, read, validate
from drivable.kinds.cursor import (
    PREFIX,
    RESTART,
    check_cursor,
    cursor_scope,
    decode_cursor,
    encode_cursor,
    first_page,
)

OUTCOMES = {"value", "absent", "ask", "invalid"}
SECRET = b"s3cret-for-tests"
SCOPE = cursor_scope("search", {"query": "nájem", "court": "NS"})
NOW = 1_790_000_000

payloads = st.dictionaries(
    st.text(max_size=8),
    st.none() | st.booleans() | st.integers(-(10**9), 10**9) | st.text(max_size=16),
    max_size=3,
)


def verified(**extra: Any) -> dict[str, Any]:
    return {"extra": {"secret": SECRET, "scope": SCOPE, **extra}}


@given(payloads)
def test_round_trip(payload: dict[str, Any]) -> None:
    token = encode_cursor(payload, secret=SECRET, scope=SCOPE, issued_at=NOW)
    assert token.startswith(PREFIX)
    assert decode_cursor(token, secret=SECRET, scope=SCOPE) == payload
    reading = read("cursor", token, **verified(lifetime=3600, now=NOW + 10))
    assert reading.outcome == "value" and reading.value == payload
    passed = read("cursor", token)  # without a secret: passed through for the server's decoder
    assert passed.value == token and passed.notes == ()


@given(payloads, st.data())
def test_tampered_tokens_are_refused(payload: dict[str, Any], data: st.DataObject) -> None:
    token = encode_cursor(payload, secret=SECRET, scope=SCOPE, issued_at=NOW)
    at = data.draw(st.integers(min_value=len(PREFIX), max_value=len(token) - 1))
    replacement = data.draw(st.sampled_from("AaBb01_-.=x"))
    tampered = token[:at] + replacement + token[at + 1 :]
    assume(tampered != token)
    assert decode_cursor(tampered, secret=SECRET, scope=SCOPE) is None
    reading = read("cursor", tampered, **verified())
    assert reading.outcome == "invalid" and reading.code == "invalid_cursor"
    assert RESTART in reading.hint


@given(payloads, st.integers(min_value=1, max_value=len(SCOPE)))
def test_truncated_tokens_are_refused(payload: dict[str, Any], cut: int) -> None:
    token = encode_cursor(payload, secret=SECRET, scope=SCOPE, issued_at=NOW)
    truncated = token[: max(len(PREFIX), len(token) - cut)]
    reading = read("cursor", truncated, **verified())
    assert reading.outcome == "invalid" and RESTART in reading.hint


@given(payloads, st.text(min_size=1, max_size=20))
def test_a_cursor_from_another_query_is_refused(payload: dict[str, Any], other: str) -> None:
    scope = cursor_scope("search", {"query": other})
    token = encode_cursor(payload, secret=SECRET, scope=scope, issued_at=NOW)
    assert decode_cursor(token, secret=SECRET, scope=SCOPE) is None
    assert read("cursor", token, **verified()).code == "invalid_cursor"


@given(payloads, st.binary(min_size=1, max_size=32))
def test_forged_tokens_are_refused(payload: dict[str, Any], secret: bytes) -> None:
    assume(secret != SECRET)
    token = encode_cursor(payload, secret=secret, scope=SCOPE, issued_at=NOW)
    assert decode_cursor(token, secret=SECRET, scope=SCOPE) is None
    assert check_cursor(token, secret=SECRET, scope=SCOPE).status == "forged"


@given(payloads, st.integers(min_value=61, max_value=10**6))
def test_expired_tokens_name_the_restart(payload: dict[str, Any], age: int) -> None:
    token = encode_cursor(payload, secret=SECRET, scope=SCOPE, issued_at=NOW)
    assert decode_cursor(token, secret=SECRET, scope=SCOPE, lifetime=60, now=NOW + age) is None
    reading = read("cursor", token, **verified(lifetime=60, now=NOW + age))
    assert reading.outcome == "invalid" and reading.code == "cursor_expired"
    assert RESTART in reading.hint
    assert read("cursor", token, **verified(lifetime=60, now=NOW + 59)).value == payload


@pytest.mark.parametrize(
    "value",
    [None, "", " ", "0", "start", "first", "null", "none", "<cursor>", 0, False, "page1",
     "page=1", "p1", "Page 1", "first page", [], {}],
)  # fmt: skip
def test_first_page_inventions_are_no_cursor(value: Any) -> None:
    for extra in ({}, verified()):
        reading = read("cursor", value, **extra)
        assert reading.outcome == "absent", (value, reading)
        if value not in (None, "", " ", [], {}):
            assert reading.notes and "no cursor" in reading.notes[0]


@given(st.sampled_from(["", [], {}]) | st.text(" \t\n", max_size=8))
def test_an_empty_cursor_is_read_as_omitted_with_nothing_to_copy_back(value: Any) -> None:
    """An empty value is no value written: read as no cursor without a note, so a caller that
    fills every property finds no words about its cursor to send back as one (decision 0068)."""
    for extra in ({}, verified()):
        reading = read("cursor", value, **extra)
        assert (reading.outcome, reading.notes) == ("absent", ())


@pytest.mark.parametrize(
    "value", ["1", 1, 2, "2", "page2", "p2", "page=2", "next", "eyJwYWdlIjogMn0", "abc123"]
)
def test_other_inventions_reach_the_decoder_and_are_refused(value: Any) -> None:
    # "1" is page one counted from 1, or the second page counted from 0: never guessed
    passed = read("cursor", value)  # no secret: the server's decoder refuses it
    assert passed.outcome == "value" and passed.value == str(value)
    reading = read("cursor", value, **verified())
    assert (reading.outcome, reading.code) == ("invalid", "invalid_cursor"), reading
    assert RESTART in reading.hint and "next_call" in reading.hint


@given(st.text(max_size=60))
def test_invented_text_is_either_no_cursor_or_refused_never_a_value(value: str) -> None:
    reading = read("cursor", value, **verified())
    if first_page(value):
        assert reading.outcome == "absent"
    else:
        assert reading.outcome == "invalid" and RESTART in reading.hint


def test_encoder_guards() -> None:
    with pytest.raises(ValueError):
        encode_cursor({}, secret=b"", scope=SCOPE)
    with pytest.raises(ValueError):
        encode_cursor({"x": "y" * 1000}, secret=SECRET, scope=SCOPE)
    assert cursor_scope("t", {"q": 1, "cursor": "c1.x"}) == cursor_scope("t", {"q": 1})
    assert cursor_scope("t", {"q": 1}) != cursor_scope("u", {"q": 1})


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(),
    lambda children: st.lists(children, max_size=3) | st.dictionaries(st.text(), children),
    max_leaves=8,
)


@given(json_values)
def test_nothing_raises(value: Any) -> None:
    for extra in ({}, verified(lifetime=10, now=NOW)):
        reading = read("cursor", value, **extra)
        assert reading.outcome in OUTCOMES
        json.dumps(reading.to_dict())


class Page(KindModel):
    query: str
    cursor: str | None = None


def test_pydantic_seam() -> None:
    schema = Page.model_json_schema()["properties"]["cursor"]
    # no pattern: a shape in the schema teaches a model to forge tokens
    assert schema["type"] == "string" and "pattern" not in schema
    validated = validate(Page, {"query": "x", "cursor": "start"})
    assert validated.value.cursor is None
    assert validated.notes == ["cursor: Read 'start' as no cursor: the first page."]
    token = encode_cursor({"offset": 20}, secret=SECRET, scope=SCOPE)
    assert validate(Page, {"query": "x", "cursor": token}).value.cursor == token
