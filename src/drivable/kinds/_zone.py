"""Time zones for the kinds that carry one (time, time_range, datetime): which offsets a zone
written after a time can mean.

A zone is written as an offset ("+02:00", "-0530", "Z", "UTC+2"), an IANA name ("Europe/Prague",
read through case), or an abbreviation CLDR gives a metazone in English, Czech, German, French,
Slovak or Polish ("CET", "MESZ", "EST", "IST"), written in capitals. `offsets_at(zone, wall)` is
what it means at a wall time of one day; `offsets_any_day(zone)` what it means on a time of day
with no day. Each offset comes with the words that say which reading it is, so an ask can name
them.

What an abbreviation means comes from CLDR: a standard name (EST) is the metazone's standard
offset, a daylight name (CEST) its summer offset, and a generic name (CET, MEZ, ET: CLDR lists CET
as both the standard and the generic name of Central European time) the local time of the
metazone that day, which in summer is its second offset. "14:00 CET" on 1 October is therefore
+01:00 as written or +02:00 as the local time: two meanings, asked. "IST" is India's standard
time and Ireland's summer time: two meanings on every day.
"""

from __future__ import annotations

import datetime as _dt
import re
from collections import Counter
from dataclasses import dataclass
from functools import cache, lru_cache
from typing import NamedTuple
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError, available_timezones

_UTC = _dt.timedelta(0)

# The locales whose CLDR abbreviations are read: the date kind's languages and every English one.
_LANGUAGES = ("en", "cs", "de", "fr", "sk", "pl")

# An offset ("+02:00", "-0530", "+2"); UTC and GMT may carry one ("UTC+2", "GMT-05:30").
_OFFSET = re.compile(r"^([+\-\u2212])(\d{1,2})(?::?(\d{2}))?$")
_UTC_NAMED = re.compile(r"^(?:UTC|GMT|UT)(?:\s*([+\-\u2212]\d{1,2}(?::?\d{2})?))?$", re.IGNORECASE)
_TRAILING_OFFSET = re.compile(r"(?<=\d)([+\-\u2212]\d{1,2}(?::?\d{2})?|[Zz])$")
# An offset written onto a time follows an ISO time (two-digit hour: "09:00+02:00", "0900Z"), so
# that "9:00-11:00" stays a range; after a space it follows any time with minutes ("9:00 +02:00").
_ISO_TIME_END = re.compile(r"(?:^|\D)\d\d(?::?\d\d){1,2}(?:[.,]\d+)?$")
_WITH_MINUTES = re.compile(r"\d[:.h]\d\d|\d{4}")
_IANA = re.compile(r"^[A-Za-z][A-Za-z0-9_+\-]*(?:/[A-Za-z0-9_+\-]+)+$")


class Offset(NamedTuple):
    """One offset a zone can mean, and the words that say when: "CET as Central European
    Standard Time", "the local time of Central Europe that day"."""

    offset: _dt.timedelta
    why: str


@dataclass(frozen=True)
class Zone:
    """A zone as written after a time: a fixed offset, an IANA zone, or a CLDR abbreviation."""

    written: str
    fixed: _dt.timedelta | None = None
    iana: str | None = None
    # (metazone, "standard" | "daylight" | "generic") pairs an abbreviation names.
    names: tuple[tuple[str, str], ...] = ()


def offset_text(offset: _dt.timedelta) -> str:
    """ "+02:00", "-05:30", "+00:00": an offset as RFC 3339 writes it."""
    minutes = int(offset.total_seconds()) // 60
    sign = "-" if minutes < 0 else "+"
    return f"{sign}{abs(minutes) // 60:02d}:{abs(minutes) % 60:02d}"


def _fixed(sign: str, hours: str, minutes: str | None) -> _dt.timedelta | None:
    h, m = int(hours), int(minutes or 0)
    if h > 14 or m > 59:  # no zone of the world is further from UTC than 14 hours
        return None
    offset = _dt.timedelta(hours=h, minutes=m)
    return -offset if sign in "-\u2212" else offset


@lru_cache(maxsize=2048)  # a few spellings ("UTC", "CET", "+02:00") carry most zones
def zone_of(text: str) -> Zone | None:
    """The zone `text` names by itself ("CET", "+02:00", "Europe/Prague", "UTC+2"), or None."""
    if text in ("Z", "z"):
        return Zone(text, fixed=_UTC)
    if m := _OFFSET.match(text):
        fixed = _fixed(m[1], m[2], m[3])
        return None if fixed is None else Zone(text, fixed=fixed)
    if m := _UTC_NAMED.match(text):
        if m[1] is None:
            return Zone(text, fixed=_UTC)
        inner = _OFFSET.match(m[1].replace(" ", ""))
        fixed = None if inner is None else _fixed(inner[1], inner[2], inner[3])
        return None if fixed is None else Zone(text, fixed=fixed)
    if _IANA.match(text):
        name = _iana_names().get(text.casefold())
        return None if name is None else Zone(text, iana=name)
    if text.isascii() and text.isalpha() and text.isupper():
        names = _abbreviations().get(text)
        if names:
            return Zone(text, names=names)
    return None


