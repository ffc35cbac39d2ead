"""From a pydantic ValidationError to issues that name the field, what came and what is expected.

Also computes the repair for the rejections whose fix is certain (an unknown property that is one
declared property's name spelled another way, docs/runtime.md "Next steps keep the caller's intent"),
and checks it: a repair is only offered when the repaired arguments validate.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from pydantic import ValidationError

from drivable.contract.boundary import safe_text, safe_value
from drivable.contract.envelope import Issue, Repair
from drivable.kinds import validate
from drivable.kinds.text_folding import name_words, spelling
from drivable.schema import properties, resolve

if TYPE_CHECKING:
    from drivable.contract.tool import ToolSpec


class Declared(Protocol):
    """What a repair is checked against: the tools a contract declares."""

    @property
    def tools(self) -> Mapping[str, ToolSpec]: ...


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
_TOO_LONG = frozenset({"too_long", "string_too_long"})


def clip_received(value: Any) -> Any:
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
        node = one_member(schema, resolve(schema, props[step]))
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
            if found and node is None:
                out.append(
                    Issue(
                        where,
                        "missing_property",
                        f"'{where}' is required; null reads as no value. Send the real value.",
                        received=None,
                        has_received=True,
                    )
                )
            elif found:
                # sent, and read as no value: say what was sent and why it is none, never only
                # "required" (a model that sent it resends it)
                out.append(
                    Issue(
                        where,
                        "missing_property",
                        f"{placeholder_said(node, path)}: it reads as no value. Send the real value.",
                        received=clip_received(node),
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
            out.append(
                Issue(
                    where,
                    "unknown_property",
                    f"{counterpart(name, allowed).said(name)} Allowed: {', '.join(allowed) or 'none'}.",
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
        if kind in _TOO_LONG and isinstance(received, str) and "max_length" in ctx:
            # pydantic says "items" of a string; the bound is the field's own, in characters
            bound = ctx["max_length"]
            out.append(
                Issue(
                    where,
                    "invalid_value",
                    f"This property takes at most {bound} characters; {len(received)} were sent.",
                    received=clip_received(received),
                    expected=f"at most {bound} characters",
                    has_received=True,
                )
            )
            continue
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
                received=clip_received(received),
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


def placeholder_said(value: Any, path: Sequence[str | int] | str) -> str:
    """ "'<id>' is a placeholder, not a real room id": what a required property's placeholder is."""
    steps = path.split(".") if isinstance(path, str) else [p for p in path if isinstance(p, str)]
    names = [p for p in steps if not str(p).isdigit()]
    noun = shown_name(names[-1]).replace("_", " ") if names else "value"
    return f"{clip_received(value)!r} is a placeholder, not a real {noun}"


@dataclass(frozen=True)
class Counterpart:
    """The declared property an unknown one means: `renamed` when exactly one qualifies,
    `candidates` when several do, neither when none does (docs/runtime.md, "Next steps keep the
    caller's intent")."""

    renamed: str | None = None
    candidates: tuple[str, ...] = ()
    same_spelling: bool = False

    def said(self, name: str) -> str:
        """The issue's words: where the property's value goes, or why it goes nowhere."""
        head = f"'{name}' is not a property here"
        if self.renamed is not None and self.same_spelling:
            return f"{head}: it is what this tool calls '{self.renamed}'; send it as that."
        if self.renamed is not None:
            return f"{head}: '{self.renamed}' is the one property whose name has its words; send it as that."
        if self.candidates:
            named = ", ".join(f"'{c}'" for c in self.candidates)
            return f"{head}: {named} each name it; send it as the one meant."
        return f"{head}, and no property here means it: nothing takes its value."


# The declared vocabulary of property names: abbreviations of one word ("q" is query, as search
# APIs name it), the words that name a value's form, and whole names that are one property under
# the names the kinds bind together (`kinds._registry.NAME_BINDINGS`: a page size, a cursor).
ABBREVIATIONS: dict[str, str] = {
    "q": "query",
    "qty": "quantity",
    "num": "number",
    "desc": "description",
    "lang": "language",
    "amt": "amount",
    "msg": "message",
    "addr": "address",
}
# Last words that name the form of a property's value, not another property: "court_name" and
# "country_code" are court and country, "query_text" is query.
FORM_WORDS = frozenset({"name", "code", "value", "text", "string"})
NAME_ALIASES: dict[str, str] = {
    "page_size": "limit",
    "per_page": "limit",
    "max_results": "limit",
    "top_k": "limit",
    "page_token": "cursor",
}


def name_key(name: str) -> str:
    """What every spelling of one property name folds to: `text_folding.spelling` of the name
    with its abbreviations written out, a last word naming its value's form left out, and a
    declared alias read as the name it stands for."""
    words = [ABBREVIATIONS.get(w, w) for w in name_words(name, singulars=False)]
    if len(words) > 1 and words[-1] in FORM_WORDS:
        words = words[:-1]
    key = spelling("_".join(words))
    return next((spelling(v) for k, v in NAME_ALIASES.items() if spelling(k) == key), key)


# Words that name the same side of an inclusive range: "since" and "start_date" are the lower
# bound date_from is, "until" the upper bound date_to is (docs/decisions/0045-range-words.md).
# "after" and "before" are left out: they exclude the bound, a different value.
BOUND_WORDS: dict[str, str] = {
    "since": "from",
    "start": "from",
    "starting": "from",
    "begin": "from",
    "earliest": "from",
    "until": "to",
    "till": "to",
    "end": "to",
    "ending": "to",
    "latest": "to",
    "minimum": "min",
    "maximum": "max",
}


def _words(name: str) -> set[str]:
    return {BOUND_WORDS.get(w, w) for w in (ABBREVIATIONS.get(w, w) for w in name_words(name))}


def counterpart(name: str, allowed: Sequence[str]) -> Counterpart:
    """The declared property an unknown `name` is: the one that is its name spelled another way
    (`name_key`: case, separators, camelCase, a plural, a declared abbreviation or alias), else
    the one whose name's words contain all of its words ("seats" -> min_seats, "from_date" ->
    date_from), a range word read as the side it names ("since" -> date_from). Several are candidates for the caller to choose from; a near miss by characters
    is none ("court" is not "country")."""
    key = name_key(name)
    same = tuple(a for a in allowed if name_key(a) == key)
    if len(same) == 1:
        return Counterpart(renamed=same[0], same_spelling=True)
    if same:
        return Counterpart(candidates=same)
    words = _words(name)
    if not words:
        return Counterpart()
    within = tuple(a for a in allowed if words <= _words(a))
    if len(within) == 1:
        return Counterpart(renamed=within[0])
    return Counterpart(candidates=within)


def one_member(schema: Mapping[str, Any], node: Mapping[str, Any]) -> dict[str, Any]:
    """`node`, or its one non-null member of an anyOf/oneOf (an optional object)."""
    for key in ("anyOf", "oneOf"):
        members = [resolve(schema, m) for m in node.get(key) or []]
        members = [m for m in members if m.get("type") != "null"]
        if len(members) == 1:
            return members[0]
    return dict(node)


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


def callable_repair(contract: Declared, repair: Repair) -> bool:
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
