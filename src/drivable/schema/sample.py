"""A plausible value for a schema node: the value a careful model would send on a first call.

Preference order: `const`, a caller's hint for the property name, `default`, `examples`, an example
quoted in the description (`e.g. 'America/New_York'`), the first `enum` value, then a value built from
the type, its format and its bounds. In a union the most specific branch wins (an enum or const,
then boolean, integer, number, a formatted string, object, array, plain string), so a
boolean-or-string field gets `false`, not an arbitrary word.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from drivable.schema.resolve import merge_all_of, resolve
from drivable.schema.walk import properties, required, types_of

MISSING: Any = object()
Hint = Callable[[str, dict[str, Any]], Any]  # (property name, resolved node) -> value or MISSING

DESCRIBED_EXAMPLE = re.compile(
    r"(?:e\.g\.|for example|example:|such as|like)[,:]?\s*['\"`]([^'\"`]{1,80})['\"`]", re.I
)
FORMATTED = {
    "date": "2026-01-15",
    "date-time": "2026-01-15T10:00:00Z",
    "time": "10:00:00",
    "uuid": "00000000-0000-4000-8000-000000000000",
    "email": "someone@example.com",
    "uri": "https://example.com/",
    "url": "https://example.com/",
    "hostname": "example.com",
    "ipv4": "192.0.2.1",
}
# A description that lists quoted values ("local ('local'), remote ('remote')") names the choices.
QUOTED_VALUE = re.compile(r"['\"`]([A-Za-z0-9_./:+-]{1,40})['\"`]")
# Formats spelled in prose, and a value in each.
PROSE_FORMATS = (
    (re.compile(r"\bHH:MM(:SS)?\b"), "10:00"),
    (re.compile(r"\bYYYY-MM-DD\b(?![T ]HH)"), "2026-01-15"),
    (re.compile(r"\bISO[- ]?8601\b", re.I), "2026-01-15T10:00:00Z"),
)
_BRANCH_ORDER = ("boolean", "integer", "number", "formatted", "object", "array", "string")
MAX_DEPTH = 4


def _branch_rank(root: dict[str, Any], branch: Any) -> int:
    node = resolve(root, branch)
    if "const" in node or isinstance(node.get("enum"), list):
        return -1
    types = types_of(node)
    if "string" in types and node.get("format") in FORMATTED:
        return _BRANCH_ORDER.index("formatted")
    for i, t in enumerate(_BRANCH_ORDER):
        if t in types:
            return i
    return len(_BRANCH_ORDER)


def _described(node: dict[str, Any]) -> Any:
    text = str(node.get("description") or "")
    match = DESCRIBED_EXAMPLE.search(text)
    if match:
        return match.group(1)
    for pattern, value in PROSE_FORMATS:
        if pattern.search(text):
            return value
    quoted = QUOTED_VALUE.findall(text)
    return quoted[0] if len(quoted) >= 2 else MISSING


def sample(
    root: dict[str, Any],
    node: Any = None,
    *,
    name: str = "",
    hint: Hint | None = None,
    depth: int = 0,
) -> Any:
    """A value for `node` (the root itself when None) that validates where the schema is simple."""
    node = resolve(root, root if node is None else node)
    if "const" in node:
        return node["const"]
    if hint is not None and name:
        given = hint(name, node)
        if given is not MISSING:
            return given
    if node.get("default") is not None:
        return node["default"]
    examples = node.get("examples")
    if isinstance(examples, list) and examples:
        return examples[0]
    enum = node.get("enum")
    if isinstance(enum, list) and enum:
        non_null = [v for v in enum if v is not None]
        return non_null[0] if non_null else None
    for key in ("oneOf", "anyOf"):
        branches = [b for b in node.get(key) or [] if types_of(resolve(root, b)) != {"null"}]
        if branches:
            best = min(branches, key=lambda b: _branch_rank(root, b))
            merged = {
                **{k: v for k, v in node.items() if k not in ("oneOf", "anyOf")},
                **resolve(root, best),
            }
            return sample(root, merged, name=name, hint=hint, depth=depth + 1)
    if isinstance(node.get("allOf"), list):
        return sample(root, merge_all_of(root, node), name=name, hint=hint, depth=depth + 1)
    types = types_of(node)
    if "string" in types and "format" not in node:
        described = _described(node)
        if described is not MISSING:
            return described
    return _typed(root, node, types, name, hint, depth)


def _typed(
    root: dict[str, Any],
    node: dict[str, Any],
    types: set[str],
    name: str,
    hint: Hint | None,
    depth: int,
) -> Any:
    if "boolean" in types:
        return False
    if "integer" in types or "number" in types:
        low = node.get("minimum", node.get("exclusiveMinimum"))
        value: float = 1
        if isinstance(low, (int, float)) and not isinstance(low, bool):
            value = low + (1 if "exclusiveMinimum" in node and "minimum" not in node else 0)
        high = node.get("maximum")
        if isinstance(high, (int, float)) and not isinstance(high, bool) and value > high:
            value = high
        return int(value) if "integer" in types else value
    if "object" in types or ("properties" in node and not types):
        return sample_arguments(root, node, hint=hint, depth=depth + 1) if depth < MAX_DEPTH else {}
    if "array" in types:
        items = node.get("items")
        count = int(node.get("minItems") or 0)
        if count > 0 and isinstance(items, dict) and depth < MAX_DEPTH:
            one = sample(root, items, name=name, hint=hint, depth=depth + 1)
            return [one] * count  # no uniqueItems here: the same value repeated is valid
        return []
    if "null" in types and "string" not in types:
        return None
    fmt = node.get("format")
    if fmt in FORMATTED:
        return FORMATTED[fmt]
    size = max(int(node.get("minLength") or 0), 1)
    word = "example"
    while len(word) < size:
        word += "-example"
    cap = node.get("maxLength")
    return word[: int(cap)] if isinstance(cap, int) and cap > 0 else word


def sample_arguments(
    root: dict[str, Any],
    node: Any = None,
    *,
    hint: Hint | None = None,
    depth: int = 0,
    optional: bool = False,
) -> dict[str, Any]:
    """Arguments for an object node: every required property (and the optional ones too when
    `optional`), each sampled under its own name so hints can fill it."""
    node = resolve(root, root if node is None else node)
    props = properties(node)
    names = list(props) if optional else required(node)
    return {n: sample(root, props.get(n, {}), name=n, hint=hint, depth=depth) for n in names}
