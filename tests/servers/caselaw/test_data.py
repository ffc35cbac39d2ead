"""The generator: the same records on every run, in each court's real formats, citing real ELIs."""

from __future__ import annotations

import re
from collections import Counter

from drivable.kinds import read
from drivable.servers.caselaw.courts import BY_VALUE, COURT_VOCABULARY, COURTS
from drivable.servers.caselaw.data import COUNT, SUBJECTS, generate, records_digest
from drivable.servers.caselaw.store import chunk_text

# sha256 of the first 200 records' canonical JSON. A change here changes every cached database:
# bump DATA_VERSION with it.
FIRST_200 = "cfcc3bb419c2f511dfac0d8eb06b0bb24b69554741b7e350b49f26ec8d47e886"

FORMATS = {
    "Nejvyšší soud": r"\d{2} (Cdo|Odo|Tdo|ICdo|NSČR) \d{1,4}/\d{4}",
    "Nejvyšší správní soud": r"\d{1,2} (As|Ads|Afs|Azs|Ans) \d{1,4}/\d{4}-\d{2,3}",
    "Ústavní soud": r"(I|II|III|IV|Pl)\. ÚS \d{1,4}/\d{2}",
    "Bundesgerichtshof": r"([IVX]+ (ZR|ZB)|\d StR) \d{1,3}/\d{2}",
    "Bundesverfassungsgericht": r"[12] Bv[RLE] \d{1,4}/\d{2}",
    "Bundesverwaltungsgericht": r"\d{1,2} [CBA] \d{1,2}\.\d{2}",
    "Oberster Gerichtshof": r"\d{1,2} (Ob|Os|ObA) \d{1,3}/\d{2}[a-z]",
    "Cour de cassation": r"\d{2}-\d{2}\.\d{3}",
    "Sąd Najwyższy": r"[IV]+ (CSK|CSKP|CZP|KK|PSK) \d{1,3}/\d{2}",
    "Court of Justice of the European Union": r"C-\d{1,3}/\d{2}",
    "General Court": r"T-\d{1,3}/\d{2}",
    "European Court of Human Rights": r"\d{4,5}/\d{2}",
}


def test_the_generator_makes_the_same_records_on_every_run() -> None:
    assert records_digest(list(generate(200))) == FIRST_200
    assert records_digest(generate(50)) == records_digest(generate(50))


def test_there_are_enough_distinct_decisions_in_every_court_and_subject() -> None:
    records = list(generate())
    assert len(records) == COUNT >= 5000
    assert len({r.decision_id for r in records}) == COUNT
    assert len({(r.court, r.case_number) for r in records}) == COUNT
    courts = Counter(r.court for r in records)
    assert set(courts) == {c.value for c in COURTS}
    assert min(courts.values()) >= 50
    assert {r.subject for r in records} <= set(SUBJECTS)
    for record in records[:500]:
        court = BY_VALUE[record.court]
        assert record.subject in court.subjects
        assert record.locale == court.locale
        assert record.ecli.startswith(f"ECLI:{court.ecli_code}:{record.decided_on[:4]}:")
        assert re.fullmatch(r"[A-Z0-9:.]+", record.ecli), record.ecli
        assert len(record.text) > 2500, "several pages"
        assert len(chunk_text(record.text)) >= 5


def test_case_numbers_follow_each_courts_real_format() -> None:
    seen: dict[str, int] = Counter()
    for record in generate(2000):
        pattern = FORMATS.get(record.court)
        if pattern:
            assert re.fullmatch(pattern, record.case_number), (record.court, record.case_number)
            seen[record.court] += 1
    assert set(seen) == set(FORMATS)


def test_statutes_are_canonical_elis() -> None:
    for record in generate(1000):
        for eli in record.statutes:
            reading = read("eli", eli)
            assert reading.outcome == "value" and reading.value == eli and not reading.notes


def test_every_court_reads_through_its_names() -> None:
    for court in COURTS:
        for spelling in (court.value, court.english, *court.abbreviations, *court.aliases):
            assert COURT_VOCABULARY.lookup(spelling) == (court.value,), spelling
    assert COURT_VOCABULARY.lookup("Nejvyssi soud") == ("Nejvyšší soud",)
    assert COURT_VOCABULARY.lookup("supreme court") == ("Nejvyšší soud",)
    assert COURT_VOCABULARY.lookup("nejvyššího soudu") == ("Nejvyšší soud",)
