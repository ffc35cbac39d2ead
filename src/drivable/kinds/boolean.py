"""boolean: true and false as the languages our users write them (ano/ne, ja/nein, oui/non, ...)."""

from __future__ import annotations

from typing import Any

from drivable.kinds._reading import Reading
from drivable.kinds._registry import NOT_CANONICAL, Options, kind
from drivable.kinds.text_folding import caseless

TRUE: frozenset[str] = frozenset(
    {
        "true", "t", "yes", "y", "1", "on", "enabled", "enable",  # English
        "ano", "jo", "pravda", "zapnuto",  # Czech
        "áno",  # Slovak
        "ja", "wahr",  # German
        "oui", "vrai",  # French
        "sí", "si", "verdadero", "cierto",  # Spanish
        "sim", "verdadeiro",  # Portuguese
        "vero",  # Italian
        "tak", "prawda",  # Polish
        "igen", "igaz",  # Hungarian
        "da",  # Slavic languages, Romanian
        "да", "так",  # Russian, Ukrainian
    }
)  # fmt: skip
FALSE: frozenset[str] = frozenset(
    {
        "false", "f", "no", "n", "0", "off", "disabled", "disable",  # English
        "ne", "nepravda", "vypnuto",  # Czech
        "nie",  # Slovak, Polish
        "nein", "falsch", "aus",  # German
        "non", "faux",  # French
        "falso",  # Spanish, Portuguese, Italian
        "não", "nao",  # Portuguese
        "fałsz", "falsz",  # Polish
        "nem", "hamis",  # Hungarian
        "nu",  # Romanian
        "нет", "ні",  # Russian, Ukrainian
    }
)  # fmt: skip

EXPECTED = "true or false"


def _schema(options: Options) -> dict[str, Any]:
    return {"type": "boolean"}


def _canonical(value: Any, options: Options) -> Any:
    return value if type(value) is bool else NOT_CANONICAL


@kind("boolean", schema=_schema, expected=EXPECTED, canonical=_canonical)
def read_boolean(value: Any, options: Options) -> Reading:
    if isinstance(value, bool):
        return Reading.of(value)
    if isinstance(value, int | float) and value in (0, 1):
        return Reading.repaired(value, bool(value))
    if isinstance(value, str):
        folded = caseless(value).strip(".!").strip()
        if folded in TRUE:
            return Reading.repaired(value, True)
        if folded in FALSE:
            return Reading.repaired(value, False)
    return Reading.invalid(
        value,
        expected=EXPECTED,
        hint="Send a JSON boolean: true or false.",
        code="invalid_boolean",
    )
