"""drivable.schema's resolver, `allOf` fold and type readers: what the surface diff, the audit,
reliability and the runtime's repairs all read schemas through, checked on generated schemas."""

from __future__ import annotations

from typing import Any

import jsonschema
from hypothesis import given, settings
from hypothesis import strategies as st

from drivable.schema import (
    declared_types,
    enum_values,
    follow,
    json_type,
    merge_all_of,
    resolve,
    sample_arguments,
    types_of,
)

NAMES = st.text("abcdefgh", min_size=1, max_size=6)
LEAVES = st.sampled_from(
    [
        {"type": "string"},
        {"type": "integer", "minimum": 0},
        {"type": "boolean"},
        {"type": ["string", "null"]},
        {"enum": ["a", "b"]},
    ]
)


@settings(max_examples=150, deadline=None)
@given(st.integers(1, 8), st.integers(0, 8), LEAVES)
def test_follow_walks_a_chain_of_refs_and_stops_where_it_loops(
    length: int, back: int, leaf: dict[str, Any]
) -> None:
    # d0 -> d1 -> ... -> d{length-1} -> leaf, or (when `back` < length) -> d{back} again: a cycle.
    loops = back < length
    defs: dict[str, Any] = {f"d{i}": {"$ref": f"#/$defs/d{i + 1}"} for i in range(length - 1)}
    defs[f"d{length - 1}"] = {"$ref": f"#/$defs/d{back}"} if loops else dict(leaf)
    root = {"$defs": defs, "$ref": "#/$defs/d0", "description": "the root's own"}
    node, seen = follow(root, root)
    assert len(seen) == len(set(seen))  # no ref followed twice
    if loops:
        assert node["$ref"] in seen  # stopped at the ref that would loop
    else:
        assert "$ref" not in node
        assert {k: v for k, v in node.items() if k not in ("$defs", "description")} == leaf
        assert seen == tuple(f"#/$defs/d{i}" for i in range(length))
    assert node["description"] == "the root's own"  # siblings beside a $ref win


def test_follow_leaves_what_it_cannot_resolve_and_stops_at_refs_already_seen() -> None:
    root = {"$defs": {"a": {"type": "string"}, "t": True}, "items": [{"type": "integer"}]}
    assert follow(root, {"$ref": "#/$defs/missing"}) == ({"$ref": "#/$defs/missing"}, ())
    assert follow(root, {"$ref": "https://example.com/s"})[0] == {"$ref": "https://example.com/s"}
    assert follow(root, {"$ref": "#/$defs/a"}, ("#/$defs/a",))[0] == {"$ref": "#/$defs/a"}
    assert follow(root, {"$ref": "#/$defs/t", "title": "x"})[0] == {"title": "x"}  # true = {}
    assert follow(root, {"$ref": "#/items/0"})[0] == {"type": "integer"}
    assert follow(root, False) == (False, ())
    assert resolve(root, "not a schema") == {}


parts = st.lists(
    st.dictionaries(NAMES, LEAVES, min_size=1, max_size=3), min_size=1, max_size=4
).map(
    # distinct property names per part, so the fold is the conjunction the parts mean
    lambda maps: [
        {
            "type": "object",
            "properties": {f"{i}{k}": v for k, v in m.items()},
            "required": sorted(f"{i}{k}" for k in m)[:1],
        }
        for i, m in enumerate(maps)
    ]
)


@settings(max_examples=150, deadline=None)
@given(parts, st.booleans())
def test_merge_all_of_is_the_conjunction_of_its_parts(
    members: list[dict[str, Any]], by_ref: bool
) -> None:
    defs = {f"p{i}": m for i, m in enumerate(members)}
    listed = [{"$ref": f"#/$defs/p{i}"} for i in range(len(members))] if by_ref else members
    root = {"$defs": defs, "allOf": listed, "title": "whole"}
    merged = merge_all_of(root, root)
    assert "allOf" not in merged and merged["title"] == "whole"
    assert set(merged["properties"]) == {p for m in members for p in m["properties"]}
    assert merged["required"] == sorted({r for m in members for r in m["required"]})
    # a value built from the fold is valid against the parts, read by a real validator
    jsonschema.validate(sample_arguments(merged, optional=True), root)


JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=5),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner),
    max_leaves=5,
)


@settings(max_examples=200, deadline=None)
@given(JSON_VALUES)
def test_json_type_is_the_type_a_real_validator_accepts_the_value_as(value: Any) -> None:
    kind = json_type(value)
    assert jsonschema.Draft202012Validator({"type": kind}).is_valid(value)
    others = {"null", "boolean", "integer", "string", "array", "object"} - {kind}
    assert not any(jsonschema.Draft202012Validator({"type": t}).is_valid(value) for t in others)


@settings(max_examples=150, deadline=None)
@given(LEAVES, st.booleans())
def test_declared_types_reads_one_node_and_types_of_its_branches(
    leaf: dict[str, Any], nullable: bool
) -> None:
    node = {**leaf, "nullable": True} if nullable else leaf
    declared = declared_types(node)
    assert declared is not None and types_of(leaf) <= declared
    assert ("null" in declared) == (nullable or "null" in types_of(leaf))
    union = {"anyOf": [leaf, {"type": "null"}]}
    assert declared_types(union) is None  # a union's types are its branches'
    assert types_of(union) == types_of(leaf) | {"null"}
    assert declared_types({"properties": {}}) == {"object"}
    assert declared_types({"items": {}}) == {"array"}
    assert declared_types({}) is None
    assert enum_values({"const": 3}) == [3] and enum_values(leaf) == leaf.get("enum")
