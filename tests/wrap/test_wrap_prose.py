"""An upstream that answers prose is read as prose (docs/decisions/0065-prose-answered-as-prose.md):
the wrapped answer's first text block is the upstream's text as it was sent, what the wrapper adds
follows as JSON, and structuredContent still holds the whole result for a client that validates.
Over generated results, and on the wire against the upstream's own answers, pages included."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from drivable.contract.stages.shaping import data
from drivable.serve.results import call_result
from drivable.target import Target, connect
from drivable.wrap.pages import PAGE_CHARS
from drivable.wrap.results import Forwarded, ForwardedPage, forwarded
from tests.wrap.conftest import own_upstream, wrapped

JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner),
    max_leaves=8,
)
NOTES = st.lists(st.text(min_size=1, max_size=30), max_size=3)


def _said(answer: Any) -> tuple[str, dict[str, Any]]:
    """The first text block, and the JSON the rest of the text blocks say (merged)."""
    texts = [b.text for b in answer.content if b.type == "text"]
    after: dict[str, Any] = {}
    for text in texts[1:]:
        after.update(json.loads(text))
    return texts[0], after


@settings(max_examples=200)
@given(st.text(max_size=2 * PAGE_CHARS), JSON, NOTES, st.none() | st.text(min_size=1, max_size=40))
def test_a_result_holding_text_leads_with_that_text(
    text: str, result: Any, notes: list[str], cursor: str | None
) -> None:
    page = ForwardedPage(
        text=text, result=result, has_more=cursor is not None, next_cursor=cursor
    ).model_dump(mode="json")
    structured = {**page, **({"notes": notes} if notes else {})}
    answer = call_result(data(ForwardedPage, structured))
    first, after = _said(answer)
    assert first == text  # exactly as sent: no escaping, no trimming
    assert answer.structured_content == structured  # a validating client still validates
    assert {**after, "text": text} == structured  # the rest once, the text not repeated
    assert "text" not in after


@settings(max_examples=100)
@given(JSON, NOTES)
def test_a_result_without_text_is_its_json(result: Any, notes: list[str]) -> None:
    structured = {**Forwarded(result=result).model_dump(mode="json")}
    if notes:
        structured["notes"] = notes
    answer = call_result(data(Forwarded, structured))
    assert [json.loads(b.text) for b in answer.content if b.type == "text"] == [structured]
    assert answer.structured_content == structured


async def test_prose_on_the_wire_is_the_upstreams_own_text(tmp_path: Path) -> None:
    shapes = {"ping": ({}, None), "list_items": ({"count": 400, "shape": "text"}, None)}
    async with connect(Target(command=tuple(own_upstream()))) as direct:
        sent = {tool: await direct.call_tool(tool, args) for tool, (args, _) in shapes.items()}
        preview = await direct.call_tool("archive_note", {"note_id": "n1", "dry_run": True})
    async with wrapped(own_upstream(), tmp_path) as client:
        pong = await client.call_tool("ping", {})
        assert _said(pong) == (sent["ping"].content[0].text, {})  # type: ignore[union-attr]
        arguments: dict[str, Any] = {"count": 400, "shape": "text"}
        shown: list[str] = []
        while True:  # every page leads with its part of the text; the parts are the whole
            answer = await client.call_tool("list_items", arguments)
            first, after = _said(answer)
            assert first == (answer.structured_content or {})["text"]
            shown.append(first)
            if not after.get("has_more"):
                break
            arguments = after["next_call"]["arguments"]
        assert len(shown) >= 3
        assert "".join(shown) == forwarded(sent["list_items"]).text
        # an upstream's own dry run: its words first, its data and the call it would send after
        dry = await client.call_tool("archive_note", {"note_id": "n1", "dry_run": True})
        first, after = _said(dry)
        assert first == preview.content[0].text  # type: ignore[union-attr]
        assert after["result"] == preview.structured_content
        assert after["would_send"] == {"note_id": "n1", "dry_run": False}