def split_zone(text: str) -> tuple[str, Zone | None]:
    """`text` without the zone written at its end, and that zone (None when it names none).

    An offset or Z written onto a time follows an ISO time ("14:00+02:00", "0900Z"); a name
    ("CET", "Europe/Prague", "UTC+2", "UTC +2") or an offset after a space follows any time with
    minutes. Text that ends in a word naming no zone comes back whole, for the time kind to
    refuse.
    """
    if (m := _TRAILING_OFFSET.search(text)) and _ISO_TIME_END.search(text[: m.start()]):
        zone = zone_of(m[1])
        if zone is not None:
            return text[: m.start()], zone
    parts = text.rsplit(None, 1)
    if len(parts) == 2:
        before, word = parts
        if word[0] in "+-\u2212":
            name = before.rsplit(None, 1)
            if len(name) == 2 and _UTC_NAMED.match(name[1]):  # "UTC +2"
                before, word = name[0], name[1] + word
            elif not _WITH_MINUTES.search(before):
                return text, None
        zone = zone_of(word)
        if zone is not None:
            return before, zone
    return text, None


# -- what a zone means -----------------------------------------------------------------------


def offsets_at(zone: Zone, wall: _dt.datetime) -> list[Offset]:
    """The offsets `zone` can mean at the naive wall time `wall`, each once, earliest instant
    first; [] when the wall time does not exist there (the hour skipped in spring)."""
    if zone.fixed is not None:
        return _fixed_offsets(zone)
    if zone.iana is not None:
        return _local(zone.iana, wall, zone.iana)
    found: list[Offset] = []
    for metazone, kind in zone.names:
        lo, hi = _metazone_offsets(metazone, wall.year)
        if kind == "standard":
            found.append(Offset(lo, f"{zone.written} as {_long_name(metazone, 'standard')}"))
        elif kind == "daylight":
            found.append(Offset(hi, f"{zone.written} as {_long_name(metazone, 'daylight')}"))
        else:
            where = _long_name(metazone, "generic")
            found += _local(_representative(metazone, wall.year), wall, f"the local {where}")
    return _distinct(found)


def offsets_any_day(zone: Zone, year: int) -> list[Offset]:
    """The offsets `zone` can mean on a time of day with no day (in `year`'s rules)."""
    if zone.fixed is not None:
        return _fixed_offsets(zone)
    if zone.iana is not None:
        lo, hi = _year_offsets(zone.iana, year)
        return _distinct(
            [
                Offset(lo, f"{zone.iana} in winter"),
                Offset(hi, f"{zone.iana} in summer"),
            ]
            if lo != hi
            else [Offset(lo, f"{zone.iana} is UTC{offset_text(lo)}")]
        )
    found: list[Offset] = []
    for metazone, kind in zone.names:
        lo, hi = _metazone_offsets(metazone, year)
        if kind in ("standard", "generic"):
            found.append(Offset(lo, f"{zone.written} as {_long_name(metazone, 'standard')}"))
        if kind in ("daylight", "generic") and (kind == "daylight" or hi != lo):
            found.append(Offset(hi, f"{zone.written} as {_long_name(metazone, 'daylight')}"))
    return _distinct(found)


@lru_cache(maxsize=1024)
def _fixed_offsets(zone: Zone) -> list[Offset]:
    assert zone.fixed is not None
    return [Offset(zone.fixed, f"{zone.written} is UTC{offset_text(zone.fixed)}")]


def _distinct(found: list[Offset]) -> list[Offset]:
    seen: dict[_dt.timedelta, Offset] = {}
    for item in found:
        seen.setdefault(item.offset, item)
    return list(seen.values())


def _local(name: str, wall: _dt.datetime, what: str) -> list[Offset]:
    """The offsets of IANA zone `name` at `wall`: one, two in the hour repeated in autumn (both
    asked), none in the hour skipped in spring."""
    zone = ZoneInfo(name)
    first = wall.replace(tzinfo=zone, fold=0)
    second = wall.replace(tzinfo=zone, fold=1)
    a, b = first.utcoffset(), second.utcoffset()
    assert a is not None and b is not None
    if a == b:
        return [Offset(a, f"{what} is UTC{offset_text(a)} that day")]
    # A wall time that does not survive a round trip through UTC was skipped.
    if first.astimezone(_dt.UTC).astimezone(zone).replace(tzinfo=None) != wall:
        return []
    return [
        Offset(a, f"{what} before the clocks go back that night, UTC{offset_text(a)}"),
        Offset(b, f"{what} after the clocks go back that night, UTC{offset_text(b)}"),
    ]


