"""The tools, called as a model calls them: the spellings models send, and every outcome a next step."""

from __future__ import annotations

import datetime
import re
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from drivable.contract import Contract
from drivable.servers.caselaw.courts import COURTS
from drivable.testing import assert_conforms

LEAKS = re.compile(
    r"sqlite|OperationalError|Traceback|(?-i:SELECT |MATCH )|fts5|/tmp/|\.py(?![\w-])|Exception",
    re.I,
)


def conforms(contract: Contract, tool: str, structured: dict[str, Any], is_error: bool) -> None:
    """A result matches the outputSchema; an error is the envelope and names the next call."""
    assert_conforms(contract, tool, structured, is_error, leaks=LEAKS)


async def call(contract: Contract, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
    out = await contract.call(tool, arguments)
    conforms(contract, tool, out.structured, out.is_error)
    return dict(out.structured, is_error=out.is_error)


async def test_the_spellings_models_send_read_with_notes(caselaw: Contract) -> None:
    out = await call(
        caselaw,
        "search_decisions",
        {
            "query": "nahrada skody",
            "court": "Nejvyssi soud",
            "date_from": "2020",
            "date_to": "1. 10. 2026",
            "locale": "cs_CZ",
            "limit": "4 000",
            "cursor": "0",
            "subject": "Civil",
        },
    )
    assert not out["is_error"]
    notes = out["notes"]
    assert "court: Read 'Nejvyssi soud' as Nejvyšší soud." in notes
    assert "date_from: Read '2020' as 2020-01-01." in notes
    assert "date_to: Read '1. 10. 2026' as 2026-10-01." in notes
    assert any(n.startswith("locale: ") and "cs-CZ" in n for n in notes)
    assert any(n.startswith("limit: ") and "50" in n for n in notes)
    assert any(n.startswith("cursor: ") for n in notes), "an invented first cursor is no cursor"
    assert out["results"], "damages cases of the Supreme Court exist"
    for row in out["results"]:
        assert row["court"] == "Nejvyšší soud"
        assert "2020-01-01" <= row["decided_on"] <= "2026-10-01"
        assert row["subject"] == "civil"
        assert "«" in row["snippet"]


async def test_english_names_and_abbreviations_name_the_court(caselaw: Contract) -> None:
    for spelling in ("supreme court", "NS", "Nejvyšší soud", "NEJVYŠŠÍHO SOUDU"):
        out = await call(caselaw, "search_decisions", {"court": spelling, "limit": 3})
        assert {r["court"] for r in out["results"]} == {"Nejvyšší soud"}, spelling
        assert "warnings" not in out


async def test_a_court_naming_nothing_is_dropped_with_a_warning_never_emptying(
    caselaw: Contract,
) -> None:
    out = await call(caselaw, "search_decisions", {"court": "Krajský soud v Plzni", "limit": 3})
    assert len(out["results"]) == 3
    (warning,) = out["warnings"]
    assert warning["code"] == "filter_value_dropped" and warning["path"] == "court"
    assert "Nejvyšší soud" in warning["message"]


async def test_a_court_naming_several_is_dropped_naming_them(caselaw: Contract) -> None:
    out = await call(caselaw, "search_decisions", {"court": "Krajský soud", "limit": 2})
    assert len(out["results"]) == 2
    (warning,) = out["warnings"]
    assert warning["code"] == "filter_value_dropped"
    assert "Krajský soud v Brně" in warning["message"]
    assert "Krajský soud v Ostravě" in warning["message"]


FULL_NAMES = [(c.value, n) for c in COURTS for n in (c.value, c.english, *c.aliases) if n]


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(pair=st.sampled_from(FULL_NAMES), pad=st.sampled_from(["", " "]))
async def test_a_query_that_is_a_courts_name_reads_as_that_court(
    caselaw: Contract, pair: tuple[str, str], pad: str
) -> None:
    """A model put "Constitutional Court" into `query` and read other courts' decisions."""
    value, name = pair
    asked = {"query": f"{pad}{name}", "limit": 3}
    out = await call(caselaw, "search_decisions", asked)
    assert not out["is_error"]
    assert {r["court"] for r in out["results"]} <= {value}
    assert any(
        n.startswith("court: Read ") and f"sent as query, as {value}." in n for n in out["notes"]
    )
    if out.get("next_call"):  # the next page is the same call, read the same way
        following = await call(caselaw, "search_decisions", out["next_call"]["arguments"])
        assert {r["court"] for r in following["results"]} <= {value}
    tally = await call(caselaw, "summarize_decisions", {"query": name})
    assert {c["value"] for c in tally["by_court"]} <= {value}, tally


DAYS = st.dates(min_value=datetime.date(2000, 1, 1), max_value=datetime.date(2026, 6, 30))


def _spelled(day: datetime.date, style: int) -> str:
    return (day.isoformat(), f"{day.day}. {day.month}. {day.year}", f"{day:%d/%m/%Y}")[style]


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    pair=st.sampled_from(FULL_NAMES),
    since=DAYS,
    style=st.integers(0, 2),
    word=st.sampled_from(["since", "from", "after", "Since"]),
    after=st.one_of(st.none(), st.integers(0, 3000)),
)
async def test_a_query_that_is_a_court_and_days_reads_as_court_and_dates(
    caselaw: Contract,
    pair: tuple[str, str],
    since: datetime.date,
    style: int,
    word: str,
    after: int | None,
) -> None:
    """A model sent the whole request as the query: "Constitutional Court since 01/02/2021"."""
    value, name = pair
    query = f"{name} {word} {_spelled(since, style)}"
    until = None if after is None else since + datetime.timedelta(days=after)
    if until is not None:
        query += f" until {until.isoformat()}"
    out = await call(caselaw, "search_decisions", {"query": query, "limit": 5})
    two_ways = style == 2 and since.day <= 12 and since.month != since.day
    if two_ways:  # 01/02/2021: asked, never guessed
        assert out["is_error"] and out["code"] == "invalid_arguments", out
        (issue,) = out["issues"]
        assert issue["path"] == "date_from" and issue["code"] == "ambiguous_date"
        assert since.isoformat() in issue["readings"] and len(issue["readings"]) == 2
        assert value in out["hint"]
        return
    assert not out["is_error"], out
    assert {r["court"] for r in out["results"]} <= {value}
    assert (
        f"date_from: Read {word + ' ' + _spelled(since, style)!r}, sent as query, as "
        in " ".join(out["notes"])
    )
    assert all(r["decided_on"] >= since.isoformat() for r in out["results"])
    if until is not None:
        assert all(r["decided_on"] <= until.isoformat() for r in out["results"])


