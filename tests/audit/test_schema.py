"""drivable.schema: resolve, walk and sample, checked against a real validator on generated schemas."""

from __future__ import annotations

from typing import Any

import jsonschema
from hypothesis import example, given, settings
from hypothesis import strategies as st

from drivable.schema import object_nodes, resolve, resolve_pointer, sample, sample_arguments, walk

NAMES = st.text("abcdefghij_", min_size=1, max_size=8)

scalars = st.one_of(
    st.just({"type": "string"}),
    st.builds(lambda n: {"type": "string", "minLength": n}, st.integers(0, 12)),
    st.builds(
        lambda f: {"type": "string", "format": f},
        st.sampled_from(["date", "date-time", "uuid", "email"]),
    ),
    st.builds(lambda lo: {"type": "integer", "minimum": lo}, st.integers(-5, 50)),
    st.builds(
        lambda lo, span: {"type": "number", "minimum": lo, "maximum": lo + span},
        st.integers(-5, 5),
        st.integers(0, 9),
    ),
    st.just({"type": "boolean"}),
    st.builds(
        lambda vs: {"type": "string", "enum": vs},
        st.lists(NAMES, min_size=1, max_size=4, unique=True),
    ),
    st.builds(lambda v: {"const": v}, NAMES),
    st.just({"anyOf": [{"type": "boolean"}, {"type": "string"}]}),
    st.just({"anyOf": [{"type": "string"}, {"type": "null"}]}),
)


def _object(children: st.SearchStrategy[dict[str, Any]]) -> st.SearchStrategy[dict[str, Any]]:
    return st.builds(
        lambda props, closed, data: {
            "type": "object",
            "properties": props,
            "required": data.draw(st.lists(st.sampled_from(sorted(props)), unique=True))
            if props
            else [],
            **({"additionalProperties": False} if closed else {}),
        },
        st.dictionaries(NAMES, children, max_size=4),
        st.booleans(),
        st.data(),
    )


schemas = st.recursive(
    scalars,
    lambda children: st.one_of(
        _object(children),
        st.builds(
            lambda items, n: {"type": "array", "items": items, "minItems": n},
            children,
            st.integers(0, 2),
        ),
    ),
    max_leaves=12,
)


@settings(max_examples=200, deadline=None)
@given(_object(schemas))
def test_sampled_arguments_validate_against_the_schema(schema: dict[str, Any]) -> None:
    jsonschema.validate(sample_arguments(schema), schema)


@settings(max_examples=200, deadline=None)
@given(schemas)
def test_a_sample_validates(schema: dict[str, Any]) -> None:
    jsonschema.validate(sample(schema), schema)


@settings(deadline=None)
@given(scalars, NAMES)
def test_refs_resolve_through_defs_and_siblings_win(target: dict[str, Any], name: str) -> None:
    root = {
        "$defs": {name: target},
        "properties": {"x": {"$ref": f"#/$defs/{name}", "description": "d"}},
    }
    resolved = resolve(root, root["properties"]["x"])
    assert resolved["description"] == "d"
    assert all(resolved[k] == v for k, v in target.items())
    jsonschema.validate({"x": sample(root, root["properties"]["x"])}, {**root, "type": "object"})


def test_cyclic_and_broken_refs_stop() -> None:
    root = {"$defs": {"a": {"$ref": "#/$defs/b"}, "b": {"$ref": "#/$defs/a"}}}
    assert "$ref" in resolve(root, {"$ref": "#/$defs/a"})
    assert resolve(root, {"$ref": "#/$defs/missing"}) == {"$ref": "#/$defs/missing"}
    assert resolve(root, {"$ref": "https://example.com/remote"}) == {
        "$ref": "https://example.com/remote"
    }


@settings(max_examples=100, deadline=None)
@given(_object(schemas))
def test_every_walked_pointer_leads_back_to_its_node(schema: dict[str, Any]) -> None:
    nodes = list(walk(schema))
    assert nodes[0].schema is schema
    for node in nodes:
        assert resolve_pointer(schema, node.pointer) is node.schema
    assert all("object" in str(n.schema.get("type")) for n in object_nodes(schema))


def test_a_union_picks_its_most_specific_branch_and_prose_lists_values() -> None:
    assert sample({"anyOf": [{"type": "string"}, {"type": "boolean"}]}) is False
    assert sample({"oneOf": [{"type": "string"}, {"enum": ["a", "b"]}]}) == "a"
    listed = {"type": "string", "description": "One of 'local', 'remote' or 'all'."}
    assert sample(listed) == "local"
    assert (
        sample({"type": "string", "description": "e.g. 'America/New_York'"}) == "America/New_York"
    )
    assert sample({"type": "string", "description": "24-hour time (HH:MM)"}) == "10:00"


WORD = st.text(alphabet="abcdefghijklmnopqrstuvwxyz_", min_size=2, max_size=12)


@settings(max_examples=100, deadline=None)
@given(st.lists(WORD, min_size=2, max_size=4, unique=True), st.sampled_from(["'", '"', "`"]))
# a lead-in word inside a quoted value ("accept" in 'accept_') read the examples as a list
@example(["__", "accept_"], "'")
@example(["must_be", "either_"], "`")
def test_quoted_values_joined_by_or_are_a_list_and_quoted_examples_are_not(
    values: list[str], quote: str
) -> None:
    from drivable.audit.heuristics import lists_values

    glossed = [f"{v} things ({quote}{v}{quote})" for v in values]
    prose = "Whether to list " + ", ".join(glossed[:-1]) + " or " + glossed[-1] + "."
    assert lists_values(prose)
    examples = "A name, e.g. " + ", ".join(f"{quote}{v}{quote}" for v in values) + " or another."
    assert not lists_values(examples)
    assert not lists_values(f"Only {quote}{values[0]}{quote} is special.")


def test_git_branch_type_lists_its_values_in_prose() -> None:
    from drivable.audit.heuristics import lists_values

    # mcp-server-git's git_branch `branch_type` (a plain string; the server accepts these three)
    assert lists_values(
        "Whether to list local branches ('local'), remote branches ('remote') or all "
        "branches('all')."
    )
    assert not lists_values(
        "IANA timezone name (e.g., 'America/New_York', 'Europe/London'). Use 'Etc/UTC' as local "
        "timezone if no timezone provided by the user."
    )
