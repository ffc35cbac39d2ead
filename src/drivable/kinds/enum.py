"""enum: one of a tool's declared members, whatever the case, spacing, separators or diacritics.

"Přehled", " prehled ", "PREHLED" all read as the member `prehled` (or `Přehled`, whichever was
declared); "public law", "public-law" and "Public_Law" as `public_law`; "PublicLaw" too, when no
other member spells the same letters. A value that folds onto two members is asked about with both;
a miss is refused naming the allowed members and the nearest one.
"""

from __future__ import annotations

import difflib
import re
from functools import lru_cache
from typing import Any

from drivable.kinds._kind import Kind
from drivable.kinds._reading import Reading, shown
from drivable.kinds._registry import NOT_CANONICAL, Options, kind
from drivable.kinds.text_folding import words

_SEPARATORS = re.compile(r"[\s_\-./]+")


def fold(text: str) -> str:
    """Case, diacritics, surrounding space and separators folded away: "Přehled-X " -> "prehled_x"."""
    return words(text, _SEPARATORS, "_")


def _loose(folded: str) -> str:
    return folded.replace("_", "")


@lru_cache(maxsize=256)
def _tables(
    choices: tuple[str, ...],
) -> tuple[dict[str, tuple[str, ...]], dict[str, tuple[str, ...]]]:
    """Members by their fold and by their loose fold (separators dropped), for one declaration."""
    strict: dict[str, tuple[str, ...]] = {}
    loose: dict[str, tuple[str, ...]] = {}
    for member in choices:
        f = fold(member)
        strict[f] = (*strict.get(f, ()), member)
        g = _loose(f)
        loose[g] = (*loose.get(g, ()), member)
    return strict, loose


def _expected(choices: tuple[str, ...]) -> str:
    return "one of: " + ", ".join(choices)


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
        return _miss(type(value).__name__, "", choices)
    if text in choices:
        if isinstance(value, str):
            return Reading.of(text)
        return Reading.of(text, f"Read {shown(value)} as the string '{text}'.")
    strict, loose = _tables(choices)
    folded = fold(text)
    members = strict.get(folded) or loose.get(_loose(folded), ())
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
    return _miss(value, folded, choices)


def _miss(received: Any, folded: str, choices: tuple[str, ...]) -> Reading:
    strict, _ = _tables(choices)
    near = difflib.get_close_matches(folded, list(strict), n=1, cutoff=0.6) if folded else []
    allowed = ", ".join(choices)
    if near:
        hint = f"Did you mean {strict[near[0]][0]!r}? Send one of: {allowed}."
    else:
        hint = f"Send one of: {allowed}."
    return Reading.invalid(received, expected=_expected(choices), hint=hint, code="invalid_choice")


def one_of(*choices: str) -> Kind:
    """Field metadata for a string limited to `choices`: `Annotated[str, one_of("a", "b")]`."""
    return Kind("enum", choices=tuple(choices))


__all__ = ["fold", "one_of", "read_enum"]
