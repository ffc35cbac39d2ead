"""timezone: an IANA time zone ("Asia/Tokyo"), read from the ways people name a zone; sent back as
the zone's IANA name.

Read as it is: any name of the IANA database, links included ("Asia/Calcutta", "Japan", "UTC",
"CET"): the database's own names are the zone's name, whatever their age.

Read, each with a note: the name in another case or with spaces for its underscores ("asia/tokyo",
"America/New York"); the zone's city, the last part of its name, as people write it ("Tokyo",
"new york", "Sao Paulo" for São Paulo, a link's old name such as "Calcutta" as the zone it
links to), or as CLDR names it in the date kind's languages ("Praha", "Prag", "Tokio"); a country that keeps one time zone ("India", "Japan", "Česko", read by the country
kind); "Z", "GMT" and an offset of zero as UTC; and a whole-hour offset ("UTC+9", "+09:00") as the
fixed zone that keeps it (`Etc/GMT-9`: POSIX signs, the reverse of the offset's).

Asked, with the zones as readings: a country or a city that has several ("Australia", at most
`MAX_READINGS` of them, the rest named by count). Refused, saying what to send: anything else; an
abbreviation the database does not name ("PST", "JST") is a time on the clocks of several zones,
not a place, and no zone is guessed for it, as no zone is guessed for a near miss by characters.

Every reading is the same zone spelled another way: a city or a country names the zone the IANA
database keeps for it (`zone.tab` of the `tzdata` package: each zone's country and city; CLDR's
exemplar cities through babel), and nothing is resolved from the clock. A city no zone is named
after ("Mumbai", "Beijing") names the zone it keeps where it is a city of at least 100,000 people
(GeoNames' cities, `data/city_zones.tsv`), also as a zone's last part ("Asia/Mumbai", where the
area is the zone's); a name that such cities in several zones carry is asked (decision 0068).
"""

from __future__ import annotations

import datetime as dt
from collections import defaultdict
from functools import cache
from importlib import resources
from typing import Annotated, Any
from zoneinfo import available_timezones

from babel import Locale

from drivable.kinds import absence
from drivable.kinds._kind import Kind
from drivable.kinds._reading import Reading, shown
from drivable.kinds._registry import NOT_CANONICAL, Options, kind, read
from drivable.kinds._zone import offset_text, zone_of
from drivable.kinds.text_folding import bare, nfkc

EXPECTED = "an IANA time zone name, Area/City (e.g. Europe/Prague)"
MAX_READINGS = 8
MAX_CHARS = 64  # the longest name of the database is 32; what the schema says, refused over it
HINT = (
    "Send the IANA name of the zone the place keeps, Area/City, such as America/New_York "
    "(a city of 100,000 people or more is read as the zone it keeps)."
)
# The date kind's languages: CLDR's exemplar cities of each zone are read in these.
LANGUAGES = ("en", "cs", "de", "fr", "sk", "pl")


@cache
def _names() -> frozenset[str]:
    """Every name the IANA database has (zones and links)."""
    return frozenset(available_timezones())


@cache
def _by_folded() -> dict[str, str]:
    """Each name by its caseless form with spaces for underscores."""
    return {_fold(name): name for name in _names()}


@cache
def _tab() -> tuple[tuple[str, str], ...]:
    """(country code, zone) of every zone in zone.tab: the zones the database keeps for places."""
    text = (resources.files("tzdata.zoneinfo") / "zone.tab").read_text(encoding="utf-8")
    rows = []
    for line in text.splitlines():
        if line and not line.startswith("#"):
            parts = line.split("\t")
            if len(parts) >= 3:
                rows.append((parts[0], parts[2]))
    return tuple(rows)


@cache
def _placed() -> frozenset[str]:
    return frozenset(zone for _, zone in _tab())


@cache
def _links() -> dict[str, str]:
    """Each link of the database to its zone (tzdata.zi's `L zone link` lines)."""
    text = (resources.files("tzdata.zoneinfo") / "tzdata.zi").read_text(encoding="utf-8")
    links = {}
    for line in text.splitlines():
        if line.startswith("L "):
            _, target, link = line.split()[:3]
            links[link] = target
    return links


@cache
def _by_city() -> dict[str, tuple[str, ...]]:
    """The zones each city names: the last part of a zone's name or of a link's, and the zone's
    exemplar city in CLDR's names for the date kind's languages ("Praha", "Prag", "Tokio"),
    folded."""
    found: dict[str, set[str]] = defaultdict(set)
    placed = _placed()
    links = _links()
    for zone in placed:
        found[_city(zone)].add(zone)
    for link, zone in links.items():
        if zone in placed and "/" in link and not link.startswith("Etc/"):
            found[_city(link)].add(link)
    names = _names()
    for language in LANGUAGES:
        for name, said in Locale.parse(language).time_zones.items():
            city = said.get("city")
            if name in names and links.get(name, name) in placed and isinstance(city, str):
                found[_fold(city)].add(name)
    return {city: _one_name_each(city, named, links, placed) for city, named in found.items()}


