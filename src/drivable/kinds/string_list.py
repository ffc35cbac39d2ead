"""string_list: a list of strings, from a JSON array or from the lone string a model sent for one.

- A JSON array passes, each item read through its item kind (`enum` when `choices` are declared,
  `item_kind` when one is named, else `text`).
- A lone string is a one-item list. Only constrained tokens split: when `choices` are declared,
  "a, b; c" is three members, each read through `enum`. A free string never splits, because a comma
  inside a free string ("Novák, Jan") is part of the value.
- A JSON array sent as a string ('["a", "b"]') is read as that array, with a note.
- Items that are placeholders ("", "none", "n/a") are dropped with a note on a read (asked about on
  a write, as for any placeholder); repeats are dropped with a note; an empty result is absence.
- An item that is asked about or refused makes the list asked about or refused, naming the item.
- Work is bounded: more than MAX_ITEMS items are refused before any is read, an item of more
  than MAX_SCALAR_CHARS characters before it is read.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Annotated, Any

from drivable.kinds import absence
from drivable.kinds._kind import Kind
from drivable.kinds._reading import Reading, jsonable, shown
from drivable.kinds._registry import MAX_SCALAR_CHARS, Options, kind, read_with, spec_of

MAX_ITEMS = 500
EXPECTED = "a JSON array of strings"
_TOKEN_SEPARATORS = re.compile(r"[,;]")
_QUOTES = "\"'`“”‘’"


def _item_kind(options: Options) -> str:
    if options.choices:
        return "enum"
    return options.item_kind or "text"


def _schema(options: Options) -> dict[str, Any]:
    item = _item_kind(options)
    spec = spec_of(item)
    items = spec.schema(options) if spec is not None else {"type": "string"}
    return {"type": "array", "items": items, "maxItems": MAX_ITEMS}


def _listed(items: list[Any]) -> str:
    return json.dumps(jsonable(items), ensure_ascii=False)


@kind("string_list", schema=_schema, expected=EXPECTED, handles_placeholders=True)
def read_string_list(value: Any, options: Options) -> Reading:
    notes: list[str] = []
    constrained = bool(options.choices)
    items: Sequence[Any]
    lone = False
    if isinstance(value, list | tuple):
        items = value
    elif isinstance(value, str):
        from_json = _json_array(value)
        if from_json is not None:
            items = from_json
            notes.append(f"Read {shown(value)} as the JSON array it spells.")
        else:
            items = _tokens(value) if constrained else [value]
            lone = True
            if len(items) == 1 and _is_placeholder(items[0], options):
                return absence.reading_for(value, options.intent, EXPECTED)
    else:
        items = [value]
        lone = True
    if len(items) > MAX_ITEMS:
        return _too_many(len(items))
    if constrained:  # a member may itself arrive as "a, b" inside an array
        split: list[Any] = []
        for item in items:
            split.extend(_tokens(item) if isinstance(item, str) else [item])
            if len(split) > MAX_ITEMS:
                return _too_many(len(split))
        items = split
    return _read_items(value, items, options, notes, lone=lone)


def _too_many(count: int) -> Reading:
    return Reading.invalid(
        f"<{count} items>",
        expected=f"{EXPECTED}, at most {MAX_ITEMS} items",
        hint=f"Send at most {MAX_ITEMS} items.",
        code="too_many_items",
    )


def _is_placeholder(value: str, options: Options) -> bool:
    folded = value.strip().casefold()
    if options.choices and any(folded == c.casefold() for c in options.choices):
        return False
    return absence.placeholder_of(value) is not None


def _json_array(text: str) -> list[Any] | None:
    stripped = text.strip()
    if not (stripped.startswith("[") and stripped.endswith("]")):
        return None
    try:
        parsed = json.loads(stripped)
    except ValueError:
        return None
    return parsed if isinstance(parsed, list) else None


def _tokens(text: str) -> list[str]:
    """Constrained tokens: "a, b; c" and "[a, b]" split into members; quotes around each dropped."""
    stripped = text.strip()
    if stripped.startswith("[") and stripped.endswith("]"):
        stripped = stripped[1:-1]
    return [t.strip().strip(_QUOTES).strip() for t in _TOKEN_SEPARATORS.split(stripped)]


def _read_items(
    received: Any, items: Sequence[Any], options: Options, notes: list[str], *, lone: bool
) -> Reading:
    """Read each item through the item kind; `lone` when a single value stood for the list."""
    name = _item_kind(options)
    spec = spec_of(name)
    if spec is None:
        return Reading.invalid(
            shown(received),
            expected=EXPECTED,
            hint=f"This list names an unknown item kind {name!r}.",
            code="invalid_string_list",
        )
    item_options = options if name == "enum" else options.with_(choices=None, item_kind=None)
    out: list[Any] = []
    seen: set[Any] = set()
    for position, item in enumerate(items, 1):
        if isinstance(item, list | tuple | dict):
            return Reading.invalid(
                type(item).__name__,
                expected=EXPECTED,
                hint=f"Item {position} is a nested {type(item).__name__}; send a flat array of strings.",
                code="invalid_string_list",
            )
        if isinstance(item, str) and len(item) > MAX_SCALAR_CHARS:
            # free text is bounded by its field; an item's field is this list, whose bound it is
            return Reading.invalid(
                f"<{len(item)} characters>",
                expected=f"items of at most {MAX_SCALAR_CHARS} characters",
                hint=f"Item {position}: an item of this list is at most {MAX_SCALAR_CHARS} "
                "characters.",
                code="value_too_long",
            )
        reading = read_with(spec, item, item_options)
        if reading.outcome == "absent":
            notes.append(f"Dropped item {position}, {shown(item)}: it carries no value.")
            continue
        if reading.outcome == "ask":
            readings = [[*out, r, *items[position:]] for r in reading.readings]
            return Reading.ask(
                received,
                expected=EXPECTED,
                hint=f"Item {position}: {reading.hint}",
                readings=readings,
                code=reading.code,
            )
        if reading.outcome == "invalid":
            return Reading.invalid(
                reading.received,
                expected=reading.expected,
                hint=f"Item {position}: {reading.hint}",
                code=reading.code,
            )
        notes.extend(f"Item {position}: {n}" for n in reading.notes)
        key = jsonable(reading.value)
        key = json.dumps(key, sort_keys=True) if not isinstance(key, str) else key
        if key in seen:
            notes.append(f"Dropped item {position}, {shown(item)}: it repeats an earlier item.")
            continue
        seen.add(key)
        out.append(reading.value)
    if not out:
        if isinstance(received, list | tuple) and not received and options.intent == "write":
            return Reading.of([])  # an explicit [] on a write sets the list empty
        return Reading.absent(*notes)
    if lone:
        notes.insert(0, f"Read {shown(received)} as the list {_listed(out)}.")
    return Reading.of(out, *notes)


StringList = Annotated[list[str], Kind("string_list")]
"""A list of free strings: a lone string is a one-item list and never splits."""

__all__ = ["EXPECTED", "MAX_ITEMS", "StringList", "read_string_list"]
