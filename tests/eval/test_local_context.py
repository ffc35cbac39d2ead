"""The local agent's context window: old results are trimmed in a block, never the latest message.

A prompt measured in characters (one "token" a character, one more a message) stands in for the
model's tokenizer: what must hold is about which messages change, not how a tokenizer counts.
"""

from __future__ import annotations

from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from drivable.eval.agents.local import TRIMMED, trim_results

Message = dict[str, Any]

message = st.builds(
    lambda role, size: {"role": role, "content": "x" * size},
    st.sampled_from(["assistant", "tool", "tool"]),
    st.integers(min_value=0, max_value=400),
)
conversation = st.builds(
    lambda head, body: [{"role": "system", "content": "s" * head}, *body],
    st.integers(min_value=0, max_value=300),
    st.lists(message, min_size=1, max_size=14),
)


def size(messages: list[Message]) -> int:
    return sum(len(str(m["content"])) + 1 for m in messages)


def results(messages: list[Message]) -> list[int]:
    return [i for i, m in enumerate(messages[:-1]) if m["role"] == "tool"]


@given(conversation, st.integers(min_value=200, max_value=3000), st.integers(0, 800))
def test_trimming_keeps_what_fits_and_trims_the_oldest_results_in_a_block(
    messages: list[Message], budget: int, headroom: int
) -> None:
    before = [dict(m) for m in messages]
    trimmed = trim_results(messages, lambda: size(messages), budget=budget, headroom=headroom)

    if size(before) <= budget:
        assert (messages, trimmed) == (before, 0)
        return
    # only tool results change, and every older one that changed now reads TRIMMED
    changed = [i for i, (a, b) in enumerate(zip(before, messages, strict=True)) if a != b]
    assert all(messages[i]["role"] == "tool" for i in changed)
    older = [i for i in changed if i < len(messages) - 1]
    assert all(messages[i]["content"] == TRIMMED for i in older)
    assert trimmed == len(changed)
    # the oldest first: no result older than a trimmed one was kept as it was
    candidates = [i for i in results(before) if before[i]["content"] != TRIMMED]
    assert older == candidates[: len(older)]
    # the block: under the budget by the headroom, unless every older result is trimmed already
    if len(older) < len(candidates):
        assert size(messages) <= budget - headroom
    # it fits whenever trimming every older result (and cutting a result that is latest) can
    floor = [
        {"role": "tool", "content": TRIMMED} if i in candidates else m for i, m in enumerate(before)
    ]
    if size(floor) <= budget:
        assert size(messages) <= budget
    elif messages[-1]["role"] == "tool" and size(floor[:-1]) + 60 <= budget:
        assert size(messages) <= budget
        kept, _, _ = messages[-1]["content"].partition(" [... ")
        assert before[-1]["content"].startswith(kept)  # its head, marked as cut


@given(conversation, st.integers(min_value=1000, max_value=3000), st.integers(100, 800))
def test_after_a_trim_the_next_turn_that_adds_less_than_the_headroom_trims_nothing(
    messages: list[Message], budget: int, headroom: int
) -> None:
    """The cache's property: a trim is followed by turns that only append to the prompt."""
    if not trim_results(messages, lambda: size(messages), budget=budget, headroom=headroom):
        return
    if size(messages) > budget - headroom:  # nothing older was left to trim
        return
    messages.append({"role": "tool", "content": "y" * (headroom - 2)})
    before = [dict(m) for m in messages]
    assert trim_results(messages, lambda: size(messages), budget=budget, headroom=headroom) == 0
    assert messages == before
