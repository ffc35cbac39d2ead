"""The money kind's currencies, from CLDR through babel, never a hand-written table: the codes,
each one's minor-unit exponent and symbols, the currencies a symbol names; and the writing of an
amount in major units (the inverse of the reader)."""

from __future__ import annotations

from functools import cache, lru_cache

from babel.core import get_global
from babel.languages import get_official_languages
from babel.localedata import locale_identifiers
from babel.numbers import get_currency_precision, list_currencies

from drivable.kinds.text_folding import nfkc

# -- currency data (CLDR through babel) -------------------------------------------------------


@cache
def codes() -> frozenset[str]:
    """Every ISO 4217 code CLDR knows."""
    return frozenset(list_currencies())


@cache
def exponent_of(currency: str) -> int:
    """The minor-unit exponent of an ISO 4217 currency: 2 for EUR, 0 for JPY, 3 for KWD."""
    return int(get_currency_precision(currency))


@cache
def symbols() -> dict[str, frozenset[str]]:
    """Symbol (NFKC, casefolded) -> the currencies written with it where they are legal tender.

    Built once, on the first amount spelled with a symbol: the symbol of each current currency in
    each official-language locale of each territory that uses it, plus English ("$": USD, CAD,
    AUD, ...; "Kč": CZK; "¥": JPY, CNY).
    """
    from babel import Locale

    available = set(locale_identifiers())
    index: dict[str, set[str]] = {}

    def add(symbol: str, code: str) -> None:
        folded = nfkc(symbol).strip().casefold()
        if folded and folded.upper() != code.upper() and not any(c.isdigit() for c in folded):
            index.setdefault(folded, set()).add(code)

    for code, symbol in Locale.parse("en").currency_symbols.items():
        add(symbol, code)
    for territory, entries in get_global("territory_currencies").items():
        current = [c for c, _start, end, tender in entries if end is None and tender]
        if not current:
            continue
        for language in get_official_languages(territory, de_facto=True):
            name = f"{language}_{territory}"
            if name not in available:
                continue
            names = Locale.parse(name).currency_symbols
            for code in current:
                if code in names:
                    add(names[code], code)
    return {s: frozenset(c) for s, c in index.items()}


@lru_cache(maxsize=1024)
def currencies_of(marker: str) -> frozenset[str]:
    """The currencies a marker names: an ISO code ("eur"), or a symbol ("€", "Kč", "$").

    Cached: a handful of markers ("EUR", "$", "Kč") spell nearly every amount, and the answer
    depends on the marker alone (the CLDR data is fixed once loaded).
    """
    folded = nfkc(marker).strip().casefold()
    if len(folded) == 3 and folded.upper() in codes():
        return frozenset({folded.upper()})
    found = symbols().get(folded)
    if found is None and folded.endswith("."):
        found = symbols().get(folded[:-1])
    return found or frozenset()


# -- writing (the inverse of the reader) ------------------------------------------------------


def major(minor: int, currency: str) -> str:
    """(4200, "GBP") -> "42.00 GBP": the amount in major units, a dot, the ISO code after it."""
    return in_major(minor, currency, exponent_of(currency))


def in_major(minor: int, currency: str | None, exponent: int) -> str:
    """As `major`, with the currency's exponent known; with no currency, the amount alone:
    (4200, None, 2) -> "42.00", (5, None, 3) -> "0.005". (The decimal mark is put into the
    digits: half the cost of `divmod` and a nested format.)"""
    if exponent:
        digits = str(abs(minor)).zfill(exponent + 1)
        amount = f"{'-' if minor < 0 else ''}{digits[:-exponent]}.{digits[-exponent:]}"
    else:
        amount = str(minor)
    return amount if currency is None else f"{amount} {currency}"


def both_units(minor: int, currency: str) -> str:
    """(4200, "GBP") -> "42.00 GBP (4200 minor units)": what a preview shows."""
    return f"{major(minor, currency)} ({minor} minor units)"