def _one_name_each(
    city: str, names: set[str], links: dict[str, str], placed: frozenset[str]
) -> tuple[str, ...]:
    """One name for each zone among `names` (a link and its zone are one zone): the one named
    after `city` where there is one, else the one zone.tab keeps for a place."""
    zones: dict[str, list[str]] = defaultdict(list)
    for name in sorted(names):
        zones[links.get(name, name)].append(name)
    return tuple(
        next(
            (n for n in same if _city(n) == city),
            next((n for n in same if n in placed), same[0]),
        )
        for _, same in sorted(zones.items())
    )


@cache
def _by_place() -> dict[str, frozenset[str]]:
    """The zones the cities of at least 100,000 people keep, by the city's folded name."""
    text = (resources.files("drivable.kinds") / "data" / "city_zones.tsv").read_text("utf-8")
    found: dict[str, set[str]] = defaultdict(set)
    for line in text.splitlines():
        name, _, zone = line.partition("\t")
        if zone and not line.startswith("#") and zone in _names():
            found[_fold(name)].add(zone)
    return {city: frozenset(zones) for city, zones in found.items()}


def _places(text: str) -> set[str]:
    """The zones kept by the cities named `text`, or, for "Area/City", by the cities named City
    whose zone is in Area."""
    area, _, city = text.rpartition("/")
    zones = _by_place().get(_fold(city), frozenset())
    return {zone for zone in zones if not area or _fold(zone.split("/")[0]) == _fold(area)}


@cache
def _by_country() -> dict[str, tuple[str, ...]]:
    found: dict[str, list[str]] = defaultdict(list)
    for code, zone in _tab():
        found[code].append(zone)
    return {code: tuple(zones) for code, zones in found.items()}


def _fold(text: str) -> str:
    return " ".join(bare(text).replace("_", " ").split())


def _city(name: str) -> str:
    return _fold(name.rsplit("/", 1)[-1])


def _schema(options: Options) -> dict[str, Any]:
    return {"type": "string", "minLength": 1, "maxLength": MAX_CHARS}


def _canonical(value: Any, options: Options) -> Any:
    return value if type(value) is str and value in _names() else NOT_CANONICAL


@kind("timezone", schema=_schema, expected=EXPECTED, canonical=_canonical, max_chars=MAX_CHARS)
def read_timezone(value: Any, options: Options) -> Reading:
    if type(value) is str and value in _names():
        return Reading.of(value)
    if not isinstance(value, str):
        return _invalid(value, f"Send the zone's name as a JSON string. {HINT}")
    text = nfkc(value).strip()
    if text in _names():
        return Reading.repaired(value, text)
    folded = _fold(text)
    if not folded:
        return absence.reading_for(value, options.intent, EXPECTED)
    if folded in _by_folded():
        return Reading.repaired(value, _by_folded()[folded])
    # an offset, written as the time kinds read one after a time ("Z", "+09:00", "UTC+9")
    written = zone_of("".join(text.split()))
    if written is not None and written.fixed is not None:
        return _fixed(value, written.fixed)
    # a city and a country may share a name ("Samoa": Pacific/Samoa is American Samoa's)
    zones = _one_name_each(
        folded, {*_by_city().get(folded, ()), *_country_zones(text)}, _links(), _placed()
    )
    if not zones:  # a city no zone is named after: the zone it keeps, where it is a large one
        zones = _one_name_each(_city(text), _places(text), _links(), _placed())
    if not zones:
        return _invalid(value, f"{shown(value)} names no time zone. {HINT}")
    if len(zones) == 1:
        return Reading.repaired(value, zones[0])
    more = len(zones) - MAX_READINGS
    rest = f" ({more} more: name the city)" if more > 0 else ""
    return Reading.ask(
        value,
        expected=EXPECTED,
        hint=f"{shown(value)} has {len(zones)} time zones{rest}; ask the user which place is meant.",
        readings=zones[:MAX_READINGS],
        code="ambiguous_timezone",
    )


def _country_zones(text: str) -> tuple[str, ...]:
    if len(text) < 4:  # a code ("US", "IST") is no country here: CET, EST are names above
        return ()
    reading = read("country", text)
    if reading.outcome != "value":
        return ()
    return _by_country().get(str(reading.value), ())


def _fixed(value: Any, offset: dt.timedelta) -> Reading:
    hours, rest = divmod(offset, dt.timedelta(hours=1))
    if rest:
        return _invalid(
            value,
            f"{shown(value)} is an offset no IANA zone name keeps (whole hours only, up to 14). "
            + HINT,
        )
    if hours == 0:
        return Reading.repaired(value, "UTC")
    # POSIX signs: Etc/GMT-9 is nine hours ahead of UTC
    name = f"Etc/GMT{'-' if hours > 0 else '+'}{abs(hours)}"
    if name not in _names():
        return _invalid(value, f"{shown(value)} is an offset no IANA zone name keeps. {HINT}")
    return Reading.repaired(value, name, f"{name} is UTC{offset_text(offset)} all year.")


def _invalid(received: Any, hint: str) -> Reading:
    return Reading.invalid(received, expected=EXPECTED, hint=hint, code="invalid_timezone")


TimeZone = Annotated[str, Kind("timezone")]
"""An IANA time zone name, read from a city, a country with one zone, an offset or another case."""

__all__ = ["EXPECTED", "TimeZone", "read_timezone"]
