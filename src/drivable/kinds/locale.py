"""locale: a BCP 47 language tag ("cs-CZ", "en", "de-AT"), read from the spellings models use.

POSIX locale names ("cs_CZ.UTF-8", "cs_CZ@euro", "sr_RS@latin"), any case ("CS-cz"), deprecated
codes ("iw" -> "he") and language names in the languages our users write ("Czech", "čeština",
"Deutsch", "British English") read as the canonical tag with a note. "C" and "POSIX" name no
language: absence on a read, a question on a write. Tags are checked against the IANA registry
through langcodes; names come from CLDR through babel.
"""

from __future__ import annotations

import re
from functools import cache
from typing import Annotated, Any

import langcodes
from babel import Locale as CldrLocale
from babel.localedata import locale_identifiers

from drivable.kinds import absence
from drivable.kinds._kind import Kind
from drivable.kinds._reading import Reading, shown
from drivable.kinds._registry import Options, kind
from drivable.kinds.text_folding import nfkc, words

EXPECTED = "a BCP 47 language tag, e.g. cs-CZ or en"
PATTERN = (
    r"^[a-z]{2,3}(-[A-Z][a-z]{3})?(-([A-Z]{2}|[0-9]{3}))?(-([a-z0-9]{5,8}|[0-9][a-z0-9]{3}))*"
    r"(-[a-wyz0-9](-[a-z0-9]{2,8})+)*(-x(-[a-z0-9]{1,8})+)?$"
)
# Languages whose names of languages we read (CLDR data, through babel).
NAME_LOCALES = ("en", "cs", "sk", "de", "fr", "pl", "es", "it", "nl", "pt", "hu", "ru", "uk")
_NO_LANGUAGE = frozenset({"c", "posix", "c.utf-8", "c.utf8"})
# POSIX "@modifier" suffixes that name a script or a variant; others (@euro) carry no language.
_MODIFIERS = {"latin": "Latn", "cyrillic": "Cyrl", "valencia": "valencia", "devanagari": "Deva"}
_POSIX = re.compile(
    r"^(?P<tag>[A-Za-z]{2,3}(?:[_-][A-Za-z0-9]{2,8})*)"
    r"(?:\.(?P<codeset>[A-Za-z0-9_-]+))?(?:@(?P<modifier>[A-Za-z0-9]+))?$"
)


def _schema(options: Options) -> dict[str, Any]:
    return {
        "type": "string",
        "pattern": PATTERN,
        "description": "A BCP 47 language tag: language, optionally -Script and -REGION.",
        "examples": ["cs-CZ", "en"],
    }


@cache
def _names() -> dict[str, frozenset[str]]:
    """Folded language name -> the tags it may name."""
    index: dict[str, set[str]] = {}
    for display in NAME_LOCALES:
        for code, name in CldrLocale.parse(display).languages.items():
            try:
                tag = langcodes.standardize_tag(code.replace("_", "-"))
            except (ValueError, langcodes.tag_parser.LanguageTagError):
                continue
            index.setdefault(words(name), set()).add(tag)
    return {k: frozenset(v) for k, v in index.items()}


@cache
def _standard(tag: str) -> str | None:
    """The canonical form of a well-formed, registered tag, or None."""
    try:
        standard: str = langcodes.standardize_tag(tag)
    except (ValueError, langcodes.tag_parser.LanguageTagError):
        return None
    if not langcodes.tag_is_valid(standard) and standard.casefold() not in _cldr_locales():
        return None
    return standard


@cache
def _cldr_locales() -> frozenset[str]:
    """Locales CLDR has data for: newer than the registry langcodes ships for some ("isv")."""
    return frozenset(i.replace("_", "-").casefold() for i in locale_identifiers())


@kind("locale", schema=_schema, expected=EXPECTED)
def read_locale(value: Any, options: Options) -> Reading:
    if not isinstance(value, str):
        return _invalid(value, "Send the locale as a JSON string, e.g. cs-CZ.")
    # Fast path: the canonical spelling.
    if _standard(value) == value:
        return Reading.of(value)
    text = nfkc(value).strip()
    if text.casefold() in _NO_LANGUAGE:
        return absence.reading_for(value, options.intent, EXPECTED)
    notes: list[str] = []
    if posix := _POSIX.match(text):
        tag = posix["tag"].replace("_", "-")
        modifier = (posix["modifier"] or "").lower()
        if modifier in _MODIFIERS:
            parts = tag.split("-")
            extra = _MODIFIERS[modifier]
            tag = "-".join([parts[0], extra, *parts[1:]] if len(extra) == 4 else [*parts, extra])
        elif modifier:
            notes.append(f"Dropped '@{posix['modifier']}': it names no language.")
        standard = _standard(tag)
        if standard is not None:
            return Reading.repaired(value, standard, *notes)
    found = _names().get(words(text))
    if found and len(found) == 1:
        return Reading.repaired(value, next(iter(found)))
    if found:
        readings = sorted(found)
        return Reading.ask(
            value,
            expected=EXPECTED,
            hint=f"{shown(value)} may name {', '.join(readings)}. Send the tag you mean.",
            readings=readings,
            code="ambiguous_locale",
        )
    return _invalid(
        value, f"{shown(value)} is not a registered language tag. Send e.g. cs-CZ, en or de-AT."
    )


def _invalid(received: Any, hint: str) -> Reading:
    return Reading.invalid(received, expected=EXPECTED, hint=hint, code="invalid_locale")


Locale = Annotated[str, Kind("locale")]
"""A BCP 47 language tag ("cs-CZ"), read from POSIX names, any case and deprecated tags."""

__all__ = ["EXPECTED", "PATTERN", "Locale", "read_locale"]
