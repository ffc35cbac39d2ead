"""`Paged[Row]`: the handler returns rows, the runtime does the cursor arithmetic.

For every row count and page size, walking the pages by their next_call gives every row exactly
once, in order, whether the handler reads its page at the source (`page: Page`) or returns every
row for the runtime to slice; only the last page lacks a next_cursor.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from pydantic import Field

from drivable import (
    READ_ONLY,
    Call,
    Contract,
    ContractError,
    KindModel,
    Output,
    Page,
    Paged,
    Summary,
)
from drivable.testing import call_error, call_ok, connect

ROWS = 25


class Row(Output):
    n: int


class Rows(Paged[Row]):
    total: int


def _contract(rows: int) -> Contract:
    contract = Contract(
        "paged",
        version="1.0.0",
        summary=Summary("Paging tests.", does=["page"], does_not=["anything else"]),
    )
    data = [Row(n=i) for i in range(rows)]

    @contract.tool(effects=READ_ONLY)
    def list_read(page: Page, call: Call) -> Paged[Row]:
        """List the rows a page at a time, read at the source; no rows is an empty page.
        Example: {"limit": "<page size>"}."""
        return Paged(results=data[page.offset : page.offset + page.fetch])

    @contract.tool(effects=READ_ONLY)
    async def list_all(
        above: int = Field(-1, ge=-1, le=ROWS, description="Only rows above this."),
    ) -> Rows:
        """List the rows above a number a page at a time, sliced by the runtime; none is an
        empty page. Example: {"above": "<number>"}."""
        kept = [r for r in data if r.n > above]
        return Rows(results=kept, total=len(kept))

    class Query(KindModel):
        above: int = Field(-1, ge=-1, le=ROWS, description="Only rows above this.")
        limit: int = Field(5, ge=1, le=7, description="Rows a page holds.")

    @contract.tool(effects=READ_ONLY)
    def list_model(args: Query, page: Page) -> Paged[Row]:
        """List the rows above a number with the model's own page size; none is an empty page.
        Example: {"above": "<number>"}."""
        kept = [r for r in data if r.n > args.above]
        return Paged(results=kept[page.offset : page.offset + page.fetch])

    return contract


async def _walk(contract: Contract, tool: str, arguments: dict[str, Any]) -> list[dict[str, Any]]:
    """Every page, each next one called as the previous page's next_call says."""
    pages = [(await contract.call(tool, arguments)).structured]
    while "next_call" in pages[-1]:
        following = pages[-1]["next_call"]
        assert following["tool"] == tool
        assert following["arguments"]["cursor"] == pages[-1]["next_cursor"]
        pages.append((await contract.call(tool, following["arguments"])).structured)
        assert len(pages) <= ROWS + 2, "paging does not end"
    return pages


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    rows=st.integers(0, ROWS),
    limit=st.integers(1, ROWS + 2) | st.just(100),
    tool=st.sampled_from(["list_read", "list_all"]),
)
async def test_pages_hold_every_row_once_and_only_the_last_has_no_cursor(
    rows: int, limit: int, tool: str
) -> None:
    pages = await _walk(_contract(rows), tool, {"limit": limit})
    seen = [row["n"] for page in pages for row in page["results"]]
    assert seen == list(range(rows))
    for page in pages[:-1]:
        assert len(page["results"]) == limit and page["has_more"] is True and page["next_cursor"]
    assert pages[-1]["has_more"] is False and "next_cursor" not in pages[-1]
    assert len(pages) == max(1, -(-rows // limit))


@settings(
    max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(above=st.integers(-1, ROWS), limit=st.integers(1, 10))
@example(above=ROWS, limit=1)  # no row above: an empty first page
@example(above=ROWS - 1, limit=1)
async def test_a_query_pages_through_its_own_rows_and_keeps_its_other_fields(
    above: int, limit: int
) -> None:
    pages = await _walk(_contract(ROWS), "list_all", {"above": above, "limit": limit})
    assert [row["n"] for page in pages for row in page["results"]] == list(range(above + 1, ROWS))
    # the handler's own fields ride on every page, and the next call keeps the query
    assert {page["total"] for page in pages} == {len(range(above + 1, ROWS))}
    for page in pages[:-1]:
        assert page["next_call"]["arguments"].get("above", -1) == above


async def test_a_model_that_declares_limit_keeps_its_bounds() -> None:
    contract = _contract(ROWS)
    schema = contract.tools["list_model"].input_schema
    assert schema["properties"]["limit"]["maximum"] == 7
    assert list(schema["properties"]) == ["above", "limit", "cursor"]
    pages = await _walk(contract, "list_model", {"above": 5})
    assert [len(p["results"]) for p in pages] == [5, 5, 5, 4]


async def test_a_damaged_or_foreign_cursor_is_refused_with_the_restart() -> None:
    contract = _contract(ROWS)
    first = (await contract.call("list_all", {"above": 3, "limit": 2})).structured
    async with connect(contract) as client:
        env = await call_error(
            client, "list_all", {"above": 3, "cursor": first["next_cursor"][:-3] + "xyz"}
        )
        assert env["code"] == "invalid_cursor"
        assert env["repair"]["arguments"]["above"] == 3  # the next page, or the first
        # a cursor of another query (another `above`) is not this query's
        env = await call_error(client, "list_all", {"above": 9, "cursor": first["next_cursor"]})
        assert env["code"] == "invalid_cursor"
        # and one of another tool is not this tool's
        env = await call_error(client, "list_read", {"cursor": first["next_cursor"]})
        assert env["code"] == "invalid_cursor"
        page = await call_ok(client, "list_all", first["next_call"]["arguments"])
        assert [r["n"] for r in page["results"]] == [6, 7]


async def test_a_page_says_has_more_and_the_output_schema_requires_it() -> None:
    contract = _contract(3)
    for tool in ("list_read", "list_all"):
        schema = contract.tools[tool].output_schema
        assert {"results", "has_more"} <= set(schema["required"])
        assert "next_cursor" not in schema["required"]
    async with connect(contract) as client:  # strict: every result checked against its schema
        page = await call_ok(client, "list_all", {"limit": 3})
        assert page["has_more"] is False and "next_cursor" not in page


async def test_a_handler_that_knows_more_follow_says_so_and_an_empty_page_is_the_last() -> None:
    contract = Contract(
        "upstream",
        version="1.0.0",
        summary=Summary("Paging tests.", does=["page"], does_not=["anything else"]),
    )
    served: list[Page] = []

    @contract.tool(effects=READ_ONLY)
    def list_upstream(page: Page) -> Paged[Row]:
        """List rows an upstream API pages itself (it says whether more follow); none is an
        empty page. Example: {"limit": "<page size>"}."""
        served.append(page)
        rows = [Row(n=n) for n in range(page.offset, min(page.offset + page.limit, 7))]
        return Paged(results=rows, has_more=True)  # upstream always says more, even at the end

    pages = await _walk(contract, "list_upstream", {"limit": 3})
    assert [[r["n"] for r in p["results"]] for p in pages] == [[0, 1, 2], [3, 4, 5], [6], []]
    assert [p.offset for p in served] == [0, 3, 6, 7]


def test_a_paged_handler_declares_what_the_runtime_needs() -> None:
    contract = Contract(
        "refused",
        version="1.0.0",
        summary=Summary("Paging tests.", does=["page"], does_not=["anything else"]),
    )
    with pytest.raises(ContractError, match="returns it as `Paged"):

        @contract.tool(effects=READ_ONLY)
        def list_wrongly(page: Page) -> Row:
            """List rows without saying they come a page at a time; none is an empty page.
            Example: {"limit": "<page size>"}."""
            return Row(n=page.offset)
