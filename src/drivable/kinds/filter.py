"""filter: an optional narrowing value whose "everything" spellings mean "not filtering".

A client filling every declared property sends "all", "*", "any", "vše" or " " for a filter it does
not mean to apply. On a read those are absence, with a note; on a write (where a filter selects the
records a change reaches) they are asked about, because "all" there reaches every record. Any other
string is the filter, trimmed. A filter does not resolve its value against stored data: that is the
`vocabulary` kind's work, and this kind does not pretend to do it.
"""

from __future__ import annotations

from typing import Annotated, Any

from drivable.kinds._kind import Kind
from drivable.kinds._reading import Reading, shown
from drivable.kinds._registry import Options, kind
from drivable.kinds.text_folding import caseless

EXPECTED = "a string to filter by; omit the property to not filter"

# "Everything" in the languages our users write, and the wildcards. Compared after NFKC, trimming
# and case folding. Null-like placeholders ("", "none", "-", "n/a") are absence already.
EVERYTHING: frozenset[str] = frozenset(
    {
        "*", "**", "*.*", "%", ".*", "?*",  # wildcards
        "all", "any", "anything", "everything", "all values", "any value",
        "no filter", "unfiltered", "no filtering",  # English
        "vše", "všechno", "všechny", "cokoli", "cokoliv", "libovolný", "libovolné", "jakýkoli",
        "bez filtru",  # Czech
        "všetko", "všetky", "ľubovoľný",  # Slovak
        "alle", "alles", "beliebig",  # German
        "tous", "toutes", "tout", "n'importe",  # French
        "todo", "todos", "todas", "cualquiera",  # Spanish, Portuguese
        "tutti", "tutte", "qualsiasi",  # Italian
        "wszystko", "wszystkie", "dowolny",  # Polish
        "összes", "mindegy",  # Hungarian
    }
)  # fmt: skip


def _schema(options: Options) -> dict[str, Any]:
    return {
        "type": "string",
        "minLength": 1,
        "description": "Omit this property to not filter.",
    }


def means_everything(value: str) -> bool:
    """True for the spellings of "do not filter" ("all", "*", "vše", ...)."""
    return caseless(value) in EVERYTHING


@kind("filter", schema=_schema, expected=EXPECTED)
def read_filter(value: Any, options: Options) -> Reading:
    if isinstance(value, bool) or not isinstance(value, str | int | float):
        return Reading.invalid(
            value if isinstance(value, bool) else type(value).__name__,
            expected=EXPECTED,
            hint="Send the filter as a JSON string, or omit the property to not filter.",
            code="invalid_filter",
        )
    if not isinstance(value, str):
        return Reading.of(str(value), f"Read {value} as the string '{value}'.")
    stripped = value.strip()
    is_choice = bool(options.choices) and stripped in (options.choices or ())
    if not is_choice and means_everything(stripped):
        if options.intent == "write":
            return Reading.ask(
                value,
                expected=EXPECTED,
                hint=(
                    f"{shown(value)} means no filter, which on a change reaches every record. "
                    "To mean that, omit the property; otherwise send the value to match."
                ),
                readings=(None, value),
                code="placeholder_value",
            )
        return Reading.absent(f"Read {shown(value)} as no filter.")
    if stripped != value:
        return Reading.repaired(value, stripped)
    return Reading.of(value)


Filter = Annotated[str, Kind("filter")]
"""An optional filter: "all", "*", "vše", " " read as not filtering."""

__all__ = ["EVERYTHING", "Filter", "means_everything", "read_filter"]
