"""number: a real number as people write it, in any of the spellings that carry one meaning.

Read without asking:
  grouping by spaces (plain, no-break, thin, narrow no-break, figure), apostrophes (' and ’) and
  underscores: "4 000", "1'234.5", "1_000";
  grouping by dots or commas when the other mark is the decimal one: "1.234,5", "1,234.5";
  grouping by one mark used more than once: "1.234.567", "1,234,567", Indian "12,34,567";
  a decimal comma or dot that cannot be grouping: "1,23", "0,123", "1234,567", "1 234,5";
  signs (+, -, the minus sign U+2212) and exponents: "+7", "-3,5", "1e3", "2,5e-3" (a mantissa
  never groups, so its one dot or comma is the decimal mark: "1,234e3" is 1234).
Asked about, with both readings: one dot or comma followed by exactly three digits after one to three
digits (not a lone 0) and nothing else telling, "1,234" or "1.234": 1234 or 1.234.
Refused: anything else, NaN, infinities, and magnitudes beyond a double's range.

The value: an `int` when the number is integral ("1e3" -> 1000, "10.0" -> 10), else a `float`. The
decimal arithmetic in between is exact (`Decimal`); only a non-integral result is rounded, once, to
the nearest double. JSON numbers pass through under the same rule, a float by its exact binary
value (so the reading always equals what was sent); a boolean is not a number.
A spelling that is already canonical ("4000", 4000) carries no note; every other one says how it
was read.
"""

from __future__ import annotations

import math
import re
import sys
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from typing import Annotated, Any, NamedTuple

from drivable.kinds._kind import Kind
from drivable.kinds._reading import Reading, shown
from drivable.kinds._registry import NOT_CANONICAL, Options, kind
from drivable.kinds.text_folding import nfkc

EXPECTED = "a JSON number, such as 4000 or 1234.5"


@dataclass(frozen=True)
class Wording:
    """How a refusal names the kind: the number kind and the integer kind share every message."""

    noun: str  # "a JSON number"
    example: str  # "4000 or 1234.5"
    expected: str
    code: str  # "invalid_number"
    what: str  # "a number": what a value the field takes is


NUMBER = Wording("a JSON number", "4000 or 1234.5", EXPECTED, "invalid_number", "a number")

_FLOAT_MAX = Decimal(sys.float_info.max)
_INT_MAX = int(sys.float_info.max)

# Marks that only ever group digits (after NFKC every space variant is a plain space).
_GROUPING_ONLY = frozenset(" '’ʼ_")
_MARKS = frozenset(".,") | _GROUPING_ONLY
_MINUS = frozenset("-−‒–")  # hyphen-minus, minus sign, figure dash, en dash
_SIGNED = re.compile(r"^([+\-−‒–]?)\s*(.*)$", re.DOTALL)
_EXPONENT = re.compile(r"^(.*?)[eE]([+\-−]?\d{1,6})$", re.DOTALL)
_TOKENS = re.compile(r"\d+|\s+|.", re.DOTALL)
# Unsigned ASCII digits with at most one dot or comma and digits after it: the common case.
_SIMPLE = re.compile(r"([0-9]+)(?:[.,]([0-9]+))?")
# Thousands grouped by one mark used throughout, then maybe a decimal part after the other mark
# ("1 234 567", "1.234,50", "1,234.5", "1'234"): the common grouped case, decided in one match as
# `_grouped` decides it. One group with no decimal part ("1.234") is _SIMPLE's question.
_THOUSANDS = re.compile(r"([0-9]{1,3})(?:([ .,'])[0-9]{3})(?:\2[0-9]{3})*(?:(?!\2)[.,]([0-9]+))?")


class Parsed(NamedTuple):
    """What a spelling says: one exact value, two readings, or nothing (with why).

    A named tuple, not a frozen dataclass: built on every string read, and a tuple is built in
    half the time.
    """

    value: Decimal | None = None
    readings: tuple[Decimal, Decimal] | None = None
    problem: str = ""


def _nothing(problem: str) -> Parsed:
    return Parsed(problem=problem)


