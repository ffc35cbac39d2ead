"""The local agent's identical-resend stop, on answers of the real example server.

A model resent a refused refund nine times; each refusal carried a new request_id, so no two
answers were equal and the stop never fired. What differs per call without changing the answer
(an error's request_id, a page's next_cursor) is left out of the comparison; anything else that
differs is a different answer.
"""

from __future__ import annotations

from typing import Any

import anyio
from hypothesis import given, settings
from hypothesis import strategies as st

from drivable.eval.agents.local import same_answer
from drivable.eval.surfaces import load
from drivable.eval.turns import Observation, ToolCall
from tests.contract import example_server

EXAMPLE = load("example")


async def _seen(tool: str, arguments: dict[str, Any]) -> Observation:
    out = await EXAMPLE.call(tool, arguments)
    return Observation(ToolCall(tool, arguments), out.is_error, out.structured, out.text())


@settings(max_examples=25, deadline=None)
@given(
    missing=st.integers(min_value=10**4, max_value=10**9),
    words=st.sampled_from(["plan", "budget", "note", "garden"]),
    limit=st.integers(min_value=1, max_value=3),
)
def test_the_same_answer_twice_is_the_same_and_a_different_one_is_not(
    missing: int, words: str, limit: int
) -> None:
    async def go() -> None:
        refused = {"note_id": f"note_{missing}"}
        first, again = await _seen("get_note", refused), await _seen("get_note", refused)
        assert first.is_error and first.text != again.text  # a new request_id each time
        assert same_answer(first) == same_answer(again)
        other = await _seen("get_note", {"note_id": f"note_{missing + 1}"})
        assert same_answer(other) != same_answer(first)  # its message names the other id

        # a dry run of a note still there (other tests in this process delete notes of the same
        # in-process server): a fresh token each time
        alive = [n for n in sorted(example_server.NOTES) if n not in example_server.DELETED]
        preview = {"note_id": alive[missing % len(alive)], "dry_run": True}
        dry, dry_again = await _seen("delete_note", preview), await _seen("delete_note", preview)
        tokens = [
            (d.structured or {})["next_call"]["arguments"]["confirm_token"]
            for d in (dry, dry_again)
        ]
        assert tokens[0] != tokens[1]
        assert same_answer(dry) == same_answer(dry_again)
        # the same change sent without its token: refused, a fresh token in `repair` each time
        bare = {"note_id": preview["note_id"]}
        ask, ask_again = await _seen("delete_note", bare), await _seen("delete_note", bare)
        repaired = [
            (a.envelope() or {})["repair"]["arguments"]["confirm_token"] for a in (ask, ask_again)
        ]
        assert repaired[0] != repaired[1]
        assert same_answer(ask) == same_answer(ask_again)

        page = {"query": words, "limit": limit}
        one, two = await _seen("search_notes", page), await _seen("search_notes", page)
        assert same_answer(one) == same_answer(two)
        bigger = await _seen("search_notes", {**page, "limit": limit + 1})
        if bigger.structured and bigger.structured.get("results") != (one.structured or {}).get(
            "results"
        ):
            assert same_answer(bigger) != same_answer(one)

    anyio.run(go)


calls = st.builds(
    ToolCall,
    st.sampled_from(["search_notes", "get_note", "delete_note"]),
    st.fixed_dictionaries({"n": st.integers(min_value=0, max_value=3)}),
)


@given(reply=st.lists(calls, min_size=1, max_size=5), done=st.sets(st.integers(0, 4)))
def test_a_restated_plan_sends_its_first_new_call(reply: list[ToolCall], done: set[int]) -> None:
    from drivable.eval.agents.local import call_to_send

    succeeded = {reply[i].key() for i in done if i < len(reply)}
    sent = call_to_send(reply, succeeded)
    new = [c for c in reply if c.key() not in succeeded]
    if new:
        # the first call the trial has no success for, never one it already has
        assert sent == new[0]
    else:
        assert sent == reply[0]  # every call done: the model resends, and the stop sees it
