"""Suggestions only between spellings of one value (docs/kinds.md, "One value, many spellings").

A value is read as a member, or offered as one, only when it is that member spelled another way
(`tests.spelling_oracle`); a value close in characters is another value and gets the list of
allowed values with no guess. Over generated enums: half-hour slots, words, snake_case names, and
near misses of every kind: digit changes ("9:00" and "19:00"), letters of another word ("court"
and "country"), prefixes, transpositions.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Callable

from hypothesis import given, settings
from hypothesis import strategies as st

from drivable.kinds import read
from drivable.kinds.enum import SHOWN_MEMBERS
from drivable.kinds.text_folding import spelling
from tests.spelling_oracle import same_value

SLOTS = [f"{h:02d}:{m:02d}" for h in range(24) for m in (0, 30)]
WORDS = ["court", "country", "count", "courts", "room", "rooms", "booking", "book", "public_law",
         "civil", "criminal", "summary", "full", "detail", "details", "draft", "paid", "unpaid",
         "open", "opened", "closed", "new", "seat", "seats", "min_seats", "status", "statuses"]  # fmt: skip


def _respell(rng: st.DataObject, member: str) -> str:
    """`member` spelled another way: case, separators, camelCase, a plural, a leading zero."""
    ways: list[Callable[[str], str]] = [
        str.upper,
        str.title,
        lambda s: f" {s} ",
        lambda s: s.replace("_", " "),
        lambda s: s.replace("_", "-"),
        lambda s: "".join(w.capitalize() for w in s.split("_")),
        lambda s: s[1:] if s[:1] == "0" and s[1:2].isdigit() else s,
        lambda s: "0" + s if s[:1].isdigit() else s,
        lambda s: s + "s" if s[-1:].isalpha() and not s.endswith("s") else s,
        lambda s: s + "." if s[-1:].isalpha() else s,
    ]
    return rng.draw(st.sampled_from(ways))(member)


def _near_miss(rng: st.DataObject, member: str) -> str:
    """Another value close to `member` in characters."""
    at = rng.draw(st.integers(0, max(len(member) - 1, 0)))
    digit = rng.draw(st.sampled_from("0123456789"))
    letters = rng.draw(st.text("abcdefghijklmnopqrstuvwxyz", min_size=1, max_size=3))
    ways = [
        member[:at] + digit + member[at:],  # "9:00" -> "19:00"
        member[:at] + letters + member[at:],  # "court" -> "country"
        member[: max(1, at)],  # a prefix
        member[:at] + member[at + 1 : at + 2] + member[at : at + 1] + member[at + 2 :],
        member.replace(member[at], digit) if member else digit,
        rng.draw(st.sampled_from(WORDS + SLOTS)),
    ]
    return rng.draw(st.sampled_from(ways))


members = st.one_of(
    st.lists(st.sampled_from(SLOTS), min_size=1, max_size=48, unique=True),
    st.lists(st.sampled_from(WORDS), min_size=1, max_size=8, unique=True),
)


def _named_outside_the_list(hint: str, choices: list[str]) -> list[str]:
    listed = ", ".join(choices[:SHOWN_MEMBERS])
    rest = hint.replace(listed, "", 1) if listed in hint else hint
    return [c for c in choices if f"'{c}'" in rest or f" {c}?" in rest]


@settings(max_examples=400, deadline=None)
@given(choices=members, data=st.data())
def test_every_suggestion_is_the_same_value_spelled_another_way(
    choices: list[str], data: st.DataObject
) -> None:
    member = data.draw(st.sampled_from(choices))
    sent = data.draw(st.sampled_from([_near_miss(data, member), _respell(data, member)]))
    reading = read("enum", sent, choices=choices)
    if reading.outcome == "value":
        assert same_value(sent, reading.value), (sent, reading.value)
    elif reading.outcome == "ask":
        assert all(same_value(sent, r) for r in reading.readings), (sent, reading.readings)
    else:
        # no guess: the refusal lists the allowed values and singles none of them out
        assert reading.outcome == "invalid", reading
        assert not _named_outside_the_list(reading.hint, choices), (sent, reading.hint)
        assert ", ".join(choices[:SHOWN_MEMBERS]) in reading.hint


@settings(max_examples=300, deadline=None)
@given(choices=members, data=st.data())
def test_a_member_spelled_another_way_reads_as_it(choices: list[str], data: st.DataObject) -> None:
    member = data.draw(st.sampled_from(choices))
    sent = _respell(data, member)
    sharing = [c for c in choices if spelling(c) == spelling(sent)]
    reading = read("enum", sent, choices=choices)
    if sent in choices:
        assert reading.value == sent
    elif len(sharing) > 1:
        assert reading.outcome == "ask" and set(reading.readings) == set(sharing)
    else:
        assert (reading.outcome, reading.value) == ("value", member), (sent, reading)


def test_the_reported_cases() -> None:
    slots = [f"{h:02d}:{m:02d}" for h in range(8, 20) for m in (0, 30)]
    assert read("enum", "9:00", choices=slots).value == "09:00"  # was: "Did you mean '19:00'?"
    nine = [s for s in slots if s != "09:00"]
    miss = read("enum", "9:00", choices=nine)
    assert miss.outcome == "invalid" and "19:00'" not in miss.hint.split("Send one of")[0]
    assert read("enum", "court", choices=["country", "cursor"]).outcome == "invalid"


@given(st.lists(st.sampled_from(SLOTS), min_size=SHOWN_MEMBERS + 1, max_size=48, unique=True))
def test_a_long_list_is_bounded(choices: list[str]) -> None:
    hint = read("enum", "never", choices=choices).hint
    assert f"and {len(choices) - SHOWN_MEMBERS} more" in hint
    assert choices[-1] not in hint.split("and ")[0] or choices[-1] in choices[:SHOWN_MEMBERS]


def _accents(text: str) -> str:
    return unicodedata.normalize("NFC", text.replace("a", "á").replace("e", "ě"))


@given(st.sampled_from(WORDS))
def test_accents_and_case_are_one_value(word: str) -> None:
    assert read("enum", _accents(word).upper(), choices=[word]).value == word


def test_the_oracle_agrees_with_the_key_on_the_examples_the_rule_names() -> None:
    for a, b in [("9:00", "09:00"), ("PublicLaw", "public_law"), ("seats", "seat"),
                 ("Přehled", "prehled"), ("Ltd.", "ltd"), ("categories", "category")]:  # fmt: skip
        assert same_value(a, b) and spelling(a) == spelling(b), (a, b)
    for a, b in [("9:00", "19:00"), ("court", "country"), ("1.5", "15"), ("p2", "p1"),
                 ("C++", "C"), ("1.05", "1.5")]:  # fmt: skip
        assert not same_value(a, b) and spelling(a) != spelling(b), (a, b)
