"""country: an ISO 3166-1 alpha-2 code ("CZ"), read from codes, names and common aliases.

Codes (alpha-2, alpha-3, numeric), English names (pycountry's name, official and common names),
names in the languages our users write (CLDR territory names through babel: "Česko",
"Deutschland", "Österreich", "Slovensko", "Polska", ...) and a few aliases models use ("UK",
"Holland", "EL") read as the alpha-2 code with a note. A name two countries share is asked about;
a near miss is refused, naming the closest countries.
"""

from __future__ import annotations

import difflib
import re
from functools import cache
from typing import Annotated, Any

import pycountry
from babel import Locale

from drivable.kinds import absence
from drivable.kinds._kind import Kind
from drivable.kinds._reading import Reading, shown
from drivable.kinds._registry import Options, kind
from drivable.kinds.text_folding import words

EXPECTED = "an ISO 3166-1 alpha-2 country code, e.g. CZ"
# Languages whose country names we read (CLDR data, through babel).
NAME_LOCALES = ("en", "cs", "sk", "de", "fr", "pl", "es", "it", "nl", "pt", "hu")
# Spellings neither ISO nor CLDR lists, but models send.
ALIASES: dict[str, str] = {
    "uk": "GB",
    "great britain": "GB",
    "britain": "GB",
    "england": "GB",
    "scotland": "GB",
    "wales": "GB",
    "northern ireland": "GB",
    "holland": "NL",
    "el": "GR",  # the EU's code for Greece
    "usa": "US",
    "america": "US",
    "czech republic": "CZ",
    "ceska republika": "CZ",
    "cr": "CZ",
    "slovak republic": "SK",
    "slovenska republika": "SK",
    "ivory coast": "CI",
    "turkey": "TR",
    "russia": "RU",
    "south korea": "KR",
    "north korea": "KP",
    "vatican": "VA",
}


def _schema(options: Options) -> dict[str, Any]:
    return {
        "type": "string",
        "pattern": "^[A-Z]{2}$",
        "description": "An ISO 3166-1 alpha-2 country code (uppercase).",
        "examples": ["CZ"],
    }


_QUALIFIED = re.compile(r"\s[-\u2013\u2014]\s|\s\(")


def _fold(text: str) -> str:
    return " ".join(w for w in words(text).split() if w != "the")


@cache
def _codes() -> frozenset[str]:
    return frozenset(c.alpha_2 for c in pycountry.countries)


@cache
def _index() -> dict[str, frozenset[str]]:
    """Folded code or name -> the alpha-2 codes it may name."""
    index: dict[str, set[str]] = {}

    def add(name: str, code: str) -> None:
        folded = _fold(name)
        if folded:
            index.setdefault(folded, set()).add(code)

    codes = _codes()
    for country in pycountry.countries:
        code = country.alpha_2
        add(country.alpha_3, code)
        add(country.numeric, code)
        add(str(int(country.numeric)), code)
        for attribute in ("name", "official_name", "common_name"):
            name = getattr(country, attribute, None)
            if name:
                add(name, code)
                if ", " in name:  # "Korea, Republic of" -> "Republic of Korea"
                    head, _, tail = name.partition(", ")
                    add(f"{tail} {head}", code)
    shared: dict[str, set[str]] = {}
    for locale in NAME_LOCALES:
        for code, name in Locale.parse(locale).territories.items():
            if code in codes:
                add(name, code)
                head = _QUALIFIED.split(name)
                if len(head) > 1:
                    shared.setdefault(_fold(head[0]), set()).add(code)
    # CLDR tells countries that share a name apart by a qualifier ("Congo - Brazzaville", "Congo -
    # Kinshasa"): the bare shared name ("Congo", "Kongo") names all of them, never the one ISO
    # happens to call so.
    for name, sharing in shared.items():
        if len(sharing) > 1:
            index[name] = set(sharing)
    for alias, code in ALIASES.items():
        index[_fold(alias)] = {code}
    for code in codes:  # a code means its own country, whatever a name elsewhere folds to
        index[code.casefold()] = {code}
    return {k: frozenset(v) for k, v in index.items()}


# An uppercase code is a country even where it spells a placeholder ("NIC" is Nicaragua, "nic"
# is Czech for "nothing"), so this reader runs the shared placeholder check itself.
@kind("country", schema=_schema, expected=EXPECTED, handles_placeholders=True)
def read_country(value: Any, options: Options) -> Reading:
    # Fast path: the canonical spelling.
    if type(value) is str and len(value) == 2 and value in _codes():
        return Reading.of(value)
    if isinstance(value, str) and absence.is_absent(value) and not _a_code(value.strip()):
        return absence.reading_for(value, options.intent, EXPECTED)
    if isinstance(value, int) and not isinstance(value, bool):
        value_text = f"{value:03d}"
    elif isinstance(value, str):
        value_text = value
    else:
        return _invalid(value, "Send the country as a JSON string, e.g. CZ.")
    folded = _fold(value_text)
    found = _index().get(folded) or _containing(folded)
    if found is not None and len(found) == 1:
        return Reading.repaired(value, next(iter(found)))
    if found:
        readings = sorted(found)
        return Reading.ask(
            value,
            expected=EXPECTED,
            hint=f"{shown(value)} may name {_named(readings)}. Send the code of the one you mean.",
            readings=readings,
            code="ambiguous_country",
        )
    near = _near(folded)
    hint = f"{shown(value)} names no country."
    if near:
        hint += f" Closest: {_named(near)}."
    return _invalid(value, hint + " Send an ISO 3166-1 alpha-2 code, e.g. CZ.")


# Words too common in country names to identify one ("Republic", "Islands").
_GENERIC = frozenset(
    {"republic", "islands", "island", "united", "kingdom", "states", "state", "democratic",
     "people", "peoples", "federal", "federation", "of", "and", "saint", "new", "south", "north",
     "east", "west", "central", "guinea", "republika", "ostrovy"}
)  # fmt: skip
_MOST_CANDIDATES = 4


def _containing(folded: str) -> frozenset[str] | None:
    """Countries one of whose names has every word given ("Korea" -> KP, KR), when few do."""
    words = set(folded.split())
    if not words or all(w in _GENERIC or len(w) < 4 for w in words):
        return None
    codes: set[str] = set()
    for name, found in _index().items():
        if len(name) > 3 and words <= set(name.split()):
            codes.update(found)
    return frozenset(codes) if 0 < len(codes) <= _MOST_CANDIDATES else None


def _a_code(text: str) -> bool:
    return text.isalpha() and text.isupper() and text.casefold() in _index()


def _near(folded: str) -> list[str]:
    if len(folded) < 3:
        return []
    index = _index()
    names = [k for k in index if len(k) > 3]
    codes: list[str] = []
    for name in difflib.get_close_matches(folded, names, n=6, cutoff=0.75):
        for code in sorted(index[name]):
            if code not in codes:
                codes.append(code)
    return codes[:3]


def _named(codes: list[str]) -> str:
    parts = []
    for code in codes:
        country = pycountry.countries.get(alpha_2=code)
        parts.append(f"{code} ({country.name})" if country else code)
    return ", ".join(parts[:-1]) + (" or " if len(parts) > 1 else "") + parts[-1]


def _invalid(received: Any, hint: str) -> Reading:
    return Reading.invalid(received, expected=EXPECTED, hint=hint, code="invalid_country")


Country = Annotated[str, Kind("country")]

__all__ = ["ALIASES", "EXPECTED", "NAME_LOCALES", "Country", "read_country"]
