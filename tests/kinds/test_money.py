"""money: every unambiguous spelling reads to its minor units (exponents 0, 2 and 3), every
ambiguous one asks with all its readings, another currency is refused naming both, nothing raises."""

from __future__ import annotations

import json
from decimal import Decimal
from typing import Any

import pytest
from hypothesis import assume, example, given, settings
from hypothesis import strategies as st

from drivable.kinds import read
from drivable.kinds._currencies import in_major
from drivable.kinds._registry import KINDS, make_options, read_with
from drivable.kinds.money import (
    Pending,
    _add,
    _declared_currency,
    _field_currency,
    _has_fraction,
    currencies_of,
    exponent_of,
    settle,
)

OUTCOMES = {"value", "absent", "ask", "invalid"}
# Currencies with 0, 2 and 3 decimals, and the symbols their users write (from CLDR via babel).
SYMBOLS = {"JPY": "¥", "EUR": "€", "GBP": "£", "CZK": "Kč", "USD": "$", "KWD": None, "BHD": None}
CURRENCIES = sorted(SYMBOLS)


def test_exponents_come_from_cldr() -> None:
    assert [exponent_of(c) for c in ("JPY", "EUR", "GBP", "KWD", "BHD")] == [0, 2, 2, 3, 3]


def grouped(whole: int, mark: str) -> str:
    digits = str(whole)
    head = len(digits) % 3 or 3
    return mark.join([digits[:head]] + [digits[i : i + 3] for i in range(head, len(digits), 3)])


@st.composite
def major_spellings(draw: st.DrawFn) -> tuple[str, str, int]:
    """(currency, a spelling in major units naming it, the minor units it means)."""
    currency = draw(st.sampled_from(CURRENCIES))
    e = exponent_of(currency)
    whole = draw(st.integers(0, 10**9))
    fraction = draw(st.integers(0, 10**e - 1)) if e else 0
    decimal = draw(st.sampled_from([".", ","]))
    group = draw(
        st.sampled_from(["", " ", "\u00a0", "\u202f", "'", "," if decimal == "." else "."])
    )
    if group in ".," and e == 0:
        group = " "  # with no decimal part, one mark alone is the number kind's question
    body = grouped(whole, group) if whole >= 1000 else str(whole)
    if e:
        body += decimal + str(fraction).zfill(e)
    # One to three digits, then one mark and exactly three: grouping or decimals (asked below).
    assume(not (e == 3 and whole and whole < 1000))
    symbol = SYMBOLS[currency]
    markers = [currency, currency.lower()] + ([symbol] if symbol else [])
    marker = draw(st.sampled_from(markers))
    space = draw(st.sampled_from(["", " "]))
    spelling = f"{marker}{space}{body}" if draw(st.booleans()) else f"{body}{space}{marker}"
    return currency, spelling, whole * 10**e + fraction


@settings(max_examples=400)  # seven currencies x markers x marks x groupings: more draws
@given(major_spellings())
@example(("GBP", "42.00 GBP", 4200))
@example(("USD", "$42", 4200))
@example(("CZK", "42 Kč", 4200))
@example(("EUR", "€1.234,50", 123450))
@example(("EUR", "12.50 EUR", 1250))
@example(("JPY", "¥1,234,567", 1234567))
@example(("KWD", "1 234.500 KWD", 1234500))
def test_an_amount_with_its_currency_reads_to_minor_units(case: tuple[str, str, int]) -> None:
    currency, spelling, minor = case
    reading = read("money", spelling, currency=currency)
    assert reading.outcome == "value", (spelling, reading)
    assert reading.value == minor, (spelling, reading.value)
    assert reading.notes == (
        f"Read '{spelling}' as {minor} minor units ({_major(minor, currency)}).",
    )


def _major(minor: int, currency: str) -> str:
    e = exponent_of(currency)
    whole, part = divmod(minor, 10**e)
    return f"{whole}.{part:0{e}d} {currency}" if e else f"{whole} {currency}"


@given(
    st.sampled_from(CURRENCIES),
    st.integers(1, 10**6),
    st.integers(1, 999),
    st.sampled_from([".", ","]),
)
@example("EUR", 42, 50, ".")
def test_a_decimal_with_one_meaning_is_that_value(
    currency: str, whole: int, fraction: int, mark: str
) -> None:
    """ "42.50" in a two-decimal field: 42.50 minor units is no whole number, so it is 4250."""
    e = exponent_of(currency)
    assume(e > 0 and fraction < 10**e)
    digits = str(fraction).zfill(e)
    assume(digits.strip("0") and not (e == 3 and whole < 1000))
    spelling = f"{grouped(whole, ' ')}{mark}{digits}"
    reading = read("money", spelling, currency=currency)
    assert reading.outcome == "value", (spelling, reading)
    assert reading.value == whole * 10**e + fraction
    assert "minor units" in reading.notes[0] and currency in reading.notes[0]


