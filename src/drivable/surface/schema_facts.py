"""What one JSON Schema node says, as the surface diff compares it.

`$ref`/`$defs` resolved (`_Resolver`), `allOf` merged, types, enum members, numeric and count
bounds read with their exclusivity, and the greedy pairing of removed and added names by evidence.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable, Mapping
from typing import Any

_PROSE_KEYS = ("title", "description", "examples", "example", "$comment")
_NUMERIC_LOWER = ("minimum", "exclusiveMinimum")
_NUMERIC_UPPER = ("maximum", "exclusiveMaximum")
_COUNT_LOWER = ("minLength", "minItems", "minProperties", "minContains")
_COUNT_UPPER = ("maxLength", "maxItems", "maxProperties", "maxContains")
_HANDLED = {
    "type",
    "properties",
    "required",
    "additionalProperties",
    "items",
    "prefixItems",
    "anyOf",
    "oneOf",
    "allOf",
    "enum",
    "const",
    "format",
    "pattern",
    "multipleOf",
    "default",
    "nullable",
    "$ref",
    "$defs",
    "definitions",
    "$schema",
    "$id",
    "uniqueItems",
    "deprecated",
    *_PROSE_KEYS,
    *_NUMERIC_LOWER,
    *_NUMERIC_UPPER,
    *_COUNT_LOWER,
    *_COUNT_UPPER,
}


_REF = re.compile(r'"\$ref": "([^"]*)"')


def _defs(root: Any) -> Any:
    """What the root's `$ref`s can point at; None when one points outside `$defs`/`definitions`."""
    if not isinstance(root, Mapping):
        return ()
    for ref in _REF.findall(json.dumps(root)):
        if not ref.startswith(("#/$defs/", "#/definitions/")):
            return None
    return (root.get("$defs"), root.get("definitions"))


# Validation keywords compared only as opaque values: a change may accept or return other values.
_OPAQUE_VALIDATION = {
    "not",
    "if",
    "then",
    "else",
    "patternProperties",
    "propertyNames",
    "dependentRequired",
    "dependentSchemas",
    "dependencies",
    "contains",
    "unevaluatedProperties",
    "unevaluatedItems",
    "contentEncoding",
    "contentMediaType",
    "contentSchema",
}


class _Resolver:
    """Follows local `$ref`s (`#/...` JSON pointers) inside one root schema."""

    def __init__(self, root: Any) -> None:
        self.root = root

    def resolve(self, node: Any, seen: tuple[str, ...] = ()) -> tuple[Any, tuple[str, ...]]:
        while isinstance(node, Mapping) and isinstance(node.get("$ref"), str):
            ref = node["$ref"]
            if ref in seen or not ref.startswith("#"):
                return node, seen
            seen = (*seen, ref)
            target: Any = self.root
            for part in ref[1:].split("/"):
                if not part:
                    continue
                part = part.replace("~1", "/").replace("~0", "~")
                if isinstance(target, Mapping) and part in target:
                    target = target[part]
                else:
                    return node, seen
            siblings = {k: v for k, v in node.items() if k != "$ref"}
            node = {**target, **siblings} if isinstance(target, Mapping) else target
        return node, seen


def _merged_all_of(node: Mapping[str, Any], resolver: _Resolver) -> dict[str, Any]:
    """Fold `allOf` members into one schema (properties and required are unioned)."""
    out = {k: v for k, v in node.items() if k != "allOf"}
    for member in node.get("allOf") or []:
        member, _ = resolver.resolve(member)
        if not isinstance(member, Mapping):
            continue
        member = _merged_all_of(member, resolver) if "allOf" in member else member
        for key, value in member.items():
            if key == "properties" and isinstance(value, Mapping):
                out["properties"] = {**value, **(out.get("properties") or {})}
            elif key == "required" and isinstance(value, list):
                out["required"] = sorted(set(out.get("required") or []) | set(value))
            else:
                out.setdefault(key, value)
    return out


def _types(node: Mapping[str, Any]) -> set[str] | None:
    """The JSON types a (non-union) schema admits; None when unconstrained."""
    raw = node.get("type")
    types: set[str] | None
    if isinstance(raw, str):
        types = {raw}
    elif isinstance(raw, list):
        types = {str(t) for t in raw}
    else:
        values = None
        if "enum" in node and isinstance(node["enum"], list):
            values = node["enum"]
        elif "const" in node:
            values = [node["const"]]
        if values is None:
            if "properties" in node:
                return {"object"}
            if "items" in node:
                return {"array"}
            return None
        types = {_json_type(v) for v in values}
    if node.get("nullable") is True:
        types.add("null")
    return types


