"""country: an ISO 3166-1 alpha-2 code ("CZ"), read from codes, names and common aliases.

Codes (alpha-2, alpha-3, numeric), English names (pycountry's name, official and common names),
names in the languages our users write (CLDR territory names through babel: "Česko",
"Deutschland", "Österreich", "Slovensko", "Polska", ...) and a few aliases models use ("UK",
"Holland", "EL") read as the alpha-2 code with a note. A name two countries share is asked about.

ISO 3166's reserved codes and the well-known codes of other systems have a known meaning and are
read by it (docs/kinds.md, "Countries"): one that names a country (UK, EL) or a part of one (IC,
the Canary Islands, is in ES) reads as that country with a note; one that names a group (EU, EZ,
the former SU) is no country. A field that takes groups (`Kind("country", groups=True)`) reads it
as a `CountryGroup`, the code itself with its name and members, for the handler to act on; any
other field refuses it naming the group's members. A spelling that names nothing is refused and
no country is guessed for it: a near miss by characters is another country.
"""

from __future__ import annotations

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

EXPECTED = "an ISO 3166-1 alpha-2 country code (two letters, such as the user's country's)"
# Languages whose country names we read (CLDR data, through babel).
NAME_LOCALES = ("en", "cs", "sk", "de", "fr", "pl", "es", "it", "nl", "pt", "hu")
# Spellings neither ISO nor CLDR lists, but models send; and ISO 3166's reserved codes (and the
# codes other systems use) that name one country, or a part of one, whose country is meant.
ALIASES: dict[str, str] = {
    "great britain": "GB",
    "britain": "GB",
    "england": "GB",
    "scotland": "GB",
    "wales": "GB",
    "northern ireland": "GB",
    "holland": "NL",
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
# ISO 3166's reserved codes, and codes other systems use, that name one country or a part of one:
# (the country meant, what the code names), said in the note that reads it.
RESERVED: dict[str, tuple[str, str]] = {
    "uk": ("GB", "the United Kingdom"),  # exceptionally reserved
    "el": ("GR", "Greece, in the EU's codes"),
    "fx": ("FR", "metropolitan France"),
    "cp": ("FR", "Clipperton Island, part of France"),
    "ea": ("ES", "Ceuta and Melilla, part of Spain"),
    "ic": ("ES", "the Canary Islands, part of Spain"),
    "ac": ("SH", "Ascension Island, part of Saint Helena, Ascension and Tristan da Cunha"),
    "ta": ("SH", "Tristan da Cunha, part of Saint Helena, Ascension and Tristan da Cunha"),
    "dg": ("IO", "Diego Garcia, in the British Indian Ocean Territory"),
    "bu": ("MM", "Burma, now Myanmar"),  # transitionally reserved
    "zr": ("CD", "Zaire, now the Democratic Republic of the Congo"),
    "tp": ("TL", "East Timor, now Timor-Leste"),
    "dd": ("DE", "the former German Democratic Republic, now part of Germany"),
    "yd": ("YE", "the former Democratic Yemen, now part of Yemen"),
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
    for alias, (code, _) in RESERVED.items():
        index[alias] = {code}
    for code in codes:  # a code means its own country, whatever a name elsewhere folds to
        index[code.casefold()] = {code}
    return {k: frozenset(v) for k, v in index.items()}


class CountryGroup(str):
    """A code that names a group of countries, not one ("EU"): the code itself, as the field's
    value, with the group's name and its members (alpha-2 codes; none listed for the UN)."""

    name: str
    members: tuple[str, ...]

    def __new__(cls, code: str, name: str, members: tuple[str, ...] = ()) -> CountryGroup:
        group = super().__new__(cls, code)
        group.name, group.members = name, members
        return group

    def code_said(self) -> str:
        return str.__str__(self)


_EU = ("AT", "BE", "BG", "CY", "CZ", "DE", "DK", "EE", "ES", "FI", "FR", "GR", "HR", "HU", "IE",
       "IT", "LT", "LU", "LV", "MT", "NL", "PL", "PT", "RO", "SE", "SI", "SK")  # fmt: skip
# The euro area as of 2026-01-01 (Bulgaria joined then).
_EURO = ("AT", "BE", "BG", "CY", "DE", "EE", "ES", "FI", "FR", "GR", "HR", "IE", "IT", "LT", "LU",
         "LV", "MT", "NL", "PT", "SI", "SK")  # fmt: skip
_USSR = ("AM", "AZ", "BY", "EE", "GE", "KG", "KZ", "LT", "LV", "MD", "RU", "TJ", "TM", "UA",
         "UZ")  # fmt: skip
GROUPS: dict[str, CountryGroup] = {
    g: g
    for g in (
        CountryGroup("EU", "the European Union", _EU),
        CountryGroup("EZ", "the euro area", _EURO),
        CountryGroup("UN", "the United Nations"),
        # transitionally reserved: a former country, now several
        CountryGroup("SU", "the former Soviet Union", _USSR),
        CountryGroup("YU", "the former Yugoslavia", ("BA", "HR", "ME", "MK", "RS", "SI")),
        CountryGroup("AN", "the former Netherlands Antilles", ("BQ", "CW", "SX")),
    )
}
_GROUP_NAMES: dict[str, str] = {
    **{code.casefold(): code for code in GROUPS},
    "european union": "EU",
    "eurozone": "EZ",
    "euro zone": "EZ",
    "euro area": "EZ",
    "united nations": "UN",
    "soviet union": "SU",
    "ussr": "SU",
    "yugoslavia": "YU",
    "netherlands antilles": "AN",
}


def group_of(value: Any) -> CountryGroup | None:
    """The group of countries `value` names ("EU", "European Union"), if it names one."""
    if not isinstance(value, str):
        return None
    return GROUPS.get(_GROUP_NAMES.get(_fold(value), ""))


def _group(value: Any, group: CountryGroup, options: Options) -> Reading:
    """A group read as itself where the field takes groups, else refused naming its members."""
    members = f" ({len(group.members)}: {', '.join(group.members)})" if group.members else ""
    what = f"{group.name}, a group of countries{members}, not one country"
    if options.extra.get("groups"):
        return Reading.of(group, f"Read {shown(value)} as {group.code_said()}: {what}.")
    return _invalid(value, f"{shown(value)} is {what}. Send the code of the one country meant.")


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
        return _invalid(value, "Send the country as a JSON string: its code or its name.")
    folded = _fold(value_text)
    found = _index().get(folded)
    group = None if found else GROUPS.get(_GROUP_NAMES.get(folded, ""))
    if group is not None:
        return _group(value, group, options)
    found = found or _containing(folded)
    if found is not None and len(found) == 1:
        code = next(iter(found))
        reserved = RESERVED.get(folded)
        if reserved is not None and value_text.strip() != code:
            return Reading.of(code, f"Read {shown(value)} ({reserved[1]}) as {code}.")
        return Reading.repaired(value, code)
    if found:
        readings = sorted(found)
        return Reading.ask(
            value,
            expected=EXPECTED,
            hint=f"{shown(value)} may name {_named(readings)}. Send the code of the one you mean.",
            readings=readings,
            code="ambiguous_country",
        )
    return _invalid(
        value,
        f"{shown(value)} names no country: send the country's ISO 3166-1 alpha-2 code or its name.",
    )


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


def _named(codes: list[str]) -> str:
    parts = []
    for code in codes:
        country = pycountry.countries.get(alpha_2=code)
        parts.append(f"{code} ({country.name})" if country else code)
    return ", ".join(parts[:-1]) + (" or " if len(parts) > 1 else "") + parts[-1]


def _invalid(received: Any, hint: str) -> Reading:
    return Reading.invalid(received, expected=EXPECTED, hint=hint, code="invalid_country")


Country = Annotated[str, Kind("country")]
"""A country as its ISO 3166-1 alpha-2 code ("CZ"), read from codes, names and common aliases."""

__all__ = [
    "ALIASES",
    "EXPECTED",
    "GROUPS",
    "NAME_LOCALES",
    "RESERVED",
    "Country",
    "CountryGroup",
    "group_of",
    "read_country",
]
