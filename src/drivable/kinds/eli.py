"""eli: a European Legislation Identifier, sent back as its canonical URI.

Canonical forms:
- Czech law (Sbírka zákonů): ``https://eli.gov.cz/eli/cz/sb/<year>/<number>``,
  e.g. ``https://eli.gov.cz/eli/cz/sb/2012/89`` for zákon č. 89/2012 Sb.
- EU law (Official Journal): ``http://data.europa.eu/eli/<type>/<year>/<number>/oj`` with
  type ``reg``, ``dir``, ``dec`` (and ``reg_impl``, ``reg_del``, ``dir_impl``, ``dir_del``,
  ``dec_impl``, ``dec_del``), e.g. ``http://data.europa.eu/eli/reg/2016/679/oj`` for the GDPR.
  (The EU ELI scheme is http; an https spelling is read as the same identifier.)
Further path segments of a URI (a version date, a language) are kept as sent.

Read with a note: a missing or different scheme or host, "eli/cz/sb/2012/89", "89/2012 Sb.",
"zákon č. 89/2012 Sb.", "Sb. 89/2012", "Regulation (EU) 2016/679", "Directive 2010/24/EU",
"Regulation (EC) No 45/2001", CELEX numbers ("32016R0679"). An EU act named without its type
("(EU) 2016/679") is asked about with its readings: the number alone does not say which.
"""

from __future__ import annotations

import re
from typing import Annotated, Any

from drivable.kinds._kind import Kind
from drivable.kinds._reading import Reading, shown
from drivable.kinds._registry import Options, kind
from drivable.kinds.text_folding import nfkc

CZ_BASE = "https://eli.gov.cz/eli/cz/sb"
EU_BASE = "http://data.europa.eu/eli"
EXAMPLE_CZ = f"{CZ_BASE}/2012/89"
EXAMPLE_EU = f"{EU_BASE}/reg/2016/679/oj"
EXPECTED = f"an ELI URI, e.g. {EXAMPLE_CZ} or {EXAMPLE_EU}"
PATTERN = (
    r"^(https://eli\.gov\.cz/eli/cz/sb/[0-9]{4}/[1-9][0-9]*"
    r"|http://data\.europa\.eu/eli/[a-z]{3}(_[a-z]{3,4})?/[0-9]{4}/[1-9][0-9]*/oj)"
    r"(/[A-Za-z0-9._-]+)*$"
)

EU_TYPES = (
    "reg",
    "dir",
    "dec",
    "reg_impl",
    "reg_del",
    "dir_impl",
    "dir_del",
    "dec_impl",
    "dec_del",
)
# Words naming an EU act's type, in the languages our users write.
_EU_TYPE_WORDS: tuple[tuple[str, str], ...] = (
    (
        r"implementing regulation|prov[aá]d[eě]c[ií] na[rř][ií]zen[ií]|durchf[uü]hrungsverordnung",
        "reg_impl",
    ),
    (
        r"delegated regulation|na[rř][ií]zen[ií] v p[rř]enesen[eé] pravomoci|delegierte verordnung",
        "reg_del",
    ),
    (r"implementing directive|prov[aá]d[eě]c[ií] sm[eě]rnice", "dir_impl"),
    (r"delegated directive", "dir_del"),
    (
        r"implementing decision|prov[aá]d[eě]c[ií] rozhodnut[ií]|durchf[uü]hrungsbeschluss",
        "dec_impl",
    ),
    (r"delegated decision", "dec_del"),
    (r"regulation|na[rř][ií]zen[ií]|verordnung|r[eè]glement|rozporz[aą]dzenie", "reg"),
    (r"directive|sm[eě]rnice|richtlinie|dyrektywa", "dir"),
    (r"decision|rozhodnut[ií]|beschluss|d[eé]cision|decyzja", "dec"),
)
_EU_TYPE = re.compile("|".join(f"(?P<{t}>{words})" for words, t in _EU_TYPE_WORDS))
_CELEX_TYPES = {"R": "reg", "L": "dir", "D": "dec"}

_URI = re.compile(
    r"^(?:[a-z]+://)?(?:www\.)?(?:[a-z0-9.-]+\.[a-z]{2,})?/?eli/(?P<path>[a-z0-9/._-]+?)/?$",
    re.IGNORECASE,
)
_CZ_PATH = re.compile(r"^cz/sb/(?P<year>\d{4})/(?P<number>\d+)(?P<rest>(?:/[a-z0-9._-]+)*)$", re.I)
_EU_PATH = re.compile(
    r"^(?P<type>[a-z]{3}(?:_[a-z]{3,4})?)/(?P<year>\d{4})/(?P<number>\d+)(?P<rest>(?:/[a-z0-9._-]+)*)$",
    re.I,
)
# "89/2012 Sb.", "č. 89/2012 Sb.", "Sb. 89/2012", "zákon 89/2012" (Czech acts are number/year).
_CZ_CITATION = re.compile(
    r"(?:^|\s|č\.?\s*)(?P<number>\d{1,4})\s*/\s*(?P<year>\d{4})(?:\s*sb\.?)?(?=$|[\s,;])", re.I
)
_CZ_SB_FIRST = re.compile(
    r"\bsb\.?\s*(?:č\.?\s*)?(?P<number>\d{1,4})\s*/\s*(?P<year>\d{4})\b", re.I
)
_CZ_MARKS = re.compile(
    r"\bsb\b|sbírk|sbirk|zákon|zakon|vyhlášk|vyhlask|nařízení vlády|narizeni vlady|sdělení|sdeleni",
    re.I,
)
# "(EU) 2016/679", "(EU) No 1025/2012", "2010/24/EU", "(EC) No 45/2001".
_EU_NEW = re.compile(
    r"\((?:eu|eu,\s*euratom)\)\s*(?:no\.?|č\.?|nr\.?)?\s*(?P<year>\d{4})/(?P<number>\d{1,5})\b",
    re.I,
)
_EU_OLD = re.compile(
    r"\((?:eu|ec|eec|ehs|es|ewg|eg|ce|cee)\)\s*(?:no\.?|č\.?|nr\.?)?\s*(?P<number>\d{1,5})/(?P<year>\d{2}|\d{4})\b",
    re.I,
)
_EU_SUFFIX = re.compile(
    r"\b(?P<year>\d{2}|\d{4})/(?P<number>\d{1,5})/(?:eu|ec|eec|ehs|es|ewg|eg|ce|cee)\b", re.I
)
_CELEX = re.compile(r"^(?:celex[:\s]*)?3(?P<year>\d{4})(?P<type>[RLD])(?P<number>\d{4})$", re.I)


