"""vocabulary: a value the data owns (a court, an agency), read through its names.

A `Vocabulary` is built from entries: the stored (canonical) value, its official name, its English
name, abbreviations and other aliases. Lookup goes through a folded index (case, diacritics,
punctuation, spaces, "the", word order), then through words that start alike ("Nejvyššího soudu"
finds "Nejvyšší soud"); a match counts only when it names exactly one entry.

A value that names no stored value, or several, is by default an optional filter: it is dropped
with a warning (`filter_value_dropped`) naming the stored values or the candidates, so a search is
never emptied. With `strict=True` (a required input), or on a write, it is refused or asked about.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

from drivable.kinds._reading import Reading, Warning_, shown
from drivable.kinds._registry import Options, kind
from drivable.kinds.email import read_email
from drivable.kinds.text_folding import words

EXPECTED = "one of the stored values"
# Up to this many values the schema lists them as an enum; beyond it, the list tool does.
ENUM_LIMIT = 100
_SHOWN_VALUES = 20
_STOPWORDS = frozenset({"the", "of", "a", "an", "and"})
# Words sharing this many leading letters may be inflections of one another (soud, soudu, soudem).
_STEM = 4


@dataclass(frozen=True)
class Entry:
    """One stored value and the names it goes by."""

    value: str
    name: str = ""
    english: str = ""
    abbreviations: tuple[str, ...] = ()
    aliases: tuple[str, ...] = ()

    def names(self) -> tuple[str, ...]:
        return (self.value, self.name, self.english, *self.abbreviations, *self.aliases)


def fold(text: str) -> tuple[str, ...]:
    """The words of a name, compared without case, diacritics, punctuation or filler words."""
    return tuple(w for w in words(text).split() if w not in _STOPWORDS)


class Vocabulary:
    """An immutable set of stored values with a folded index over all their names."""

    __slots__ = (
        "_bag",
        "_by_value",
        "_entries",
        "_exact",
        "_full",
        "description",
        "list_tool",
        "name",
    )

    name: str
    list_tool: str | None
    description: str
    _entries: tuple[Entry, ...]
    _by_value: Mapping[str, Entry]
    _exact: Mapping[tuple[str, ...], frozenset[str]]
    _bag: Mapping[tuple[str, ...], frozenset[str]]
    _full: Mapping[tuple[str, ...], frozenset[str]]

    def __init__(
        self,
        entries: Iterable[Entry],
        *,
        name: str = "value",
        list_tool: str | None = None,
        description: str = "",
    ) -> None:
        exact: dict[tuple[str, ...], set[str]] = {}
        bag: dict[tuple[str, ...], set[str]] = {}
        full: dict[tuple[str, ...], set[str]] = {}  # names without abbreviations (`named`)
        built = tuple(entries)
        for entry in built:
            for spelling in entry.names():
                words = fold(spelling)
                if words:
                    exact.setdefault(words, set()).add(entry.value)
                    bag.setdefault(tuple(sorted(words)), set()).add(entry.value)
            for spelling in (entry.name, entry.english, *entry.aliases):
                if words := fold(spelling):
                    full.setdefault(words, set()).add(entry.value)
        fields: dict[str, Any] = {
            "name": name,
            "list_tool": list_tool,
            "description": description,
            "_entries": built,
            "_by_value": MappingProxyType({e.value: e for e in built}),
            "_exact": MappingProxyType({k: frozenset(v) for k, v in exact.items()}),
            "_bag": MappingProxyType({k: frozenset(v) for k, v in bag.items()}),
            "_full": MappingProxyType({k: frozenset(v) for k, v in full.items()}),
        }
        for attribute, value in fields.items():
            object.__setattr__(self, attribute, value)

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"a Vocabulary is immutable; build a new one to change {name!r}")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"a Vocabulary is immutable; cannot delete {name!r}")

    @classmethod
    def of(cls, entries: Iterable[Entry | Mapping[str, Any]], **kwargs: Any) -> Vocabulary:
        """Build from entries or plain mappings with the fields of `Entry`."""
        built = [
            e
            if isinstance(e, Entry)
            else Entry(
                value=e["value"],
                name=e.get("name", ""),
                english=e.get("english", ""),
                abbreviations=tuple(e.get("abbreviations", ())),
                aliases=tuple(e.get("aliases", ())),
            )
            for e in entries
        ]
        return cls(built, **kwargs)

    @property
    def values(self) -> tuple[str, ...]:
        return tuple(e.value for e in self._entries)

    @property
    def entries(self) -> tuple[Entry, ...]:
        return self._entries

    def __len__(self) -> int:
        return len(self._entries)

    def __contains__(self, value: object) -> bool:
        return value in self._by_value

    def entry(self, value: str) -> Entry:
        return self._by_value[value]

    def lookup(self, text: str) -> tuple[str, ...]:
        """The stored values `text` may name, best tier first; one value means one meaning."""
        if text in self._by_value:
            return (text,)
        words = fold(text)
        if not words:
            return ()
        found = self._exact.get(words) or self._bag.get(tuple(sorted(words)))
        if found:
            return tuple(sorted(found))
        return tuple(sorted(self._partial(words)))

    def named(self, text: str) -> str | None:
        """The one stored value whose full name is exactly `text` (folded), else None.

        Full names are the name, English name and aliases; an abbreviation never counts (a word
        of a text, "us", is not the court ÚS), nor does the value (it may be a code). For telling
        a name from words of a text.
        """
        found = self._full.get(fold(text), frozenset())
        return next(iter(found)) if len(found) == 1 else None

    def _partial(self, words: tuple[str, ...]) -> set[str]:
        """Entries whose name has every word given (or an inflection of it).

        A name with exactly the words given ("nejvyššího soudu" -> "Nejvyšší soud") wins over
        names that merely contain them ("Nejvyšší správní soud").
        """
        whole: set[str] = set()
        within: set[str] = set()
        for key, values in self._exact.items():
            if all(any(_alike(w, k) for k in key) for w in words):
                within.update(values)
                if len(key) == len(words):
                    whole.update(values)
        return whole or within

    def describe(self, value: str) -> str:
        entry = self._by_value[value]
        label = entry.english or entry.name
        return f"{value} ({label})" if label and label != value else value


def _alike(given: str, stored: str) -> bool:
    if given == stored:
        return True
    short, long_ = (given, stored) if len(given) <= len(stored) else (stored, given)
    return len(short) >= _STEM and long_.startswith(short)


def _schema(options: Options) -> dict[str, Any]:
    vocabulary = options.vocabulary
    if not isinstance(vocabulary, Vocabulary):
        return {"type": "string", "minLength": 1}
    what = vocabulary.description or f"A stored {vocabulary.name}"
    if len(vocabulary) <= ENUM_LIMIT:
        return {"type": "string", "enum": list(vocabulary.values), "description": f"{what}."}
    where = f"call {vocabulary.list_tool}" if vocabulary.list_tool else "see the list tool"
    return {
        "type": "string",
        "minLength": 1,
        "description": f"{what}: one of {len(vocabulary)} stored values; {where} for them.",
    }


@kind("vocabulary", schema=_schema, expected=EXPECTED)
def read_vocabulary(value: Any, options: Options) -> Reading:
    vocabulary = options.vocabulary
    if not isinstance(vocabulary, Vocabulary):
        return Reading.invalid(
            value,
            expected=EXPECTED,
            hint="This property has no vocabulary to read against; it cannot be filled.",
            code="invalid_vocabulary",
        )
    if isinstance(value, str):
        address = read_email(value, options) if "@" in value else None
        if address is not None and address.outcome == "value":
            found = _by_address(address.value, vocabulary)
        else:
            found = vocabulary.lookup(value.strip())
        if len(found) == 1:
            return Reading.repaired(value, found[0])
    else:
        found = ()
    strict = bool(options.extra.get("strict")) or options.intent == "write"
    if strict:
        return _refused(value, found, vocabulary)
    return _dropped(value, found, vocabulary)


def _by_address(address: str, vocabulary: Vocabulary) -> tuple[str, ...]:
    """The member that is this e-mail address, a mailbox matched without case; never a member
    that merely shares its words (an address is one value, not a phrase: "a@a.com" is not
    "a@b.com"). Every spelling the email kind reads as the address ("mailto:", a display name,
    angle brackets, a capitalised domain) reaches the same member."""
    wanted = address.casefold()
    return tuple(v for v in vocabulary.values if v.casefold() == wanted)


def _listing(values: Iterable[str], vocabulary: Vocabulary) -> str:
    values = list(values)
    shown_values = ", ".join(vocabulary.describe(v) for v in values[:_SHOWN_VALUES])
    if len(values) > _SHOWN_VALUES:
        more = f" and {len(values) - _SHOWN_VALUES} more"
        if vocabulary.list_tool:
            more += f" (call {vocabulary.list_tool})"
        shown_values += more
    return shown_values


def _dropped(value: Any, found: tuple[str, ...], vocabulary: Vocabulary) -> Reading:
    if found:
        message = (
            f"Ignored the {vocabulary.name} filter {shown(value)}: it matches several stored "
            f"values ({_listing(found, vocabulary)}). Send one of them to filter by it."
        )
    else:
        message = (
            f"Ignored the {vocabulary.name} filter {shown(value)}: it names no stored value. "
            f"Stored values: {_listing(vocabulary.values, vocabulary)}."
        )
    return Reading.absent(message, warnings=(Warning_("filter_value_dropped", message),))


def _refused(value: Any, found: tuple[str, ...], vocabulary: Vocabulary) -> Reading:
    if found:
        return Reading.ask(
            value,
            expected=f"one of: {', '.join(found)}",
            hint=(
                f"{shown(value)} matches several stored values ({_listing(found, vocabulary)}). "
                "Send the one you mean."
            ),
            readings=found,
            code="ambiguous_value",
        )
    return Reading.invalid(
        value,
        expected=EXPECTED,
        hint=(
            f"{shown(value)} names no stored {vocabulary.name}. "
            f"Stored values: {_listing(vocabulary.values, vocabulary)}."
        ),
        code="unknown_value",
    )


__all__ = ["ENUM_LIMIT", "EXPECTED", "Entry", "Vocabulary", "fold", "read_vocabulary"]
