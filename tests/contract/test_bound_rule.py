"""A bound in a message is the field's own bound (docs/runtime.md, "Next steps keep the caller's
intent"): a refusal for length names the max_length the property declares, whatever the kind's own
bound on a scalar (512 characters) and however the bound is declared; the request's inline limit
is named only when it is what was exceeded, and as the request's.
"""

from __future__ import annotations

import re
from typing import Annotated, Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import Field, ValidationError, create_model

from drivable.contract.validation import issues_from
from drivable.kinds import MAX_SCALAR_CHARS, Kind, KindModel, validate
from tests.contract.booking_server import QUERY_BOUND, contract


def _field(form: str, bound: int) -> tuple[Any, Any]:
    """One property bounded by `bound`, declared as authors write it."""
    if form == "optional":
        return (str | None, Field(None, max_length=bound))
    if form == "required":
        return (str, Field(max_length=bound))
    if form == "kind":
        return (Annotated[str | None, Kind("text")], Field(None, max_length=bound))
    return (Annotated[str | None, Field(max_length=bound), Kind("text")], None)


def _numbers(text: str) -> set[int]:
    return {int(n) for n in re.findall(r"\d+", text)}


@settings(max_examples=200, deadline=None)
@given(
    form=st.sampled_from(["optional", "required", "kind", "kind_first"]),
    bound=st.integers(1, 3000) | st.sampled_from([100, MAX_SCALAR_CHARS - 1, MAX_SCALAR_CHARS + 1]),
    over=st.integers(1, 5000),
)
def test_a_length_refusal_names_the_declared_bound(form: str, bound: int, over: int) -> None:
    model = create_model("Bounded", __base__=KindModel, text=_field(form, bound))
    sent = {"text": "7" * (bound + over)}  # digits: never a placeholder ("xxx" is one)
    with pytest.raises(ValidationError) as refused:
        validate(model, sent)
    (issue,) = issues_from(refused.value, sent, model.model_json_schema())
    said = f"{issue.message} {issue.expected}"
    assert f"at most {bound} characters" in said, said
    assert _numbers(said) <= {bound, bound + over}, said  # no other bound, no 512


@settings(max_examples=100, deadline=None)
@given(form=st.sampled_from(["optional", "required", "kind"]), bound=st.integers(1, 3000))
def test_a_value_within_its_declared_bound_is_read(form: str, bound: int) -> None:
    model = create_model("Bounded", __base__=KindModel, text=_field(form, bound))
    assert validate(model, {"text": "y" * bound}).value.text == "y" * bound  # type: ignore[attr-defined]


@settings(
    max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
# a size of exactly MAX_SCALAR_CHARS is said as what was sent ("512 were sent"), not as a bound
@given(
    st.integers(QUERY_BOUND + 1, contract.max_inline_bytes - 100).filter(
        lambda n: n != MAX_SCALAR_CHARS
    )
)
async def test_a_query_over_its_bound_is_refused_with_it_not_the_scalar_bound(size: int) -> None:
    env = (await contract.call("find_rooms", {"query": "q" * size})).structured
    assert env["code"] == "invalid_arguments"
    issue = env["issues"][0]
    assert issue["path"] == "query" and issue["expected"] == f"at most {QUERY_BOUND} characters"
    # the count sent is said ("25120 were sent"): only a number apart from it could be a bound
    said = (env["hint"] + " " + issue["message"]).replace(f"{size} were sent", "")
    assert str(MAX_SCALAR_CHARS) not in said


async def test_the_inline_limit_is_named_only_when_exceeded_and_as_the_requests() -> None:
    env = (await contract.call("find_rooms", {"query": "q" * contract.max_inline_bytes})).structured
    assert env["code"] == "payload_too_large"
    assert str(contract.max_inline_bytes) in env["message"] and "inline limit" in env["message"]
    assert str(QUERY_BOUND) not in env["message"]
