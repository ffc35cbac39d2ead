"""How tools/list abridges a tool's whole schemas; server/discover publishes them whole.

A chat template shows a model a tool's name, description and inputSchema, and a preloading host
pays the whole tools/list on every turn ([2.compact-baseline]). So:

- the listed inputSchema is the author's: types, bounds, enums, defaults, `required` and the
  author's descriptions, with only the runtime's additions in `shown` (`drivable.contract.additions`).
  No `pattern` (the reader checks it), no `format` (it states the form a reader writes, not the
  forms it reads), no optional property's example (docs/decisions/0023-what-a-model-is-shown.md, 2);
- the listed outputSchema is the result's shape without repetition: no prose, no
  `additionalProperties: false` (the server never sends a key it does not declare), the runtime's
  own fields (notes, warnings, next_call ...) named with their type only, an optional value as a
  type list, and objects spelled `OUTPUT_DEPTH` levels deep: the result and the rows or record it
  holds; what those hold is typed `object` (docs/decisions/0033-a-compact-baseline.md).

Every rewrite only drops constraints or writes one the same way shorter, so a listed schema
accepts every value the whole one accepts: a client that validates results against it still does.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from drivable.contract.boundary import INT_MAX, INT_MIN
from drivable.contract.durable import CONFIRM_TOKEN, DRY_RUN, IDEMPOTENCY_KEY
from drivable.contract.reserved import RESERVED_FIELDS

OUTPUT_UNLISTED = frozenset(
    {"$schema", "description", "examples", "$comment", "additionalProperties"}
)
INPUT_UNLISTED = frozenset({"pattern", "format", "$comment"})
# How many levels of objects the listed outputSchema spells: the result (0) and what its
# properties hold (1: a page's rows, the record read). Deeper objects are typed `object`.
OUTPUT_DEPTH: Final = 0

# The control fields the runtime requires, with the description it gives them and the addition
# that description is: an author's own description of the field is never an addition.
_CONTROL_TEXTS: Final[Mapping[str, tuple[str, str]]] = {
    "idempotency_key": ("key-description", str(IDEMPOTENCY_KEY.description)),
    "dry_run": ("dry-run-description", str(DRY_RUN.description)),
    "confirm_token": ("confirm-token-description", str(CONFIRM_TOKEN.description)),
}


def listed_schema(node: Any, unlisted: frozenset[str] = OUTPUT_UNLISTED) -> Any:
    """`node` without the `unlisted` keywords, at every level. Property names are never touched;
    `$ref` and `$defs` are kept, so the result still accepts whatever `node` accepts."""
    if isinstance(node, dict):
        out: dict[str, Any] = {}
        for key, value in node.items():
            if key in unlisted:
                continue
            if key in ("properties", "$defs") and isinstance(value, dict):
                out[key] = {k: listed_schema(v, unlisted) for k, v in value.items()}
            elif key == "anyOf" and isinstance(value, list) and "description" in node:
                # an optional id says what it is once: the variant's own description (the id
                # kind's "An id as the server issues it") only repeated the property's
                out[key] = [_undescribed(listed_schema(v, unlisted)) for v in value]
            else:
                out[key] = listed_schema(value, unlisted)
        return out
    if isinstance(node, list):
        return [listed_schema(x, unlisted) for x in node]
    return node


def listed_input_schema(schema: Mapping[str, Any], shown: frozenset[str]) -> dict[str, Any]:
    """An inputSchema as tools/list shows it: `listed_schema` with INPUT_UNLISTED, and of the
    runtime's additions only those in `shown`."""
    listed: dict[str, Any] = listed_schema(dict(schema), INPUT_UNLISTED)
    if "dialect" not in shown:
        listed.pop("$schema", None)
    if "call-examples" not in shown:
        listed.pop("examples", None)
    if "integer-range" not in shown:
        listed = _without_stored_range(listed)
    required = set(listed.get("required") or ())
    properties = listed.get("properties")
    if isinstance(properties, dict):
        listed["properties"] = {
            name: _listed_property(name, node, name in required, shown)
            for name, node in properties.items()
        }
    return listed


def _listed_property(name: str, node: Any, required: bool, shown: frozenset[str]) -> Any:
    # a model fills every property it is shown an example for: an optional one never shows one
    if not (required and "property-examples" in shown):
        node = _without_examples(node)
    control = _CONTROL_TEXTS.get(name)
    if isinstance(node, dict) and control is not None:
        addition, text = control
        if addition not in shown and node.get("description") == text:
            node = {k: v for k, v in node.items() if k != "description"}
    return node


def listed_output_schema(schema: Mapping[str, Any]) -> dict[str, Any]:
    """An outputSchema as tools/list shows it (see the module's docstring)."""
    listed: dict[str, Any] = listed_schema(dict(schema), OUTPUT_UNLISTED)
    properties = listed.get("properties")
    if isinstance(properties, dict):
        # the runtime's fields are the same on every tool: named here, spelled in the detail
        listed["properties"] = {
            name: _type_only(node) if name in RESERVED_FIELDS else node
            for name, node in properties.items()
        }
    out: dict[str, Any] = _nullable_as_type_list(_spelled_to(listed, OUTPUT_DEPTH))
    return out


