"""money: an amount in integer minor units of a currency (cents for EUR, yen for JPY, fils for KWD).

Every spelling of an amount has one reader here, and the readings decide together which one an
ambiguous amount is; the currencies (codes, exponents, symbols) and the writing of an amount are in
`_currencies`.

The field knows its currency (`currency="GBP"`), only its minor-unit exponent (`exponent=2`), or
learns the currency later from data (`currency_from="invoice"`: the reading is settled by the
handler with `settle(value, currency)` once it has read the invoice). Exponents come from CLDR
through babel (`get_currency_precision`), symbols from the CLDR locales of the territories that use
each currency, never from a hand-written table.

Read without asking (each with a note naming both units):
  a JSON integer or plain digits: minor units, as the field says ("4200");
  grouped digits: minor units ("4 200", "4,200" is the number kind's question, see below);
  a currency code or symbol with an amount in major units: "12.50 EUR", "EUR 12.50", "$42",
  "42 Kč", "€1.234,50", "42,- Kč" (a currency marker always means major units);
  a decimal whose one meaning fits the field: "42.50" in a 2-decimal currency is 4250 (42.50 minor
  units is not a whole number of minor units).
Asked about, naming every reading left: a decimal that fits both as minor and as major units,
  "42.00" -> 4200 (42.00 GBP) or 42 (0.42 GBP); readings the field's bounds refuse are dropped
  first, and if one is left it is the value, with a note.
Refused: a currency other than the field's (naming both), more decimals than the currency has
  ("42.505 EUR"), amounts outside the bounds, and anything the number kind cannot read. No hint
  suggests an amount of the wrong magnitude: every amount a hint names is in the field's minor units.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from decimal import Decimal
from functools import cache
from typing import Annotated, Any

from babel.core import get_global

from drivable.kinds._currencies import (
    both_units,
    codes,
    currencies_of,
    exponent_of,
    in_major,
    major,
    symbols,
)
from drivable.kinds._kind import Kind
from drivable.kinds._reading import Deferred, Reading, shown
from drivable.kinds._registry import KINDS, Options, kind, read_with
from drivable.kinds.number import bounds_text, canonical, canonical_value, parse_decimal
from drivable.kinds.text_folding import nfkc

EXPECTED = "a JSON integer of minor units (cents), such as 4200 for 42.00"

# The marks "42,-" and "42.–" write a whole amount of money; only prices are spelled so.
_WHOLE_SUFFIX = re.compile(r"^[.,]\s*[-\u2012\u2013\u2014]")
_HUGE = Decimal(10) ** 30  # no amount of money has more digits; bounds the integer built
_MINUS_HUGE = -_HUGE
_SIGNS = "+-\u2212\u2012\u2013"
# What comes before the first digit, the digits and marks up to the last digit, what follows.
_SPLIT = re.compile(r"(\D*)(\d(?:.*\d)?)(\D*)", re.DOTALL)


def _schema(options: Options) -> dict[str, Any]:
    schema: dict[str, Any] = {"type": "integer"}
    if options.minimum is not None:
        schema["minimum"] = options.minimum
    if options.maximum is not None:
        schema["maximum"] = options.maximum
    return schema


# -- reading ----------------------------------------------------------------------------------


# What a money spelling says before its currency is known: its numbers (one, or the two readings
# of "1,234"), the currencies a code or symbol names (None when none was written), the marker.
Spelled = tuple[tuple[Decimal, ...], frozenset[str] | None, str]


@dataclass(frozen=True)
class Pending(Deferred):
    """An amount read before its currency is known; `settle(value, currency)` finishes it."""

    received: Any
    options: Options


def settle(value: int | Pending, currency: str) -> Reading:
    """Finish an amount read with `currency_from`: the reading in `currency`'s minor units."""
    if isinstance(value, Pending):
        extra = {**value.options.extra, "currency": currency}
        reading = read_with(KINDS["money"], value.received, value.options.with_(extra=extra))
        if reading.outcome == "value":
            value.settle_as(reading.value)
        return reading
    return Reading.of(value)