def parse_decimal(text: str) -> Parsed:
    """Read a spelling of a number into an exact Decimal, or into two readings, or into a problem.

    The one parser of numbers from strings; `number` and `integer` both read through it.
    """
    text = nfkc(text).strip()
    simple = _SIMPLE.fullmatch(text)
    if simple is not None:  # "42", "42.50", "1,234": decided here as _decide would decide them
        whole, fraction = simple.groups()
        if fraction is None:
            return Parsed(Decimal(whole))
        if len(fraction) == 3 and whole != "0" and len(whole) <= 3:
            return Parsed(None, (Decimal(whole + fraction), Decimal(f"{whole}.{fraction}")))
        return Parsed(Decimal(f"{whole}.{fraction}"))
    thousands = _THOUSANDS.fullmatch(text)
    if thousands is not None:
        first, mark, fraction = thousands.groups()
        if first != "0":
            if fraction is None:
                return Parsed(Decimal(text.replace(mark, "")))
            whole = text[: -len(fraction) - 1].replace(mark, "")
            return Parsed(Decimal(f"{whole}.{fraction}"))
    match = _SIGNED.match(text)
    if match is None:  # pragma: no cover - the pattern matches every string
        return _nothing("not a number")
    sign, body = match.group(1), match.group(2)
    negative = sign in _MINUS
    exponent = 0
    with_exponent = _EXPONENT.match(body)
    if with_exponent is not None:
        body = with_exponent.group(1).strip()
        exponent = int(with_exponent.group(2).replace("−", "-"))
        mantissa = _plain_mantissa(body)
        if mantissa is None:
            return _nothing("an exponent needs a plain mantissa, such as 2.5e3")
        # Built from text, so no arithmetic context can round, overflow or trap.
        return Parsed(value=_signed(Decimal(f"{mantissa}E{exponent}"), negative))
    parsed = _grouped(body)
    if parsed.value is not None:
        return Parsed(value=_signed(parsed.value, negative))
    if parsed.readings is not None:
        a, b = parsed.readings
        return Parsed(readings=(_signed(a, negative), _signed(b, negative)))
    return parsed


def _signed(value: Decimal, negative: bool) -> Decimal:
    return value.copy_negate() if negative else value


def _plain_mantissa(body: str) -> str | None:
    """Digits with at most one decimal dot or comma ("2.5", "2,5", ".5"): no grouping."""
    if body.count(".") + body.count(",") > 1:
        return None
    digits = body.replace(",", ".")
    stripped = digits.replace(".", "")
    if not stripped or not stripped.isascii() or not stripped.isdigit():
        return None
    return digits


def _grouped(body: str) -> Parsed:
    """Digits with grouping marks and at most one decimal mark, decided without guessing."""
    if not body:
        return _nothing("no digits")
    tokens = _TOKENS.findall(body)
    groups: list[str] = []
    separators: list[str] = []
    expect_digits = True
    for token in tokens:
        if token[0].isascii() and token[0].isdigit():
            if not expect_digits:  # pragma: no cover - the tokenizer never splits a digit run
                return _nothing("not a number")
            groups.append(token)
            expect_digits = False
            continue
        mark = " " if token.isspace() else token
        if mark not in _MARKS:
            return _nothing(f"{shown(token)} is not part of a number")
        if expect_digits and groups:
            return _nothing("two marks in a row")
        if not groups:  # a leading decimal mark: ".5", ",5"
            if mark not in ".," or len(tokens) != 2:
                return _nothing("a number starts with a digit")
            groups.append("0")
        separators.append(mark)
        expect_digits = True
    if expect_digits:  # ends in a mark: "5." reads as 5, "5," likewise; "5 " was stripped
        if len(separators) != 1 or separators[0] not in ".,":
            return _nothing("a number ends with a digit")
        return Parsed(value=Decimal(groups[0]))
    if not separators:
        return Parsed(value=Decimal(groups[0]))
    return _decide(groups, separators)


def _decide(groups: list[str], separators: list[str]) -> Parsed:
    punctuation = [s for s in separators if s in ".,"]
    kinds = set(punctuation)
    decimal_at: int | None = None  # index of the separator that is the decimal mark
    if len(kinds) == 2:
        # Both marks: the last one is the decimal mark, once and last; the other one groups.
        last = separators[-1]
        if last not in ".," or separators.count(last) != 1:
            return _nothing("a dot and a comma, neither of them the one decimal mark")
        decimal_at = len(separators) - 1
    elif len(kinds) == 1:
        (mark,) = kinds
        if len(punctuation) == 1:
            at = separators.index(mark)
            others_group = len(separators) > 1
            if others_group:
                # Spaces or apostrophes already group, so the one dot or comma is the decimal mark.
                if at != len(separators) - 1:
                    return _nothing(f"the mark {mark!r} in the middle of grouped digits")
                decimal_at = at
            elif len(groups[1]) != 3 or groups[0] == "0" or len(groups[0]) > 3:
                decimal_at = 0  # "1,23", "0,123", "1234,567": it cannot group thousands
            else:
                whole = Decimal(groups[0] + groups[1])
                part = Decimal(f"{groups[0]}.{groups[1]}")
                return Parsed(readings=(whole, part))
    integer_groups = groups if decimal_at is None else groups[: decimal_at + 1]
    if not _valid_grouping(integer_groups):
        return _nothing("digits grouped unevenly; group thousands in threes, or send 1234.5")
    whole_digits = "".join(integer_groups)
    if decimal_at is None:
        return Parsed(value=Decimal(whole_digits))
    fraction = "".join(groups[decimal_at + 1 :])
    return Parsed(value=Decimal(f"{whole_digits}.{fraction}"))