def _spelled_to(schema: dict[str, Any], depth: int) -> dict[str, Any]:
    """`schema` with every object more than `depth` levels deep typed `object`, and only the
    `$defs` still referenced. A definition is spelled for the shallowest place that uses it."""
    defs: dict[str, Any] = schema.get("$defs") or {}
    shallowest: dict[str, int] = {}
    pending = [(schema, 0)]
    while pending:  # each definition's shallowest level, breadth first
        node, level = pending.pop(0)
        for ref, at in _refs(node, level, depth, defs):
            if ref in defs and at < shallowest.get(ref, at + 1):
                shallowest[ref] = at
                pending.append((defs[ref], at))
    out: dict[str, Any] = _cut(schema, 0, depth, defs)
    out.pop("$defs", None)
    if shallowest:
        out["$defs"] = {
            name: _cut(defs[name], shallowest[name], depth, defs)
            for name in defs
            if name in shallowest
        }
    return out


def _refs(node: Any, level: int, depth: int, defs: Mapping[str, Any]) -> list[tuple[str, int]]:
    """The definitions `node`, a value `level` objects deep, still references once the objects
    deeper than `depth` are typed only; each with the level it is used at."""
    found: list[tuple[str, int]] = []

    def walk(value: Any, at: int) -> None:
        if not isinstance(value, dict):
            return
        ref = _ref_name(value)
        if ref is not None:
            if at <= depth or not _is_object(defs.get(ref)):
                found.append((ref, at))
            return
        if at > depth and _is_object(value):
            return
        for key, sub in value.items():
            if key == "properties" and isinstance(sub, dict):
                for prop in sub.values():
                    walk(prop, at + 1)
            elif key in ("items", "additionalProperties"):
                walk(sub, at)
            elif key in ("anyOf", "oneOf", "allOf", "prefixItems") and isinstance(sub, list):
                for variant in sub:
                    walk(variant, at)

    walk({k: v for k, v in node.items() if k != "$defs"} if isinstance(node, dict) else node, level)
    return found


def _cut(node: Any, level: int, depth: int, defs: Mapping[str, Any]) -> Any:
    """`node`, a value `level` objects deep, with the objects deeper than `depth` typed only."""
    if not isinstance(node, dict):
        return node
    target = defs.get(_ref_name(node) or "", node)
    if level > depth and _is_object(target):
        return {"type": "object"}
    if _ref_name(node) is not None:
        return node
    out: dict[str, Any] = {}
    for key, value in node.items():
        if key == "$defs":
            out[key] = value
        elif key == "properties" and isinstance(value, dict):
            out[key] = {k: _cut(v, level + 1, depth, defs) for k, v in value.items()}
        elif key in ("items", "additionalProperties") and isinstance(value, dict):
            out[key] = _cut(value, level, depth, defs)
        elif key in ("anyOf", "oneOf", "allOf", "prefixItems") and isinstance(value, list):
            out[key] = [_cut(v, level, depth, defs) for v in value]
        else:
            out[key] = value
    return out


def _ref_name(node: Mapping[str, Any]) -> str | None:
    ref = node.get("$ref")
    if isinstance(ref, str) and ref.startswith("#/$defs/"):
        return ref[len("#/$defs/") :]
    return None


def _is_object(node: Any) -> bool:
    return isinstance(node, dict) and (node.get("type") == "object" or "properties" in node)


def _type_only(node: Any) -> Any:
    if isinstance(node, dict) and isinstance(node.get("type"), str):
        return {"type": node["type"]}
    return node


def _nullable_as_type_list(node: Any) -> Any:
    """`{"anyOf": [{"type": T}, {"type": "null"}]}` as `{"type": [T, "null"]}`: the same values."""
    if isinstance(node, dict):
        variants = node.get("anyOf")
        if isinstance(variants, list) and len(variants) == 2 and {"type": "null"} in variants:
            other = next(v for v in variants if v != {"type": "null"})
            if (
                isinstance(other, dict)
                and set(other) == {"type"}
                and isinstance(other["type"], str)
            ):
                rest = {k: v for k, v in node.items() if k != "anyOf"}
                if "type" not in rest:
                    return {"type": [other["type"], "null"], **rest}
        return {
            k: (
                {name: _nullable_as_type_list(v) for name, v in value.items()}
                if k in ("properties", "$defs") and isinstance(value, dict)
                else _nullable_as_type_list(value)
            )
            for k, value in node.items()
        }
    if isinstance(node, list):
        return [_nullable_as_type_list(x) for x in node]
    return node


def _without_stored_range(node: Any) -> Any:
    """`node` without the 64-bit range `boundary.advertise_bounds` wrote, at every level."""
    if isinstance(node, dict):
        out = {}
        for key, value in node.items():
            if (key == "minimum" and value == INT_MIN) or (key == "maximum" and value == INT_MAX):
                continue
            if key in ("properties", "$defs") and isinstance(value, dict):
                out[key] = {k: _without_stored_range(v) for k, v in value.items()}
            else:
                out[key] = _without_stored_range(value)
        return out
    if isinstance(node, list):
        return [_without_stored_range(x) for x in node]
    return node


def _without_examples(node: Any) -> Any:
    """`node` without `examples`, also in its anyOf variants (an optional value is a union with
    null), never inside nested properties (those are a value's own shape)."""
    if not isinstance(node, dict):
        return node
    out = {k: v for k, v in node.items() if k != "examples"}
    if isinstance(out.get("anyOf"), list):
        out["anyOf"] = [_without_examples(v) for v in out["anyOf"]]
    return out


def _undescribed(node: Any) -> Any:
    if isinstance(node, dict):
        return {k: v for k, v in node.items() if k != "description"}
    return node
