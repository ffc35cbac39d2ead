"""The date kind's words, all from CLDR (babel), never a hand-written table: month and weekday
names, the words of days relative to today ("yesterday", "in 3 days"), and of weekdays relative to
this week ("next Monday", "příští pátek"), each folded as the reader folds what it receives."""

from __future__ import annotations

import re
from functools import cache

from babel.dates import get_day_names, get_month_names

from drivable.kinds.text_folding import bare

# Month names come from CLDR (babel), never from a hand-written table.
LOCALES = ("en", "cs", "de", "fr", "sk", "pl")
# Words that may surround a written date without changing it ("the 1st of October", "le 1er mai").
FILLER = frozenset({"the", "of", "st", "nd", "rd", "th", "er", "le", "den", "am", "dne", "dnia"})


@cache
def month_index() -> tuple[dict[str, frozenset[int]], dict[str, frozenset[int]]]:
    """Folded month names (and unique prefixes of three letters or more) -> the months they name."""
    names: dict[str, set[int]] = {}
    for locale in LOCALES:
        for width in ("wide", "abbreviated"):
            for context in ("format", "stand-alone"):
                for number, name in get_month_names(width, context, locale).items():
                    names.setdefault(bare(name).strip("."), set()).add(number)
    prefixes: dict[str, set[int]] = {}
    for name, months in names.items():
        for end in range(3, len(name)):
            prefixes.setdefault(name[:end], set()).update(months)
    exact = {k: frozenset(v) for k, v in names.items()}
    partial = {k: frozenset(v) for k, v in prefixes.items() if k not in exact}
    return exact, partial


@cache
def weekday_names() -> frozenset[str]:
    words: set[str] = set()
    for locale in LOCALES:
        for width in ("wide", "abbreviated"):
            for name in get_day_names(width, "format", locale).values():
                words.add(bare(name).strip("."))
    return frozenset(words)


def month_of(word: str) -> frozenset[int]:
    exact, partial = month_index()
    return exact.get(word) or partial.get(word) or frozenset()


@cache
def relative_words() -> tuple[dict[str, int], re.Pattern[str], re.Pattern[str]]:
    """CLDR's words for days relative to today ("yesterday", "zítra") and its "in {0} days" and
    "{0} days ago" forms, one pattern for each direction."""
    from babel import Locale

    words: dict[str, int] = {}
    forms: dict[str, set[str]] = {"future": set(), "past": set()}
    for locale in LOCALES:
        fields = Locale.parse(locale)._data["date_fields"]["day"]
        for offset, word in fields["relative"].items():
            words[bare(word)] = int(offset)
        for direction, found in forms.items():
            for form in fields[direction].values():
                found.add(re.escape(bare(form)).replace(r"\{0\}", r"(\d{1,4})", 1))

    def one(direction: str) -> re.Pattern[str]:
        return re.compile("|".join(f"^{f}$" for f in sorted(forms[direction])))

    return words, one("future"), one("past")


def relative_offset(text: str) -> int | None:
    """The offset in days a relative spelling names ("yesterday" -1, "in 3 days" 3), or None."""
    folded = bare(text)
    words, future, past = relative_words()
    if folded in words:
        return words[folded]
    for pattern, sign in ((future, 1), (past, -1)):
        if m := pattern.match(folded):
            return sign * int(next(g for g in m.groups() if g is not None))
    return None


@cache
def relative_weekdays() -> dict[str, tuple[int, int]]:
    """CLDR's "last Monday", "this Monday", "next Monday" (and "příští pondělí", "nächsten
    Montag"...) folded -> (the weekday, Monday 0, and the week: -1, 0 or 1)."""
    from babel import Locale

    found: dict[str, tuple[int, int]] = {}
    days = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")
    for locale in LOCALES:
        fields = Locale.parse(locale)._data["date_fields"]
        for weekday, day in enumerate(days):
            for width in (day, f"{day}-short"):
                for week, phrase in fields[width]["relative"].items():
                    found.setdefault(bare(phrase).rstrip("."), (weekday, int(week)))
    return found