async def test_a_query_beside_a_court_or_of_other_words_stays_words(caselaw: Contract) -> None:
    with_court = await call(
        caselaw, "search_decisions", {"query": "Ústavní soud", "court": "NS", "limit": 3}
    )
    assert not any("sent as query" in n for n in with_court.get("notes", []))
    assert {r["court"] for r in with_court["results"]} <= {"Nejvyšší soud"}
    for words in (
        "us",
        "NS",
        "náhrada škody",
        "soud",
        "Constitutional Court to privacy",  # a court and words: not a day
        "Right to privacy since 2021",  # words and a day: not a court
    ):
        out = await call(caselaw, "search_decisions", {"query": words, "limit": 3})
        assert not any("sent as query" in n for n in out.get("notes", [])), words


async def test_an_empty_page_caused_by_a_filter_names_what_would_match(caselaw: Contract) -> None:
    out = await call(
        caselaw, "search_decisions", {"query": "náhrada škody", "court": "Bundesgerichtshof"}
    )
    assert out["results"] == [] and out["total"] == 0
    (warning,) = out["warnings"]
    assert warning["code"] == "no_hits_filtered" and warning["path"] == "court"
    assert '"Nejvyšší soud" (' in warning["message"]
    assert out["next_call"]["arguments"] == {"query": "náhrada škody"}  # the query stays
    later = await call(caselaw, "search_decisions", {"court": "NS", "date_from": "2030"})
    assert later["warnings"][0]["path"] == "date_from"
    assert '"2026-' in later["warnings"][0]["message"]  # the court's latest days, nearest first
    assert later["next_call"]["arguments"] == {"court": "Nejvyšší soud"}
    statute = await call(
        caselaw,
        "search_decisions",
        {"court": "Nejvyšší soud", "eli": "Regulation (EU) 2016/679", "limit": 1},
    )
    # without the court fewer decisions come back than without the statute: the court goes
    assert [w["path"] for w in statute["warnings"]] == ["court"]
    assert '"Court of Justice of the European Union" (' in statute["warnings"][0]["message"]
    assert statute["next_call"]["arguments"] == {
        "eli": "http://data.europa.eu/eli/reg/2016/679/oj",
        "limit": 1,
    }


async def test_words_that_never_meet_match_any_of_them_with_a_note(planted: Contract) -> None:
    out = await call(planted, "search_decisions", {"query": "bitcoin Thermofenster"})
    assert {r["case_number"] for r in out["results"]} == {"21 Cdo 1096/2021", "VI ZR 12/21"}
    assert out["notes"] == [
        "query: No decision contains all these words, so the results contain any of them, "
        "the most matching first."
    ]
    together = await call(planted, "search_decisions", {"query": "bitcoin kryptoměny"})
    assert [r["case_number"] for r in together["results"]] == ["21 Cdo 1096/2021"]
    assert "notes" not in together


