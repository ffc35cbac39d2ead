"""vocabulary: any name of a stored value reads to it; a miss never empties a filter."""

from __future__ import annotations

import unicodedata
from typing import Annotated

import pytest
from hypothesis import given
from hypothesis import strategies as st

from drivable.kinds import Kind, KindModel, read, validate
from drivable.kinds.vocabulary import ENUM_LIMIT, Entry, Vocabulary, fold

COURTS = Vocabulary(
    [
        Entry("NS", "Nejvyšší soud", "Supreme Court", ("NS",)),
        Entry("NSS", "Nejvyšší správní soud", "Supreme Administrative Court", ("NSS",)),
        Entry("US", "Ústavní soud", "Constitutional Court", ("ÚS",), ("Ustavni soud CR",)),
        Entry("KSBR", "Krajský soud v Brně", "Regional Court in Brno", ("KS Brno",)),
        Entry("MSPH", "Městský soud v Praze", "Municipal Court in Prague", ("MS Praha",)),
    ],
    name="court",
    list_tool="list_courts",
)
OUTCOMES = {"value", "absent", "ask", "invalid"}


def strip_diacritics(text: str) -> str:
    decomposed = unicodedata.normalize("NFKD", text)
    return "".join(c for c in decomposed if not unicodedata.combining(c))


spellings_of_names = st.sampled_from(
    [(e.value, name) for e in COURTS.entries for name in e.names() if name]
)
cases = st.sampled_from([str.lower, str.upper, str.title, str.casefold, lambda s: s])


@given(spellings_of_names, cases, st.booleans(), st.sampled_from(["", " ", "  ", "\t"]))
def test_every_name_in_any_case_reads_to_its_value(
    pair: tuple[str, str], case: object, plain: bool, pad: str
) -> None:
    value, name = pair
    text = case(name)  # type: ignore[operator]
    if plain:
        text = strip_diacritics(text)
    text = f"{pad}{text}{pad}"
    reading = read("vocabulary", text, vocabulary=COURTS)
    assert reading.outcome == "value", (text, reading.to_dict())
    assert reading.value == value


full_names = st.sampled_from(
    [(e.value, n) for e in COURTS.entries for n in (e.name, e.english, *e.aliases) if n]
)


@given(full_names, cases, st.booleans())
def test_named_knows_every_full_name_in_any_case(
    pair: tuple[str, str], case: object, plain: bool
) -> None:
    value, name = pair
    text = case(name)  # type: ignore[operator]
    assert COURTS.named(strip_diacritics(text) if plain else text) == value


@given(st.text(max_size=40))
def test_named_is_only_ever_a_value_whose_full_name_is_the_text(text: str) -> None:
    found = COURTS.named(text)
    if found is not None:
        entry = COURTS.entry(found)
        names = (entry.name, entry.english, *entry.aliases)
        assert fold(text) in {fold(n) for n in names if n}


def test_named_is_never_an_abbreviation_nor_a_part_of_a_name() -> None:
    assert COURTS.named("ÚS") is None  # a word of a text ("us"), not the court
    assert COURTS.named("KS Brno") is None
    assert COURTS.named("NSS") is None  # a value that is a code
    assert COURTS.named("Krajský soud") is None  # a part names no one court
    assert COURTS.named("Supreme") is None
    assert COURTS.named("") is None


@given(spellings_of_names)
def test_word_order_punctuation_and_the(pair: tuple[str, str]) -> None:
    value, name = pair
    words = name.split()
    shuffled = ", ".join(reversed(words))
    assert read("vocabulary", f"the {shuffled}", vocabulary=COURTS).value == value


@given(st.text(max_size=40))
def test_any_text_reads_to_one_of_four_outcomes_and_never_empties_a_filter(text: str) -> None:
    reading = read("vocabulary", text, vocabulary=COURTS)
    assert reading.outcome in ("value", "absent")
    strict = read("vocabulary", text, vocabulary=COURTS, strict=True)
    assert strict.outcome in OUTCOMES


def test_pinned_examples() -> None:
    assert read("vocabulary", "supreme court", vocabulary=COURTS).to_dict() == {
        "outcome": "value",
        "value": "NS",
        "notes": ["Read 'supreme court' as NS."],
    }
    assert read("vocabulary", "NS", vocabulary=COURTS).notes == ()
    assert read("vocabulary", "Nejvyssi soud", vocabulary=COURTS).value == "NS"
    # An inflected name with exactly the words of one entry names that entry.
    assert read("vocabulary", "Nejvyššího soudu", vocabulary=COURTS).value == "NS"
    assert read("vocabulary", "ÚS", vocabulary=COURTS).value == "US"


