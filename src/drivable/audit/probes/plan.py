"""What to send: a baseline call a careful model would make, and the mistakes models really make.

The baseline (`values.baseline_arguments`) is built from the schema and what the server itself
showed, so a failed baseline means the server failed, not the audit. Every other probe is the
baseline with one mistake: a missing field, an unknown one, placeholders, a wrong type, a spelled
number or date, a malformed or unknown id, an invented cursor, a typo in a value the description
lists, a placeholder or a megabyte as the idempotency key.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from typing import Any

from drivable import schema as sch
from drivable.audit import heuristics as h
from drivable.audit.probes.call import UNKNOWN_PROPERTY
from drivable.audit.probes.values import Knowledge, baseline_arguments

PLACEHOLDERS = {"string": "string", "integer": 0, "number": 0, "boolean": True}
# A value of no scalar type: every reader refuses it where a string, number or boolean belongs.
WRONG_TYPE: dict[str, Any] = {"dv_wrong_type": True}
# Keys a key must not be: the word models copy from "a key, e.g. a uuid", and a megabyte.
PLACEHOLDER_KEY = "uuid"
LONG_KEY_CHARS = 1_000_000


def placeholder(node: dict[str, Any]) -> Any:
    types = sch.types_of(node)
    for t in ("string", "integer", "number", "boolean"):
        if t in types:
            return PLACEHOLDERS[t]
    if "array" in types:
        return ["string"]
    if "object" in types:
        return {}
    return "string"


def _rotate(c: str) -> str:
    """Another character of the same class: digit, hex letter, or other letter of one case."""
    if c.isdigit():
        return str((int(c) + 5) % 10)
    for low in ("a", "A"):
        if low <= c <= chr(ord(low) + 5):
            return chr((ord(c) - ord(low) + 3) % 6 + ord(low))
        if low <= c <= chr(ord(low) + 25):
            return chr((ord(c) - ord(low) + 13) % 26 + ord(low))
    return c


def same_shape_other(value: Any) -> Any:
    """An id of the same shape as `value` that is not `value` (its last 4 digits moved, or its
    last 4 letters when it has no digit: a prefix such as `usr_` stays), or None when there is
    none to derive one from."""
    if isinstance(value, int) and not isinstance(value, bool):
        return value + 1_000_003
    if not isinstance(value, str):
        return None
    movable = str.isdigit if any(c.isdigit() for c in value) else str.isalpha
    chars = list(value)
    moved = 0
    for i in range(len(chars) - 1, -1, -1):
        if moved == 4:
            break
        if chars[i].isascii() and movable(chars[i]):
            chars[i] = _rotate(chars[i])
            moved += 1
    other = "".join(chars)
    return other if other != value else None


@dataclass
class ProbePlan:
    probe: str
    arguments: dict[str, Any]
    field: str | None
    together: tuple[str, ...] = ()  # the optionals `all-optionals` sets at once
    listed: str | None = None  # the value a description lists, which `typo-value` misspells


def _optional_value(schema: dict[str, Any], node: dict[str, Any]) -> Any:
    """A value an optional scalar surely accepts, or MISSING: numbers 1 (or their minimum),
    booleans true, a default, example or enum member; free strings are left out (a made-up
    string would be refused for itself, not for its company)."""
    node = sch.resolve(schema, node)
    types = sch.types_of(node)
    if any(k in node for k in ("default", "examples", "enum", "const")):
        value = sch.sample(schema, node)
        return value if value is not None and not isinstance(value, (dict, list)) else sch.MISSING
    if types & {"integer", "number"} and not types & {"string", "object", "array"}:
        low = node.get("minimum")
        return max(1, int(low)) if isinstance(low, (int, float)) else 1
    if types == {"boolean"}:
        return True
    return sch.MISSING


def all_optionals(tool: dict[str, Any], base: dict[str, Any]) -> ProbePlan | None:
    """The baseline with every optional scalar set at once: optionals that exclude each other
    and say so only when called together are caught here (the schema would say it otherwise)."""
    schema = h.input_schema(tool)
    required = set(sch.required(schema))
    added: dict[str, Any] = {}
    for name, node in sch.properties(schema).items():
        if name in required or name in base:
            continue
        value = _optional_value(schema, node)
        if value is not sch.MISSING:
            added[name] = value
    if len(added) < 2:
        return None
    return ProbePlan("all-optionals", {**base, **added}, None, tuple(added))


def with_fresh_keys(args: dict[str, Any]) -> dict[str, Any]:
    """A derived call carries a key of its own: one change, one key. Sharing the baseline's
    would have a server that checks keys first refuse the probe for the key, not its mistake."""
    return {k: str(uuid.uuid4()) if h.is_key_property(k) else v for k, v in args.items()}


def wrong_type_field(schema: dict[str, Any]) -> str | None:
    """The property a wrong-typed value goes to: a boolean or number first (no lenient reader
    turns an object into one), then a string, a list, an object; never the idempotency key."""
    order = ("boolean", "integer", "number", "string", "array", "object")
    best, rank = None, len(order)
    for name, raw in sch.properties(schema).items():
        types = sch.types_of(sch.resolve(schema, raw)) - {"null"}
        if h.is_key_property(name) or len(types) != 1:
            continue
        (kind,) = types
        at = order.index(kind) if kind in order else len(order)
        if at < rank:
            best, rank = name, at
    return best


def typo_of(value: str, listed: list[str]) -> str:
    """`value` with two neighbouring letters swapped (`bug` -> `bgu`), spelled as no listed value."""
    taken = {v.casefold() for v in listed}
    for i in range(1, len(value) - 1):
        if value[i] != value[i + 1]:
            typo = value[:i] + value[i + 1] + value[i] + value[i + 2 :]
            if typo.casefold() not in taken:
                return typo
    return value + value[-1:] + "x"


def _prose_plans(schema: dict[str, Any], base: dict[str, Any]) -> list[ProbePlan]:
    """A value the description lists, then the same value with a typo: told apart, the typo
    is refused or warned about; silently matching nothing, a model reports "none found"."""
    for name, raw in sch.properties(schema).items():
        node = sch.resolve(schema, raw)
        doc = str(node.get("description") or raw.get("description") or "")
        listed = h.prose_values(schema, node, doc)
        if not listed:
            continue
        many = sch.types_of(node) == {"array"}
        value, typo = listed[0], typo_of(listed[0], listed)
        return [
            ProbePlan(
                "listed-value",
                {**with_fresh_keys(base), name: [value] if many else value},
                name,
                listed=value,
            ),
            ProbePlan(
                "typo-value",
                {**with_fresh_keys(base), name: [typo] if many else typo},
                name,
                listed=value,
            ),
        ]
    return []


def _key_plans(schema: dict[str, Any], base: dict[str, Any]) -> list[ProbePlan]:
    for name, raw in sch.properties(schema).items():
        if h.is_key_property(name) and "string" in sch.types_of(sch.resolve(schema, raw)):
            fresh = with_fresh_keys(base)
            return [
                ProbePlan("placeholder-key", {**fresh, name: PLACEHOLDER_KEY}, name),
                ProbePlan("long-key", {**fresh, name: "k" * LONG_KEY_CHARS}, name),
            ]
    return []


def plan_for(tool: dict[str, Any], know: Knowledge | None = None) -> list[ProbePlan]:
    know = know or Knowledge()
    schema = h.input_schema(tool)
    props = sch.properties(schema)
    required = sch.required(schema)
    base = baseline_arguments(tool, know)
    plans = [ProbePlan("baseline", base, None)]
    derived = with_fresh_keys(base)
    together = all_optionals(tool, derived)
    if together is not None:
        plans.append(together)
    if required:
        plans.append(ProbePlan("empty-call", {}, required[0]))
    plans.append(
        ProbePlan("unknown-property", {**derived, UNKNOWN_PROPERTY: "x"}, UNKNOWN_PROPERTY)
    )
    if props:
        filled = {name: placeholder(sch.resolve(schema, node)) for name, node in props.items()}
        # An enum that does not list "string" must refuse it: that is the field to name.
        enum_field = next(
            (
                name
                for name, node in props.items()
                if isinstance(sch.resolve(schema, node).get("enum"), list)
                and filled[name] not in sch.resolve(schema, node)["enum"]
            ),
            None,
        )
        plans.append(ProbePlan("placeholders", filled, enum_field))
    done: set[str] = set()
    for name, raw in props.items():
        node = sch.resolve(schema, raw)
        types = sch.types_of(node)
        if types & {"integer", "number"} and "spelled-number" not in done:
            done.add("spelled-number")
            plans.append(ProbePlan("spelled-number", {**derived, name: "4 000"}, name))
        if h.is_date_property(name, node):
            if "spelled-date" not in done:
                done.add("spelled-date")
                plans.append(ProbePlan("spelled-date", {**derived, name: "1. 10. 2026"}, name))
            # every date: one that asks is read by the server, whatever its schema says
            plans.append(ProbePlan("ambiguous-date", {**derived, name: "01/02/2026"}, name))
        if h.is_id_property(name, node) and "malformed-id" not in done:
            done.add("malformed-id")
            plans.append(ProbePlan("malformed-id", {**derived, name: "%%not-an-id%%"}, name))
            unknown = same_shape_other(base.get(name, know.id_for(name)))
            if unknown is not None:
                # well formed, so a server that checks the shape first still has to look it up
                plans.append(ProbePlan("unknown-id", {**derived, name: unknown}, name))
        if h.is_cursor_property(name, node) and "invented-cursor" not in done:
            done.add("invented-cursor")
            plans.append(
                ProbePlan("invented-cursor", {**derived, name: "dv-invented-cursor-0001"}, name)
            )
    # after the spellings: a server that fails on both is reported for what a model sends
    wrong = wrong_type_field(schema)
    if wrong is not None:
        node = sch.resolve(schema, props[wrong])
        value: Any = 12345 if sch.types_of(node) == {"object"} else WRONG_TYPE
        plans.append(ProbePlan("wrong-type", {**derived, wrong: value}, wrong))
    plans += _prose_plans(schema, base)
    plans += _key_plans(schema, base)
    return plans