async def test_a_query_matching_nothing_is_not_blamed_on_filters(caselaw: Contract) -> None:
    out = await call(caselaw, "search_decisions", {"query": "zzqxv", "court": "NS"})
    assert out["results"] == [] and "warnings" not in out and "next_call" not in out
    assert out["message"].startswith("No decision matches, even without the filters (court)")


async def test_paging_walks_every_row_once_and_detail_changes_density_only(
    caselaw: Contract,
) -> None:
    base = {"query": "osobních údajů", "subject": "data_protection", "limit": 20}
    seen: list[str] = []
    arguments = dict(base)
    while True:
        page = await call(caselaw, "search_decisions", arguments)
        seen += [r["decision_id"] for r in page["results"]]
        if not page["has_more"]:
            break
        arguments = {**base, "cursor": page["next_cursor"], "detail": "full"}
    assert len(seen) == len(set(seen)) == page["total"] > 20
    summary = await call(caselaw, "search_decisions", base)
    full = await call(caselaw, "search_decisions", {**base, "detail": "full"})
    assert [r["decision_id"] for r in summary["results"]] == [
        r["decision_id"] for r in full["results"]
    ]
    for concise, dense in zip(summary["results"], full["results"], strict=True):
        assert set(concise) < set(dense)
        assert all(dense[k] == v for k, v in concise.items())
        assert None not in concise.values()


async def test_a_damaged_or_foreign_cursor_is_refused_with_the_restart(caselaw: Contract) -> None:
    first = await call(caselaw, "search_decisions", {"query": "soud", "limit": 2})
    token = first["next_cursor"]
    damaged = await call(
        caselaw, "search_decisions", {"query": "soud", "limit": 2, "cursor": token[:-3] + "abc"}
    )
    assert damaged["code"] == "invalid_cursor"
    # forward: the cursor this query was last issued, not a restart at page 1
    assert damaged["repair"]["arguments"] == {"query": "soud", "limit": 2, "cursor": token}
    foreign = await call(caselaw, "search_decisions", {"query": "daň", "limit": 2, "cursor": token})
    assert foreign["code"] == "invalid_cursor"


async def test_an_ambiguous_date_is_asked_never_guessed(caselaw: Contract) -> None:
    out = await call(caselaw, "search_decisions", {"date_from": "01/02/2026"})
    issue = out["issues"][0]
    assert issue["code"] == "ambiguous_date"
    assert issue["readings"] == ["2026-02-01", "2026-01-02"]
    assert "repair" not in out


async def test_a_reversed_range_is_refused_with_the_swapped_call(caselaw: Contract) -> None:
    out = await call(caselaw, "search_decisions", {"date_from": "2025", "date_to": "2020"})
    assert out["code"] == "invalid_arguments"
    assert out["repair"]["arguments"] == {"date_from": "2020-12-31", "date_to": "2025-01-01"}
    fixed = await call(caselaw, out["repair"]["tool"], out["repair"]["arguments"])
    assert not fixed["is_error"] and fixed["total"] > 0


async def test_get_by_case_number_in_any_spelling(planted: Contract) -> None:
    ids = set()
    for spelling in ("21 Cdo 1096/2021", "21cdo1096/2021", "21 CDO 1096 / 2021"):
        out = await call(planted, "get_decision", {"case_number": spelling})
        assert out["decision"]["case_number"] == "21 Cdo 1096/2021"
        ids.add(out["decision"]["decision_id"])
        if spelling != "21 Cdo 1096/2021":
            assert out["notes"] == [
                f"case_number: Read {spelling!r} as 21 Cdo 1096/2021 (Nejvyšší soud)."
            ]
    assert len(ids) == 1
    cjeu = await call(planted, "get_decision", {"case_number": "Case C 311/18", "detail": "full"})
    decision = cjeu["decision"]
    assert decision["statutes"][0]["eli"] == "http://data.europa.eu/eli/reg/2016/679/oj"
    assert all(c["text"] for c in decision["chunks"])
    both = await call(
        planted,
        "get_decision",
        {"decision_id": decision["decision_id"], "case_number": "C-311/18"},
    )
    assert both["decision"]["decision_id"] == decision["decision_id"]


async def test_a_case_number_two_courts_use_is_asked_about(planted: Contract) -> None:
    out = await call(planted, "get_decision", {"case_number": "44 A 12/2020"})
    issue = out["issues"][0]
    assert issue["code"] == "ambiguous_value" and len(issue["readings"]) == 2
    assert all(r.startswith("dec_") for r in issue["readings"])
    assert "repair" not in out


