"""An unknown tool named by what it does (`stages.resolve.described_tools`,
docs/decisions/0037-the-tool-whose-description-says-it.md).

For every unknown name that is no other spelling of a tool's: a tool is named only when the first
sentence of its description (or its own name) holds every word of the name; when one is named and
the call's arguments are its arguments, the repair is that tool with them as sent; a word only a
later sentence holds never names a tool; several tools that hold the words are all named, and the
one that takes the arguments as sent is chosen only when it is one.
"""

from __future__ import annotations

import re
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import Field

from drivable.contract import CREATE, READ_ONLY, UPDATE, Contract, Summary
from drivable.kinds import KindModel

contract = Contract(
    "office",
    version="1.0.0",
    summary=Summary("Rooms and papers.", does=["book rooms", "file papers"], does_not=["x"]),
)


class Booking(KindModel):
    room: str = Field(min_length=1, max_length=20, description="The room's name.")
    title: str = Field(min_length=1, max_length=40, description="What the meeting is.")


class Search(KindModel):
    words: str = Field(min_length=1, max_length=40, description="Words of the room's name.")


class Move(KindModel):
    paper: str = Field(min_length=1, max_length=40, description="The paper's name.")
    new_name: str = Field(min_length=1, max_length=40, description="Its new name.")


class Done(KindModel):
    ok: bool


@contract.tool(effects=CREATE)
async def create_booking(args: Booking) -> Done:
    """Book a room for a meeting. Use it after search_rooms; a taken room is refused."""
    return Done(ok=True)


@contract.tool(effects=READ_ONLY)
async def search_rooms(args: Search) -> Done:
    """Find rooms free to book for a meeting. Each has a name and a floor; archive none."""
    return Done(ok=True)


@contract.tool(effects=UPDATE)
async def move_paper(args: Move) -> Done:
    """Move a paper to another shelf, rename it, or both. Use it to archive a paper too."""
    return Done(ok=True)


FIRST = {
    name: set(re.findall(r"[a-z]+", f"{name} {spec.description.split('. ')[0]}".lower()))
    for name, spec in contract.tools.items()
}
VERBS = ("book", "rename", "move", "find", "archive", "reserve", "floor", "cancel")
NOUNS = ("room", "paper", "meeting", "shelf", "desk", "name")
PREFIXES = ("", "mcp__office__", "functions.")
ARGUMENTS = st.sampled_from(
    [
        {"room": "Oak", "title": "Standup", "idempotency_key": "k-1"},
        {"paper": "Budget", "new_name": "Budget 2027"},
        {"words": "Oak"},
        {"colour": "red"},
    ]
)


def holds(tool: str, words: list[str]) -> bool:
    return all(w in FIRST[tool] or f"{w}s" in FIRST[tool] for w in words)


@given(
    verb=st.sampled_from(VERBS),
    noun=st.sampled_from(NOUNS),
    prefix=st.sampled_from(PREFIXES),
    arguments=ARGUMENTS,
)
@settings(max_examples=200, deadline=None)
async def test_an_unknown_tool_is_named_by_the_first_sentence_that_says_it(
    verb: str, noun: str, prefix: str, arguments: dict[str, Any]
) -> None:
    name = f"{prefix}{verb}_{noun}"
    out = (await contract.call(name, arguments)).structured
    if out.get("code") != "unknown_tool" or "what this server calls" in out["hint"]:
        return  # a tool's own name, or another spelling of it (`same_tools`): not this rule
    if "may be any of" in out["hint"]:
        return
    named = [t for t in contract.tools if f"{t}'s description says" in out["hint"]]
    listed = [
        t for t in contract.tools if f"{t} each say" in out["hint"] or f", {t} each" in out["hint"]
    ]
    holding = [t for t in sorted(contract.tools) if holds(t, [verb, noun])]
    if not holding:
        # no first sentence says it: nothing is guessed, every tool is listed
        assert not named and "repair" not in out and "Call one of" in out["hint"], out
        return
    takes = [t for t in holding if _takes(t, arguments)]
    if len(holding) == 1 or len(takes) == 1:
        (tool,) = holding if len(holding) == 1 else takes
        assert named == [tool], out
        if _takes(tool, arguments):
            assert out["repair"] == {
                "tool": tool,
                "arguments": arguments,
                "next_step": "call_the_tool_that_does_it",
            }
            assert not (await contract.call(tool, arguments)).is_error
        else:
            # the repair the tool's own reading offers for them, or none (decision 0048)
            own = (await contract.call(tool, arguments)).structured.get("repair")
            if own is None or own["tool"] != tool:
                assert "repair" not in out, out
            else:
                assert out["repair"]["tool"] == tool, out
                assert _without_key(out["repair"]["arguments"]) == _without_key(own["arguments"])
                assert _takes(tool, out["repair"]["arguments"]), out
    else:
        assert not named and "repair" not in out, out
        assert all(t in out["hint"] for t in holding), out
        assert listed or "each say" in out["hint"]


def _without_key(arguments: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in arguments.items() if k != "idempotency_key"}


def _takes(tool: str, arguments: dict[str, Any]) -> bool:
    try:
        contract.validate(tool, arguments)
    except ValueError:
        return False
    return True


BOOK = {"room": "Oak", "title": "Standup", "idempotency_key": "k-1"}
MOVE = {"paper": "Budget", "new_name": "Budget 2027"}


@pytest.mark.parametrize(
    ("name", "arguments", "named", "repaired"),
    [
        # two first sentences hold "book" and "room"; one tool takes the arguments: that one
        ("book_room", BOOK, "create_booking", True),
        ("mcp__office__rename_paper", MOVE, "move_paper", True),
        ("rename_paper", {"colour": "red"}, "move_paper", False),
        # the arguments as move_paper reads them: a name spelled another way (decision 0048)
        ("rename_paper", {"Paper": "Budget", "newName": "Budget 2027"}, "move_paper", True),
        # "archive" is only in later sentences: no tool says it does that
        ("archive_paper", MOVE, None, False),
        # both hold the words and neither takes the arguments: both named, none chosen
        ("book_room", {"colour": "red"}, None, False),
    ],
)
async def test_each_case_of_the_rule(
    name: str, arguments: dict[str, Any], named: str | None, repaired: bool
) -> None:
    out = (await contract.call(name, arguments)).structured
    assert out["code"] == "unknown_tool"
    if named is None:
        assert "description says" not in out["hint"] and "repair" not in out, out
        return
    assert f"{named}'s description says it does that" in out["hint"], out
    assert ("repair" in out) == repaired, out
    if repaired:
        assert out["repair"]["tool"] == named
        assert out["repair"]["arguments"] in (arguments, MOVE), out
