"""The compact tools/list: what a first call needs is listed, the rest is in server/discover, and the
listed schemas accept what the whole ones accept (docs/runtime.md, "Discovery"; decision 0033)."""

from __future__ import annotations

import json
from typing import Any

import jsonschema
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from drivable.contract import additions
from drivable.contract.listing import (
    INPUT_UNLISTED,
    OUTPUT_DEPTH,
    OUTPUT_UNLISTED,
    listed_output_schema,
    listed_schema,
)
from drivable.contract.reserved import RESERVED_FIELDS
from drivable.eval.surfaces import load
from drivable.serve.mount import build_server
from drivable.target import Target, connect, wire

SETS = ("example", "caselaw", "billing", "bookings", "documents", "tickets")

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


# -- the listed outputSchema accepts every result the whole one accepts -------------------------

SCALAR = st.sampled_from(
    [
        {"type": "string"},
        {"type": "integer", "minimum": 0},
        {"type": "boolean"},
        {"type": "string", "enum": ["a", "b"]},
        {"anyOf": [{"type": "string"}, {"type": "null"}]},
        {"anyOf": [{"type": "integer"}, {"type": "null"}], "description": "or none"},
    ]
)


def _object(props: dict[str, Any], required: list[str]) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": props,
        "required": sorted({r for r in required if r in props}),
        "additionalProperties": False,
        "description": "words",
    }


def _shapes(inner: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    props = st.dictionaries(st.sampled_from(["a", "b", "c", "d"]), inner, max_size=3)
    obj = st.builds(_object, props, st.lists(st.sampled_from(["a", "b", "c", "d"])))
    return obj | st.builds(lambda i: {"type": "array", "items": i}, inner)


SHAPE = st.recursive(SCALAR, _shapes, max_leaves=10)


@st.composite
def output_schemas(draw: st.DrawFn) -> dict[str, Any]:
    """A result object as pydantic writes one: nested shapes, some of them in `$defs`, the
    runtime's reserved fields beside the tool's own."""
    defs = draw(st.dictionaries(st.sampled_from(["Row", "Detail", "Part"]), SHAPE, max_size=2))
    own = draw(
        st.dictionaries(
            st.sampled_from(["results", "total", "record", "next_cursor"]),
            SHAPE
            | st.sampled_from([{"$ref": f"#/$defs/{d}"} for d in defs] or [{"type": "string"}]),
            min_size=1,
            max_size=4,
        )
    )
    reserved = {
        "notes": {"type": "array", "items": {"type": "string"}, "description": "x"},
        "next_call": {
            "type": "object",
            "additionalProperties": False,
            "required": ["tool", "arguments"],
            "properties": {"tool": {"type": "string"}, "arguments": {}},
        },
    }
    schema = _object({**own, **reserved}, draw(st.lists(st.sampled_from(sorted(own)))))
    jsonschema.Draft202012Validator.check_schema(schema)
    if defs:
        schema["$defs"] = defs
    return schema


@st.composite
def instance_of(draw: st.DrawFn, node: Any, defs: dict[str, Any], depth: int = 0) -> Any:
    """A value of `node`, drawn from the keywords the schemas above use."""
    if "$ref" in node:
        return draw(instance_of(defs[node["$ref"].split("/")[-1]], defs, depth))
    if "anyOf" in node:
        return draw(instance_of(draw(st.sampled_from(node["anyOf"])), defs, depth))
    if "enum" in node:
        return draw(st.sampled_from(node["enum"]))
    kind = node.get("type")
    if kind == "array" and depth > 6:
        return []
    if kind == "object":
        props = node.get("properties", {})
        required = set(node.get("required", []))
        chosen = [n for n in props if n in required or draw(st.booleans())]
        return {n: draw(instance_of(props[n], defs, depth + 1)) for n in chosen}
    if kind == "array":
        return draw(st.lists(instance_of(node["items"], defs, depth + 1), max_size=2))
    values = {
        "string": st.text(max_size=4),
        "integer": st.integers(min_value=0, max_value=99),
        "boolean": st.booleans(),
        "null": st.none(),
    }
    if kind in values:
        return draw(values[kind])
    return draw(st.none() | st.text(max_size=3) | st.integers())


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), schema=output_schemas())
def test_a_listed_output_schema_accepts_every_result_the_whole_one_does(
    data: st.DataObject, schema: dict[str, Any]
) -> None:
    result = data.draw(instance_of(schema, schema.get("$defs", {})))
    whole = jsonschema.Draft202012Validator(schema)
    assume(whole.is_valid(result))
    listed = listed_output_schema(schema)
    jsonschema.Draft202012Validator.check_schema(listed)
    jsonschema.validate(result, listed, cls=jsonschema.Draft202012Validator)


