"""The compact tools/list: what a first call needs is listed, the rest is in server/discover, and the
listed schemas accept what the whole ones accept (docs/runtime.md, "Discovery")."""

from __future__ import annotations

import json
from typing import Any

import jsonschema
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from drivable.contract.surface import INPUT_UNLISTED, OUTPUT_UNLISTED, listed_schema
from drivable.eval.surfaces import load
from drivable.serve.mount import build_server
from drivable.target import Target, connect, wire

# Property names that are also schema keywords: a listing must never drop them.
NAMES = st.sampled_from(["description", "pattern", "examples", "title", "id", "$schema", "note"])
LEAF = st.fixed_dictionaries(
    {"type": st.sampled_from(["string", "integer", "boolean"])},
    optional={
        "description": st.text(max_size=20),
        "pattern": st.just("^[a-z]+$"),
        "examples": st.lists(st.text(max_size=5), max_size=2),
    },
)
SCHEMA = st.recursive(
    LEAF,
    lambda inner: st.fixed_dictionaries(
        {
            "type": st.just("object"),
            "properties": st.dictionaries(NAMES, inner, max_size=4),
            "additionalProperties": st.just(False),
        },
        optional={"description": st.text(max_size=20)},
    ),
    max_leaves=8,
)


def _property_paths(node: Any, path: str = "") -> set[str]:
    out: set[str] = set()
    if isinstance(node, dict):
        for name, sub in (node.get("properties") or {}).items():
            out.add(f"{path}/{name}")
            out |= _property_paths(sub, f"{path}/{name}")
        for key in ("items", "anyOf", "$defs"):
            value = node.get(key)
            if isinstance(value, dict):
                for k, sub in value.items() if key == "$defs" else [("", value)]:
                    out |= _property_paths(sub, f"{path}/{key}{k}")
            elif isinstance(value, list):
                for i, sub in enumerate(value):
                    out |= _property_paths(sub, f"{path}/{key}{i}")
    return out


def _keywords(node: Any) -> set[str]:
    """Schema keywords used anywhere in `node` (not property names)."""
    out: set[str] = set()
    if isinstance(node, dict):
        for key, value in node.items():
            out.add(key)
            if key in ("properties", "$defs") and isinstance(value, dict):
                for sub in value.values():
                    out |= _keywords(sub)
            else:
                out |= _keywords(value)
    elif isinstance(node, list):
        for sub in node:
            out |= _keywords(sub)
    return out


@settings(max_examples=60, deadline=None)
@given(schema=SCHEMA, unlisted=st.sampled_from([OUTPUT_UNLISTED, INPUT_UNLISTED]))
def test_a_listed_schema_keeps_every_property_and_drops_only_unlisted_keywords(
    schema: dict[str, Any], unlisted: frozenset[str]
) -> None:
    listed = listed_schema(schema, unlisted)
    assert _property_paths(listed) == _property_paths(schema)
    assert not _keywords(listed) & unlisted
    assert _keywords(listed) == _keywords(schema) - unlisted


async def _listing(name: str) -> list[dict[str, Any]]:
    server = build_server(load(name))
    async with connect(Target(server=server, mode="legacy"), mode="legacy") as client:
        return [wire(t) for t in (await client.list_tools()).tools]


@pytest.fixture
def billing_store(tmp_path: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DRIVABLE_BILLING_STORE", f"sqlite:///{tmp_path / 'billing.sqlite'}")


@pytest.mark.parametrize("name", ["example", "caselaw", "billing"])
async def test_discover_has_what_the_listing_leaves_out(name: str, billing_store: None) -> None:
    contract = load(name)
    listed = {t["name"]: t for t in await _listing(name)}
    detail = contract.tool_detail()
    assert detail.keys() == listed.keys()
    for tool, whole in detail.items():
        shown = listed[tool]
        spec = contract.tools[tool]
        assert whole["outputSchema"] == spec.output_schema
        assert whole["inputSchema"] == spec.input_schema
        assert whole["description"].startswith(shown["description"])
        if spec.more:
            assert whole["description"].endswith(spec.more)
            assert spec.more not in shown["description"]
        assert _property_paths(shown["outputSchema"]) == _property_paths(spec.output_schema)
        assert _property_paths(shown["inputSchema"]) == _property_paths(spec.input_schema)
        assert "description" not in _keywords(shown["outputSchema"])
        assert "pattern" not in _keywords(shown["inputSchema"])
        required = set(spec.input_schema.get("required") or ())
        for prop, node in shown["inputSchema"].get("properties", {}).items():
            whole_node = spec.input_schema["properties"][prop]
            if prop in required:  # a required value keeps the example a first call copies
                assert node.get("examples") == whole_node.get("examples")
            else:  # an optional one shows none: a model copied it into calls that needed no filter
                variants = [node, *node.get("anyOf", [])]
                assert not any("examples" in v for v in variants)
        assert shown["inputSchema"]["$schema"].endswith("2020-12/schema")  # [3.dialect]
        assert "title" not in shown["annotations"]


async def test_a_result_validates_against_both_listed_and_whole_output_schemas() -> None:
    # what the TypeScript SDK 1.x client does with an advertised outputSchema
    contract = load("example")
    listed = {t["name"]: t for t in await _listing("example")}
    calls = {
        "search_notes": {"query": "budget"},
        "get_note": {"note_id": "note_2"},
        "list_notes": {"detail": "full"},
    }
    for tool, arguments in calls.items():
        out = await contract.call(tool, arguments)
        assert not out.is_error, json.dumps(out.structured)
        jsonschema.validate(out.structured, listed[tool]["outputSchema"])
        jsonschema.validate(out.structured, contract.tools[tool].output_schema)
