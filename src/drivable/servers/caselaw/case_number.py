"""Case numbers in any spelling: "21 Cdo 1096/2021", "21cdo1096/2021", "21 CDO 1096 / 2021".

A court's case number is a domain value of this server, not a general value kind, so its reader
lives here (drivable.kinds has no case-number kind). `case_key` folds a spelling to the key the
store indexes every decision under: case, diacritics, spaces, dots and dash variants do not count,
and the labels people put before a number ("sp. zn.", "č. j.", "Az.", "n°", "Case", "Rs.",
"no.", "application no.") are dropped. `loose_key` also drops dashes ("C-311/18" = "C 311/18").
Nothing here guesses between two decisions: the store answers with every decision a key names.
"""

from __future__ import annotations

import re
import unicodedata

MAX_CHARS = 80

_DASHES = re.compile(r"[\u2010-\u2015\u2212\u2043\ufe58\ufe63\uff0d]")
_LABEL = re.compile(
    r"^(?:(?:sp\.?\s*zn\.?|č\.?\s*j\.?|c\.?\s*j\.?|az\.?|aktenzeichen|n°|nº|no\.?|nr\.?|"
    r"case|rs\.?|rechtssache|affaire|věc|vec|sygn\.?\s*akt|sygn\.?|application\s*no\.?|"
    r"pourvoi\s*n°?|req\.?|requête\s*n°?)\s*[:.]?\s*)+",
    re.IGNORECASE,
)
_DROP = re.compile(r"[\s.,;:'\"()\[\]]+")


def _plain(text: str) -> str:
    decomposed = unicodedata.normalize("NFKD", unicodedata.normalize("NFKC", text))
    return "".join(c for c in decomposed if not unicodedata.combining(c))


def case_key(text: str) -> str | None:
    """The folded key of a case-number spelling, or None when it cannot be a case number."""
    if not isinstance(text, str) or len(text) > MAX_CHARS:
        return None
    plain = _DASHES.sub("-", _plain(text)).strip()
    plain = _LABEL.sub("", plain)
    key = _DROP.sub("", plain.casefold())
    key = re.sub(r"-+", "-", key).strip("-/")
    if not any(c.isdigit() for c in key) or not re.fullmatch(r"[a-z0-9/-]+", key):
        return None
    return key


def loose_key(key: str) -> str:
    """A key without dashes, for spellings that drop them ("C 311/18", "1920945")."""
    return key.replace("-", "")


__all__ = ["MAX_CHARS", "case_key", "loose_key"]
