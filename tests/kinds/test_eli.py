"""eli: every citation of a Czech or EU act reads to its canonical ELI; untyped EU numbers ask."""

from __future__ import annotations

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from drivable.kinds import KindModel, read, validate
from drivable.kinds.eli import PATTERN, Eli

OUTCOMES = {"value", "absent", "ask", "invalid"}
years = st.integers(1945, 2099)
numbers = st.integers(1, 9999)
EU_WORDS = {
    "reg": ["Regulation", "nařízení", "Verordnung"],
    "dir": ["Directive", "směrnice", "Richtlinie"],
    "dec": ["Decision", "rozhodnutí", "Beschluss"],
}


@given(years, numbers)
def test_every_czech_citation_reads_to_the_canonical_uri(year: int, number: int) -> None:
    canonical = f"https://eli.gov.cz/eli/cz/sb/{year}/{number}"
    for text in (
        canonical,
        f"http://eli.gov.cz/eli/cz/sb/{year}/{number}/",
        f"eli.gov.cz/eli/cz/sb/{year}/{number}",
        f"eli/cz/sb/{year}/{number}",
        f"/eli/cz/sb/{year}/{number}",
        f"ELI/CZ/SB/{year}/{number}",
        f"https://www.e-sbirka.cz/eli/cz/sb/{year}/{number}",
        f"{number}/{year} Sb.",
        f"{number}/{year} Sb",
        f"zákon č. {number}/{year} Sb.",
        f"zakon c. {number}/{year} Sb.",
        f"vyhláška č. {number}/{year} Sb.",
        f"Sb. {number}/{year}",
        f"č. {number} / {year} Sb.",
    ):
        reading = read("eli", text)
        assert reading.value == canonical, (text, reading.to_dict())
        assert re.match(PATTERN, reading.value)
        assert reading.notes == (() if text == canonical else (f"Read '{text}' as {canonical}.",))


@given(st.integers(2015, 2099), numbers, st.sampled_from(["reg", "dir", "dec"]))
def test_every_eu_citation_reads_to_the_canonical_uri(year: int, number: int, kind: str) -> None:
    canonical = f"http://data.europa.eu/eli/{kind}/{year}/{number}/oj"
    texts = [
        canonical,
        f"https://data.europa.eu/eli/{kind}/{year}/{number}/oj",
        f"data.europa.eu/eli/{kind}/{year}/{number}",
        f"eli/{kind}/{year}/{number}/oj",
        f"3{year}{'RLD'[['reg', 'dir', 'dec'].index(kind)]}{number:04d}",
    ]
    texts += [f"{word} (EU) {year}/{number}" for word in EU_WORDS[kind]]
    for text in texts:
        reading = read("eli", text)
        assert reading.value == canonical, (text, reading.to_dict())
        assert re.match(PATTERN, reading.value)


@given(st.integers(2015, 2099), numbers)
def test_an_eu_number_without_its_type_asks(year: int, number: int) -> None:
    reading = read("eli", f"(EU) {year}/{number}")
    assert (reading.outcome, reading.code) == ("ask", "ambiguous_eli")
    assert reading.readings == tuple(
        f"http://data.europa.eu/eli/{t}/{year}/{number}/oj" for t in ("reg", "dir", "dec")
    )


@given(st.text(max_size=60))
def test_any_text_reads_to_one_of_four_outcomes(text: str) -> None:
    reading = read("eli", text)
    assert reading.outcome in OUTCOMES
    if reading.outcome == "value":
        assert re.match(PATTERN, reading.value)


@pytest.mark.parametrize(
    ("text", "canonical"),
    [
        ("89/2012 Sb.", "https://eli.gov.cz/eli/cz/sb/2012/89"),
        ("zákon č. 89/2012 Sb.", "https://eli.gov.cz/eli/cz/sb/2012/89"),
        ("Sb. 89/2012", "https://eli.gov.cz/eli/cz/sb/2012/89"),
        ("eli/cz/sb/2012/89", "https://eli.gov.cz/eli/cz/sb/2012/89"),
        ("Regulation (EU) 2016/679", "http://data.europa.eu/eli/reg/2016/679/oj"),
        ("Directive 95/46/EC", "http://data.europa.eu/eli/dir/1995/46/oj"),
        ("Regulation (EC) No 45/2001", "http://data.europa.eu/eli/reg/2001/45/oj"),
        (
            "Commission Implementing Regulation (EU) 2019/947",
            "http://data.europa.eu/eli/reg_impl/2019/947/oj",
        ),
        (
            "http://data.europa.eu/eli/reg/2016/679/oj/eng",
            "http://data.europa.eu/eli/reg/2016/679/oj/eng",
        ),
    ],
)
def test_pinned_citations(text: str, canonical: str) -> None:
    assert read("eli", text).value == canonical


@pytest.mark.parametrize(
    "text", ["hello", "89/2012", "eli/cz/sb/2012/0", "eli/xx/2012/5", "2016/679"]
)
def test_unreadable_citations_are_invalid_with_an_example(text: str) -> None:
    reading = read("eli", text)
    assert (reading.outcome, reading.code) == ("invalid", "invalid_eli")
    assert "https://eli.gov.cz/eli/cz/sb/2012/89" in reading.hint


class Lookup(KindModel):
    eli: str
    amended_eli: Eli | None = None


def test_pydantic_seam() -> None:
    validated = validate(Lookup, {"eli": "89/2012 Sb.", "amended_eli": "Regulation (EU) 2016/679"})
    assert validated.value.eli == "https://eli.gov.cz/eli/cz/sb/2012/89"
    assert len(validated.notes) == 2
    assert Lookup.model_json_schema()["properties"]["eli"]["pattern"] == PATTERN


@given(
    st.text(max_size=60)
    | st.from_regex(r"(eli/|\(EU\) |zákon č\. )?[0-9/ ]{1,14}( Sb\.)?", fullmatch=True)
    | st.integers()
)
def test_the_reader_itself_never_raises(value: object) -> None:
    # read() turns a reader's exception into a refusal; the reader must not rely on that.
    from drivable.kinds import KINDS
    from drivable.kinds._registry import make_options

    options: dict[str, object]
    for options in ({},):
        reading = KINDS["eli"].reader(value, make_options(**options))
        assert reading.outcome in {"value", "absent", "ask", "invalid"}
        reading.to_dict()
