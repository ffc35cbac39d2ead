"""writing: the inverse of the kinds, values spelled the way people and training data write them.

`spell(kind, value, rng)` returns one spelling of a canonical value ("4 000" for 4000, "ano" for
true, "1. 10. 2026" for 2026-10-01, "cs_CZ" for cs-CZ, "42.00 GBP" for 4200 pence) that the kind
reads back to the same value; a value the writer has no other spelling for comes back unchanged.
Every candidate is checked by reading it through its kind before it is offered, so the writer can
never spell a value its reader would read differently: there is one reader per kind, and this is
not a second one. The simulated agents of the eval spell through it.
"""

from __future__ import annotations

import datetime as _dt
import random
from collections.abc import Callable
from typing import Any

from drivable.kinds._reading import jsonable
from drivable.kinds._registry import read

_Writer = Callable[[Any, dict[str, Any]], list[Any]]


def _number(value: Any, options: dict[str, Any]) -> list[Any]:
    if isinstance(value, bool) or not isinstance(value, int):
        return []
    return [f"{value:,}".replace(",", " ") if abs(value) >= 1000 else str(value)]


def _boolean(value: Any, options: dict[str, Any]) -> list[Any]:
    if not isinstance(value, bool):
        return []
    return ["ano", "yes"] if value else ["ne", "no"]


def _date(value: Any, options: dict[str, Any]) -> list[Any]:
    day = read("date", value).value if isinstance(value, str) else value
    if not isinstance(day, _dt.date):
        return []
    return [f"{day.day}. {day.month}. {day.year}"]


def _locale(value: Any, options: dict[str, Any]) -> list[Any]:
    if not isinstance(value, str) or "-" not in value:
        return []
    return [value.replace("-", "_")]


def _money(value: Any, options: dict[str, Any]) -> list[Any]:
    from drivable.kinds.money import major

    currency = options.get("currency")
    if isinstance(value, bool) or not isinstance(value, int):
        return []
    if not isinstance(currency, str):
        return _number(value, options)  # minor units as grouped digits: "4 000"
    # "1.000 KWD" is itself a question (1000 KWD grouped, or 1.000 KWD): then the plain digits.
    return [major(value, currency), str(value)]


WRITERS: dict[str, _Writer] = {
    "integer": _number,
    "number": _number,
    "boolean": _boolean,
    "date": _date,
    "locale": _locale,
    "money": _money,
}


def spellings(kind: str, value: Any, **options: Any) -> list[Any]:
    """Every spelling the writer has for `value` that `kind` reads back to it."""
    writer = WRITERS.get(kind)
    if writer is None:
        return []
    want = jsonable(read(kind, value, **options).value) if not isinstance(value, bool) else value
    return [s for s in writer(value, options) if s != value and _reads_back(kind, s, want, options)]


def _reads_back(kind: str, spelling: Any, want: Any, options: dict[str, Any]) -> bool:
    reading = read(kind, spelling, **options)
    return reading.outcome == "value" and jsonable(reading.value) == want


def spell(kind: str, value: Any, rng: random.Random, **options: Any) -> Any:
    """One spelling of `value` as people write it (drawn with `rng`), or `value` itself."""
    found = spellings(kind, value, **options)
    if kind == "money" and len(found) > 1:
        found = found[:1]  # the amount in major units is how people write money
    if len(found) > 1:
        return rng.choice(found)
    return found[0] if found else value  # one spelling: no draw, so a seed's other draws stay


__all__ = ["WRITERS", "spell", "spellings"]