def _spelled_depth(node: Any, defs: dict[str, Any], level: int = 0) -> int:
    """How many levels of objects below the result `node` spells properties for."""
    if not isinstance(node, dict):
        return -1
    if "$ref" in node:
        return _spelled_depth(defs[node["$ref"].split("/")[-1]], defs, level)
    deepest = level if "properties" in node else -1
    subs = list((node.get("properties") or {}).values())
    for sub in [node.get("items"), *(node.get("anyOf") or [])]:
        deepest = max(deepest, _spelled_depth(sub, defs, level))
    for sub in subs:
        deepest = max(deepest, _spelled_depth(sub, defs, level + 1))
    return deepest


@settings(max_examples=60, deadline=None)
@given(schema=output_schemas())
def test_a_listed_output_schema_names_the_results_own_fields_and_no_prose(
    schema: dict[str, Any],
) -> None:
    listed = listed_output_schema(schema)
    assert listed["properties"].keys() == schema["properties"].keys()
    assert listed.get("required", []) == schema["required"]
    assert _property_paths(listed) <= _property_paths(schema)
    assert not _keywords(listed) & OUTPUT_UNLISTED
    assert _spelled_depth(listed, listed.get("$defs", {})) <= OUTPUT_DEPTH
    for name in RESERVED_FIELDS:  # the runtime's fields are named and typed, spelled in detail
        if name in listed["properties"]:
            assert listed["properties"][name] == {"type": schema["properties"][name]["type"]}


# -- on the bundled servers ----------------------------------------------------------------------


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
        assert shown["description"].startswith(spec.description)
        for addition, sentence in contract.surface.sentences(spec):
            assert sentence in whole["description"]
            assert (sentence in shown["description"]) == (addition in additions.SHOWN)
        if spec.more:
            assert whole["description"].endswith(spec.more)
            assert spec.more not in shown["description"]
        assert shown["outputSchema"]["properties"].keys() == spec.output_schema["properties"].keys()
        assert _property_paths(shown["outputSchema"]) <= _property_paths(spec.output_schema)
        assert _property_paths(shown["inputSchema"]) == _property_paths(spec.input_schema)
        assert "description" not in _keywords(shown["outputSchema"])
        assert "pattern" not in _keywords(shown["inputSchema"])
        for node in shown["inputSchema"].get("properties", {}).values():
            variants = [node, *node.get("anyOf", [])]
            assert not any("examples" in v for v in variants)  # decisions 0023, 0033
        assert ("$schema" in shown["inputSchema"]) == ("dialect" in additions.SHOWN)
        assert "title" not in shown["annotations"]


def _validates(result: Any, schema: dict[str, Any]) -> None:
    jsonschema.validate(result, schema, cls=jsonschema.Draft202012Validator)


