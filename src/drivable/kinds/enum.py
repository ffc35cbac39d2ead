"""enum: one of a tool's declared members, in any spelling of that member, and never another.

"Přehled", " prehled ", "PREHLED" all read as the member `prehled` (or `Přehled`, whichever was
declared); "public law", "public-law", "Public_Law" and "PublicLaw" as `public_law`; "9:00" as
`09:00`. A spelling is read as a member only when it is that member spelled another way
(`text_folding.spelling`): a value close in characters is another value ("9:00" is not "19:00"),
so a miss is refused listing the allowed members, and names no guess. A spelling two members
share is asked about with both.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from drivable.kinds._kind import Kind
from drivable.kinds._reading import Reading, shown
from drivable.kinds._registry import NOT_CANONICAL, Options, kind
from drivable.kinds.text_folding import spelling

# A refusal lists this many members at most; the inputSchema's enum lists them all.
SHOWN_MEMBERS = 40


@lru_cache(maxsize=256)
def _by_spelling(choices: tuple[str, ...]) -> dict[str, tuple[str, ...]]:
    """Members by the spelling they fold to, for one declaration."""
    table: dict[str, tuple[str, ...]] = {}
    for member in choices:
        key = spelling(member)
        table[key] = (*table.get(key, ()), member)
    return table


def _expected(choices: tuple[str, ...]) -> str:
    return "one of: " + allowed(choices)


def allowed(choices: tuple[str, ...]) -> str:
    """The members a refusal names: all of them, or the first `SHOWN_MEMBERS` and how many more."""
    if len(choices) <= SHOWN_MEMBERS:
        return ", ".join(choices)
    more = len(choices) - SHOWN_MEMBERS
    return f"{', '.join(choices[:SHOWN_MEMBERS])} and {more} more (the inputSchema lists them all)"


def _schema(options: Options) -> dict[str, Any]:
    schema: dict[str, Any] = {"type": "string"}
    if options.choices:
        schema["enum"] = list(options.choices)
    return schema


def _as_text(value: Any) -> str | None:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float | str):
        return str(value)
    return None


def _canonical(value: Any, options: Options) -> Any:
    choices = options.choices
    return (
        value if type(value) is str and choices is not None and value in choices else NOT_CANONICAL
    )


@kind("enum", schema=_schema, expected="one of the declared values", canonical=_canonical)
def read_enum(value: Any, options: Options) -> Reading:
    choices = options.choices or ()
    if not choices:
        return Reading.invalid(
            value if isinstance(value, str) else shown(value),
            expected="one of the declared values",
            hint="This property declares no values to choose from; omit it.",
            code="invalid_choice",
        )
    text = _as_text(value)
    if text is None:
        return _miss(type(value).__name__, choices, said=False)
    if text in choices:
        if isinstance(value, str):
            return Reading.of(text)
        return Reading.of(text, f"Read {shown(value)} as the string '{text}'.")
    members = _by_spelling(choices).get(spelling(text), ())
    if len(members) == 1:
        return Reading.repaired(value, members[0])
    if len(members) > 1:
        return Reading.ask(
            value,
            expected=_expected(choices),
            hint=f"{shown(value)} could be any of {', '.join(members)}; send the one you mean exactly.",
            readings=members,
            code="ambiguous_choice",
        )
    return _miss(value, choices)


def _miss(received: Any, choices: tuple[str, ...], *, said: bool = True) -> Reading:
    what = f"{shown(received)} is none of the allowed values. " if said else ""
    return Reading.invalid(
        received,
        expected=_expected(choices),
        hint=f"{what}Send one of: {allowed(choices)}.",
        code="invalid_choice",
    )


def one_of(*choices: str) -> Kind:
    """Field metadata for a string limited to `choices`: `Annotated[str, one_of("a", "b")]`."""
    return Kind("enum", choices=tuple(choices))


__all__ = ["SHOWN_MEMBERS", "allowed", "one_of", "read_enum"]
