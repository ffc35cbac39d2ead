"""Text folding, one way for every kind: what case, width, diacritics and spacing do not change.

Each level adds to the one before, always in this order, so two kinds that fold one spelling to
the same level agree on it:

- `nfkc`: compatibility forms to their plain letters and digits (full-width "２０２６", no-break
  and thin spaces, the ligature "ﬁ");
- `caseless`: `nfkc`, case folded ("ß" -> "ss"), surrounding space stripped, inner runs of space
  collapsed to one;
- `bare`: `caseless` without diacritics ("Přehled" -> "prehled", "Côte" -> "cote");
- `words`: `bare` with every run of punctuation (or of the marks a caller names) made one joiner.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

_SPACES = re.compile(r"\s+")
_NOT_WORD = re.compile(r"[^\w]+|_+")


def nfkc(text: str) -> str:
    """Compatibility forms folded: "２０２６" -> "2026", a no-break space -> " "."""
    return text if text.isascii() else unicodedata.normalize("NFKC", text)


def caseless(text: str) -> str:
    """`nfkc`, case folded, spaces stripped and collapsed: " Ano  Ne " -> "ano ne"."""
    return _SPACES.sub(" ", nfkc(text).casefold()).strip()


@lru_cache(maxsize=8192)
def bare(text: str) -> str:
    """`caseless` without diacritics: "Října " -> "rijna". Cached: names and words repeat."""
    folded = caseless(text)
    if folded.isascii():
        return folded
    decomposed = unicodedata.normalize("NFKD", folded)
    return unicodedata.normalize(
        "NFC", "".join(c for c in decomposed if not unicodedata.combining(c))
    )


def words(text: str, marks: re.Pattern[str] = _NOT_WORD, joiner: str = " ") -> str:
    """`bare` with each run of `marks` (default: anything but letters and digits) one `joiner`."""
    return joiner.join(w for w in marks.split(bare(text)) if w)


__all__ = ["bare", "caseless", "nfkc", "words"]
