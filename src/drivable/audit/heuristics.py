"""Reading a tool surface the way a reviewer does: verbs, effects, schema walks, prose cues.

Everything here is a pure function of wire dicts, shared by the static rules and the probes.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

READ_VERBS = frozenset(
    [
        "get",
        "list",
        "search",
        "find",
        "read",
        "describe",
        "query",
        "fetch",
        "show",
        "lookup",
        "look",
        "count",
        "check",
        "validate",
        "preview",
        "explain",
        "inspect",
        "view",
        "browse",
        "summarize",
        "summarise",
        "status",
        "resolve",
        "diff",
        "compare",
        "estimate",
        "calculate",
        "compute",
        "convert",
        "format",
        "parse",
        "render",
        "export",
        "download",
        "echo",
        "ping",
        "whoami",
        "retrieve",
        "tell",
        "current",
    ]
)
MUTATING_VERBS = frozenset(
    [
        "create",
        "add",
        "insert",
        "new",
        "make",
        "post",
        "put",
        "patch",
        "update",
        "edit",
        "set",
        "modify",
        "change",
        "write",
        "save",
        "store",
        "upload",
        "delete",
        "remove",
        "destroy",
        "drop",
        "purge",
        "clear",
        "erase",
        "archive",
        "unarchive",
        "restore",
        "move",
        "rename",
        "copy",
        "send",
        "publish",
        "notify",
        "email",
        "message",
        "reply",
        "forward",
        "invite",
        "assign",
        "unassign",
        "approve",
        "reject",
        "cancel",
        "close",
        "open",
        "reopen",
        "merge",
        "commit",
        "push",
        "pay",
        "charge",
        "refund",
        "transfer",
        "order",
        "book",
        "buy",
        "purchase",
        "sell",
        "submit",
        "execute",
        "run",
        "start",
        "stop",
        "kill",
        "restart",
        "deploy",
        "trigger",
        "enable",
        "disable",
        "grant",
        "revoke",
        "reset",
        "import",
        "sync",
        "apply",
        "mark",
        "tag",
        "untag",
        "label",
        "lock",
        "unlock",
        "share",
        "link",
        "unlink",
        "register",
        "unregister",
        "subscribe",
        "unsubscribe",
        "schedule",
        "checkout",
        "init",
        "clone",
        "stage",
        "unstage",
        "toggle",
        "switch",
        "flip",
        "increment",
        "decrement",
        "upsert",
        "replace",
        "overwrite",
        "attach",
        "detach",
        "pin",
        "unpin",
        "star",
        "like",
        "follow",
        "unfollow",
        "mute",
        "unmute",
        "ban",
        "block",
        "unblock",
    ]
)
DESTRUCTIVE_VERBS = frozenset(
    [
        "delete",
        "remove",
        "destroy",
        "drop",
        "purge",
        "clear",
        "erase",
        "revoke",
        "kill",
        "reset",
        "cancel",
        "unlink",
        "unregister",
    ]
)
# Verbs that mutate beyond doubt: a read-only claim on them is a lie, not a judgement call.
STRONG_MUTATING_VERBS = frozenset(
    [
        "create",
        "add",
        "insert",
        "post",
        "put",
        "patch",
        "update",
        "edit",
        "set",
        "write",
        "save",
        "upload",
        "delete",
        "remove",
        "destroy",
        "drop",
        "purge",
        "erase",
        "send",
        "publish",
        "email",
        "pay",
        "charge",
        "refund",
        "transfer",
        "buy",
        "purchase",
        "move",
        "rename",
        "archive",
        "commit",
        "push",
        "merge",
    ]
)
# Mutations whose accidental repetition costs money, messages or duplicates.
COSTLY_VERBS = frozenset(
    [
        "create",
        "add",
        "insert",
        "post",
        "send",
        "publish",
        "notify",
        "email",
        "message",
        "reply",
        "forward",
        "invite",
        "pay",
        "charge",
        "refund",
        "transfer",
        "order",
        "book",
        "buy",
        "purchase",
        "submit",
        "register",
        "schedule",
    ]
)
SYNONYM_GROUPS: tuple[frozenset[str], ...] = (
    frozenset({"get", "fetch", "retrieve", "read", "lookup"}),
    frozenset({"delete", "remove", "destroy", "erase"}),
    frozenset({"create", "add", "new", "make", "insert"}),
    frozenset({"update", "edit", "modify", "change", "patch"}),
    frozenset({"search", "find", "query", "lookup"}),
)


def words(name: str) -> list[str]:
    """`getUserById` / `get_user_by_id` / `get-user-by-id` -> ['get', 'user', 'by', 'id']."""
    spaced = re.sub(r"([a-z0-9])([A-Z])", r"\1 \2", name)
    return [w.lower() for w in re.split(r"[\s_\-./:]+", spaced) if w]


def verb_of(name: str) -> str | None:
    """The verb of `verb_noun` or `prefix_verb_noun` names, if it is one drivable knows."""
    parts = words(name)
    if parts and (parts[0] in READ_VERBS or parts[0] in MUTATING_VERBS):
        return parts[0]
    if len(parts) >= 3 and (parts[1] in READ_VERBS or parts[1] in MUTATING_VERBS):
        return parts[1]
    return None


def annotations_of(tool: dict[str, Any]) -> dict[str, Any]:
    ann = tool.get("annotations")
    return ann if isinstance(ann, dict) else {}


def is_mutating(tool: dict[str, Any]) -> bool:
    """Whether a probe must treat the tool as one that changes state.

    A tool is safe to call only when it says it is read-only and its name does not contradict
    that, or when it says nothing and its verb is clearly a read. Anything else is mutating.
    """
    ann = annotations_of(tool)
    verb = verb_of(tool.get("name", ""))
    if verb in MUTATING_VERBS:
        return True
    if ann.get("readOnlyHint") is True:
        return False
    if ann.get("readOnlyHint") is False or ann.get("destructiveHint") is True:
        return True
    return verb not in READ_VERBS


def looks_mutating(name: str) -> bool:
    return verb_of(name) in MUTATING_VERBS


def input_schema(tool: dict[str, Any]) -> dict[str, Any]:
    schema = tool.get("inputSchema")
    return schema if isinstance(schema, dict) else {}


def properties(schema: dict[str, Any]) -> dict[str, dict[str, Any]]:
    props = schema.get("properties")
    if not isinstance(props, dict):
        return {}
    return {k: v if isinstance(v, dict) else {} for k, v in props.items()}


def resolve(schema: dict[str, Any], node: dict[str, Any]) -> dict[str, Any]:
    """Follow one local `$ref` (`#/$defs/X` or `#/definitions/X`) if the node is a reference."""
    ref = node.get("$ref")
    if not isinstance(ref, str) or not ref.startswith("#/"):
        return node
    target: Any = schema
    for part in ref[2:].split("/"):
        if not isinstance(target, dict) or part not in target:
            return node
        target = target[part]
    return target if isinstance(target, dict) else node


def types_of(node: dict[str, Any]) -> set[str]:
    t = node.get("type")
    if isinstance(t, str):
        return {t}
    if isinstance(t, list):
        return {x for x in t if isinstance(x, str)}
    found: set[str] = set()
    for key in ("anyOf", "oneOf"):
        for branch in node.get(key) or []:
            if isinstance(branch, dict):
                found |= types_of(branch)
    return found


def object_nodes(schema: Any, pointer: str = "") -> Iterator[tuple[str, dict[str, Any]]]:
    """Every object-typed schema node, with its JSON pointer (root, nested, items, $defs)."""
    if not isinstance(schema, dict):
        return
    if "object" in types_of(schema) or ("properties" in schema and "type" not in schema):
        yield pointer or "/", schema
    for key in ("properties", "$defs", "definitions", "patternProperties"):
        sub = schema.get(key)
        if isinstance(sub, dict):
            for name, child in sub.items():
                yield from object_nodes(child, f"{pointer}/{key}/{name}")
    for key in ("items", "additionalProperties", "not"):
        child = schema.get(key)
        if isinstance(child, dict):
            yield from object_nodes(child, f"{pointer}/{key}")
    for key in ("anyOf", "oneOf", "allOf", "prefixItems"):
        for i, child in enumerate(schema.get(key) or []):
            yield from object_nodes(child, f"{pointer}/{key}/{i}")


def is_closed(node: dict[str, Any]) -> bool:
    """Closed: `additionalProperties: false`, or `unevaluatedProperties: false`."""
    return node.get("additionalProperties") is False or node.get("unevaluatedProperties") is False


def is_open_map(node: dict[str, Any]) -> bool:
    """A deliberate string-keyed map (`additionalProperties: {schema}` and no properties)."""
    return isinstance(node.get("additionalProperties"), dict) and not node.get("properties")


DATE_NAME = re.compile(
    r"(^|_)(date|day|since|until|before|after|deadline|birthday|dob|timestamp|datetime)($|_)|"
    r"_(at|on)$|^(date|start|end)_(from|to)$|_(from|to)_date$",
    re.I,
)
ID_NAME = re.compile(r"(^id$|_id$|Id$|_uuid$|^uuid$|_key$(?<!idempotency_key))")
CURSOR_NAME = re.compile(
    r"^(cursor|page_token|pagetoken|next_cursor|continuation|after|next)$", re.I
)
NUMERIC_COUNT_NAME = re.compile(
    r"^(limit|count|page_size|pagesize|max_results|top|size|n|k)$", re.I
)


def is_date_property(name: str, node: dict[str, Any]) -> bool:
    fmt = node.get("format")
    if fmt in ("date", "date-time"):
        return True
    return "string" in types_of(node) and bool(DATE_NAME.search(name)) and "enum" not in node


def is_id_property(name: str, node: dict[str, Any]) -> bool:
    return bool(ID_NAME.search(name)) and (
        "string" in types_of(node) or "integer" in types_of(node)
    )


def is_cursor_property(name: str, node: dict[str, Any]) -> bool:
    return bool(CURSOR_NAME.match(name)) and ("string" in types_of(node) or not types_of(node))


LISTED_VALUES = re.compile(
    r"(one of|must be|either|allowed values?|valid values?|possible values?|options?:|"
    r"accepts?:?)\s*[:\-]?\s*['\"`]?[\w-]+['\"`]?\s*(,|\bor\b|\|)",
    re.I,
)
QUOTED_ALTERNATIVES = re.compile(r"['\"`][\w-]+['\"`]\s*(,|\bor\b|\|)\s*['\"`][\w-]+['\"`]")
PIPE_ALTERNATIVES = re.compile(r"\b[a-z_]+\|[a-z_]+(\|[a-z_]+)*\b")


def lists_values(description: str) -> bool:
    """Whether free prose enumerates the allowed values of a string parameter."""
    return bool(
        LISTED_VALUES.search(description)
        or QUOTED_ALTERNATIVES.search(description)
        or PIPE_ALTERNATIVES.search(description)
    )


WHEN_CUES = re.compile(
    r"\b(use (this|it|when|to|for|if|only)|call (this|it|when)|when (you|the user|to)|"
    r"for (when|cases)|prefer\b|instead of|do not use|don't use|only when|useful (for|when))",
    re.I,
)
EXAMPLE_CUES = re.compile(
    r"(\bexample\b|\be\.g\.|\bfor instance\b|\{\s*\"|\w+\(\w+\s*=|`[^`]+`)", re.I
)
EDGE_CUES = re.compile(
    r"\b(if|unless|when|returns? (an? )?(error|empty|nothing|null)|not found|no match|empty|"
    r"fails?|errors?|at most|maximum|limit|must|never|only)\b",
    re.I,
)


def sentences(text: str) -> list[str]:
    parts = re.split(r"(?<=[.!?])\s+(?=[A-Z0-9`\"'(])", text.strip())
    return [p for p in parts if p.strip()]