def _spelled(text: str) -> Spelled | str:
    """Split a spelling into its number and its currency marker; a string says what is wrong."""
    split = _SPLIT.fullmatch(nfkc(text).strip())
    if split is None:
        return "it has no digits"
    head, body, tail = split.groups()
    whole = False
    if tail:
        tail = tail.strip()
        if tail[:1] in ".," and tail and _WHOLE_SUFFIX.match(tail):
            whole = True
            tail = _WHOLE_SUFFIX.sub("", tail).strip()
    negative = False
    if head:
        head = head.strip()
        if head and (head[0] in _SIGNS or head[-1] in _SIGNS):  # most heads are a symbol only
            for _ in range(2):  # a sign before or after the symbol: "-$42", "$-42", "- 42 €"
                if head[:1] in _SIGNS and head:
                    negative ^= head[0] != "+"
                    head = head[1:].strip()
                if head[-1:] in _SIGNS and head:
                    negative ^= head[-1] != "+"
                    head = head[:-1].strip()
        if head.endswith((".", ",")):  # ".5 EUR", ",50 €": a leading decimal mark
            body = head[-1] + body
            head = head[:-1].strip()
    named: frozenset[str] | None = None
    if head:
        named = currencies_of(head)
        if not named:
            return f"{shown(head)} names no currency"
    if tail:
        found = currencies_of(tail)
        if not found:
            return f"{shown(tail)} names no currency"
        named = found if named is None else named & found
        if not named:
            return "it names two different currencies"
    parsed = parse_decimal("-" + body if negative else body)
    if parsed.readings is not None:
        numbers: tuple[Decimal, ...] = parsed.readings
    elif parsed.value is not None:
        numbers = (parsed.value,)
    else:
        return parsed.problem or "not a number"
    if whole:
        numbers = tuple(n for n in numbers if n == n.to_integral_value())
        if not numbers:
            return "a whole-amount mark after a fraction"
        if named is None:
            named = frozenset()  # "42,-" is a price: major units, currency still the field's
    return numbers, named, f"{head} {tail}" if head and tail else head or tail


def _field_currency(options: Options) -> tuple[str | None, int | None]:
    """The field's currency and its exponent (or the exponent alone), derived once per field."""
    return options.derived("money.currency", _declared_currency)


def _declared_currency(options: Options) -> tuple[str | None, int | None]:
    currency = options.extra.get("currency")
    exponent = options.extra.get("exponent")
    if isinstance(currency, str):
        currency = currency.upper()
        return currency, exponent_of(currency)
    return None, exponent if isinstance(exponent, int) else None


def _where(options: Options) -> str:
    source = options.extra.get("currency_from")
    return f"the {source}'s currency" if source else "the field's currency"


@kind("money", schema=_schema, expected=EXPECTED, canonical=canonical_value)
def read_money(value: Any, options: Options) -> Reading:
    if type(value) is str and not value.isdigit():  # the spellings this kind is for, first
        spelled = _spelled(value)
        if isinstance(spelled, str):
            return _unreadable(value, spelled)
        numbers, named, marker = spelled
        return _decide(value, numbers, named, options, marker)
    fast = canonical(value, options)  # digits alone, or a JSON integer, within the bounds
    if fast is not None:
        return fast
    if isinstance(value, bool) or not isinstance(value, (int, float, str)):
        return Reading.invalid(
            type(value).__name__ if not isinstance(value, bool) else value,
            expected=EXPECTED,
            hint="Send the amount as a JSON integer of minor units, such as 4200 for 42.00.",
            code="invalid_money",
        )
    if isinstance(value, int):
        return _decide(value, (Decimal(value),), None, options)
    if isinstance(value, float):
        if not math.isfinite(value):
            return _unreadable(value, "it is not a finite number")
        if value == int(value):
            return _decide(value, (Decimal(int(value)),), None, options)
        return _decide(value, (Decimal(repr(value)),), None, options)
    spelled = _spelled(value)
    if isinstance(spelled, str):
        return _unreadable(value, spelled)
    numbers, named, marker = spelled
    return _decide(value, numbers, named, options, marker)