def _json_type(value: Any) -> str:
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
    if isinstance(value, list):
        return "array"
    return "object"


def _covers(wide: set[str], narrow: set[str]) -> bool:
    return all(t in wide or (t == "integer" and "number" in wide) for t in narrow)


def _shape(node: Any, resolver: _Resolver, depth: int = 0) -> Any:
    """A schema with prose removed and refs inlined (to a depth): what rename evidence compares."""
    if depth > 8:
        return "…"
    node, _ = resolver.resolve(node)
    if isinstance(node, Mapping):
        return {
            k: _shape(v, resolver, depth + 1)
            for k, v in sorted(node.items())
            if k not in _PROSE_KEYS and k not in ("$defs", "definitions", "default")
        }
    if isinstance(node, list):
        return [_shape(v, resolver, depth + 1) for v in node]
    return node


def _enum_values(node: Mapping[str, Any]) -> list[Any] | None:
    if isinstance(node.get("enum"), list):
        return list(node["enum"])
    if "const" in node:
        return [node["const"]]
    return None


def _bound(node: Mapping[str, Any], side: str, integer: bool) -> tuple[float, bool] | None:
    """(value, exclusive) of the lower or upper numeric bound; integer bounds made inclusive."""
    plain, exclusive_key = (
        ("minimum", "exclusiveMinimum") if side == "lo" else ("maximum", "exclusiveMaximum")
    )
    candidates: list[tuple[float, bool]] = []
    value = node.get(plain)
    excl = node.get(exclusive_key)
    if isinstance(value, int | float) and not isinstance(value, bool):
        candidates.append((float(value), excl is True))
    if isinstance(excl, int | float) and not isinstance(excl, bool):
        candidates.append((float(excl), True))
    if not candidates:
        return None
    if side == "lo":
        best = max(candidates, key=lambda c: (c[0], c[1]))
    else:
        best = min(candidates, key=lambda c: (c[0], not c[1]))
    if integer:
        v, ex = best
        if side == "lo":
            v = math.floor(v) + 1 if ex else math.ceil(v)
        else:
            v = math.ceil(v) - 1 if ex else math.floor(v)
        return (float(v), False)
    return best


def _tighter(old: tuple[float, bool] | None, new: tuple[float, bool] | None, side: str) -> int:
    """1 if new is tighter than old, -1 if looser, 0 if the same."""
    if old == new:
        return 0
    if old is None:
        return 1
    if new is None:
        return -1
    (ov, oe), (nv, ne) = old, new
    if ov == nv:
        return 1 if ne and not oe else -1
    if side == "lo":
        return 1 if nv > ov else -1
    return 1 if nv < ov else -1


def _fmt_bound(b: tuple[float, bool] | None, side: str) -> str:
    if b is None:
        return "none"
    v, ex = b
    shown = str(int(v)) if float(v).is_integer() else str(v)
    op = (">" if ex else ">=") if side == "lo" else ("<" if ex else "<=")
    return f"{op} {shown}"


def _distinctive(shape: Any) -> bool:
    """A schema shape that says more than a bare type (an enum, a format, a pattern, properties)."""
    if not isinstance(shape, Mapping):
        return False
    return any(k not in ("type",) for k in shape)


def _resolved_text(node: Any, resolver: _Resolver, key: str) -> str | None:
    node, _ = resolver.resolve(node)
    if isinstance(node, Mapping) and isinstance(node.get(key), str):
        return str(node[key])
    return None


def _pair(
    removed: list[str],
    added: list[str],
    evidence: Callable[[str, str], tuple[int, list[str]]],
    threshold: int = 3,
) -> list[tuple[str, str, list[str]]]:
    """Greedy best-first pairing of removed and added names whose evidence reaches the threshold."""
    scored: list[tuple[int, str, str, list[str]]] = []
    for a in removed:
        for b in added:
            score, why = evidence(a, b)
            if score >= threshold:
                scored.append((score, a, b, why))
    scored.sort(key=lambda s: (-s[0], s[1], s[2]))
    used_a: set[str] = set()
    used_b: set[str] = set()
    out: list[tuple[str, str, list[str]]] = []
    for _, a, b, why in scored:
        if a in used_a or b in used_b:
            continue
        used_a.add(a)
        used_b.add(b)
        out.append((a, b, why))
    return out
