"""From a pydantic ValidationError to issues that name the field, what came and what is expected.

Also computes the repair for the rejections whose fix is certain (a near-miss property name), and
checks it: a repair is only offered when the repaired arguments validate.
"""

from __future__ import annotations

import difflib
import json
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from pydantic import ValidationError

from drivable.contract.boundary import safe_text, safe_value
from drivable.contract.envelope import Issue, Repair
from drivable.kinds import absence, validate
from drivable.schema import properties, resolve

if TYPE_CHECKING:
    from drivable.contract.runtime import Contract
    from drivable.contract.tool import ToolSpec

_TYPE_CODES = {
    "missing": "missing_property",
    "extra_forbidden": "unknown_property",
    "greater_than": "out_of_range",
    "greater_than_equal": "out_of_range",
    "less_than": "out_of_range",
    "less_than_equal": "out_of_range",
    "literal_error": "invalid_choice",
    "enum": "invalid_choice",
    "union_tag_invalid": "invalid_choice",
    "union_tag_not_found": "missing_property",
    "string_too_short": "invalid_value",
    "string_too_long": "invalid_value",
    "string_pattern_mismatch": "invalid_value",
    "too_short": "invalid_value",
    "too_long": "invalid_value",
}

MAX_RECEIVED_CHARS = 200


def _clip(value: Any) -> Any:
    """What was received, short and safe to encode (the echo must never break the reply)."""
    value = safe_value(value)
    if isinstance(value, str) and len(value) > MAX_RECEIVED_CHARS:
        return value[: MAX_RECEIVED_CHARS - 3] + "..."
    if isinstance(value, list | dict):
        try:
            text = json.dumps(value, ensure_ascii=False, default=str)
        except (TypeError, ValueError, RecursionError):
            return f"<{type(value).__name__} of {len(value)} items>"
        if len(text) > MAX_RECEIVED_CHARS:
            return f"<{type(value).__name__} of {len(value)} items>"
    return value


def _errors(error: ValidationError) -> list[Any]:
    """pydantic's error list; without the inputs when converting them fails (odd text)."""
    try:
        return list(error.errors(include_url=False))
    except (UnicodeError, ValueError, RecursionError):
        return list(error.errors(include_url=False, include_input=False, include_context=False))


def _walk(raw: Any, loc: Sequence[Any]) -> tuple[list[str | int], Any, bool]:
    """Follow `loc` through the raw arguments; keep only the steps that exist there.

    pydantic puts union member tags into locations; the published path has only real keys.
    """
    path: list[str | int] = []
    node = raw
    found = True
    for step in loc:
        if (isinstance(node, Mapping) and step in node) or (
            isinstance(node, list) and isinstance(step, int) and 0 <= step < len(node)
        ):
            node = node[step]
            path.append(step)
        elif isinstance(node, Mapping) and isinstance(step, str) and not path_like_tag(step):
            path.append(step)
            found = False
            node = None
        else:
            continue
    return path, node, found


def path_like_tag(step: str) -> bool:
    """pydantic's internal location steps ('function-plain[...]', 'list[...]') are not keys."""
    return "[" in step or step.startswith("function-")


MAX_NAME_CHARS = 64


def shown_name(step: str | int) -> str:
    """A property name as an issue or hint quotes it: a name longer than any real property is cut
    (with "…", not dots, so the cut name still reads as one step of a dotted path)."""
    text = str(step)
    return text if len(text) <= MAX_NAME_CHARS else text[: MAX_NAME_CHARS - 1] + "…"


def dotted(path: Sequence[str | int]) -> str:
    return ".".join(shown_name(p) for p in path)


def allowed_properties(schema: Mapping[str, Any], path: Sequence[str | int]) -> list[str]:
    """The property names the advertised schema allows at `path` (the object holding the field)."""
    node = resolve(schema, schema)
    for step in path:
        if isinstance(step, int):
            node = resolve(schema, node.get("items"))
            continue
        props = properties(node)
        if step not in props:
            return []
        node = resolve(schema, props[step])
        for key in ("anyOf", "oneOf"):
            members = [resolve(schema, m) for m in node.get(key) or []]
            members = [m for m in members if m.get("type") != "null"]
            if len(members) == 1:
                node = members[0]
    return sorted(properties(node))


def issues_from(
    error: ValidationError, raw: Mapping[str, Any], schema: Mapping[str, Any]
) -> list[Issue]:
    out: list[Issue] = []
    for e in _errors(error):
        kind = str(e["type"])
        ctx = e.get("ctx") or {}
        loc = list(e["loc"])
        path, node, found = _walk(raw, loc)
        where = dotted(path) or "(arguments)"
        code = _TYPE_CODES.get(
            kind,
            kind
            if kind.startswith(
                ("invalid_", "ambiguous_", "placeholder_", "value_", "cursor_", "out_of_")
            )
            else "invalid_type",
        )
        if kind == "missing":
            if found and absence.is_absent(node):
                out.append(
                    Issue(
                        where,
                        "missing_property",
                        f"'{where}' is required; {node!r} reads as no value. Send the real value.",
                        received=node,
                        has_received=True,
                    )
                )
            else:
                out.append(Issue(where, "missing_property", f"'{where}' is required."))
            continue
        if kind == "extra_forbidden":
            parent = path[:-1]
            allowed = allowed_properties(schema, parent)
            name = shown_name(path[-1]) if path else where
            near = nearest_property(name, allowed)
            suggestion = f" Did you mean '{near}'?" if near else ""
            out.append(
                Issue(
                    where,
                    "unknown_property",
                    f"'{name}' is not a property here.{suggestion} Allowed: {', '.join(allowed) or 'none'}.",
                    expected=f"one of: {', '.join(allowed)}" if allowed else None,
                )
            )
            continue
        if e.get("input") is None and "received" not in ctx and kind.endswith("_type"):
            # null for a required property: a model's spelling of "unset", not a wrong type
            out.append(
                Issue(
                    where,
                    "missing_property",
                    f"'{where}' is required; null reads as no value. Send the real value.",
                    received=None,
                    has_received=True,
                )
            )
            continue
        received = ctx.get("received", e.get("input"))
        expected = ctx.get("expected")
        if expected is None and "expected" in ctx:
            expected = str(ctx["expected"])
        if expected is None:
            expected = _expected_from(kind, ctx)
        message = safe_text(str(e["msg"]))
        out.append(
            Issue(
                where,
                code,
                message,
                received=_clip(received),
                expected=str(expected) if expected is not None else None,
                readings=ctx.get("readings"),
                has_received=True,
            )
        )
    return out


