"""The error result shape every client accepts, and `envelope_of` reading it back."""

from __future__ import annotations

from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from drivable.contract import ENVELOPE_META_KEY, Outcome, envelope_of
from drivable.serve.results import call_result

texts = st.text(max_size=40)
json_leaves = st.none() | st.booleans() | st.integers() | texts
envelopes = st.fixed_dictionaries(
    {
        "code": st.from_regex(r"[a-z][a-z_]{0,20}", fullmatch=True),
        "message": texts,
        "hint": texts,
        "issues": st.lists(st.fixed_dictionaries({"path": texts, "code": texts}), max_size=3),
        "temporary": st.booleans(),
        "retry_after_ms": st.none() | st.integers(min_value=0),
        "request_id": texts,
    },
    optional={"details": st.dictionaries(texts, json_leaves, max_size=3)},
)


@given(envelopes)
def test_an_error_result_carries_the_envelope_twice_and_no_structured_content(
    envelope: dict[str, Any],
) -> None:
    result = call_result(Outcome(envelope, is_error=True))
    wire = result.model_dump(by_alias=True, mode="json", exclude_none=True)
    assert "structuredContent" not in wire
    assert wire["_meta"][ENVELOPE_META_KEY] == envelope
    assert envelope_of(result) == envelope
    assert envelope_of(wire) == envelope
    # A client that keeps only the text still has the whole envelope.
    assert envelope_of({"isError": True, "content": wire["content"]}) == envelope


@given(envelopes)
def test_the_structured_shape_of_older_servers_still_reads(envelope: dict[str, Any]) -> None:
    wire = {"isError": True, "content": [], "structuredContent": envelope}
    assert envelope_of(wire) == envelope


@given(st.dictionaries(texts, json_leaves, max_size=4))
def test_a_success_has_no_envelope(structured: dict[str, Any]) -> None:
    result = call_result(Outcome(structured, is_error=False))
    assert result.structured_content == structured
    assert envelope_of(result) is None


def test_an_error_without_an_envelope_reads_as_none() -> None:
    assert envelope_of({"isError": True, "content": [{"type": "text", "text": "boom"}]}) is None
    assert envelope_of({"isError": True, "content": [{"type": "text", "text": "[1]"}]}) is None
