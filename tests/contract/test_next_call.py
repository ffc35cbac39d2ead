"""`next_call`: a successful result names the call to make next, literally (`tool` and
`arguments`, as an error's `repair` has them): the next page of a paged tool, the confirmation of a
dry run.

From the real model's traces: shown `has_more` and `next_cursor`, it read each result instead of
paging; after a dry run it called another tool. It copies a repair literally, so a result that
leads somewhere says where in the same shape.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Awaitable, Callable

import anyio
import jsonschema
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import BaseModel, ConfigDict

from drivable.contract import READ_ONLY, Call, Contract, Summary
from drivable.eval.surfaces import load
from drivable.kinds import KindModel
from tests.contract.example_server import DELETED

EXAMPLE = load("example")
CASELAW = load("caselaw")


async def _with_caselaw(go: Callable[[], Awaitable[None]]) -> None:
    async with CASELAW.started():  # its database open for the calls
        await go()


def _checked(contract: object, tool: str, structured: dict[str, object]) -> None:
    # the result, next_call included, is what the tool's outputSchema advertises
    schema = contract.tools[tool].output_schema  # type: ignore[attr-defined]
    jsonschema.validate(structured, schema)


async def _follow(contract: object, tool: str, first: dict[str, object]) -> list[str]:
    """Every row id seen by following next_call from the first page until there is none."""
    seen: list[str] = []
    out = await contract.call(tool, first)  # type: ignore[attr-defined]
    pages = 0
    while True:
        assert not out.is_error, out.structured
        _checked(contract, tool, out.structured)
        rows = out.structured.get("results") or out.structured.get("notes_page") or []
        seen += [json.dumps(r, sort_keys=True) for r in rows]
        following = out.structured.get("next_call")
        assert (following is None) == (not out.structured["has_more"])
        if following is None:
            return seen
        assert following["tool"] == tool and set(following) == {"tool", "arguments"}
        assert following["arguments"]["cursor"] == out.structured["next_cursor"]
        out = await contract.call(tool, copy.deepcopy(following["arguments"]))  # type: ignore[attr-defined]
        pages += 1
        assert pages < 200


@settings(max_examples=10, deadline=None)
@given(limit=st.integers(min_value=1, max_value=10), detail=st.sampled_from(["summary", "full"]))
def test_following_next_call_lists_every_note_once(limit: int, detail: str) -> None:
    async def go() -> None:
        first = {"limit": limit, "detail": detail}
        paged = await _follow(EXAMPLE, "list_notes", first)
        everything = await _follow(EXAMPLE, "list_notes", {"limit": 10, "detail": detail})
        assert sorted(paged) == sorted(everything) and len(set(paged)) == len(paged)

    anyio.run(go)


@settings(max_examples=8, deadline=None)
@given(
    words=st.sampled_from(["náhrada škody", "Meinungsfreiheit", "clause abusive", "oszustwo"]),
    limit=st.integers(min_value=3, max_value=20),
)
def test_following_next_call_through_a_search_meets_each_decision_once(
    words: str, limit: int
) -> None:
    async def go() -> None:
        async with CASELAW.started():  # its database open for the calls
            seen = await _follow(CASELAW, "search_decisions", {"query": words, "limit": limit})
            first = await CASELAW.call("search_decisions", {"query": words, "limit": 1})
        assert len(seen) == len(set(seen)) == first.structured["total"]

    anyio.run(go)


@settings(max_examples=10, deadline=None)
@given(note=st.integers(min_value=1, max_value=30))
def test_a_dry_runs_next_call_performs_exactly_the_previewed_call(note: int) -> None:
    async def go() -> None:
        contract = load("example")
        preview = await contract.call("delete_note", {"note_id": f"note_{note}", "dry_run": True})
        _checked(contract, "delete_note", preview.structured)
        assert "confirm_token" not in preview.structured  # the token is only in next_call
        following = preview.structured["next_call"]
        token = following["arguments"]["confirm_token"]
        assert token.startswith("ct2.")
        assert following == {
            "tool": "delete_note",
            "arguments": {"note_id": f"note_{note}", "dry_run": False, "confirm_token": token},
        }
        done = await contract.call(following["tool"], following["arguments"])
        assert not done.is_error and done.structured["status"] == "deleted"
        assert "next_call" not in done.structured
        again = await contract.call(following["tool"], following["arguments"])
        # the same confirmation twice runs once: the second replays the first (decision 0056)
        assert not again.is_error and again.structured["status"] == "deleted"
        assert DELETED.count(f"note_{note}") == 1

    try:
        anyio.run(go)
    finally:
        DELETED.clear()  # the example server's notes are shared by every module of a worker


async def test_a_result_that_leads_nowhere_names_no_next_call() -> None:
    last = await EXAMPLE.call("list_notes", {"limit": 10, "detail": "summary"})
    while last.structured.get("next_call"):
        last = await EXAMPLE.call("list_notes", last.structured["next_call"]["arguments"])
    assert not last.structured["has_more"] and "next_call" not in last.structured
    read = await EXAMPLE.call("get_note", {"note_id": "note_1"})
    assert "next_call" not in read.structured


def test_every_structured_result_may_lead_on() -> None:
    # one mechanism for every tool: `call.follow` on any tool reaches its result, because every
    # outputSchema declares next_call (it had been only a paged or destructive tool's, and a
    # tally's follow-up was dropped)
    for contract in (EXAMPLE, CASELAW):
        for spec in contract.tools.values():
            if spec.output_schema:
                assert "next_call" in spec.output_schema["properties"], spec.name


@given(
    query=st.sampled_from(["náhrada škody", "nájem", "Constitutional Court", "zzzq xq", None]),
    date_from=st.sampled_from([None, "2018", "1. 1. 2020", "2024-06-01"]),
    subject=st.sampled_from([None, "civil", "constitutional"]),
)
@settings(max_examples=25, deadline=None)
def test_a_tally_leads_to_the_decisions_of_its_largest_court(
    query: str | None, date_from: str | None, subject: str | None
) -> None:
    # the tally's next_call is the search of the court with the most decisions, with the tally's
    # own filters: the 1.5B model tallied again or read invented ids without it (10 replays of 10)
    sent = {
        k: v for k, v in {"query": query, "date_from": date_from, "subject": subject}.items() if v
    }

    async def go() -> None:
        tally = await CASELAW.call("summarize_decisions", sent)
        assert not tally.is_error
        _checked(CASELAW, "summarize_decisions", tally.structured)
        by_court = tally.structured["by_court"]
        following = tally.structured.get("next_call")
        if not by_court:
            assert following is None
            return
        assert following is not None and following["tool"] == "search_decisions"
        assert following["arguments"]["court"] == by_court[0]["value"]
        page = await CASELAW.call("search_decisions", following["arguments"])
        assert not page.is_error
        rows = page.structured["results"]
        assert rows and {row["court"] for row in rows} == {by_court[0]["value"]}
        assert page.structured["total"] == by_court[0]["decisions"]

    anyio.run(_with_caselaw, go)


@given(
    message=st.one_of(st.none(), st.just(""), st.text(min_size=1, max_size=80)),
    hint=st.one_of(st.none(), st.just(""), st.text(min_size=1, max_size=80)),
)
@settings(max_examples=40, deadline=None)
def test_a_result_that_leads_on_says_why_in_a_refusals_words(
    message: str | None, hint: str | None
) -> None:
    # `Call.follow(..., message=, hint=)`: the result carries them beside its next_call, before
    # it, as an error carries message and hint beside its repair; absent when not given. After an
    # empty page whose warning said the same words, the 1.5B model searched a third time instead
    # of refunding (1 of 22 replays went on); with the page's message and hint, 12 of 22
    # (8 of 22 with the short warning beside them, as sent).
    class In(KindModel):
        query: str

    class Out(BaseModel):
        model_config = ConfigDict(extra="forbid")
        found: int

    contract = Contract(
        "t", version="1", summary=Summary(text="Test.", does=["test"], does_not=["else"])
    )

    @contract.tool(
        name="find_things",
        title="Find things",
        description='Finds things by words; use it first. Example: {"query": "<query>"}.',
        effects=READ_ONLY,
    )
    async def find_things(args: In, call: Call) -> Out:
        if args.query != "all":
            call.follow("find_things", {"query": "all"}, message=message, hint=hint)
        return Out(found=0)

    async def go() -> None:
        led = await contract.call("find_things", {"query": "zzz"})
        assert not led.is_error
        _checked(contract, "find_things", led.structured)
        keys = list(led.structured)
        expected = [k for k, v in (("message", message), ("hint", hint)) if v]
        # words lead, as a refusal's do (decision 0036); without words the call follows the fields
        assert keys == ([*expected, "next_call", "found"] if expected else ["found", "next_call"])
        assert all(led.structured[k] == {"message": message, "hint": hint}[k] for k in expected)
        plain = await contract.call("find_things", {"query": "all"})
        assert list(plain.structured) == ["found"]  # nothing to lead on to: no words either

    anyio.run(go)
