"""What a simulated persona reads off discovery, and how it guesses a value after an error.

Pure functions over tool schemas and descriptions, shared by every persona in `simulated`: the
`Example: {...}` a copier copies, the kind a property reads (from its documented name binding and
its schema), a value respelled the way training data spells it (through `drivable.kinds.writing`,
the inverse of the kinds), a guess coerced to the schema's type, and paths into nested arguments.
A persona never reads a value itself: what it guesses is read through the kinds.
"""

from __future__ import annotations

import datetime
import difflib
import json
import random
import re
from typing import Any

from drivable.kinds import bound_kind, jsonable, read
from drivable.kinds.writing import WRITERS, spell


def example_of(description: str) -> dict[str, Any] | None:
    """The first `Example: {...}` JSON object in a description (what a copying model copies)."""
    at = description.find("Example")
    while at != -1:
        brace = description.find("{", at)
        if brace == -1:
            return None
        try:
            value, _ = json.JSONDecoder().raw_decode(description[brace:])
        except ValueError:
            at = description.find("Example", at + 1)
            continue
        return value if isinstance(value, dict) else None
    return None


def properties_of(tool: dict[str, Any] | None) -> dict[str, dict[str, Any]]:
    if not tool:
        return {}
    props = (tool.get("inputSchema") or {}).get("properties") or {}
    return {str(k): v if isinstance(v, dict) else {} for k, v in props.items()}


def types_of(prop: dict[str, Any]) -> set[str]:
    t = prop.get("type")
    found: set[str] = set()
    if isinstance(t, str):
        found.add(t)
    elif isinstance(t, list):
        found.update(str(x) for x in t)
    for alt in prop.get("anyOf") or prop.get("oneOf") or []:
        if isinstance(alt, dict):
            found |= types_of(alt)
    return found


def is_date(name: str, prop: dict[str, Any]) -> bool:
    return prop.get("format") == "date" or "date" in name or name == "day" or name.endswith("_day")


def is_cursor(name: str) -> bool:
    return "cursor" in name or name in ("page_token", "next_page_token")


def kind_of(name: str, prop: dict[str, Any], value: Any) -> str | None:
    """The kind a property reads, from what discovery shows: its name (the names that bind a
    kind are documented) and its schema's type and format."""
    if isinstance(value, bool):
        return "boolean"
    bound = bound_kind(name)
    if bound is not None and bound[0] in WRITERS:
        return bound[0]
    types = types_of(prop)
    if is_date(name, prop):
        return "date"
    if isinstance(value, int) and ("integer" in types or "number" in types or not types):
        return "integer"
    if "boolean" in types:
        return "boolean"
    return None


def parse_date_guess(text: str) -> str | None:
    """How a model guesses a date it was told is wrong, read through the date kind: one reading
    is the date; of several, the month-first one (training data is mostly US); a bare year is
    its first day."""
    reading = read("date_from", text)
    if reading.outcome == "value" and isinstance(reading.value, datetime.date):
        return reading.value.isoformat()
    if reading.outcome == "ask" and reading.readings:
        return str(jsonable(reading.readings[-1]))
    return None


def respell(name: str, prop: dict[str, Any], value: Any, rng: random.Random) -> Any:
    """A value as training data spells it, written by the kinds' writer (which its kind reads
    back to the same value)."""
    kind = kind_of(name, prop, value)
    return value if kind is None else spell(kind, value, rng)


def coerce_guess(name: str, prop: dict[str, Any], value: Any) -> Any:
    """A model's guess at the value the server wanted, from the schema's type alone: the value
    its kind reads (the first reading of several), else the schema's default."""
    types = types_of(prop)
    if "integer" in types or "number" in types:
        kind = "integer" if "integer" in types else "number"
        reading = read(kind, digits_of(value))
        if reading.outcome == "value":
            return reading.value
        if reading.outcome == "ask" and reading.readings:
            return reading.readings[0]
        return prop.get("default", 1)
    if "boolean" in types:
        reading = read("boolean", value)
        return reading.value if reading.outcome == "value" else False
    if isinstance(value, str) and is_date(name, prop):
        return parse_date_guess(value) or value
    enum = prop.get("enum")
    if isinstance(enum, list) and enum:
        near = difflib.get_close_matches(str(value), [str(e) for e in enum], n=1, cutoff=0.0)
        return near[0] if near else enum[0]
    return value


def digits_of(value: Any) -> Any:
    """What a model keeps of a number it was told is wrong: the run of digits, marks and sign
    ("about 12 items" -> "12"); the number kind reads the rest."""
    if not isinstance(value, str):
        return value
    kept = "".join(c for c in value if c.isdigit() or c in ".,- ").strip()
    return kept or value


def get_path(data: Any, path: list[str]) -> Any:
    for part in path:
        if isinstance(data, list):
            try:
                data = data[int(part)]
            except (ValueError, IndexError):
                return None
        elif isinstance(data, dict):
            data = data.get(part)
        else:
            return None
    return data


def set_path(data: dict[str, Any], path: list[str], value: Any) -> None:
    cur: Any = data
    for part in path[:-1]:
        cur = cur[int(part)] if isinstance(cur, list) else cur.setdefault(part, {})
    if isinstance(cur, list):
        cur[int(path[-1])] = value
    else:
        cur[path[-1]] = value


def del_path(data: dict[str, Any], path: list[str]) -> Any:
    cur: Any = data
    for part in path[:-1]:
        cur = cur[int(part)] if isinstance(cur, list) else cur.get(part, {})
    if isinstance(cur, dict):
        return cur.pop(path[-1], None)
    return None


def words_of(text: str) -> set[str]:
    return set(re.findall(r"[a-z]+", text.lower().replace("_", " ")))