def _schema(options: Options) -> dict[str, Any]:
    return {
        "type": "string",
        "pattern": PATTERN,
        "description": (
            "A European Legislation Identifier URI: Czech law as "
            f"{CZ_BASE}/<year>/<number>, EU law as {EU_BASE}/<type>/<year>/<number>/oj."
        ),
        "examples": [EXAMPLE_CZ, EXAMPLE_EU],
    }


@kind("eli", schema=_schema, expected=EXPECTED)
def read_eli(value: Any, options: Options) -> Reading:
    if not isinstance(value, str):
        return _invalid(value)
    text = nfkc(value).strip().strip("\"'<>").strip()
    if uri := _URI.match(text):
        return _from_path(value, uri.group("path"))
    if celex := _CELEX.match(text.replace(" ", "")):
        return _eu(value, _CELEX_TYPES[celex["type"].upper()], celex["year"], celex["number"], "")
    return _from_citation(value, text)


def _from_path(received: str, path: str) -> Reading:
    if m := _CZ_PATH.match(path):
        return _cz(received, m["year"], m["number"], m["rest"])
    if (m := _EU_PATH.match(path)) and m["type"].lower() in EU_TYPES:
        rest = m["rest"]
        if rest.lower().startswith("/oj"):
            rest = rest[3:]
        return _eu(received, m["type"].lower(), m["year"], m["number"], rest)
    return _invalid(received)


def _from_citation(received: str, text: str) -> Reading:
    for pattern in (_EU_NEW, _EU_SUFFIX, _EU_OLD):
        if m := pattern.search(text):
            year = _full_year(m["year"])
            if year is None:
                return _invalid(received)
            eu_type = _eu_type(text)
            if eu_type is None:
                readings = [_eu_uri(t, year, m["number"], "") for t in ("reg", "dir", "dec")]
                return Reading.ask(
                    received,
                    expected=EXPECTED,
                    hint=(
                        f"{shown(received)} does not say whether the act is a regulation, a "
                        "directive or a decision. Send its ELI, or name its type "
                        f"(e.g. 'Regulation (EU) {year}/{int(m['number'])}')."
                    ),
                    readings=readings,
                    code="ambiguous_eli",
                )
            return _eu(received, eu_type, year, m["number"], "")
    if _CZ_MARKS.search(text):
        if m := _CZ_CITATION.search(text):
            return _cz(received, m["year"], m["number"], "")
        if m := _CZ_SB_FIRST.search(text):
            return _cz(received, m["year"], m["number"], "")
    return _invalid(received)


def _eu_type(text: str) -> str | None:
    """The act type the words name ("Implementing Regulation" -> reg_impl), or None."""
    found = _EU_TYPE.search(text.casefold())
    return found.lastgroup if found is not None else None


def _full_year(year: str) -> str | None:
    """Acts before 1999 were cited with two-digit years (Directive 95/46/EC)."""
    if len(year) == 4:
        return year
    number = int(year)
    return f"19{year}" if number >= 50 else None


def _cz(received: str, year: str, number: str, rest: str) -> Reading:
    if int(number) == 0:
        return _invalid(received)
    return Reading.repaired(received, f"{CZ_BASE}/{year}/{int(number)}{rest}")


def _eu(received: str, act_type: str, year: str, number: str, rest: str) -> Reading:
    if int(number) == 0:
        return _invalid(received)
    return Reading.repaired(received, _eu_uri(act_type, year, number, rest))


def _eu_uri(act_type: str, year: str, number: str, rest: str) -> str:
    return f"{EU_BASE}/{act_type}/{year}/{int(number)}/oj{rest}"


def _invalid(received: Any) -> Reading:
    return Reading.invalid(
        received,
        expected=EXPECTED,
        hint=(
            f"Send an ELI URI: Czech law as {EXAMPLE_CZ} (zákon č. 89/2012 Sb.), "
            f"EU law as {EXAMPLE_EU} (Regulation (EU) 2016/679)."
        ),
        code="invalid_eli",
    )


Eli = Annotated[str, Kind("eli")]

__all__ = ["CZ_BASE", "EU_BASE", "EU_TYPES", "EXPECTED", "PATTERN", "Eli", "read_eli"]