CALLS: dict[str, list[tuple[str, dict[str, Any]]]] = {
    "example": [
        ("search_notes", {"query": "budget"}),
        ("get_note", {"note_id": "note_2"}),
        ("list_notes", {"detail": "full"}),
        ("list_notes", {"limit": 1}),
        (
            "create_notes",
            {"drafts": [{"title": "A"}, {"title": ""}], "idempotency_key": "k-0033-a"},
        ),
        ("delete_note", {"note_id": "note_3", "dry_run": True}),
    ],
    "caselaw": [
        ("search_decisions", {"query": "damages", "detail": "full", "limit": 2}),
        ("search_decisions", {"court": "Supreme Court of the Czech Republic", "date_from": "2099"}),
        ("get_decision", {"case_number": "25 Cdo 1234/2020"}),
        ("list_courts", {"country": "CZ", "detail": "full"}),
        ("summarize_decisions", {"query": "asylum"}),
    ],
    "billing": [
        ("find_invoices", {"state": "paid", "limit": 2}),
        ("list_customers", {"query": "a"}),
        ("get_invoice", {"invoice_id": "$first_invoice"}),
        (
            "refund_invoice",
            {
                "invoice_id": "$first_invoice",
                "amount_cents": 1,
                "idempotency_key": "k-0033-r",
                "dry_run": True,
            },
        ),
        ("void_invoice", {"invoice_id": "$first_invoice", "dry_run": True}),
    ],
}


@pytest.mark.parametrize("name", sorted(CALLS))
async def test_the_sdk_client_validates_every_result_against_the_listing(
    name: str, billing_store: None
) -> None:
    # The SDK's client checks every successful result's structuredContent against the listed
    # outputSchema and raises when it does not conform; the whole schema (discover) holds too.
    contract = load(name)
    async with connect(
        Target(server=build_server(contract), mode="legacy"), mode="legacy"
    ) as client:
        listed = {t.name: wire(t) for t in (await client.list_tools()).tools}
        first: dict[str, str] = {}
        checked = 0
        for tool, arguments in CALLS[name]:
            arguments = {
                k: first.get(v, v) if isinstance(v, str) else v for k, v in arguments.items()
            }
            result = await client.call_tool(tool, arguments)
            if result.is_error:
                continue
            structured = result.structured_content
            _validates(structured, listed[tool]["outputSchema"])
            _validates(structured, contract.tools[tool].output_schema)
            rows = (structured or {}).get("results") or []
            if rows and "invoice_id" in rows[0]:
                first.setdefault("$first_invoice", rows[0]["invoice_id"])
            checked += 1
        assert checked >= len(CALLS[name]) - 1, json.dumps(listed, default=str)[:400]


@pytest.mark.parametrize("name", SETS)
def test_every_bundled_listing_is_a_valid_schema_set(name: str, billing_store: None) -> None:
    contract = load(name)
    for spec in contract.listed_tools():
        wire_tool = contract.tool_wire(spec)
        jsonschema.Draft202012Validator.check_schema(wire_tool["inputSchema"])
        if "outputSchema" in wire_tool:
            jsonschema.Draft202012Validator.check_schema(wire_tool["outputSchema"])


@pytest.mark.parametrize("name", ["caselaw", "billing"])
async def test_the_detail_is_one_discover_request_away(name: str, billing_store: None) -> None:
    # server/discover over the wire (2026-07-28) carries every addition, `more` and the whole
    # schemas the listing leaves out
    contract = load(name)
    async with connect(Target(server=build_server(contract), mode="auto"), mode="auto") as client:
        discovered = wire(client.session._discover_result)  # what the client read at connect
        listed = {t.name: wire(t) for t in (await client.list_tools()).tools}
    detail = discovered["_meta"]["dev.drivable/tools"]
    assert detail == json.loads(json.dumps(contract.tool_detail()))
    for tool, whole in detail.items():
        spec = contract.tools[tool]
        for _, sentence in contract.surface.sentences(spec):
            assert sentence in whole["description"]
        assert len(whole["description"]) >= len(listed[tool]["description"])
        assert whole["outputSchema"] == json.loads(json.dumps(spec.output_schema))