def _decide(
    received: Any,
    numbers: tuple[Decimal, ...],
    named: frozenset[str] | None,
    options: Options,
    marker: str = "",
) -> Reading:
    currency, exponent = _field_currency(options)
    if named and currency is not None and currency not in named:
        return _mismatch(received, named, currency, options, marker)
    # Whether each number was written with decimals, asked once: a marker means major units anyway.
    fractions = None if named is not None else [_has_fraction(n) for n in numbers]
    needs_exponent = fractions is None or True in fractions
    if currency is None and needs_exponent and options.extra.get("currency_from"):
        # The currency comes from data the handler reads (the invoice): checked there.
        return Reading.of(Pending(received, options))
    if exponent is None and named and len({exponent_of(c) for c in named}) == 1:
        # A field that does not declare its currency takes the one the spelling names.
        currency = next(iter(named)) if len(named) == 1 else None
        exponent = exponent_of(next(iter(named)))
    if exponent is None and needs_exponent:
        # Neither the field nor the spelling says how many decimals the currency has: each
        # exponent the currencies named (or, with none named, any currency) have is a reading.
        exponents = _exponents_of(named) if named else common_exponents()
        return _unknown_exponent(received, numbers, named is not None, exponents, options)
    # Every meaning the spelling can have, in minor units: (minor, how it was read).
    exponent = exponent or 0
    readings: list[tuple[int, str]] = []
    for i, n in enumerate(numbers):
        if fractions is None:  # a currency marker: major units
            _add(readings, n.scaleb(exponent), "major")
        elif fractions[i]:
            _add(readings, n.scaleb(exponent), "major")
            _add(readings, n, "minor")
        else:
            _add(readings, n, "digits")
    if not readings:
        return _too_precise(received, numbers, currency, exponent)
    fitting = readings
    if options.bounded:
        low, high = options.minimum, options.maximum
        fitting = [
            r for r in readings if (low is None or r[0] >= low) and (high is None or r[0] <= high)
        ]
    if not fitting:
        low, high = options.minimum, options.maximum
        bounds = bounds_text(low, high)
        amounts = " or ".join(str(r[0]) for r in readings)
        return Reading.invalid(
            received,
            expected=f"minor units {bounds}",
            hint=f"{shown(received)} reads as {amounts} minor units, out of range; send an "
            f"integer of minor units {bounds}.",
            code="out_of_range",
        )
    if len(fitting) == 1:
        minor, how = fitting[0]
        if type(received) is int:
            return Reading.of(minor)
        return Reading.of(minor, _note(received, minor, how, currency, exponent, marker))
    meanings: list[str] = []
    minors: list[int] = []
    for m, how in fitting:
        meanings.append(_meaning(m, how, currency, exponent))
        minors.append(m)
    return Reading.ask(
        received,
        expected=EXPECTED,
        hint=f"{shown(received)} could be {' or '.join(meanings)}. Send the amount in minor "
        f"units as a JSON integer: {' or '.join(map(str, minors))}.",
        readings=tuple(minors),
        code="ambiguous_amount",
    )


@cache
def common_exponents() -> tuple[int, ...]:
    """The minor-unit exponents of the currencies in use, the most common first: (2, 0, 3)."""
    counts: dict[int, int] = {}
    for entries in get_global("territory_currencies").values():
        for code, _start, end, tender in entries:
            if end is None and tender:
                counts[exponent_of(code)] = counts.get(exponent_of(code), 0) + 1
    return tuple(sorted(counts, key=lambda e: (-counts[e], e)))


def _exponents_of(named: frozenset[str]) -> tuple[int, ...]:
    order = common_exponents()
    found = {exponent_of(c) for c in named}
    return tuple(sorted(found, key=lambda e: (order.index(e) if e in order else len(order), e)))


def _decimals(exponent: int) -> str:
    return "without decimals" if exponent == 0 else f"with {exponent} decimals"


def _unknown_exponent(
    received: Any,
    numbers: tuple[Decimal, ...],
    marked: bool,
    exponents: tuple[int, ...],
    options: Options,
) -> Reading:
    """Ask with a reading per exponent (and, with no currency marker, the amount as minor units
    as written), dropping those the field's bounds refuse; one left is the value, with a note."""
    readings: list[tuple[int, str]] = []
    meanings: dict[int, list[str]] = {}

    def meaning(n: Decimal, how: str, text: Any) -> None:
        got: list[tuple[int, str]] = []
        _add(got, n, how)
        for minor, _ in got:
            if minor not in meanings:
                readings.append((minor, how))
            meanings.setdefault(minor, []).append(text(minor))

    for n in numbers:
        for exponent in exponents:
            meaning(
                n.scaleb(exponent),
                "major",
                lambda m, e=exponent: f"{in_major(m, None, e)} in a currency {_decimals(e)}",
            )
        if not marked:
            meaning(n, "minor", lambda m: f"{m} minor units")
    if len(readings) < 2:
        # One exponent or none makes a whole amount: reading it would guess the currency.
        return _needs_currency(received, options)
    low, high = options.minimum, options.maximum
    fitting = [m for m, _ in readings if (low is None or m >= low) and (high is None or m <= high)]
    if not fitting:
        bounds = bounds_text(low, high)
        amounts = " or ".join(str(m) for m, _ in readings)
        return Reading.invalid(
            received,
            expected=f"minor units {bounds}",
            hint=f"{shown(received)} reads as {amounts} minor units, out of range; send an "
            f"integer of minor units {bounds}.",
            code="out_of_range",
        )
    if len(fitting) == 1:
        (minor,) = fitting
        return Reading.of(
            minor, f"Read {shown(received)} as {minor} ({' or '.join(meanings[minor])})."
        )
    hint = " or ".join(f"{m} ({', or '.join(meanings[m])})" for m in fitting)
    return Reading.ask(
        received,
        expected=EXPECTED,
        hint=f"{shown(received)} could be {hint}: {_where(options)} is not known here. Send the "
        f"amount in minor units as a JSON integer: {' or '.join(str(m) for m in fitting)}.",
        readings=tuple(fitting),
        code="ambiguous_amount",
    )


