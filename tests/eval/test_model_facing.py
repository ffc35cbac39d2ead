"""What the real-model traces asked of the surfaces, checked on the servers themselves.

Each test names the trace finding it answers (docs/decisions/0010-real-model-rounds-1-to-13.md).
"""

from __future__ import annotations

import copy
import json
import re
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack, asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from drivable.contract import Contract
from drivable.eval.surfaces import TEST_TOOLS, load, without_test_tools
from drivable.eval.workflow import workflow_set
from drivable.serve.mount import build_server
from drivable.target import Target, connect, wire


async def _tools(server: Any) -> list[dict[str, Any]]:
    async with connect(Target(server=server, mode="legacy"), mode="legacy") as client:
        page = await client.list_tools()
        return [wire(t) for t in page.tools]


@pytest.mark.parametrize("name", ["example", "caselaw"])
async def test_each_naive_twin_has_the_same_tools_as_its_drivable_server(name: str) -> None:
    # fair baselines: naive vs drivable is the same work (the naive notes server lacked
    # delete_note), listed in the same order (a model reads the first tools first)
    import importlib

    naive = importlib.import_module(str(workflow_set(name).twin_module)).server
    drivable = [t["name"] for t in await _tools(build_server(load(name)))]
    assert [t["name"] for t in await _tools(naive)] == drivable


async def test_the_billing_twin_has_the_same_tools(tmp_path: Path) -> None:
    from drivable.eval.baselines import billing

    async with _billing_contract(tmp_path) as contract:
        drivable = [t["name"] for t in await _tools(build_server(contract))]
    # and in the same order: listed first, list_customers was the 1.5B model's first call on
    # invoices nobody filtered by customer (15 of 16 replays); listed after find_invoices and
    # get_invoice, as the twin lists it, 0 of 16 (and still 7 of 8 where the user names a customer)
    assert [t["name"] for t in await _tools(billing.server)] == drivable


async def test_no_test_tool_reaches_a_model() -> None:
    for name in ("example", "caselaw"):
        shown = {t["name"] for t in await _tools(build_server(load(name)))}
        assert not shown & TEST_TOOLS
    from tests.contract.example_server import contract

    assert "check_failure" in contract.tools  # the runtime's own tests still have it
    assert without_test_tools(contract).tools.keys() == contract.tools.keys() - TEST_TOOLS


async def test_cursors_carry_no_teachable_pattern() -> None:
    # a ^c1\..+ pattern taught the model to forge "c1.0"
    for name in ("example", "caselaw"):
        for tool in await _tools(build_server(load(name))):
            cursor = (tool.get("inputSchema") or {}).get("properties", {}).get("cursor")
            if cursor is not None:
                assert "pattern" not in json.dumps(cursor), tool["name"]


@settings(max_examples=12, deadline=None)
@given(
    spelled=st.sampled_from(
        [
            ("Constitutional Court", "Ústavní soud"),
            ("Constitutional Court of the Czech Republic", "Ústavní soud"),
            ("Supreme Court", "Nejvyšší soud"),
            ("ÚS", "Ústavní soud"),
            ("Ústavní soud", "Ústavní soud"),
            ("German Federal Court of Justice", "Bundesgerichtshof"),
        ]
    )
)
def test_a_court_is_read_in_the_models_own_language(spelled: tuple[str, str]) -> None:
    # shown only native names in an enum, the model read "Constitutional Court" as "Conseil
    # d'État"; shown 37 names in two languages, the enum was a third of tools/list. Listed as a
    # plain string, whatever the model writes is read by the vocabulary and said in `notes`.
    caselaw = load("caselaw")
    written, meant = spelled
    tools = {t["name"]: t for t in anyio.run(_tools, build_server(caselaw))}
    for name in ("search_decisions", "summarize_decisions"):
        court = tools[name]["inputSchema"]["properties"]["court"]
        assert "enum" not in json.dumps(court), name
    read = caselaw.validate("search_decisions", {"court": written})
    assert read.value.court == meant
    assert read.notes or written == meant


COURTS = ["Bundesgerichtshof", "Cour de cassation", "Ústavní soud", "General Court"]


@settings(max_examples=8, deadline=None)
@given(court=st.sampled_from(COURTS), year=st.integers(min_value=2025, max_value=2026))
def test_an_empty_filtered_page_carries_a_next_call_that_can_be_sent_as_is(
    court: str, year: int
) -> None:
    # a warning in prose was resent unchanged 9-11 times; a call it can copy is followed
    caselaw = load("caselaw")

    async def go() -> None:
        async with caselaw.started():  # its database open for the calls
            await search()

    async def search() -> None:
        asked = {"query": "stavební povolení", "court": court, "date_from": f"{year}-11-30"}
        out = await caselaw.call("search_decisions", asked)
        if out.structured.get("results"):
            return
        # the result's next_call, sent as it is, finds decisions (the minimal relaxation:
        # the search without the filter whose removal finds fewest; docs/runtime.md)
        following = out.structured["next_call"]
        assert following["tool"] == "search_decisions"
        assert following["arguments"]["query"] == asked["query"]
        follow = await caselaw.call(following["tool"], following["arguments"])
        assert not follow.is_error
        assert follow.structured["results"]

    anyio.run(go)