def _valid_grouping(groups: list[str]) -> bool:
    """Thousands in threes ("1 234 567"), or the Indian lakh and crore grouping ("12,34,567")."""
    if len(groups) == 1:
        return True
    head, rest = groups[0], groups[1:]
    if not 1 <= len(head) <= 3:
        return False
    if all(len(g) == 3 for g in rest):
        return True
    # Indian: the last group has three digits, those before it two, the first one or two.
    return len(rest[-1]) == 3 and all(len(g) == 2 for g in rest[:-1]) and 1 <= len(head) <= 2


def canonical(value: Any, options: Options) -> Reading | None:
    """The fast path: a JSON integer or a canonical digit string within bounds, else None.

    Both number and integer start here, so the common case costs little more than `int()`.
    """
    n = canonical_value(value, options)
    return None if n is NOT_CANONICAL else Reading.of(n)


def canonical_value(value: Any, options: Options) -> Any:
    """The fast path without a Reading: the int itself, or NOT_CANONICAL (the seam's hook)."""
    kind_of = type(value)
    if kind_of is int:
        if not -_INT_MAX <= value <= _INT_MAX:
            return NOT_CANONICAL
        n = value
    elif (
        kind_of is str
        and value.isdigit()
        and value.isascii()
        and (value[0] != "0" or len(value) == 1)
        and len(value) < 300
    ):
        n = int(value)
    else:
        return NOT_CANONICAL
    low, high = options.minimum, options.maximum
    if (low is not None and n < low) or (high is not None and n > high):
        return NOT_CANONICAL
    return n


def canonical_int(value: Any) -> bool:
    """A JSON integer or a string of plain ASCII digits, within a double's range: the fast path."""
    if type(value) is int:
        return -_INT_MAX <= value <= _INT_MAX
    return type(value) is str and len(value) < 300 and value.isascii() and value.isdigit()


def to_python(value: Decimal) -> int | float:
    """The value a reading holds: an int when integral, else the nearest float."""
    if value == value.to_integral_value():
        return int(value)
    return float(value)


def too_large(value: Decimal) -> bool:
    return value.copy_abs() > _FLOAT_MAX


def bounds_text(minimum: Any, maximum: Any) -> str:
    if minimum is not None and maximum is not None:
        return f"between {minimum} and {maximum}"
    if minimum is not None:
        return f"at least {minimum}"
    return f"at most {maximum}"


def out_of_range(received: Any, value: Any, options: Options, what: str) -> Reading | None:
    """A refusal naming the bounds, or None when `value` is within them."""
    low, high = options.minimum, options.maximum
    if (low is not None and value < low) or (high is not None and value > high):
        bounds = bounds_text(low, high)
        return Reading.invalid(
            received,
            expected=f"{what} {bounds}",
            hint=f"{value} is out of range; send {what} {bounds}.",
            code="out_of_range",
        )
    return None


def ambiguous(
    received: Any,
    readings: tuple[Any, ...],
    options: Options,
    wording: Wording = NUMBER,
    fits: Any = None,
) -> Reading:
    """The question for "1,234": thousands grouping or a decimal mark, both readings named.

    Only readings the field would accept are offered (`fits`, and the bounds): with one left, it
    is the value with a note naming the other; with none left, the refusal names both.
    """
    whole, part = readings[0], readings[1]
    low, high = options.minimum, options.maximum

    def accepted(r: Any) -> bool:
        if fits is not None and not fits(r):
            return False
        return (low is None or r >= low) and (high is None or r <= high)

    left = [r for r in (whole, part) if accepted(r)]
    if len(left) == 1:
        (chosen,) = left
        other = part if chosen == whole else whole
        return Reading.of(
            chosen,
            f"Read {shown(received)} as {chosen!r} ({other!r}, its other reading, is not "
            f"{_what_fits(wording, low, high)}).",
        )
    if not left:
        return Reading.invalid(
            received,
            expected=_what_fits(wording, low, high),
            hint=(
                f"{shown(received)} reads as {whole} or {part}, and neither is "
                f"{_what_fits(wording, low, high)}; send {wording.noun} that is."
            ),
            code="out_of_range" if low is not None or high is not None else wording.code,
        )
    return Reading.ask(
        received,
        expected=wording.expected,
        hint=(
            f"{shown(received)} could be {whole} (the mark groups thousands) or {part} (the mark "
            f"is a decimal mark). Send the one you mean as {wording.noun}: {whole} or {part}."
        ),
        readings=(whole, part),
        code="ambiguous_number",
    )


