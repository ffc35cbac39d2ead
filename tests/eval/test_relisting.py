"""The eval's host re-lists the tools when the server says they changed, as hosts do
(`notifications/tools/list_changed`; docs/decisions/0052-a-tool-shown-is-listed.md)."""

from __future__ import annotations

from typing import Any

import pytest

from drivable.eval.solver import EvalTarget, run_trial
from drivable.eval.turns import Finish, Observation, ToolCall, Usage
from drivable.eval.workflow import Workflow, bundled
from drivable.serve import build_server
from drivable.target import Target
from tests.conformance.fixture import DYNAMIC_TOOL, contract


class Scripted:
    """Makes the given calls, then finishes; keeps every listing it was given."""

    name = "scripted"

    def __init__(self, calls: list[str]) -> None:
        self.calls = calls
        self.usage = Usage()
        self.listings: list[list[str]] = []

    async def begin(self, workflow: Workflow, tools: list[dict[str, Any]]) -> None:
        self.listings.append([str(t["name"]) for t in tools])

    def relisted(self, tools: list[dict[str, Any]]) -> None:
        self.listings.append([str(t["name"]) for t in tools])

    async def act(self, last: Observation | None) -> ToolCall | Finish:
        return ToolCall(self.calls.pop(0), {}) if self.calls else Finish("done")


@pytest.mark.filterwarnings("ignore::mcp.shared.exceptions.MCPDeprecationWarning")
@pytest.mark.parametrize("changes", [0, 1, 2])
async def test_the_host_lists_again_after_each_change_and_counts_it(changes: int) -> None:
    target = EvalTarget(Target(server=build_server(contract), mode="legacy"), contract=contract)
    agent = Scripted(["test_trigger_tool_change"] * changes + ["test_dynamic_tool"] * (changes > 0))
    result = await run_trial(target, bundled("example")[0], agent)
    _, *again = agent.listings
    assert len(again) == changes  # one new listing a change, shown from the next turn on
    assert all(DYNAMIC_TOOL in listing for listing in again)
    once = (await run_trial(target, bundled("example")[0], Scripted([]))).verdict["discovery"]
    spent = result.verdict["discovery"]
    # every listing is discovery paid: the first, and one whole listing a change
    assert once["bytes"] * changes < spent["bytes"] <= once["bytes"] * (1 + changes)
    if changes:  # the new tool, called by its name, answered
        assert result.verdict["tool_calls"] == changes + 1


async def test_a_persona_is_shown_what_a_new_listing_shows() -> None:
    from drivable.eval.agents.simulated import SimulatedAgent

    first = {"name": "search_notes", "description": "Search notes.", "inputSchema": {}}
    later = {
        "name": "get_note",
        "description": "Read one note by the note_id search_notes returns, e.g. nt_1042.",
        "inputSchema": {"type": "object", "properties": {"note_id": {"type": "string"}}},
    }
    agent = SimulatedAgent("literal", 0)
    await agent.begin(bundled("example")[0], [first])
    assert "get_note" not in agent.tools and not agent.shown.has("nt_1042")
    agent.relisted([first, later])
    assert set(agent.tools) == {"search_notes", "get_note"}
    assert agent.shown.has("nt_1042")  # the new listing is what the persona has seen
