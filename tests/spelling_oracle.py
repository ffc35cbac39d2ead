"""The rule "a suggestion is the same value spelled another way", restated for the tests.

Written apart from `drivable.kinds.text_folding.spelling` on purpose, as a relation rather than a
key: two texts are one value spelled two ways when some reading of each gives the same letters and
numbers. A reading drops case, diacritics, spaces, the separators between words (_ - . / , : ; ')
and camelCase boundaries, so the letters between two other marks are one word; it may read such a
word of four letters or more as the singular of a plural (-s, -es, -ies); it
reads the first number of a run without its leading zeros; and it keeps every other mark, and the
mark between two numbers with the digits after it. A property test over the runtime's suggestions
checks each one against this, and every drop against it too, so the two must agree.
"""

from __future__ import annotations

import itertools
import re
import unicodedata

_SEPARATORS = set("_-./,:;'\u2019\u2010\u2011\u2012\u2013\u2014\u2015")
_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")


def _plain(text: str) -> str:
    text = _CAMEL.sub(" ", unicodedata.normalize("NFKC", text))
    decomposed = unicodedata.normalize("NFKD", text.casefold())
    return "".join(c for c in decomposed if not unicodedata.combining(c))


def _tokens(text: str) -> list[tuple[str, str]]:
    """("word" | "number" | "mark" | "gap", text) in order; a gap is a run of separators/spaces."""
    out: list[tuple[str, str]] = []
    for char in _plain(text):
        if char.isdigit():
            kind = "number"
        elif char.isalpha():
            kind = "word"
        elif char.isspace() or char in _SEPARATORS:
            kind = "gap"
        else:
            kind = "mark"
        if out and out[-1][0] == kind and kind != "mark":
            out[-1] = (kind, out[-1][1] + char)
        else:
            out.append((kind, char))
    return out


def _singulars(word: str) -> set[str]:
    """A word, and what it is the plural of when it may be one (a word of four letters or more:
    "yes", "bus" and "tos" are no plurals)."""
    forms = {word}
    if len(word) < 4:
        return forms
    if word.endswith("ies"):
        forms.add(word[:-3] + "y")
    if word.endswith("es"):
        forms.add(word[:-2])
    if word.endswith("s"):
        forms.add(word[:-1])
    # "case" and "cases" meet at "cas", "box" and "boxes" at "box": a word ending as a plural's
    # stem before its "-es" ("-se", "-xe", "-ze", "-che", "-she") also reads without its "e"
    # (drivable.kinds.text_folding.singular), so "maxe" is a reading of "max"
    for form in list(forms):
        if len(form) >= 4 and (form[-2:] in ("se", "xe", "ze") or form[-3:] in ("che", "she")):
            forms.add(form[:-1])
    return forms


def _joined(tokens: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """Words separated only by gaps are one word: the separators between words are no part of
    the value ("max_seats" and "maxs_eats" are both the letters "maxseats")."""
    out: list[tuple[str, str]] = []
    for kind, piece in tokens:
        if kind == "word" and out and out[-1][0] == "word":
            out[-1] = ("word", out[-1][1] + piece)
        elif kind == "gap" and out and out[-1][0] == "word":
            continue  # the word after it joins this one; a number after it stands alone anyway
        else:
            out.append((kind, piece))
    return out


def readings(text: str) -> set[str]:
    """Every reading of `text` (bounded: a text of many plurals gives at most 64)."""
    tokens = _joined(_tokens(text))
    choices: list[set[str]] = []
    for index, (kind, piece) in enumerate(tokens):
        before = [t for t in tokens[:index] if t[0] != "gap"]
        gap_before = index > 0 and tokens[index - 1][0] == "gap"
        if kind == "word":
            choices.append(_singulars(piece))
        elif kind == "number":
            after_number = bool(before) and before[-1][0] == "number"
            if after_number:
                mark = tokens[index - 1][1].strip() or " " if gap_before else ""
                choices.append({mark + piece})
            else:
                choices.append({str(int(piece)) if piece.isascii() else piece})
        elif kind == "mark":
            choices.append({piece})
    out: set[str] = set()
    for combination in itertools.islice(itertools.product(*choices), 64):
        out.add("".join(combination))
    return out


def same_value(a: str, b: str) -> bool:
    """`a` and `b` are one value spelled two ways."""
    return bool(readings(a) & readings(b))


def _written_out(name: str) -> str:
    """A property name with the declared abbreviations written out, a last word naming its value's
    form left out, and a declared alias read as the name it stands for (the vocabulary is data the
    runtime declares, not its mechanism)."""
    from drivable.contract.validation import ABBREVIATIONS, FORM_WORDS, NAME_ALIASES

    pieces = [piece for kind, piece in _tokens(name) if kind in ("word", "number")]
    if len(pieces) > 1 and pieces[-1] in FORM_WORDS:
        pieces = pieces[:-1]
    text = "_".join(ABBREVIATIONS.get(p, p) for p in pieces)
    return next((meant for alias, meant in NAME_ALIASES.items() if same_value(text, alias)), text)


def same_name(a: str, b: str) -> bool:
    """Two property names are one name spelled or abbreviated two ways."""
    return same_value(_written_out(a), _written_out(b))


def words_of(name: str) -> list[set[str]]:
    """A name's words, each as the set of its singular readings."""
    return [_singulars(piece) for kind, piece in _tokens(name) if kind in ("word", "number")]


def _abbreviations_out(name: str) -> str:
    from drivable.contract.validation import ABBREVIATIONS

    pieces = [piece for kind, piece in _tokens(name) if kind in ("word", "number")]
    return "_".join(ABBREVIATIONS.get(p, p) for p in pieces)


def words_within(inner: str, outer: str) -> bool:
    """Every word of `inner` is a word of `outer` (in any order): "seats" in "min_seats". Words
    as written (abbreviations written out): "court_name" holds a name, which "court_id" has not."""
    words = words_of(_abbreviations_out(outer))
    inside = words_of(_abbreviations_out(inner))
    return bool(inside) and all(any(w & o for o in words) for w in inside)


def counterparts(name: str, declared: list[str]) -> list[str]:
    """The declared names an unknown `name` may stand for under the rule: those it spells or
    abbreviates another way, else those whose words contain all of its words."""
    same = [d for d in declared if same_name(name, d)]
    return same or [d for d in declared if words_within(name, d)]