def _expected_from(kind: str, ctx: Mapping[str, Any]) -> str | None:
    if "ge" in ctx:
        return f">= {ctx['ge']}"
    if "le" in ctx:
        return f"<= {ctx['le']}"
    if "pattern" in ctx:
        return f"a string matching {ctx['pattern']}"
    if "max_length" in ctx:
        return f"at most {ctx['max_length']} characters/items"
    if "min_length" in ctx:
        return f"at least {ctx['min_length']} characters/items"
    if kind.endswith("_type") or kind.endswith("_parsing"):
        return kind.split("_")[0]
    return None


def repaired_arguments(
    raw: Mapping[str, Any],
    issues: Sequence[Issue],
    schema: Mapping[str, Any],
    *,
    drop_unknown: bool = False,
) -> tuple[dict[str, Any], list[str]] | None:
    """Arguments with every certain fix applied and the names left out, or None when some issue
    needs a decision.

    Certain: an unknown top-level property whose name is a near miss of exactly one allowed one
    that was not also sent (renamed). With `drop_unknown` (a read-only tool, where leaving a
    property out cannot change what the call does to anything), an unknown top-level property
    that is a near miss of none is left out. Everything else (a missing value, an ambiguous
    date) needs the caller.
    """
    fixed = dict(raw)
    dropped: list[str] = []
    allowed = allowed_properties(schema, [])
    sent: dict[str, list[str]] = {}  # each issue's path (a cut name for a long one) -> names sent
    for key in raw:
        sent.setdefault(shown_name(key), []).append(key)
    for issue in issues:
        names = sent.get(issue.path, [])
        if issue.code != "unknown_property" or "." in issue.path or len(names) != 1:
            return None
        (name,) = names
        near = nearest_property(name, allowed)
        if near is None and drop_unknown:
            fixed.pop(name, None)
            dropped.append(issue.path)
            continue
        if near is None or near in fixed:
            return None
        fixed[near] = fixed.pop(name)
    return fixed, dropped


def nearest_property(name: str, allowed: Sequence[str]) -> str | None:
    """The one allowed property `name` most likely meant, or None when that is not certain.

    A close spelling ("date_form" for date_from) or an unambiguous shortening or lengthening of
    one property ("q" for query, "court_name" for court) counts; two candidates count as none.
    """
    close = difflib.get_close_matches(name, allowed, n=2, cutoff=0.6)
    if len(close) == 1 or (close and difflib.SequenceMatcher(None, name, close[0]).ratio() >= 0.85):
        return close[0]
    folded = name.casefold()
    stems = [a for a in allowed if a.startswith(folded) or folded.startswith(a + "_")]
    return stems[0] if len(stems) == 1 else None


def rejected_entries(
    input_schema: Mapping[str, Any], set_aside: Sequence[Mapping[str, Any]]
) -> list[dict[str, Any]]:
    """Issues of the entries a best-effort list set aside, with paths like `lines.3.amount_cents`."""
    defs = input_schema.get("$defs", {})
    out: list[dict[str, Any]] = []
    for entry in set_aside:
        field_name, index = str(entry["field"]), int(entry["index"])
        items = input_schema.get("properties", {}).get(field_name, {}).get("items", {})
        item_schema = {**items, "$defs": defs}
        raw = entry["entry"] if isinstance(entry["entry"], Mapping) else {}
        prefix = f"{field_name}.{index}"
        issues = [
            Issue(
                f"{prefix}.{i.path}" if i.path != "(arguments)" else prefix,
                i.code,
                i.message,
                received=i.received,
                expected=i.expected,
                readings=i.readings,
                has_received=i.has_received,
            )
            for i in issues_from(entry["error"], raw, item_schema)
        ]
        out.append({"path": prefix, "index": index, "issue_objects": issues})
    return out


def callable_repair(contract: Contract, repair: Repair) -> bool:
    """A repair is sent only when its arguments validate against the named tool."""
    return callable_among(contract.tools, repair)


def callable_among(tools: Mapping[str, ToolSpec], repair: Repair) -> bool:
    """`repair` names one of `tools` and its arguments validate against it."""
    target = tools.get(repair.tool)
    if target is None:
        return False
    try:
        validate(target.input_model, repair.arguments, intent=target.intent)
    except ValidationError:
        return False
    return True
