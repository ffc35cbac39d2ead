"""writing: the inverse of the kinds, values spelled the way people and training data write them.

`spell(kind, value, rng)` returns one spelling of a canonical value ("4 000" for 4000, "ano" for
true, "1. 10. 2026" for 2026-10-01, "cs_CZ" for cs-CZ, "42.00 GBP" for 4200 pence, "2pm" for
14:00, "9-11" for 09:00/11:00, "jana@FIRMA.CZ" for jana@firma.cz) that the kind
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


def _read_value(kind: str, value: Any, options: dict[str, Any]) -> Any:
    """The canonical value written, read through its kind (None when it reads as none)."""
    reading = read(kind, value, **options)
    return reading.value if reading.outcome == "value" else None


def _time(value: Any, options: dict[str, Any]) -> list[Any]:
    t = _read_value("time", value, options)
    if not isinstance(t, _dt.time) or t.tzinfo is not None or t.second or t.microsecond:
        return []
    if t == _dt.time.max:
        return []  # 24:00, the end of a day, has no other spelling
    h, m = t.hour, t.minute
    twelve, half = h % 12 or 12, "am" if h < 12 else "pm"
    found = [f"{h}:{m:02d}", f"{h}.{m:02d}", f"{h:02d}{m:02d}"]
    if m == 0:
        found += [f"{twelve}{half}", f"{twelve} {half.upper()}", f"{h}h", f"{h} Uhr"]
        found += {0: ["midnight", "12 am"], 12: ["noon", "12 pm"]}.get(h, [])
    else:
        found += [f"{twelve}:{m:02d} {half.upper()}", f"{twelve}:{m:02d}{half}", f"{h}h{m:02d}"]
    return found


def _time_range(value: Any, options: dict[str, Any]) -> list[Any]:
    span = _read_value("time_range", value, options)
    start, end = getattr(span, "start", None), getattr(span, "end", None)
    if not isinstance(start, _dt.time) or not isinstance(end, _dt.time) or start.tzinfo:
        return []
    if end == _dt.time.max or start.second or end.second or start.microsecond or end.microsecond:
        return []
    a, b = f"{start.hour}:{start.minute:02d}", f"{end.hour}:{end.minute:02d}"
    found = [
        f"{a}-{b}",
        f"{a} – {b}",
        f"from {a} to {b}",
        f"{start.hour}h{start.minute:02d}-{end.hour}h{end.minute:02d}",
    ]
    if not (start.minute or end.minute):
        found += [f"{start.hour}-{end.hour}", f"{start.hour}h-{end.hour}h"]
        if (start.hour < 12) == (end.hour < 12) and start.hour % 12 and end.hour % 12:
            half = "am" if end.hour < 12 else "pm"
            found.append(f"{start.hour % 12} to {end.hour % 12}{half}")
    return found


def _datetime(value: Any, options: dict[str, Any]) -> list[Any]:
    moment = _read_value("datetime", value, options)
    if not isinstance(moment, _dt.datetime) or moment.second or moment.microsecond:
        return []
    offset = moment.isoformat()[19:]
    hm = f"{moment.hour}:{moment.minute:02d}"
    found = [
        f"{moment.day}. {moment.month}. {moment.year} {hm} {offset}",
        f"{moment.date().isoformat()} {hm} {'UTC' if offset == '+00:00' else offset}",
        f"{moment.date().isoformat()}T{moment.hour:02d}:{moment.minute:02d}{'Z' if offset == '+00:00' else offset}",
    ]
    return found


def _email(value: Any, options: dict[str, Any]) -> list[Any]:
    address = _read_value("email", value, options)
    if not isinstance(address, str) or "@" not in address:
        return []
    local, _, domain = address.rpartition("@")
    return [f" {address} ", f"<{address}>", f"{local}@{domain.upper()}", f"mailto:{address}"]


WRITERS: dict[str, _Writer] = {
    "integer": _number,
    "number": _number,
    "boolean": _boolean,
    "date": _date,
    "locale": _locale,
    "money": _money,
    "time": _time,
    "time_range": _time_range,
    "datetime": _datetime,
    "email": _email,
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
