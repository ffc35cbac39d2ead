"""A large upstream answer paged behind the runtime's cursor: the pages joined give back exactly
what the upstream sent (over generated results, and on the wire against the upstream's own
answer), a page call never reaches upstream, and a bad or stale cursor is refused with the first
page as the repair."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from mcp import Client

from drivable.contract.content import Image
from drivable.target import Target, connect
from drivable.wrap.pages import PAGE_CHARS, PAGE_ROWS, Piece, join, page_end, pages, units
from drivable.wrap.results import forwarded
from tests.wrap.conftest import calls_logged, ok, own_upstream, refused, wrapped

JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=30),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner),
    max_leaves=8,
)
ROWS = st.lists(JSON, max_size=60)
OBJECTS = st.dictionaries(st.text(max_size=8), JSON | st.lists(JSON, max_size=40), max_size=5)
TEXTS = st.text(alphabet=st.sampled_from("ab \n\u00e9"), max_size=3 * PAGE_CHARS) | st.builds(
    lambda n, w: ("x" * w + "\n") * n, st.integers(0, 400), st.integers(0, 90)
)
BLOCKS = st.lists(st.builds(Image, st.binary(max_size=2_000)), max_size=30)


@settings(max_examples=150)
@given(st.none() | JSON | ROWS | OBJECTS, st.none() | TEXTS, BLOCKS)
def test_the_pages_joined_are_the_result(result: Any, text: str | None, blocks: list[Any]) -> None:
    whole = Piece(result, text, blocks)
    cut = pages(whole)
    assert join(cut) == whole
    all_units = units(whole)
    start = 0
    for _ in cut:
        end = page_end(all_units, start)
        held = all_units[start:end]
        assert 1 <= len(held) <= PAGE_ROWS or not all_units
        # a page is within the size unless it is one unit larger than a page
        assert len(held) == 1 or sum(u.size for u in held) <= PAGE_CHARS
        start = end
    assert start >= len(all_units)


async def _all_pages(client: Client, first: dict[str, Any]) -> list[dict[str, Any]]:
    """Every page, each got by copying the previous page's next_call as it is."""
    shown, blocks = [first], []
    while shown[-1].get("has_more"):
        following = shown[-1]["next_call"]
        answer = await client.call_tool(following["tool"], following["arguments"])
        assert not answer.is_error, answer.content
        shown.append(dict(answer.structured_content or {}))
        blocks.append([b.model_dump(mode="json", by_alias=True) for b in answer.content[1:]])
    assert "next_cursor" not in shown[-1] and shown[-1]["has_more"] is False
    return shown


async def test_every_page_is_cut_from_one_upstream_answer(tmp_path: Path) -> None:
    log = tmp_path / "calls.jsonl"
    async with connect(Target(command=tuple(own_upstream()))) as direct:
        expected = {
            shape: forwarded(await direct.call_tool("list_items", {"count": 400, "shape": shape}))
            for shape in ("rows", "text", "object", "images")
        }
    async with wrapped(own_upstream(), tmp_path, env={"UPSTREAM_LOG": str(log)}) as client:
        for shape, whole in expected.items():
            answer = await client.call_tool("list_items", {"count": 400, "shape": shape})
            first = dict(answer.structured_content or {})
            assert first["has_more"] is True, shape
            assert first["next_call"] == {
                "tool": "list_items",
                "arguments": {"count": 400, "shape": shape, "cursor": first["next_cursor"]},
            }
            shown = await _all_pages(client, first)
            assert len(shown) >= 3
            joined = join([Piece(p.get("result"), p.get("text")) for p in shown])
            assert joined.result == whole.result and joined.text == whole.text, shape
        images = await _image_blocks(client)
        small = await ok(client, "list_items", {"count": 3, "shape": "rows"})
    assert images == [b.wire() for b in expected["images"].blocks]
    assert "has_more" not in small and len(small["result"]) == 3  # one page: no paging at all
    # one upstream call per first page; every later page came from the store
    assert [c["arguments"]["shape"] for c in calls_logged(log) if c["tool"] == "list_items"] == [
        "rows",
        "text",
        "object",
        "images",
        "images",
        "rows",
    ]


async def _image_blocks(client: Client) -> list[dict[str, Any]]:
    """Every image block of every page of a 400-image answer, in order."""
    out: list[dict[str, Any]] = []
    arguments: dict[str, Any] = {"count": 400, "shape": "images"}
    while True:
        answer = await client.call_tool("list_items", arguments)
        out += [
            {"type": "image", "data": b.data, "mimeType": b.mime_type}
            for b in answer.content
            if b.type == "image"
        ]
        page = dict(answer.structured_content or {})
        if not page.get("has_more"):
            return out
        arguments = page["next_call"]["arguments"]


async def test_a_bad_or_stale_cursor_is_refused_with_the_first_page(tmp_path: Path) -> None:
    call = {"count": 90, "shape": "rows"}
    async with wrapped(own_upstream(), tmp_path) as client:
        first = await ok(client, "list_items", call)
        token = first["next_cursor"]
        invented = await refused(client, "list_items", {**call, "cursor": "2"})
        forged = await refused(client, "list_items", {**call, "cursor": token[:-4] + "AAAA"})
        other_query = await refused(client, "list_items", {**call, "count": 91, "cursor": token})
        start = await ok(client, "list_items", {**call, "cursor": "start"})  # read as no cursor
        with sqlite3.connect(tmp_path / "effects.sqlite") as db:
            db.execute("DELETE FROM drivable_receipts WHERE tool = 'list_items#pages'")
        stale = await refused(client, "list_items", {**call, "cursor": token})
        again = await ok(client, "list_items", stale["repair"]["arguments"])
    for envelope in (invented, forged, other_query):
        assert envelope["code"] == "invalid_cursor", envelope
    assert stale["code"] == "cursor_expired"
    assert invented["repair"] == {
        "tool": "list_items",
        "arguments": call,
        "next_step": "restart_paging_from_the_first_page",
    }
    assert stale["repair"]["arguments"] == call
    assert other_query["repair"]["arguments"] == {**call, "count": 91}
    assert start["result"] == first["result"] == again["result"]


# what models were seen to fill `cursor` with on a first call (wrapped memory, tune split):
# a note of an earlier answer, a page number, words; and a real cursor of another query
UNISSUED = ("Read '' as no cursor: the first page.", "2", "page2", "next", "x" * 300)


async def test_a_cursor_no_page_issued_is_set_aside_only_where_the_answer_is_one_page(
    tmp_path: Path,
) -> None:
    # decision 0058: where the whole answer is one page there is no later page the cursor could
    # mean, so the answer is the whole, with a note; where it has pages, the refusal stands
    small, large = {"count": 3, "shape": "rows"}, {"count": 90, "shape": "rows"}
    async with wrapped(own_upstream(), tmp_path) as client:
        whole = await ok(client, "list_items", small)
        other = (await ok(client, "list_items", {**large, "count": 120}))["next_cursor"]
        for cursor in (*UNISSUED, other):
            answer = await ok(client, "list_items", {**small, "cursor": cursor})
            assert answer["result"] == whole["result"] and not answer.get("has_more"), answer
            (note,) = answer["notes"]
            assert note.startswith("cursor: Set aside ") and "one page" in note, note
            assert cursor not in note and "next_call" not in answer  # the value is not echoed
            envelope = await refused(client, "list_items", {**large, "cursor": cursor})
            assert envelope["code"] == "invalid_cursor", envelope
            assert envelope["repair"]["arguments"] == large