def _has_fraction(n: Decimal) -> bool:
    """Whether `n` was written with decimals ("42.00", not "42" or "1e3"): its exponent is
    negative exactly when rounding it to an integer changes its exponent (a third of the cost
    of `as_tuple`, which copies every digit)."""
    return not n.same_quantum(n.to_integral_value())


def _add(readings: list[tuple[int, str]], n: Decimal, how: str) -> None:
    """Add `n` as a reading if it is a whole number of minor units not read already.
    (`to_integral_value` is exact, never rounded to the context's precision.)"""
    if not _MINUS_HUGE < n < _HUGE or n != n.to_integral_value():
        return
    minor = int(n)
    for m, _ in readings:
        if m == minor:
            return
    readings.append((minor, how))


def _meaning(minor: int, how: str, currency: str | None, exponent: int) -> str:
    """One reading as an ask names it: "4200 (42.00 GBP, the amount in major units)"."""
    amount = in_major(minor, currency, exponent)
    if how == "major":
        return f"{minor} ({amount}, the amount in major units)"
    return f"{minor} ({minor} minor units, {amount})"


def _note(
    received: Any, minor: int, how: str, currency: str | None, exponent: int, marker: str
) -> str:
    if how == "digits" and not marker:  # grouped digits: minor units as sent ("4 000")
        return f"Read {shown(received)} as {minor}."
    return f"Read {shown(received)} as {minor} minor units ({in_major(minor, currency, exponent)})."


@cache
def _english() -> dict[str, str]:
    from babel import Locale

    return {
        code: nfkc(symbol).casefold()
        for code, symbol in Locale.parse("en").currency_symbols.items()
    }


def _named(named: frozenset[str], marker: str) -> str:
    """The currencies a marker names, the one English writes so first: "USD, ARS, AUD and 20 more"."""
    folded = nfkc(marker).strip().casefold()
    order = sorted(named, key=lambda c: (_english().get(c) != folded, c))
    if len(order) <= 4:
        return ", ".join(order)
    return f"{', '.join(order[:3])} and {len(order) - 3} more"


def _mismatch(
    received: Any, named: frozenset[str], currency: str, options: Options, marker: str
) -> Reading:
    them = _named(named, marker)
    return Reading.invalid(
        received,
        expected=f"an amount in {currency}",
        hint=(
            f"{shown(received)} is in {them}, but {_where(options)} is {currency}. Send the "
            f"amount in {currency} minor units as a JSON integer (no conversion is made)."
        ),
        code="currency_mismatch",
    )


def _needs_currency(received: Any, options: Options) -> Reading:
    return Reading.invalid(
        received,
        expected=EXPECTED,
        hint=(
            f"{shown(received)} needs {_where(options)} to be read, and this field does not say "
            "which it is. Send the amount as a JSON integer of minor units: for 42.00 in a "
            "currency with cents, 4200."
        ),
        code="invalid_money",
    )


def _too_precise(
    received: Any, numbers: tuple[Decimal, ...], currency: str | None, exponent: int
) -> Reading:
    which = currency or "this currency"
    return Reading.invalid(
        received,
        expected=EXPECTED,
        hint=(
            f"{shown(received)} has more decimals than {which} has ({exponent}); send the amount "
            "as a JSON integer of minor units."
        ),
        code="invalid_money",
    )


def _unreadable(received: Any, problem: str) -> Reading:
    return Reading.invalid(
        received,
        expected=EXPECTED,
        hint=(
            f"{shown(received)} is not an amount ({problem}); send a JSON integer of minor units, "
            "such as 4200 for 42.00."
        ),
        code="invalid_money",
    )


Money = Annotated[int, Kind("money")]
"""Minor units; declare the currency with `Kind("money", currency="EUR")` or `exponent=2`."""

__all__ = [
    "EXPECTED",
    "Money",
    "Pending",
    "both_units",
    "codes",
    "common_exponents",
    "currencies_of",
    "exponent_of",
    "major",
    "read_money",
    "settle",
    "symbols",
]
