"""Two rules of what a value means when it is no value (docs/runtime.md, "Next steps keep the
caller's intent"), on a booking server whose ids count up:

- an id with a counter reaches the handler; a placeholder sent where a required id goes is
  refused saying it is a placeholder, naming the tool that finds one, never "'room_id' is
  required" to a caller that sent it;
- an invented later-page cursor ("2", "page2", "next") is refused as an invalid cursor whose
  repair is the same call without it, every other argument kept, and whose hint says where a
  next page comes from; only a first-page invention reads as page one.
"""

from __future__ import annotations

from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.contract.booking_server import ROOMS, contract

settings_ = settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)


@settings_
@given(
    st.integers(1, 10**6) | st.sampled_from([3, 123, 1234, 123456789]),
    st.sampled_from(["room_{}", "{}", "room_{:04d}", "ROOM_{}"]),
)
async def test_an_id_that_counts_reaches_the_handler(number: int, form: str) -> None:
    sent = form.format(number)
    out = await contract.call("get_room", {"room_id": sent})
    if out.is_error:
        env = out.structured
        assert env["code"] == "not_found", env  # looked up, not read as no value
        assert env["repair"]["tool"] == "find_rooms"
    else:
        assert out.structured["room"]["id"] in ROOMS


PLACEHOLDERS = ["<id>", "<room_id>", "{room_id}", "string", "example", "xxx", "...", "TODO",
                "room_xxx", "room_id", "room_id_from_find_rooms"]  # fmt: skip


@settings_
@given(st.sampled_from(PLACEHOLDERS))
async def test_a_placeholder_where_a_required_id_goes_is_named_as_one(sent: str) -> None:
    env = (await contract.call("get_room", {"room_id": sent})).structured
    issue = env["issues"][0]
    assert issue["path"] == "room_id" and issue["received"] == sent
    assert f"{sent!r} is a placeholder, not a real room id" in issue["message"]
    assert "is required" not in issue["message"]  # it was sent
    assert "find_rooms" in env["hint"]
    assert env["repair"] == {
        "tool": "find_rooms",
        "arguments": {},
        "next_step": "look_the_id_up_first",
    }


FIRST_PAGE = ["", " ", "0", 0, "start", "first", "page1", "page 1", "page=1", "p1", "Page 1",
              "first page", "<cursor>", "null"]  # fmt: skip


@st.composite
def later_pages(draw: st.DrawFn) -> Any:
    """What a caller invents for a page it has no token for."""
    number = draw(st.integers(2, 500))
    word = draw(st.sampled_from(["page", "p", "Page", "pg", "offset"]))
    sep = draw(st.sampled_from(["", " ", "=", "_", ":"]))
    return draw(
        st.sampled_from(
            [
                str(number),
                number,
                f"{word}{sep}{number}",
                "1",  # page one counted from 1, or the second counted from 0: not guessed
                "next",
                "more",
                "last",
                draw(st.from_regex(r"[a-z]{3,10}", fullmatch=True)),
            ]
        )
    )


def _others(data: st.DataObject) -> dict[str, Any]:
    keep = data.draw(st.lists(st.sampled_from(["min_seats", "limit", "day", "query"]), unique=True))
    values = {"min_seats": 4, "limit": 3, "day": "2026-03-02", "query": "room"}
    return {k: values[k] for k in keep}


@settings_
@given(later_pages(), st.data())
async def test_an_invented_later_page_is_refused_naming_the_restart(
    cursor: Any, data: st.DataObject
) -> None:
    if cursor in FIRST_PAGE or str(cursor).strip() in ("0", ""):
        return
    others = _others(data)
    out = await contract.call("find_rooms", {**others, "cursor": cursor})
    assert out.is_error, (cursor, out.structured)
    env = out.structured
    assert env["code"] == "invalid_cursor", env
    repair = env["repair"]
    assert repair["tool"] == "find_rooms"
    kept = {k: v for k, v in repair["arguments"].items() if k != "cursor"}
    assert kept == others  # every other argument the caller sent
    if "cursor" in repair["arguments"]:
        # led on from the last page this query was served, with the token it was given
        assert repair["next_step"] == "continue_from_the_last_page_served"
    else:
        assert repair["next_step"] == "restart_paging_from_the_first_page"
        assert "next_call" in env["hint"], env["hint"]
    assert "next_cursor" in env["hint"], env["hint"]
    assert not (await contract.call("find_rooms", repair["arguments"])).is_error


@settings_
@given(st.sampled_from(FIRST_PAGE), st.data())
async def test_a_first_page_invention_reads_as_the_first_page(
    cursor: Any, data: st.DataObject
) -> None:
    others = _others(data)
    out = await contract.call("find_rooms", {**others, "cursor": cursor})
    assert not out.is_error, out.structured
    first = await contract.call("find_rooms", others)
    assert out.structured["rooms"] == first.structured["rooms"]
