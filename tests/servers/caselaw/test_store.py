"""Full-text search on planted decisions: words, diacritics, inflection, and no query syntax."""

from __future__ import annotations

from pathlib import Path

import pytest

from drivable.servers.caselaw.data import generate
from drivable.servers.caselaw.store import Filters, Store, chunk_text, fts_query


def ids(store: Store, query: str | None, **filters: str) -> list[str]:
    rows, total = store.search(query, Filters(**filters), 0, 50)
    assert total == len(rows) or total > 50
    return [r["case_number"] for r in rows]


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("kryptoměna bitcoin", "21 Cdo 1096/2021"),
        ("kryptomena BITCOIN", "21 Cdo 1096/2021"),  # case and diacritics do not matter
        ("bitcoinů", "21 Cdo 1096/2021"),  # an inflected form finds the word
        ("Thermofenster Dieselfahrzeug", "VI ZR 12/21"),
        ("Schrems transfer personal data", "C-311/18"),
        ("vinný sklep", "44 A 12/2020"),
    ],
)
def test_planted_decisions_are_found_first(planted_db: Path, query: str, expected: str) -> None:
    found = ids(Store(planted_db), query)
    assert found and found[0] == expected


def test_every_word_must_occur(planted_db: Path) -> None:
    store = Store(planted_db)
    assert ids(store, "bitcoin Thermofenster") == []


def test_filters_narrow_and_locale_covers_its_regions(planted_db: Path) -> None:
    store = Store(planted_db)
    assert ids(store, "bitcoin", court="Nejvyšší soud") == ["21 Cdo 1096/2021"]
    assert ids(store, "bitcoin", court="Bundesgerichtshof") == []
    assert ids(store, "bitcoin", locale="cs") == ["21 Cdo 1096/2021"]
    assert ids(store, "bitcoin", date_from="2021-10-02") == []
    assert ids(store, "Schrems", eli="http://data.europa.eu/eli/reg/2016/679/oj") == ["C-311/18"]


@pytest.mark.parametrize(
    "query", ['"', "NEAR(a b)", "a OR b", "*", "col:bitcoin", "'; DROP TABLE decisions; --", "^x"]
)
def test_query_syntax_never_reaches_fts(planted_db: Path, query: str) -> None:
    store = Store(planted_db)
    store.search(query, Filters(), 0, 5)  # no exception: every word is quoted
    built = fts_query(query)
    assert built is None or all(t.startswith('"') for t in built.split(" "))


def test_the_newest_decisions_come_first_without_a_query(planted_db: Path) -> None:
    rows, _ = Store(planted_db).search(None, Filters(), 0, 20)
    days = [r["decided_on"] for r in rows]
    assert days == sorted(days, reverse=True)


def test_chunks_are_stable_and_cover_the_text() -> None:
    for record in generate(30):
        parts = chunk_text(record.text)
        assert parts == chunk_text(record.text)
        assert "\n\n".join(body for _, body in parts) == record.text
        assert parts[1][0].startswith("I. ")


def test_case_numbers_resolve_through_their_tiers(planted_db: Path) -> None:
    store = Store(planted_db)
    assert [r["case_number"] for r in store.by_case_number("21cdo1096/2021")] == [
        "21 Cdo 1096/2021"
    ]
    assert [r["case_number"] for r in store.by_case_number("C 311/18")] == ["C-311/18"]
    assert len(store.by_case_number("44 A 12/2020")) == 2
    assert store.by_case_number("no digits") == []


def test_a_number_without_its_list_suffix_finds_the_decision(planted_db: Path) -> None:
    store = Store(planted_db)
    rows, _ = store.search(None, Filters(court="Nejvyšší správní soud"), 0, 1)
    full = rows[0]["case_number"]
    bare = full.rsplit("-", 1)[0]
    assert [r["case_number"] for r in store.by_case_number(bare)] == [full]
