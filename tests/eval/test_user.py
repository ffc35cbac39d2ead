"""The workflow's user answers a server's question (`drivable.eval.user`), and the scorer counts a
destructive change no step asks for (`Tracker.unasked_changes`), over the real wire."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import mcp_types as types
from hypothesis import assume, given
from hypothesis import strategies as st

from drivable.eval.scorer import asks_for, same
from drivable.eval.sidebyside import SETS
from drivable.eval.sides import targets
from drivable.eval.solver import run_trial
from drivable.eval.turns import Finish, Observation, ToolCall, Usage
from drivable.eval.user import WorkflowUser
from drivable.eval.workflow import Workflow, bundled

# every step of every bundled workflow that names the call completing it
NAMED = [
    (wf, step.done.call)
    for name in SETS
    for wf in bundled(name)
    for step in wf.steps
    if step.done.call is not None and step.done.call.arguments
]
SCALARS = st.one_of(st.integers(-(10**6), 10**6), st.text(min_size=1, max_size=12))


@given(case=st.sampled_from(NAMED))
def test_the_call_a_step_names_is_one_the_user_asked_for(case: Any) -> None:
    workflow, spec = case
    assert asks_for(workflow, ToolCall(spec.tool, dict(spec.arguments)), None)


@given(case=st.sampled_from(NAMED), data=st.data())
def test_another_value_in_one_argument_is_not_asked_for_unless_the_question_states_the_asked_one(
    case: Any, data: st.DataObject
) -> None:
    workflow, spec = case
    named = sorted(k for k, v in spec.arguments.items() if v != "*")  # "*": any value is asked
    assume(named)
    key = data.draw(st.sampled_from(named))
    other = data.draw(SCALARS.filter(lambda v: str(v) != str(spec.arguments[key])))
    call = ToolCall(spec.tool, {**spec.arguments, key: other})
    elsewhere = any(  # another step of the workflow asks for exactly that call
        s.done.call is not None
        and s.done.call.tool == spec.tool
        and all(
            k in call.arguments and same(v, call.arguments[k])
            for k, v in s.done.call.arguments.items()
        )
        for s in workflow.steps
    )
    assert asks_for(workflow, call, None) is elsewhere
    # a question that shows the asked value beside the call's own spelling: the user sees it
    value = spec.arguments[key]
    if isinstance(value, (str, int, float)) and not isinstance(value, bool):
        stated = f"Would change {other!s} ({value!s} as read). Go ahead?"
        assert asks_for(workflow, call, None, question=stated)


@given(value=st.integers(0, 10**6), before=st.sampled_from(["", "(", " "]))
def test_a_value_is_stated_as_a_word_of_its_own_never_inside_a_longer_one(
    value: int, before: str
) -> None:
    workflow = bundled("example")[0]
    from drivable.eval.workflow import CallSpec, Done, Step

    step = Step(name="s", ask="a", done=Done(call=CallSpec(tool="t", arguments={"n": value})))
    wf = workflow.model_copy(update={"steps": [step]})
    call = ToolCall("t", {"n": "unread"})
    assert asks_for(wf, call, None, question=f"Refund {before}{value} minor units.")
    assert not asks_for(wf, call, None, question=f"Refund {value}1 or {value}.5 or x{value}.")


def _form(schema: dict[str, Any], message: str = "Delete a note: note_5. Go ahead?") -> Any:
    return types.ElicitRequestFormParams(message=message, requested_schema=schema)


YES_OR_NO = {"type": "object", "properties": {"confirm": {"type": "boolean"}}}


async def test_the_user_says_yes_to_a_step_and_no_to_anything_else() -> None:
    workflow = next(w for w in bundled("example") if w.name == "destructive-two-step")
    user = WorkflowUser(workflow, None)
    user.in_flight = ToolCall("delete_note", {"note_id": "note_5", "dry_run": False})
    said = await user(None, _form(YES_OR_NO))
    assert said.action == "accept" and said.content == {"confirm": True}
    user.in_flight = ToolCall("delete_note", {"note_id": "note_3", "dry_run": False})
    assert (await user(None, _form(YES_OR_NO, "Delete a note: note_3. Go ahead?"))).action == (
        "decline"
    )
    # a form that is not one yes-or-no question has nothing the user can say to it
    wider = {"type": "object", "properties": {"name": {"type": "string"}}}
    assert (await user(None, _form(wider))).action == "decline"
    assert user.said == {"accept": 1, "decline": 1}


class Following:
    """Sends each call in turn; "next" sends the last answer's next_call as it is."""

    name = "following"

    def __init__(self, calls: list[ToolCall | str]) -> None:
        self.calls = calls
        self.usage = Usage()
        self.seen: list[Observation] = []

    async def begin(self, workflow: Workflow, tools: list[dict[str, Any]]) -> None:
        return None

    def relisted(self, tools: list[dict[str, Any]]) -> None:
        return None

    async def act(self, last: Observation | None) -> ToolCall | Finish:
        if last is not None:
            self.seen.append(last)
        if not self.calls:
            return Finish("done")
        step = self.calls.pop(0)
        if isinstance(step, ToolCall):
            return step
        following = (last.structured or {})["next_call"] if last is not None else {}
        return ToolCall(following["tool"], dict(following["arguments"]))


def _previewed_deletes() -> list[ToolCall | str]:
    """A note nobody asked to delete previewed and confirmed, then the one the user named."""
    return [
        ToolCall("delete_note", {"note_id": "note_3", "dry_run": True}),
        "next",
        ToolCall("delete_note", {"note_id": "note_5", "dry_run": True}),
        "next",
    ]


async def test_a_change_nobody_asked_for_is_refused_by_the_user_and_counted_without_one(
    tmp_path: Path,
) -> None:
    workflow = next(w for w in bundled("example") if w.name == "destructive-two-step")
    asked = targets("example", tmp_path / "with", user=True)["drivable"]
    agent = Following(_previewed_deletes())
    result = await run_trial(asked, workflow, agent)
    declined = agent.seen[1]
    assert declined.is_error and (declined.structured or {}).get("code") == (
        "confirmation_declined"
    )
    assert result.verdict["completed"] and result.verdict["unasked_changes"] == 0
    assert result.verdict["user_said"] == {"accept": 1, "decline": 1}
    assert asked.describe()["user"]

    unasked = targets("example", tmp_path / "without")["drivable"]
    result = await run_trial(unasked, workflow, Following(_previewed_deletes()))
    assert result.verdict["completed"] and result.verdict["unasked_changes"] == 1
    assert result.verdict["user_said"] == {"accept": 0, "decline": 0}


def test_a_naive_twin_counts_the_changes_its_drivable_side_declares() -> None:
    sides = targets("example", Path("unused"))
    assert sides["naive"].destructive == frozenset({"delete_note"})