def _year_offsets(name: str, year: int) -> tuple[_dt.timedelta, _dt.timedelta]:
    """The least and the greatest offset IANA zone `name` keeps in `year` (winter, summer)."""
    return _year_offsets_cached(name, max(1, min(year, 9998)))


@cache
def _year_offsets_cached(name: str, year: int) -> tuple[_dt.timedelta, _dt.timedelta]:
    zone = ZoneInfo(name)
    seen = set()
    for month in range(1, 13):
        for day in (1, 15):
            offset = _dt.datetime(year, month, day, 12, tzinfo=zone).utcoffset()
            if offset is not None:
                seen.add(offset)
    return (min(seen), max(seen)) if seen else (_UTC, _UTC)


@cache
def _metazone_zones() -> dict[str, tuple[str, ...]]:
    from babel.core import get_global

    known = _iana_names()
    zones: dict[str, list[str]] = {}
    for name, metazone in get_global("meta_zones").items():
        if name.casefold() in known:
            zones.setdefault(metazone, []).append(name)
    return {k: tuple(sorted(v)) for k, v in zones.items()}


@cache
def _metazone_pattern(metazone: str, year: int) -> tuple[str, tuple[_dt.timedelta, _dt.timedelta]]:
    """The zone that stands for `metazone` in `year`, and its winter and summer offsets: the
    first of its zones keeping the offsets most of them keep (Algiers is in Central European
    time but keeps no summer time; Prague and Paris do)."""
    zones = _metazone_zones().get(metazone, ())
    patterns = {z: _year_offsets(z, year) for z in zones}
    if not patterns:
        return "UTC", (_UTC, _UTC)
    common = Counter(patterns.values()).most_common(1)[0][0]
    return next(z for z in zones if patterns[z] == common), common


def _metazone_offsets(metazone: str, year: int) -> tuple[_dt.timedelta, _dt.timedelta]:
    return _metazone_pattern(metazone, max(1, min(year, 9998)))[1]


def _representative(metazone: str, year: int) -> str:
    return _metazone_pattern(metazone, max(1, min(year, 9998)))[0]


@cache
def _long_name(metazone: str, kind: str) -> str:
    """CLDR's English name of a metazone's standard, daylight or generic time."""
    from babel import Locale

    names = Locale.parse("en").meta_zones.get(metazone, {}).get("long", {})
    if kind == "generic":
        generic = names.get("generic") or metazone.replace("_", " ") + " Time"
        return f"time of the {generic.removesuffix(' Time')} zone"
    return str(names.get(kind) or f"{metazone.replace('_', ' ')} {kind} time")


@cache
def _abbreviations() -> dict[str, tuple[tuple[str, str], ...]]:
    """Every capitalised abbreviation CLDR writes for a metazone in the read languages -> the
    (metazone, standard/daylight/generic) pairs it names there."""
    from babel import Locale, localedata

    found: dict[str, set[tuple[str, str]]] = {}
    for identifier in localedata.locale_identifiers():
        if identifier.split("_")[0] not in _LANGUAGES:
            continue
        for metazone, names in Locale.parse(identifier).meta_zones.items():
            for kind, name in (names.get("short") or {}).items():
                if (
                    kind in ("standard", "daylight", "generic")
                    and name.isascii()
                    and name.isalpha()
                    and name.isupper()
                    and name not in ("UTC", "GMT")
                ):
                    found.setdefault(name, set()).add((metazone, kind))
    # the name as written (standard, daylight) before the local time it may also name (generic)
    return {k: tuple(sorted(v, key=lambda n: (n[1] == "generic", n))) for k, v in found.items()}


@cache
def _iana_names() -> dict[str, str]:
    """IANA zone names by their case-folded spelling ("europe/prague" -> "Europe/Prague")."""
    names: dict[str, str] = {}
    for name in available_timezones():
        try:
            ZoneInfo(name)
        except (ZoneInfoNotFoundError, ValueError, OSError):  # pragma: no cover - broken tzdata
            continue
        names[name.casefold()] = name
    return names


__all__ = [
    "Offset",
    "Zone",
    "offset_text",
    "offsets_any_day",
    "offsets_at",
    "split_zone",
    "zone_of",
]