@settings(max_examples=15, deadline=None)
@given(missing=st.integers(min_value=31, max_value=10**6), planned=st.booleans())
def test_an_unknown_note_leads_forward_to_a_note_that_exists(missing: int, planned: bool) -> None:
    # the model searched for the missing id itself (the search ignored its words and returned ten
    # unrelated notes), then asked for the same id again: the search now honours its words and
    # says the next call when nothing has them, and not_found names the same call literally
    example = load("example")

    async def go() -> None:
        note_id = f"note_{missing}"
        if planned:  # what the model did first: search for the id
            out = await example.call("search_notes", {"query": note_id})
            assert out.structured["results"] == []
            message = out.structured["warnings"][0]["message"]
            nxt = json.loads(message.partition("Next call: search_notes ")[2])
            found = await example.call("search_notes", nxt)
            assert found.structured["results"]
        failed = await example.call("get_note", {"note_id": note_id})
        envelope = failed.structured
        assert envelope["code"] == "not_found"
        repair = envelope["repair"]
        assert (
            f"Next call: {repair['tool']} {json.dumps(repair['arguments'])}"
            in (envelope["message"])
        )
        found = await example.call(repair["tool"], repair["arguments"])
        first = found.structured["results"][0]["id"]
        read = await example.call("get_note", {"note_id": first})
        assert not read.is_error

    anyio.run(go)


@pytest.mark.parametrize("words", ["garden", "budget", "plan", "taxes", "Budget note"])
async def test_the_example_search_honours_its_words(words: str) -> None:
    # the same data on both sides: the naive twin filters by the same words
    from drivable.eval.baselines import notes

    example = load("example")
    out = await example.call("search_notes", {"query": words, "limit": 20})
    rows = out.structured["results"]
    assert rows and all(set(words.lower().split()) <= set(r["title"].lower().split()) for r in rows)
    naive = notes.search_notes(query=words, limit=20)
    assert [r["id"] for r in naive["results"]] == [r["id"] for r in rows]


# An id of a server's own form (note_3, dec_3k9vq2m8xa, inv_30001, cus_1001): prefix, underscore,
# a body with a digit.
_ID = re.compile(r"\b[a-z]{2,5}_(?=[0-9a-z]*[0-9])[0-9a-z]+\b")
_EXAMPLE = re.compile(r"Example: (\{.*?\})\.(?: |$)")


@asynccontextmanager
async def _billing_contract(tmp_path: Path) -> AsyncIterator[Contract]:
    """billing started on a small ledger of its own (a copy: the module's contract stays shut)."""
    from drivable.servers.billing import server
    from drivable.servers.billing.ledger import Ledger

    ledger = Ledger(f"sqlite:///{tmp_path / 'billing.sqlite'}", customers=3, invoices=5)
    try:
        async with copy.copy(server.contract).started(ledger=ledger) as contract:
            yield contract
    finally:
        await ledger.close()


@pytest.mark.parametrize("name", ["example", "caselaw", "billing"])
async def test_a_listing_names_no_record_and_a_copied_example_never_writes(
    name: str, tmp_path: Path
) -> None:
    # the model copied ids from descriptions as real values (customer_id "cus_1001" filtered the
    # refund's search to nothing; get_decision with the example case number) and sent
    # create_invoice's whole example as a call it was never asked to make. A value another tool
    # returns is shown as a <placeholder>, which the kinds read as no value.
    async with AsyncExitStack() as stack:
        if name == "billing":
            contract = await stack.enter_async_context(_billing_contract(tmp_path))
        else:
            contract = await stack.enter_async_context(load(name).started())
        tools = await _tools(build_server(contract))
        assert not _ID.findall(json.dumps(tools, ensure_ascii=False)), name
        examples = 0
        for tool in tools:
            found = _EXAMPLE.search(tool.get("description") or "")
            if found is None:
                continue
            examples += 1
            out = await contract.call(tool["name"], json.loads(found.group(1)))
            writes = not (tool.get("annotations") or {}).get("readOnlyHint", False)
            if writes:
                assert out.is_error, (tool["name"], out.structured)
                assert out.structured["code"] in ("invalid_arguments", "confirmation_required")
        assert examples >= len(tools) - 1
