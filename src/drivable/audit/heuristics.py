"""Reading a tool surface the way a reviewer does: verbs, effects, schema walks, prose cues.

Everything here is a pure function of wire dicts, shared by the static rules and the probes.
"""

from __future__ import annotations

import re
from typing import Any

from drivable.schema import resolve, types_of
from drivable.verbs import DESTRUCTIVE_VERBS as DESTRUCTIVE_VERBS
from drivable.verbs import MUTATING_VERBS, READ_VERBS

# The mutating verbs that bring a new thing into being: a create's own id must be a new one.
CREATING_VERBS = MUTATING_VERBS & frozenset({"create", "add", "insert", "new", "make", "register"})
# Verbs of tools that answer a list of rows: the ones paging rules apply to, and the ones whose
# answers hold ids a later call can use (the probes read them first), in the order a model tries.
LISTING_VERBS = ("list", "search", "find", "query", "browse")
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


def input_schema(tool: dict[str, Any]) -> dict[str, Any]:
    schema = tool.get("inputSchema")
    return schema if isinstance(schema, dict) else {}


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
    r"^(limit|count|page_size|pagesize|per_page|perpage|max_results|top|top_k|size|n|k)$", re.I
)


# An idempotency key (a `request_id` may be the caller's trace id: not read as a key).
KEY_NAME = re.compile(r"idempoten\w*_?key|^dedup\w*_?(key|id)$", re.I)


def is_key_property(name: str) -> bool:
    return bool(KEY_NAME.search(name))


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


# the lead-in is a phrase of its own: "accept" inside a quoted value ('accept_') is no lead-in
LISTED_VALUES = re.compile(
    r"\b(one of|must be|either|allowed values?|valid values?|possible values?|options?:|"
    r"accepts?:?)(?!\w)\s*[:\-]?\s*['\"`]?[\w-]+['\"`]?\s*(,|\bor\b|\|)",
    re.I,
)
QUOTED_ALTERNATIVES = re.compile(r"['\"`][\w-]+['\"`]\s*(,|\bor\b|\|)\s*['\"`][\w-]+['\"`]")
PIPE_ALTERNATIVES = re.compile(r"\b[a-z_]+\|[a-z_]+(\|[a-z_]+)*\b")


QUOTED_VALUE = re.compile(r"['\"`]([\w-]{1,30})['\"`]")
EXAMPLE_WORDS = re.compile(r"(\be\.g\.|\bfor example\b|\bfor instance\b|\bsuch as\b)", re.I)


def _quoted_choice(description: str) -> bool:
    """Two or more quoted words joined by an `or`, each with its own gloss: "local branches
    ('local'), remote branches ('remote') or all branches ('all')". Quoted examples (`e.g.`)
    are not a closed list."""
    found = list(QUOTED_VALUE.finditer(description))
    if len({m.group(1) for m in found}) < 2:
        return False
    span = description[found[0].start() : found[-1].end()]
    lead = description[max(0, found[0].start() - 40) : found[0].start()]
    return bool(re.search(r"\bor\b", span)) and not EXAMPLE_WORDS.search(lead + span)


def _quoted_alternatives(description: str) -> bool:
    for m in QUOTED_ALTERNATIVES.finditer(description):
        if not EXAMPLE_WORDS.search(description[max(0, m.start() - 40) : m.start()]):
            return True
    return False


def lists_values(description: str) -> bool:
    """Whether free prose enumerates the allowed values of a string parameter."""
    return bool(
        LISTED_VALUES.search(description)
        or _quoted_alternatives(description)
        or PIPE_ALTERNATIVES.search(description)
        or _quoted_choice(description)
    )


LEAD_IN = re.compile(
    r"\b(one of|must be|either|allowed values?(?: are)?|valid values?(?: are)?|possible values?"
    r"(?: are)?|options?|accepts?)\s*[:\-]?\s*",
    re.I,
)
LISTED_WORD = re.compile(r"[A-Za-z0-9][\w.-]{0,29}")


def listed_values(description: str) -> list[str]:
    """The values a description lists for a free string, in order (none when it lists none):
    the quoted words of a choice, `a|b|c`, or the words after "one of", "allowed values" ..."""
    if not lists_values(description):
        return []
    quoted = [
        m.group(1)
        for m in QUOTED_VALUE.finditer(description)
        if not EXAMPLE_WORDS.search(description[max(0, m.start() - 40) : m.start()])
    ]
    if len(set(quoted)) >= 2:
        return list(dict.fromkeys(quoted))
    piped = PIPE_ALTERNATIVES.search(description)
    if piped:
        return list(dict.fromkeys(piped.group(0).split("|")))
    lead = LEAD_IN.search(description)
    if lead is None:
        return []
    rest = re.split(r"[.;](?:\s|$)|\)", description[lead.end() :], maxsplit=1)[0]
    parts = re.split(r"\s*(?:,|\bor\b|\band\b|\|)\s*", rest)
    words = [LISTED_WORD.fullmatch(p.strip(" '\"`")) for p in parts]
    found = [w.group(0) for w in words if w]
    return list(dict.fromkeys(found)) if len(found) >= 2 else []


def prose_values(schema: dict[str, Any], node: dict[str, Any], doc: str) -> list[str]:
    """The values a free string (or a list of free strings) lists only in prose, or []."""
    types = types_of(node)
    if types == {"array"}:
        items = resolve(schema, node.get("items") or {})
        if types_of(items) != {"string"} or "enum" in items or "const" in items:
            return []
        return listed_values(doc or str(items.get("description") or ""))
    if types == {"string"} and "enum" not in node and "const" not in node:
        return listed_values(doc)
    return []


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
