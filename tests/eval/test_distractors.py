"""The distractor condition: other servers' tools beside the target's, each call routed to the
server that listed it (issue 40; `drivable.eval.distractors`)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from drivable.eval.distractors import Distractors
from drivable.eval.sides import targets
from drivable.eval.solver import run_trial
from drivable.eval.turns import Finish, Observation, ToolCall, Usage
from drivable.eval.workflow import Workflow, bundled

NAMES = st.lists(st.sampled_from(["search", "get", "list", "create", "delete", "get_note"]))


@given(target=NAMES, servers=st.lists(NAMES, max_size=4))
def test_every_listed_name_is_unique_and_routes_to_its_own_server_and_name(
    target: list[str], servers: list[list[str]]
) -> None:
    found = Distractors()
    taken = set(target)
    for index, names in enumerate(servers):
        found.add(f"s{index}", index, [{"name": n} for n in dict.fromkeys(names)], taken)
    shown = [str(t["name"]) for t in found.tools()]
    assert len(shown) == len(set(shown)) and not set(shown) & set(target)
    routed = [found.route(ToolCall(name, {})) for name in shown]
    expected = [(i, n) for i, names in enumerate(servers) for n in dict.fromkeys(names)]
    assert routed == expected
    # a name no one else lists keeps its own spelling; a taken one is prefixed by its server
    for (index, name), spelled in zip(expected, shown, strict=True):
        assert spelled in (name, f"s{index}_{name}")


class Scripted:
    """Calls the given tools in turn, then finishes; keeps what it was shown and saw."""

    name = "scripted"

    def __init__(self, calls: list[ToolCall]) -> None:
        self.calls = calls
        self.usage = Usage()
        self.shown: list[str] = []
        self.seen: list[Observation] = []

    async def begin(self, workflow: Workflow, tools: list[dict[str, Any]]) -> None:
        self.shown = [str(t["name"]) for t in tools]

    def relisted(self, tools: list[dict[str, Any]]) -> None:
        self.shown = [str(t["name"]) for t in tools]

    async def act(self, last: Observation | None) -> ToolCall | Finish:
        if last is not None:
            self.seen.append(last)
        return self.calls.pop(0) if self.calls else Finish("done")


async def test_a_distractor_tool_is_listed_and_answered_by_its_own_server(tmp_path: Path) -> None:
    target = targets("example", tmp_path, ["billing", "example"])["drivable"]
    assert [d.label for d in target.distractors] == ["billing"]  # never a set's own twin
    workflow = bundled("example")[0]
    agent = Scripted([ToolCall("list_customers", {}), ToolCall("list_notes", {})])
    result = await run_trial(target, workflow, agent)
    assert {"list_customers", "find_invoices", "search_notes", "list_notes"} <= set(agent.shown)
    customers, notes = agent.seen
    assert not customers.is_error and "customer" in customers.text.lower()
    assert not notes.is_error and "note" in notes.text.lower()
    # the scorer counts both calls; the distractor's answers no step of the workflow
    assert result.verdict["tool_calls"] == 2
    assert target.describe()["distractors"] == ["billing"]