def _what_fits(wording: Wording, low: Any, high: Any) -> str:
    if low is None and high is None:
        return wording.what
    return f"{wording.what} {bounds_text(low, high)}"


def decimal_of(value: Any, wording: Wording = NUMBER) -> Decimal | Reading:
    """A received value as an exact Decimal, or the Reading that refuses it.

    A spelling with two readings comes back as an ask naming both, unfiltered: the kind filters
    them with `ambiguous` against its own constraints.
    """
    if isinstance(value, bool):
        return Reading.invalid(
            value,
            expected=wording.expected,
            hint=f"true and false are not numbers; send {wording.noun}.",
            code=wording.code,
        )
    if isinstance(value, int):
        return Decimal(value) if -_INT_MAX <= value <= _INT_MAX else _not_finite(value, wording)
    if isinstance(value, float):
        if not math.isfinite(value):
            return _not_finite(value, wording)
        return Decimal(value)  # the float's exact value, so the reading equals what was sent
    if not isinstance(value, str):
        return Reading.invalid(
            type(value).__name__,
            expected=wording.expected,
            hint=f"Send {wording.noun}, such as {wording.example}.",
            code=wording.code,
        )
    try:
        parsed = parse_decimal(value)
    except (InvalidOperation, ValueError, OverflowError):
        parsed = _nothing("not a number")
    if parsed.readings is not None:
        a, b = parsed.readings
        return Reading.ask(
            value,
            expected=wording.expected,
            hint="",
            readings=(to_python(a), to_python(b)),
            code="ambiguous_number",
        )
    if parsed.value is None:
        if value.strip().casefold().lstrip("+-") in ("nan", "inf", "infinity", "∞"):
            return _not_finite(value, wording)
        return Reading.invalid(
            value,
            expected=wording.expected,
            hint=f"{shown(value)} is not a number ({parsed.problem}); send {wording.noun}, such as {wording.example}.",
            code=wording.code,
        )
    if too_large(parsed.value):
        return _not_finite(value, wording)
    return parsed.value


def _not_finite(value: Any, wording: Wording = NUMBER) -> Reading:
    return Reading.invalid(
        value,
        expected=wording.expected,
        hint=(
            f"Send a finite {wording.noun[2:]} within a double's range (NaN, infinities, and "
            "magnitudes beyond 1.8e308 or below 5e-324 are not accepted)."
        ),
        code=wording.code,
    )


def value_reading(received: Any, result: int | float, *more: str) -> Reading:
    """The reading of a number, with a note unless the received spelling is already canonical."""
    if type(received) is type(result) and received == result:
        return Reading.of(result, *more)
    if isinstance(received, str) and received == repr(result):
        return Reading.of(result, *more)
    return Reading.of(result, f"Read {shown(received)} as {result!r}.", *more)


def _schema(options: Options) -> dict[str, Any]:
    schema: dict[str, Any] = {"type": "number"}
    if options.minimum is not None:
        schema["minimum"] = options.minimum
    if options.maximum is not None:
        schema["maximum"] = options.maximum
    return schema


@kind("number", schema=_schema, expected=EXPECTED, canonical=canonical_value)
def read_number(value: Any, options: Options) -> Reading:
    fast = canonical(value, options)
    if fast is not None:
        return fast
    if canonical_int(value):
        result: int | float = int(value)  # plain digits out of bounds, or with leading zeros
        exact = Decimal(result)
    else:
        got = decimal_of(value)
        if isinstance(got, Reading):
            if got.outcome == "ask":
                return ambiguous(value, got.readings, options)
            return got
        exact = got
        result = to_python(exact)
        if isinstance(result, float) and exact != 0 and result == 0.0:
            return _not_finite(value)
    refused = out_of_range(value, result, options, "a number")
    if refused is not None:
        return refused
    return value_reading(value, result)


Number = Annotated[float, Kind("number")]
"""A number field: `int` when integral, else `float`; JSON Schema `{"type": "number"}`."""

__all__ = [
    "EXPECTED",
    "NUMBER",
    "Number",
    "Parsed",
    "Wording",
    "canonical",
    "parse_decimal",
    "read_number",
]