async def test_unknown_and_placeholder_ids_name_the_search(caselaw: Contract) -> None:
    unknown = await call(caselaw, "get_decision", {"decision_id": "dec_nosuchthing"})
    assert unknown["code"] == "not_found" and unknown["repair"]["tool"] == "search_decisions"
    zero = await call(
        caselaw, "get_decision", {"decision_id": "00000000-0000-0000-0000-000000000000"}
    )
    assert zero["code"] in ("not_found", "invalid_arguments")
    for placeholder in ("dec_example", "string", "<decision_id>", "dec_xxx"):
        out = await call(caselaw, "get_decision", {"decision_id": placeholder})
        assert out["code"] == "invalid_arguments", placeholder
        assert "search_decisions" in out["hint"]
    counted = await call(caselaw, "get_decision", {"decision_id": "dec_123"})
    assert counted["code"] == "not_found"  # an id that counts is looked up, never no value
    missing = await call(caselaw, "get_decision", {"case_number": "99 Cdo 9999/1999"})
    assert missing["code"] == "not_found"
    assert missing["repair"]["arguments"] == {"query": "99 Cdo 9999/1999"}


async def test_a_decision_id_and_a_case_number_that_disagree_are_refused(
    planted: Contract,
) -> None:
    other = await call(planted, "get_decision", {"case_number": "VI ZR 12/21"})
    cited = await call(planted, "get_decision", {"case_number": "C-311/18"})
    sent = other["decision"]["decision_id"]
    out = await call(planted, "get_decision", {"decision_id": sent, "case_number": "C-311/18"})
    # asked, never guessed: a repair that kept one reference dropped the other one sent
    assert out["code"] == "invalid_arguments" and "repair" not in out
    assert [i["path"] for i in out["issues"]] == ["decision_id", "case_number"]
    assert out["issues"][0]["readings"] == [cited["decision"]["decision_id"], sent]
    assert "get_decision" in out["hint"]


async def test_list_courts_echoes_the_values_search_accepts(caselaw: Contract) -> None:
    out = await call(caselaw, "list_courts", {"detail": "full"})
    assert [c["court"] for c in out["courts"]] == [c.value for c in COURTS]
    assert out["has_more"] is False
    for court in out["courts"]:
        assert court["decisions"] > 0 and court["first_decided_on"] <= court["last_decided_on"]
        echoed = await call(caselaw, "search_decisions", {"court": court["court"], "limit": 1})
        assert echoed["results"][0]["court"] == court["court"]
        assert "notes" not in echoed, "the listed value is the canonical one"
    czech = await call(caselaw, "list_courts", {"country": "Česko"})
    assert {c["country"] for c in czech["courts"]} == {"CZ", "EU", "COE"}
    assert czech["notes"] == ["country: Read 'Česko' as CZ."]
    paged = await call(caselaw, "list_courts", {"limit": 5})
    assert paged["has_more"] and len(paged["courts"]) == 5


async def test_ano_where_no_boolean_is_asked_names_the_allowed_values(caselaw: Contract) -> None:
    out = await call(caselaw, "search_decisions", {"detail": "ano"})
    assert out["code"] == "invalid_arguments"
    assert "summary" in out["issues"][0]["message"]


spellings = st.sampled_from(
    [
        "4 000", "1,234", "01/02/2026", "1. 10. 2026", "2020", "n/a", "string", "<value>", "ano",
        "Nejvyssi soud", "supreme court", "NS", "cs_CZ", "0", "start", "c1.invented.token",
        "dec_123", "dec_zzzzzzzzzz", "21cdo1096/2021", "Regulation (EU) 2016/679", "89/2012 Sb.",
        "", " ", "all", "9999-12-31", "'; DROP TABLE decisions; --", "\"unbalanced", "NEAR(a b)",
        "a* OR b", "full", "summary", "Česko",
    ]
)  # fmt: skip


# texts that cannot themselves match LEAKS: a caller's own "SQLITE" echoed back as `received`
# is not a leak (hypothesis, which draws strings from the code's constants too, sent
# {"query": {"SQLITE": null}}), so only the server's words count
def _clean(size: int) -> st.SearchStrategy[str]:
    return st.text(max_size=size).filter(lambda t: not LEAKS.search(t))


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=True) | _clean(30),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(_clean(8), inner, max_size=3),
    max_leaves=8,
)
argument_maps = st.dictionaries(
    st.sampled_from(
        [
            "query",
            "court",
            "date_from",
            "date_to",
            "subject",
            "locale",
            "eli",
            "detail",
            "limit",
            "cursor",
            "decision_id",
            "case_number",
            "country",
            "date_form",
            "text",
        ]
    ),
    spellings | json_values,
    max_size=6,
)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    tool=st.sampled_from(["search_decisions", "get_decision", "list_courts"]),
    arguments=argument_maps,
)
async def test_every_outcome_conforms_and_names_the_next_step(
    planted: Contract, tool: str, arguments: dict[str, Any]
) -> None:
    out = await planted.call(tool, arguments)
    conforms(planted, tool, out.structured, out.is_error)
    assert out.structured.get("code") != "internal_error", out.structured
