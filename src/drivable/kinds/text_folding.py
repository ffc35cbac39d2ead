"""Text folding, one way for every kind: what case, width, diacritics and spacing do not change.

Each level adds to the one before, always in this order, so two kinds that fold one spelling to
the same level agree on it:

- `nfkc`: compatibility forms to their plain letters and digits (full-width "２０２６", no-break
  and thin spaces, the ligature "ﬁ");
- `caseless`: `nfkc`, case folded ("ß" -> "ss"), surrounding space stripped, inner runs of space
  collapsed to one;
- `bare`: `caseless` without diacritics ("Přehled" -> "prehled", "Côte" -> "cote");
- `words`: `bare` with every run of punctuation (or of the marks a caller names) made one joiner.

`spelling` goes one step further, for one question only: are two texts the same value spelled
another way? It is the key every runtime suggestion is checked against (docs/kinds.md, "One
value, many spellings"): never a near miss by characters, only case, diacritics, separators,
camelCase, a leading zero, a trailing period, and a plural.
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


# camelCase and PascalCase boundaries: "minSeats" -> "min Seats", "HTTPServer" -> "HTTP Server".
_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")
# The pieces of a spelling: runs of letters, runs of digits, and each other mark that is part of
# a value ("C++", "C#", "100%"); only spaces and the separators between words separate them.
_SEPARATORS = "_\\-\u2010-\u2015./,:;'\u2019"
_PIECES = re.compile(rf"\d+|[^\W\d_]+|[^\w\s{_SEPARATORS}]")
_PLURAL_KEEPS = ("ss", "us", "is")  # class, status, analysis: an s that is no plural


def singular(word: str) -> str:
    """A word and its plural share this: "seats" and "seat" -> "seat", "classes" and "class" ->
    "class", "categories" and "category" -> "categor" + "y". Only ever compared, never shown:
    both spellings of a pair fold through the same steps, so they meet even where the stem is
    no word ("cases" and "case" -> "cas")."""
    if len(word) >= 4 and word.endswith("s") and not word.endswith(_PLURAL_KEEPS):
        word = word[:-1]
    if len(word) >= 4 and word.endswith("ie"):
        return word[:-2] + "y"
    if len(word) >= 4 and (word[-2:] in ("se", "xe", "ze") or word[-3:] in ("che", "she")):
        return word[:-1]
    return word


def _pieces(text: str) -> list[tuple[str, str]]:
    """(what separated it from the piece before, piece) for each letter or digit run."""
    folded = bare(_CAMEL.sub(" ", nfkc(text)))
    out: list[tuple[str, str]] = []
    end = 0
    for match in _PIECES.finditer(folded):
        out.append((folded[end : match.start()].strip() or folded[end : match.start()], match[0]))
        end = match.end()
    return out


def name_words(text: str, *, singulars: bool = True) -> tuple[str, ...]:
    """The words of a name, each folded to its singular: "minSeats" and "min-seat" ->
    ("min", "seat"), "date_from" -> ("date", "from"); with `singulars=False`, as written."""
    return tuple(
        p.lstrip("0") or "0" if p.isdigit() else singular(p) if singulars else p
        for _, p in _pieces(text)
        if p.isalnum()
    )


@lru_cache(maxsize=8192)
def spelling(text: str) -> str:
    """What every spelling of one value folds to, and no other value does.

    Case, width, diacritics, whitespace and the separators between words ("_", "-", ".", "/",
    ",", ":", an apostrophe, camelCase) go, so the letters between two other marks are one run; a
    run that is a plural is its singular; a leading zero goes ("09:00" is "9:00") and so does a
    trailing period ("Ltd." is "Ltd"). What stays tells values apart: every letter and digit,
    every other mark, and the mark between two numbers, which is part of the value ("1.5" is
    not "15", "9:05" not "9:5"). So "9:00" never folds to "19:00", nor "court" to "country", nor
    "p2" to "p1".
    """
    out: list[str] = []
    letters: list[str] = []
    number_before = False
    for gap, piece in _pieces(text):
        if piece.isalpha():
            letters.append(piece)
            number_before = False
            continue
        if letters:
            out.append(singular("".join(letters)))
            letters = []
        number = piece.isdigit()
        if number and number_before and gap:
            out.append(gap)  # the mark between two numbers, and the zeros after it, are the value
            out.append(piece)
        elif number:
            out.append(piece.lstrip("0") or "0")
        else:
            out.append(piece)
        number_before = number
    if letters:
        out.append(singular("".join(letters)))
    return "".join(out)


__all__ = ["bare", "caseless", "name_words", "nfkc", "singular", "spelling", "words"]
