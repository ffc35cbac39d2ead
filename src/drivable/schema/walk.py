"""Walking a schema: every subschema with its JSON pointer, the types a node admits, objects."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
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


def _named_types(node: Mapping[str, Any]) -> set[str] | None:
    """The types `type` names (a string or a list), or None when the node has no `type`."""
    t = node.get("type")
    if isinstance(t, str):
        return {t}
    if isinstance(t, list):
        return {x for x in t if isinstance(x, str)}
    return None


def _value_types(node: Mapping[str, Any]) -> set[str] | None:
    """The types of the values `enum` or `const` allow, or None when the node has neither."""
    if isinstance(node.get("enum"), list):
        return {json_type(v) for v in node["enum"]}
    if "const" in node:
        return {json_type(node["const"])}
    return None


def types_of(node: Any) -> set[str]:
    """The JSON types a node admits: `type` (string or list), else the union of its branches,
    else the types of its `enum` or `const` values; empty when none of these says."""
    if not isinstance(node, dict):
        return set()
    named = _named_types(node)
    if named is not None:
        return named
    found: set[str] = set()
    for key in ("anyOf", "oneOf"):
        for branch in node.get(key) or []:
            found |= types_of(branch)
    return found or _value_types(node) or set()


def declared_types(node: Any) -> set[str] | None:
    """The types one node (not its branches) admits, None when it leaves the type open: `type`,
    else its `enum`/`const` values, else `object` for `properties` and `array` for `items`; an
    OpenAPI-style `nullable: true` adds `null`. What two versions of a schema are compared on."""
    if not isinstance(node, Mapping):
        return None
    types = _named_types(node)
    if types is None:
        types = _value_types(node)
    if types is None:
        if "properties" in node:
            return {"object"}
        return {"array"} if "items" in node else None
    return types | {"null"} if node.get("nullable") is True else types


def enum_values(node: Any) -> list[Any] | None:
    """The values a node is limited to (`enum`, or `const` as a one-value enum), or None."""
    if not isinstance(node, Mapping):
        return None
    if isinstance(node.get("enum"), list):
        return list(node["enum"])
    return [node["const"]] if "const" in node else None


def json_type(value: Any) -> str:
    """The JSON Schema type of a JSON value (a float with no fraction is an integer, as in 2020-12)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "integer" if value.is_integer() else "number"
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
