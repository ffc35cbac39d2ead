"""Canonical arguments, digests, differing fields and the pure version check."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from drivable.effects import (
    VersionConflict,
    arguments_digest,
    canonical_arguments,
    check_version,
    differing_fields,
)

json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.text(max_size=6)
    | st.floats(allow_nan=False, allow_infinity=False),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner, max_size=3)
    ),
    max_leaves=12,
)
arguments = st.dictionaries(st.text(max_size=6), json_values, max_size=5)


def test_canonical_form() -> None:
    args = {
        "b": 1.0,
        "a": {"y": [1, 2.5], "x": "é"},
        "idempotency_key": "k",
        "dry_run": True,
        "confirm_token": "t",
    }
    assert canonical_arguments(args) == '{"a":{"x":"é","y":[1,2.5]},"b":1}'.encode()


def test_numbers_are_normalised_and_kinds_kept_apart() -> None:
    assert arguments_digest({"n": 1}) == arguments_digest({"n": 1.0})
    assert arguments_digest({"n": 1}) == arguments_digest({"n": Decimal("1.00")})
    assert arguments_digest({"n": 0.0}) == arguments_digest({"n": -0.0})
    assert arguments_digest({"n": 1}) != arguments_digest({"n": True})
    assert arguments_digest({"n": 1}) != arguments_digest({"n": "1"})
    assert arguments_digest({"n": None}) != arguments_digest({})


def test_values_json_cannot_carry_are_refused() -> None:
    with pytest.raises(ValueError):
        canonical_arguments({"n": float("nan")})
    with pytest.raises(TypeError):
        canonical_arguments({"n": object()})
    with pytest.raises(TypeError):
        canonical_arguments({"n": {1: "x"}})


def test_differing_fields_are_dotted_paths() -> None:
    a: dict[str, Any] = {"amount": 1, "items": [{"sku": "a"}, {"sku": "b"}], "meta": {"x": 1}}
    b: dict[str, Any] = {
        "amount": 2,
        "items": [{"sku": "a"}, {"sku": "c"}],
        "note": "n",
        "meta": {"x": 1},
        "idempotency_key": "other",
    }
    assert differing_fields(a, b) == ["amount", "items.1.sku", "note"]
    assert differing_fields({"l": [1]}, {"l": [1, 2]}) == ["l"]
    assert differing_fields({"n": 1}, {"n": 1.0}) == []


@given(arguments, st.randoms())
def test_key_order_never_matters(args: dict[str, Any], rnd: Any) -> None:
    items = list(args.items())
    rnd.shuffle(items)
    assert canonical_arguments(dict(items)) == canonical_arguments(args)


@given(arguments, arguments)
def test_no_differing_field_iff_same_digest(a: dict[str, Any], b: dict[str, Any]) -> None:
    assert (differing_fields(a, b) == []) == (arguments_digest(a) == arguments_digest(b))


def test_check_version() -> None:
    assert check_version(None, 7) is None
    assert check_version(7, 7) is None
    assert check_version("7", 7) is None
    stale = check_version(6, 7, reread_tool="get_invoice", reread_arguments={"invoice_id": "i"})
    assert isinstance(stale, VersionConflict)
    assert (stale.code, stale.expected, stale.current) == ("conflict", 6, 7)
    assert stale.reread_tool == "get_invoice" and stale.reread_arguments == {"invoice_id": "i"}
    assert isinstance(check_version(1, None), VersionConflict)
