"""Certain fixes of a refused call's arguments: the `repair` the reading offers when no decision
is left to the caller (a name spelled another way, a refused cursor, one item spelled at the top
level, on a read-only tool a property nothing means), and what a repair may leave out.
docs/runtime.md, "Next steps keep the caller's intent"."""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from drivable.contract.envelope import Issue
from drivable.contract.validation import (
    allowed_properties,
    counterpart,
    one_member,
    shown_name,
)
from drivable.schema import properties, resolve


@dataclass(frozen=True)
class Fix:
    """The arguments with every certain fix applied: what was renamed, and what was left out
    with the reason its issue states."""

    arguments: dict[str, Any]
    renamed: dict[str, str]
    dropped: list[str]
    restarted: bool  # a refused cursor left out: the first page again
    nested: str | None = None  # the list (or object) the top-level names were moved into


def one_item(
    raw: Mapping[str, Any], issues: Sequence[Issue], schema: Mapping[str, Any]
) -> tuple[str, Any, list[str]] | None:
    """The one item a call spelled at the top level: when a required property that takes a list
    of objects (or one object) was not sent, and every unknown top-level name sent is a property
    of that object (its name spelled another way included) and they give every property it
    requires, they are one item of it: (the property, the list of that item or the object, the
    names moved). Any doubt (two such properties, a name the object lacks): None.
    docs/decisions/0048-a-repair-is-accepted-as-sent.md"""
    unknown = [i.path for i in issues if i.code == "unknown_property"]
    if not unknown or any(path not in raw for path in unknown):
        return None
    declared = properties(resolve(schema, schema))
    found: list[tuple[str, Any, list[str]]] = []
    for issue in issues:
        if issue.code != "missing_property" or issue.has_received or issue.path not in declared:
            continue
        node = one_member(schema, resolve(schema, declared[issue.path]))
        listed = node.get("type") == "array"
        item = one_member(schema, resolve(schema, node.get("items"))) if listed else node
        fields = sorted(properties(item))
        moved: dict[str, Any] = {}
        for name in unknown:
            field = name if name in fields else counterpart(name, fields).renamed
            if field is None or field in moved:
                break
            moved[field] = raw[name]
        else:
            if fields and set(item.get("required") or []) <= set(moved):
                found.append((issue.path, [moved] if listed else moved, unknown))
    return found[0] if len(found) == 1 else None


_CURSOR_CODES = frozenset({"invalid_cursor", "cursor_expired"})


def repaired_arguments(
    raw: Mapping[str, Any],
    issues: Sequence[Issue],
    schema: Mapping[str, Any],
    *,
    drop_unknown: bool | Collection[str] = False,
) -> Fix | None:
    """Arguments with every certain fix applied, or None when some issue needs a decision.

    Certain: an unknown top-level property that is one declared property's name spelled
    another way, or whose words only one declared name contains, and that was not also sent
    (renamed, its value kept); a refused cursor (left out: the same query from its first page);
    the fields of one item of a required list of objects sent at the top level (`one_item`).
    With `drop_unknown` (a read-only tool, where leaving a property out cannot change what the
    call does to anything), an unknown top-level property that no declared property means is
    left out, its issue saying so; given names instead (an idempotent tool's `RETRY_CONTROLS`),
    only those. Several candidates, a missing value, an ambiguous date: the caller decides.
    """
    fixed = dict(raw)
    renamed: dict[str, str] = {}
    dropped: list[str] = []
    restarted = False
    item = one_item(raw, issues, schema)
    if item is not None:
        into, value, moved = item
        fixed = {k: v for k, v in raw.items() if k not in moved}
        fixed[into] = value
        issues = [i for i in issues if i.path not in moved and i.path != into]
        raw = fixed
    allowed = allowed_properties(schema, [])
    sent: dict[str, list[str]] = {}  # each issue's path (a cut name for a long one) -> names sent
    for key in raw:
        sent.setdefault(shown_name(key), []).append(key)
    # a required property sent under another spelling is both missing and unknown: the rename
    # fixes both
    unknown = [
        i.path for i in issues if i.code == "unknown_property" and len(sent.get(i.path, [])) == 1
    ]
    targets = {counterpart(sent[path][0], allowed).renamed for path in unknown}
    for issue in issues:
        if issue.code == "missing_property" and not issue.has_received and issue.path in targets:
            continue
        names = sent.get(issue.path, [])
        if "." in issue.path or len(names) != 1:
            return None
        (name,) = names
        if issue.code in _CURSOR_CODES:
            fixed.pop(name, None)
            restarted = True
            continue
        if issue.code != "unknown_property":
            return None
        found = counterpart(name, allowed)
        droppable = drop_unknown is True or (
            not isinstance(drop_unknown, bool) and name in drop_unknown
        )
        if found.renamed is None and not found.candidates and droppable:
            fixed.pop(name, None)
            dropped.append(issue.path)
            continue
        if found.renamed is None or found.renamed in fixed:
            return None
        fixed[found.renamed] = fixed.pop(name)
        renamed[name] = found.renamed
    return Fix(fixed, renamed, dropped, restarted, item[0] if item is not None else None)


# Arguments that say how a call is retried, not what it does: a tool that declares itself
# idempotent does the same on a retry without a key, so a key sent to one that takes none is left
# out of the repair (docs/decisions/0035-a-key-an-idempotent-tool-does-not-take.md).
RETRY_CONTROLS = frozenset({"idempotency_key"})