def test_a_miss_as_a_filter_is_dropped_with_a_warning_naming_the_stored_values() -> None:
    reading = read("vocabulary", "Vrchní soud v Olomouci", vocabulary=COURTS)
    assert reading.outcome == "absent"
    (warning,) = reading.warnings
    assert warning.code == "filter_value_dropped"
    for value in COURTS.values:
        assert value in warning.message
    assert warning.message in reading.notes


def test_several_matches_as_a_filter_name_the_candidates() -> None:
    reading = read("vocabulary", "supreme", vocabulary=COURTS)
    assert reading.outcome == "absent"
    (warning,) = reading.warnings
    assert "NS (Supreme Court)" in warning.message and "NSS" in warning.message
    assert "KSBR" not in warning.message


def test_strict_asks_or_refuses() -> None:
    several = read("vocabulary", "supreme", vocabulary=COURTS, strict=True)
    assert (several.outcome, several.readings) == ("ask", ("NS", "NSS"))
    none = read("vocabulary", "Vrchní soud", vocabulary=COURTS, strict=True)
    assert none.outcome == "invalid" and "NS" in none.hint
    assert read("vocabulary", "Vrchní soud", vocabulary=COURTS, intent="write").outcome == "invalid"


def test_without_a_vocabulary_the_reader_refuses_rather_than_raises() -> None:
    assert read("vocabulary", "NS").outcome == "invalid"
    assert read("vocabulary", 42, vocabulary=COURTS).outcome == "absent"


def test_vocabulary_is_immutable() -> None:
    with pytest.raises(AttributeError):
        COURTS.name = "other"
    with pytest.raises(TypeError):
        COURTS._exact[("x",)] = frozenset()  # type: ignore[index]


class Search(KindModel):
    court: Annotated[str | None, Kind("vocabulary", vocabulary=COURTS)] = None


def test_schema_lists_small_vocabularies_and_points_at_the_tool_for_large_ones() -> None:
    schema = Search.model_json_schema()["properties"]["court"]
    assert schema["type"] == "string" and schema["enum"] == list(COURTS.values)
    large = Vocabulary(
        [Entry(f"C{i}", f"Court {i}") for i in range(ENUM_LIMIT + 1)], list_tool="list_courts"
    )
    fragment = Kind("vocabulary", vocabulary=large)
    from drivable.kinds import KINDS
    from drivable.kinds._registry import make_options

    big = KINDS["vocabulary"].schema(make_options(**fragment.options))
    assert "enum" not in big and "list_courts" in big["description"]


def test_pydantic_seam_drops_a_miss_with_a_warning() -> None:
    validated = validate(Search, {"court": "the supreme court"})
    assert validated.value.court == "NS"
    dropped = validate(Search, {"court": "Vrchní soud"})
    assert dropped.value.court is None
    assert dropped.warnings[0]["code"] == "filter_value_dropped"
    assert dropped.warnings[0]["path"] == "court"


@given(st.text(max_size=40) | st.integers() | st.none())
def test_the_reader_itself_never_raises(value: object) -> None:
    # read() turns a reader's exception into a refusal; the reader must not rely on that.
    from drivable.kinds import KINDS
    from drivable.kinds._registry import make_options

    for options in (
        {"vocabulary": COURTS},
        {"vocabulary": COURTS, "strict": True},
        {},
    ):
        reading = KINDS["vocabulary"].reader(value, make_options(**options))
        assert reading.outcome in {"value", "absent", "ask", "invalid"}
        reading.to_dict()


_LOCALS = st.from_regex(r"[a-z][a-z0-9]{0,8}(\.[a-z][a-z0-9]{0,8})?", fullmatch=True)
_HOSTS = st.from_regex(r"[a-z][a-z0-9]{0,8}\.(com|org|cz|de)", fullmatch=True)
_ADDRESSES = st.builds(lambda local, host: f"{local}@{host}", _LOCALS, _HOSTS)


@given(members=st.lists(_ADDRESSES, min_size=1, max_size=6, unique=True), data=st.data())
def test_a_member_address_is_reached_by_every_spelling_of_it_and_no_other_address(
    members: list[str], data: st.DataObject
) -> None:
    from drivable.kinds.writing import spellings

    people = Vocabulary([Entry(m) for m in members], name="person")
    member = data.draw(st.sampled_from(members))
    for spelled in [*spellings("email", member), f"Someone <{member}>", f"<{member}>"]:
        reading = read("vocabulary", spelled, vocabulary=people)
        assert (reading.outcome, reading.value) == ("value", member), spelled
    other = data.draw(_ADDRESSES.filter(lambda a: a.lower() not in {m.lower() for m in members}))
    for spelled in [other, f"mailto:{other}", f"<{other}>"]:
        assert read("vocabulary", spelled, vocabulary=people).outcome != "value", spelled
