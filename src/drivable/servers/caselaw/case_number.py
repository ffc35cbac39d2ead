"""case_number: a kind this server owns, read through the same registry as every other kind.

A court's case number is a domain value of caselaw, not a general value kind, so its reader lives
here and registers itself with `drivable.kinds.kind` (same Reading outcomes, the same notes and
asks, a JSON Schema fragment, a row in the kinds census). Spellings: "21 Cdo 1096/2021",
"21cdo1096/2021", "21 CDO 1096 / 2021", "sp. zn. 21 Cdo 1096/2021", "Case C‑311/18".

The value is a `CaseNumber`: the spelling as sent (trimmed), with `key`, the fold the store indexes
every decision under (case, diacritics, spaces, dots and dash variants do not count, and the
labels people put before a number, "sp. zn.", "č. j.", "Az.", "n°", "Case", "Rs.", "no.",
"application no.", are dropped), and `loose`, the key without dashes ("C-311/18" = "C 311/18").
Refused: a spelling with no digits, or more than MAX_CHARS characters. Nothing here guesses
between two decisions: the store answers with every decision a key names, and the tool asks.
"""

from __future__ import annotations

import re
from typing import Annotated, Any

from drivable.kinds import Kind, Options, Reading, kind
from drivable.kinds.text_folding import bare

MAX_CHARS = 80
EXPECTED = "a court's case number, such as '21 Cdo 1096/2021'"

_DASHES = re.compile(r"[\u2010-\u2015\u2212\u2043\ufe58\ufe63\uff0d]")
# Labels in their folded form (no case, no diacritics): "Sp. zn.", "č. j.", "Requête n°".
_LABEL = re.compile(
    r"^(?:(?:sp\.?\s*zn\.?|c\.?\s*j\.?|az\.?|aktenzeichen|n°|no\.?|nr\.?|"
    r"case|rs\.?|rechtssache|affaire|vec|sygn\.?\s*akt|sygn\.?|application\s*no\.?|"
    r"pourvoi\s*n°?|req\.?|requete\s*n°?)\s*[:.]?\s*)+"
)
_DROP = re.compile(r"[\s.,;:'\"()\[\]]+")
_KEY = re.compile(r"[a-z0-9/-]+")


class CaseNumber(str):
    """A case number as sent, with the keys the store finds it by."""

    key: str
    loose: str

    def __new__(cls, text: str, key: str) -> CaseNumber:
        number = super().__new__(cls, text)
        number.key = key
        number.loose = key.replace("-", "")
        return number


def _key(text: str) -> str | None:
    plain = _LABEL.sub("", _DASHES.sub("-", bare(text)))
    key = re.sub(r"-+", "-", _DROP.sub("", plain)).strip("-/")
    if not any(c.isdigit() for c in key) or not _KEY.fullmatch(key):
        return None
    return key


def _schema(options: Options) -> dict[str, Any]:
    return {"type": "string", "minLength": 1, "maxLength": MAX_CHARS}


@kind("case_number", schema=_schema, expected=EXPECTED)
def read_case_number(value: Any, options: Options) -> Reading:
    if not isinstance(value, str):
        return Reading.invalid(
            value if isinstance(value, int | float | bool) else type(value).__name__,
            expected=EXPECTED,
            hint="Send the case number as a JSON string, as the court writes it.",
            code="invalid_case_number",
        )
    text = value.strip()
    key = _key(text) if len(text) <= MAX_CHARS else None
    if key is None:
        return Reading.invalid(
            value,
            expected=EXPECTED,
            hint=(
                f"A case number has digits and at most {MAX_CHARS} characters, e.g. "
                "'21 Cdo 1096/2021' or 'C-311/18'; search_decisions finds a decision by its words."
            ),
            code="invalid_case_number",
        )
    return Reading.of(CaseNumber(text, key))


CaseNumberField = Annotated[CaseNumber, Kind("case_number")]
"""A case-number property: JSON Schema string; the value carries `key` and `loose`."""

__all__ = ["EXPECTED", "MAX_CHARS", "CaseNumber", "CaseNumberField", "read_case_number"]
