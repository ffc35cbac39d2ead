"""The case_number kind caselaw owns: every spelling of one number folds to one key; nothing else
does; it reads through the one registry like every other kind."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from drivable.kinds import KINDS, read
from drivable.servers.caselaw.case_number import CaseNumber
from drivable.servers.caselaw.data import generate

SAMPLE = [r.case_number for r in generate(400)] + [
    "21 Cdo 1096/2021",
    "I. ÚS 23/23",
    "III. ÚS 1234/22",
    "6 As 123/2020-45",
    "VI ZR 12/21",
    "C-311/18",
    "19-20.945",
    "8 C 9.20",
    "1 Ob 45/21d",
]


def case_key(text: str) -> str | None:
    reading = read("case_number", text)
    return reading.value.key if isinstance(reading.value, CaseNumber) else None


def loose_key(text: str) -> str:
    reading = read("case_number", text)
    assert isinstance(reading.value, CaseNumber)
    return reading.value.loose


def test_the_kind_is_registered_by_its_server_module() -> None:
    spec = KINDS["case_number"]
    assert spec.owner == "drivable.servers.caselaw.case_number"
    assert spec.schema(__import__("drivable.kinds").kinds.Options()) == {
        "type": "string",
        "minLength": 1,
        "maxLength": 80,
    }
    refused = read("case_number", "Cdo").to_dict()
    assert refused["outcome"] == "invalid" and "search_decisions" in refused["hint"]
    assert read("case_number", "n/a", intent="write").outcome == "ask"  # placeholders, as always
    assert read("case_number", " 21 Cdo 1096/2021 ").to_dict() == {
        "outcome": "value",
        "value": "21 Cdo 1096/2021",
        "notes": [],
    }


@pytest.mark.parametrize(
    ("spelling", "canonical"),
    [
        ("21cdo1096/2021", "21 Cdo 1096/2021"),
        ("21 CDO 1096 / 2021", "21 Cdo 1096/2021"),
        ("sp. zn. 21 Cdo 1096/2021", "21 Cdo 1096/2021"),
        ("I.ÚS 23/23", "I. ÚS 23/23"),
        ("i. us 23/23", "I. ÚS 23/23"),
        ("Case C‑311/18", "C-311/18"),
        ("Rs. C-311/18", "C-311/18"),
        ("n° 19-20.945", "19-20.945"),
        ("Az. VI ZR 12/21", "VI ZR 12/21"),
    ],
)
def test_spellings_fold_to_the_key_of_the_canonical_number(spelling: str, canonical: str) -> None:
    assert case_key(spelling) == case_key(canonical) is not None


@pytest.mark.parametrize("text", ["", "string", "n/a", "abc", "Cdo", "x" * 200, "Cdo/ABC"])
def test_what_is_not_a_case_number_has_no_key(text: str) -> None:
    assert case_key(text) is None


def test_distinct_numbers_keep_distinct_keys() -> None:
    keys = {case_key(n) for n in set(SAMPLE)}
    assert None not in keys
    assert len(keys) >= len(set(SAMPLE)) - 5  # a loose format may collide; the store asks then


spacing = st.sampled_from(["", " ", "  ", "\u00a0", "\t"])


@given(number=st.sampled_from(SAMPLE), data=st.data())
def test_case_and_spacing_around_separators_never_change_the_key(
    number: str, data: st.DataObject
) -> None:
    respelled = "".join(
        ch + (data.draw(spacing) if ch in " /.-" else "")
        for ch in (number.upper() if data.draw(st.booleans()) else number.lower())
    )
    assert case_key(respelled) == case_key(number)


@given(st.text(max_size=100))
def test_the_reader_never_raises_and_keys_are_plain(text: str) -> None:
    key = case_key(text)
    if key is not None:
        assert key == key.strip() and any(c.isdigit() for c in key)
        assert "-" not in loose_key(text)
