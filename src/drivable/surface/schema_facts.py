"""What the surface diff reads off a JSON Schema node beyond `drivable.schema`.

Resolving `$ref`s, folding `allOf`, a node's types and enum values come from `drivable.schema`; here
are the keyword tables the diff compares by, numeric bounds read with their exclusivity, a node's
shape (what rename evidence compares), and the greedy pairing of removed and added names.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable, Mapping
from typing import Any

from drivable.schema import follow

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


def _covers(wide: set[str], narrow: set[str]) -> bool:
    return all(t in wide or (t == "integer" and "number" in wide) for t in narrow)


def _shape(node: Any, root: Any, depth: int = 0) -> Any:
    """A schema with prose removed and refs inlined (to a depth): what rename evidence compares."""
    if depth > 8:
        return "…"
    node, _ = follow(root, node)
    if isinstance(node, Mapping):
        return {
            k: _shape(v, root, depth + 1)
            for k, v in sorted(node.items())
            if k not in _PROSE_KEYS and k not in ("$defs", "definitions", "default")
        }
    if isinstance(node, list):
        return [_shape(v, root, depth + 1) for v in node]
    return node


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


def _resolved_text(node: Any, root: Any, key: str) -> str | None:
    node, _ = follow(root, node)
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
