"""Cursor paging (never a silent restart) and best-effort collections."""

from __future__ import annotations

import uuid
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from tests.contract.example_server import contract


async def _pages(arguments: dict[str, Any]) -> list[dict[str, Any]]:
    pages = []
    args = dict(arguments)
    for _ in range(20):
        out = await contract.call("list_notes", args)
        assert not out.is_error, out.structured
        pages.append(out.structured)
        if not out.structured["has_more"]:
            break
        args = {**arguments, "cursor": out.structured["next_cursor"]}
    return pages


async def test_cursors_walk_every_row_once_in_order() -> None:
    pages = await _pages({"limit": 7})
    ids = [r["id"] for p in pages for r in p["results"]]
    assert ids == [f"note_{i}" for i in range(1, 31)]
    assert pages[-1]["next_cursor"] is None


async def test_detail_changes_density_never_rows() -> None:
    summary = await _pages({"limit": 4})
    full = await _pages({"limit": 4, "detail": "full"})
    assert [[r["id"] for r in p["results"]] for p in summary] == [
        [r["id"] for r in p["results"]] for p in full
    ]
    assert all(r["day"] is None for p in summary for r in p["results"])
    assert all(r["day"] for p in full for r in p["results"])


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(["0", "start", "first", " ", "", "null", "none", "page1", "p1"]))
async def test_an_invented_first_page_cursor_reads_as_no_cursor(invented: str) -> None:
    out = await contract.call("list_notes", {"cursor": invented, "limit": 3})
    assert not out.is_error, out.structured
    assert [r["id"] for r in out.structured["results"]] == ["note_1", "note_2", "note_3"]


@settings(max_examples=60, deadline=None)
@given(st.integers(min_value=0, max_value=200), st.integers(min_value=0, max_value=255))
async def test_a_damaged_cursor_is_refused_with_the_way_forward_never_served(
    position: int, byte: int
) -> None:
    first = await contract.call("list_notes", {"limit": 3})
    token = first.structured["next_cursor"]
    index = position % len(token)
    replacement = chr(byte % 94 + 33)
    if token[index] == replacement or index < 3:
        return
    damaged = token[:index] + replacement + token[index + 1 :]
    out = await contract.call("list_notes", {"limit": 3, "cursor": damaged})
    assert out.is_error
    env = out.structured
    assert env["code"] == "invalid_cursor"
    # the repair leads forward: the last cursor this query was issued, not page 1 again
    assert env["repair"] == {
        "next_step": "continue_from_the_last_page_served",
        "tool": "list_notes",
        "arguments": {"limit": 3, "cursor": token},
    }


async def test_a_cursor_from_another_query_is_refused() -> None:
    first = await contract.call("list_notes", {"limit": 3})
    token = first.structured["next_cursor"]
    # search_notes has no cursor; a cursor scoped to list_notes' query must not serve another query
    from drivable.contract.paging import Pager

    other = Pager(secret=b"another-deployment")
    from tests.contract.example_server import ListInput

    assert other.page("list_notes", ListInput(limit=3), 0, 3, True).next_cursor != token


async def test_best_effort_applies_valid_entries_and_names_the_rest() -> None:
    out = await contract.call(
        "create_notes",
        {
            "drafts": [
                {"title": "ok one", "day": "1. 10. 2026"},
                {"title": "", "day": "2026-10-02"},
                {"title": "ok two", "day": "2026-10-03"},
                {"title": "bad day", "day": "01/02/2026"},
                {"title": "extra", "day": "2026-10-04", "colour": "red"},
            ],
            "idempotency_key": f"best-effort-{uuid.uuid4()}",
        },
    )
    assert not out.is_error, out.structured
    body = out.structured
    assert len(body["created"]) == 2
    paths = sorted(i["path"] for r in body["rejected"] for i in r["issues"])
    assert paths == ["drafts.1.title", "drafts.3.day", "drafts.4.colour"]
    assert [w["code"] for w in body["warnings"]] == ["partial_success"]
    ambiguous = next(
        i for r in body["rejected"] for i in r["issues"] if i["path"] == "drafts.3.day"
    )
    assert ambiguous["readings"] == ["2026-02-01", "2026-01-02"]


async def test_best_effort_with_no_valid_entry_rejects_the_call() -> None:
    out = await contract.call(
        "create_notes",
        {"drafts": [{"title": "", "day": "x"}], "idempotency_key": f"none-valid-{uuid.uuid4()}"},
    )
    assert out.is_error
    assert out.structured["code"] == "invalid_arguments"
    assert {i["path"] for i in out.structured["issues"]} == {"drafts.0.title", "drafts.0.day"}