@given(
    st.sampled_from([c for c in CURRENCIES if exponent_of(c)]),
    st.integers(1, 10**6),
    st.sampled_from([".", ","]),
)
@example("GBP", 42, ".")
@example("KWD", 42, ".")
def test_a_decimal_that_fits_both_magnitudes_asks_with_both(
    currency: str, whole: int, mark: str
) -> None:
    """ "42.00": 4200 (42.00 in major units) or 42 (minor units); both named, in minor units."""
    e = exponent_of(currency)
    assume(not (e == 3 and whole < 1000))
    spelling = f"{grouped(whole, ' ')}{mark}{'0' * e}"
    reading = read("money", spelling, currency=currency)
    assert reading.outcome == "ask", (spelling, reading)
    assert reading.code == "ambiguous_amount"
    assert reading.readings == (whole * 10**e, whole)
    assert str(whole * 10**e) in reading.hint and str(whole) in reading.hint
    # Settled later from the record's currency, the same question.
    pending = read("money", spelling, currency_from="invoice")
    assert isinstance(pending.value, Pending)
    assert settle(pending.value, currency).to_dict() == reading.to_dict()


@given(st.sampled_from([c for c in CURRENCIES if exponent_of(c) == 3]), st.integers(1, 999))
def test_three_decimals_after_a_short_whole_asks_grouping_or_decimals(
    currency: str, whole: int
) -> None:
    """ "1.000 KWD": 1000 KWD grouped by a dot, or 1.000 KWD: both readings, in fils."""
    reading = read("money", f"{whole}.000 {currency}", currency=currency)
    assert reading.outcome == "ask", reading
    assert set(reading.readings) == {whole * 1000 * 1000, whole * 1000}


def test_bounds_filter_the_readings() -> None:
    """A reading the field refuses is not offered; the one left is the value, with a note."""
    small = read("money", "42.00", currency="GBP", minimum=1, maximum=1000)
    assert small.outcome == "value" and small.value == 42
    assert small.notes == ("Read '42.00' as 42 minor units (0.42 GBP).",)
    neither = read("money", "42.00", currency="GBP", minimum=5000)
    assert neither.outcome == "invalid" and neither.code == "out_of_range"
    assert "4200 or 42" in neither.hint


@given(
    st.sampled_from(CURRENCIES),
    st.sampled_from(CURRENCIES),
    st.integers(1, 10**6),
)
def test_another_currency_is_refused_naming_both(field: str, sent: str, whole: int) -> None:
    assume(field != sent)
    reading = read("money", f"{whole} {sent}", currency=field)
    assert reading.outcome == "invalid" and reading.code == "currency_mismatch"
    assert sent in reading.hint and field in reading.hint
    assert str(whole) not in reading.hint.replace(f"'{whole} {sent}'", "")  # no converted amount


def test_symbols_that_name_several_currencies() -> None:
    assert read("money", "$5", currency="CAD").value == 500
    refused = read("money", "$5", currency="EUR")
    assert refused.code == "currency_mismatch" and "USD" in refused.hint
    assert read("money", "¥500", currency="JPY").value == 500


def test_hints_never_name_a_wrong_magnitude() -> None:
    """Every amount a hint offers is a reading in the field's minor units."""
    for spelling in ("42.00", "42,00", "4200.00"):
        reading = read("money", spelling, currency="EUR")
        assert reading.outcome == "ask"
        offered = reading.hint.split("JSON integer:")[1]
        assert {int(n) for n in offered.replace(".", " ").split() if n.isdigit()} == set(
            reading.readings
        )
    assert read("money", "42.505 EUR", currency="EUR", maximum=500_000).outcome == "invalid"


@pytest.mark.parametrize(
    ("spelling", "value"), [("4200", 4200), (4200, 4200), ("4 200", 4200), (4200.0, 4200)]
)
def test_integers_are_minor_units_as_sent(spelling: Any, value: int) -> None:
    reading = read("money", spelling, currency="EUR")
    assert reading.value == value
    if isinstance(spelling, float) or spelling == "4 200":
        assert reading.notes


def test_name_binding() -> None:
    for name in ("amount_cents", "refund_minor", "amount_minor_units", "fee_minor_units"):
        assert read(name, "4 000").value == 4000


@given(st.integers(0, 10**7), st.integers(1, 3), st.data())
@example(42, 2, None)
def test_without_a_currency_a_decimal_asks_with_every_magnitude(
    whole: int, places: int, data: Any
) -> None:
    """No currency known: each exponent currencies have (2, 0, 3) and the minor units as written
    are readings; with fewer than two whole ones, it is refused rather than guessed."""
    from decimal import Decimal

    fraction = data.draw(st.integers(0, 10**places - 1)) if data is not None else 0
    assume(not (places == 3 and 0 < whole < 1000))  # "1.234": also the grouping question
    text = f"{whole}.{fraction:0{places}d}"
    amount = Decimal(text)
    expected: list[int] = []
    for n in (amount.scaleb(2), amount, amount.scaleb(3), amount):
        if n == n.to_integral_value() and int(n) not in expected:
            expected.append(int(n))
    reading = read("amount_cents", text)
    if len(expected) < 2:
        assert reading.outcome == "invalid" and reading.code == "invalid_money"
        assert not reading.readings
    else:
        assert reading.outcome == "ask" and reading.code == "ambiguous_amount"
        assert list(reading.readings) == expected
        for minor in expected:
            assert str(minor) in reading.hint


