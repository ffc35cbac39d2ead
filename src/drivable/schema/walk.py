"""Walking a schema: every subschema with its JSON pointer, the types a node admits, objects."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

_MAPS = ("properties", "$defs", "definitions", "patternProperties", "dependentSchemas")
_SINGLE = (
    "items",
    "additionalProperties",
    "unevaluatedProperties",
    "not",
    "contains",
    "if",
    "then",
    "else",
    "propertyNames",
)
_LISTS = ("anyOf", "oneOf", "allOf", "prefixItems")


@dataclass(frozen=True)
class Node:
    pointer: str
    schema: dict[str, Any]
    depth: int  # how many `properties`/`items` steps below the root


def walk(schema: Any, pointer: str = "", depth: int = 0) -> Iterator[Node]:
    """Every dict subschema, parents first. `$ref`s are not followed (their targets are walked
    where they live, under `$defs`), so recursion in the schema cannot loop the walk."""
    if not isinstance(schema, dict):
        return
    yield Node(pointer or "/", schema, depth)
    for key in _MAPS:
        sub = schema.get(key)
        if isinstance(sub, dict):
            step = depth + (key == "properties")
            for name, child in sub.items():
                yield from walk(child, f"{pointer}/{key}/{_escape(str(name))}", step)
    for key in _SINGLE:
        child = schema.get(key)
        if isinstance(child, dict):
            yield from walk(child, f"{pointer}/{key}", depth + (key == "items"))
    for key in _LISTS:
        children = schema.get(key)
        if isinstance(children, list):
            for i, child in enumerate(children):
                yield from walk(child, f"{pointer}/{key}/{i}", depth + (key == "prefixItems"))


def _escape(token: str) -> str:
    return token.replace("~", "~0").replace("/", "~1")


def types_of(node: Any) -> set[str]:
    """The JSON types a node admits: `type` (string or list), else the union of its branches."""
    if not isinstance(node, dict):
        return set()
    t = node.get("type")
    if isinstance(t, str):
        return {t}
    if isinstance(t, list):
        return {x for x in t if isinstance(x, str)}
    found: set[str] = set()
    for key in ("anyOf", "oneOf"):
        for branch in node.get(key) or []:
            found |= types_of(branch)
    if not found and "enum" in node and isinstance(node["enum"], list):
        found = {_json_type(v) for v in node["enum"]}
    if not found and "const" in node:
        found = {_json_type(node["const"])}
    return found


def _json_type(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    return "array" if isinstance(value, list) else "object"


def properties(schema: Any) -> dict[str, dict[str, Any]]:
    props = schema.get("properties") if isinstance(schema, dict) else None
    if not isinstance(props, dict):
        return {}
    return {str(k): v if isinstance(v, dict) else {} for k, v in props.items()}


def required(schema: Any) -> list[str]:
    req = schema.get("required") if isinstance(schema, dict) else None
    return [r for r in req if isinstance(r, str)] if isinstance(req, list) else []


def object_nodes(schema: Any) -> Iterator[Node]:
    """Every node that describes an object (typed so, or carrying `properties` untyped)."""
    for node in walk(schema):
        s = node.schema
        if "object" in types_of(s) or ("properties" in s and "type" not in s):
            yield node


def is_closed(node: dict[str, Any]) -> bool:
    """Closed: `additionalProperties: false`, or `unevaluatedProperties: false`."""
    return node.get("additionalProperties") is False or node.get("unevaluatedProperties") is False


def is_open_map(node: dict[str, Any]) -> bool:
    """A deliberate string-keyed map (`additionalProperties: {schema}` and no properties)."""
    return isinstance(node.get("additionalProperties"), dict) and not node.get("properties")