def test_without_a_currency_the_bounds_can_leave_one_reading() -> None:
    reading = read("amount_cents", "120.00", minimum=1000, maximum=50_000)
    assert reading.value == 12000 and "2 decimals" in reading.notes[0]


# What the kind keeps between reads (the currencies a marker names, the field's currency and
# exponent derived once per field) must not change any reading: read in turns through two fields'
# long-lived options, every reading equals one made cold (fresh options, the marker cache empty).
MARKERS = ["", "EUR", "eur", "GBP", "JPY", "KWD", "BHD", "CZK", "USD", "€", "£", "¥", "$", "Kč", "XYZ"]  # fmt: skip
amounts = st.builds(
    lambda whole, mark, digits, marker, before: (
        f"{marker}{whole}{mark}{digits}" if before else f"{whole}{mark}{digits} {marker}".strip()
    ),
    st.integers(0, 10**6),
    st.sampled_from([".", ","]),
    st.sampled_from(["", "0", "5", "00", "50", "000", "500", "505"]),
    st.sampled_from(MARKERS),
    st.booleans(),
)
fields = st.sampled_from(CURRENCIES).flatmap(
    lambda c: st.sampled_from(
        [{"currency": c}, {"currency": c.lower()}, {"exponent": exponent_of(c)}]
    )
) | st.sampled_from([{}, {"currency_from": "invoice"}, {"currency": "EUR", "maximum": 10_000}])


@settings(max_examples=300)
@given(st.lists(amounts | st.integers(0, 10**6), min_size=1, max_size=6), fields, fields)
@example(["42.00", "$42", "42 Kč", "¥42", "42.500 KWD"], {"currency": "JPY"}, {"exponent": 3})
def test_what_the_kind_keeps_between_reads_changes_no_reading(
    values: list[Any], first: dict[str, Any], second: dict[str, Any]
) -> None:
    assert {c: exponent_of(c) for c in ("JPY", "EUR", "KWD")} == {"JPY": 0, "EUR": 2, "KWD": 3}
    money = KINDS["money"]
    kept = [make_options(**first), make_options(**second)]
    for value in values:
        for options, declared in zip(kept, (first, second), strict=True):
            warm = read_with(money, value, options)
            currencies_of.cache_clear()
            cold = read_with(money, value, make_options(**declared))
            assert warm == cold, (value, declared)
            if isinstance(warm.value, Pending):  # settled through options derived anew
                for currency in ("JPY", "EUR", "KWD"):
                    settled = settle(Pending(value, options), currency)
                    fresh = make_options(**{**declared, "currency": currency})
                    assert settled == read_with(money, value, fresh), (value, currency)
    for options in kept:  # what was kept is what the options declare
        assert _field_currency(options) == _declared_currency(options)
    for marker in MARKERS:
        assert currencies_of(marker) == currencies_of.__wrapped__(marker)


@given(st.decimals(allow_nan=False, allow_infinity=False), st.integers(0, 4))
@example(Decimal("42.00"), 2)
@example(Decimal("1.0E+3"), 3)
@example(Decimal("-0E-10"), 0)
def test_the_shortcuts_on_decimals_agree_with_their_definitions(n: Decimal, exponent: int) -> None:
    """Written with decimals is a negative exponent; whole is equal to its integer part; the
    major units written by placing the mark are those of `divmod`."""
    written_exponent = n.as_tuple().exponent
    assert _has_fraction(n) == (isinstance(written_exponent, int) and written_exponent < 0)
    got: list[tuple[int, str]] = []
    _add(got, n, "minor")
    whole = abs(n) < Decimal(10) ** 30 and int(n) == n
    assert got == ([(int(n), "minor")] if whole else [])
    if whole:
        minor = int(n)
        units, part = divmod(abs(minor), 10**exponent)
        sign = "-" if minor < 0 else ""
        written = f"{sign}{units}.{part:0{exponent}d}" if exponent else str(minor)
        assert in_major(minor, None, exponent) == written
        assert in_major(minor, "XTS", exponent) == f"{written} XTS"


anything = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=40),
    st.text(alphabet="0123456789.,'  -+$€£¥KčEURGBPJPYkw,-–", max_size=24),
    st.lists(st.integers(), max_size=3),
)


@given(anything, st.sampled_from([*CURRENCIES, None]), st.booleans())
def test_no_input_raises(value: Any, currency: str | None, deferred: bool) -> None:
    options: dict[str, Any] = {"minimum": 1, "maximum": 500_000}
    if deferred:
        options["currency_from"] = "invoice"
    elif currency:
        options["currency"] = currency
    reading = read("money", value, **options)
    assert reading.outcome in OUTCOMES
    json.dumps(reading.to_dict())
    if isinstance(reading.value, Pending):
        settled = settle(reading.value, currency or "EUR")
        assert settled.outcome in OUTCOMES - {"absent"}
        assert not isinstance(settled.value, Pending)
        json.dumps(settled.to_dict())
