"""A large catalog lists, on each connection, the tools that connection was shown: found,
described, called or named as its next call (docs/decisions/0052-a-tool-shown-is-listed.md;
`drivable.contract.catalog.Shown`)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anyio
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from drivable.contract import catalog
from drivable.contract.envelope import envelope_of
from drivable.eval.catalog import among
from drivable.eval.sidebyside import targets
from drivable.eval.solver import run_trial
from drivable.eval.surfaces import load
from drivable.eval.turns import Finish, Observation, ToolCall, Usage
from drivable.eval.workflow import Workflow, bundled
from drivable.serve.mount import build_server
from drivable.target import WHOLE_CATALOG, Target, connect
from tests.contract.test_catalog import small

SOME = settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
CHANGED = "notifications/tools/list_changed"
# a booking of a room named, not its id: refused, the repair naming search_rooms
BOOKING = {"room_id": "Juniper", "day": "2026-10-09", "start": "9:00", "end": "10:00",
           "title": "Sync", "organiser_email": "alex@example.com"}  # fmt: skip


@given(st.integers(1, 6), st.lists(st.lists(st.sampled_from("abcdefghij"), max_size=5)))
def test_shown_keeps_the_most_recently_shown_and_says_when_the_listing_changed(
    bound: int, batches: list[list[str]]
) -> None:
    shown = catalog.Shown(bound)
    recency: list[str] = []  # most recent first
    for batch in batches:
        before = set(recency)
        for name in reversed(batch):  # the first of a batch is its most recent
            if name in recency:
                recency.remove(name)
            recency.insert(0, name)
        recency = recency[:bound]
        assert shown.add(batch) == (set(recency) != before)
        assert {n for n in "abcdefghij" if n in shown} == set(recency)
        assert set(batch[:bound]) <= set(recency)  # the best of the batch is never dropped


async def session(contract: Any, calls: list[tuple[str, dict[str, Any]]], mode: Any) -> Any:
    """Make `calls` on one connection; after each, what it lists and how many change
    notifications it has heard; then what a second connection lists."""
    heard: list[str] = []

    async def on_message(message: Any) -> None:
        method = getattr(message, "method", None)
        if method == CHANGED:
            heard.append(method)

    server = build_server(contract)
    steps = []
    async with connect(Target(server=server), mode=mode, message_handler=on_message) as client:
        before = [t.name for t in (await client.list_tools(cache_mode="bypass")).tools]
        whole = {
            t.name: t.model_dump(by_alias=True, exclude_none=True)
            for t in (await client.list_tools(meta=WHOLE_CATALOG, cache_mode="bypass")).tools
        }
        for name, arguments in calls:
            result = await client.call_tool(name, arguments)
            # sent before the answer, the notification is heard before this listing comes back
            listed = (await client.list_tools(cache_mode="bypass")).tools
            steps.append(
                (
                    result,
                    [t.model_dump(by_alias=True, exclude_none=True) for t in listed],
                    len(heard),
                )
            )
    async with connect(Target(server=server), mode=mode) as other:
        elsewhere = [t.name for t in (await other.list_tools(cache_mode="bypass")).tools]
    return before, whole, steps, elsewhere


def calls_of(contract: Any) -> Any:
    """Entry calls, and calls of the catalog's tools (by name and through call_tool) with no
    arguments or with a made-up one."""
    tools = st.sampled_from(sorted(contract.tools))
    arguments = st.sampled_from([{}, {"query": "x"}, {"room_id": "room_999"}, BOOKING])
    return st.lists(
        st.one_of(
            st.builds(lambda q: ("find_tools", {"query": q}), st.sampled_from(
                ["book room", "room", "order", "cancel", "search case", "nothing here"])),
            st.builds(lambda n: ("describe_tool", {"name": n}),
                      st.sampled_from(["get_room", "no_such_tool"])),
            st.tuples(tools, arguments),
            st.builds(lambda n, a: ("call_tool", {"name": n, "arguments": a}), tools, arguments),
        ),
        min_size=1,
        max_size=4,
    )  # fmt: skip


def shown_by(contract: Any, sent: tuple[str, dict[str, Any]], result: Any) -> list[str]:
    """The catalog tools one answer shows, by the rule: the tool called, the next call its answer
    names, find_tools' hits, describe_tool's tool."""
    tool, arguments = sent
    if tool == "call_tool":
        tool = arguments["name"]
    answer = result.structured_content or envelope_of(result) or {}
    named = [tool]
    named += [answer[k]["tool"] for k in ("repair", "next_call") if isinstance(answer.get(k), dict)]
    if tool == "find_tools" and not result.is_error:
        named += [t["name"] for t in answer["tools"]]
    if tool == "describe_tool" and not result.is_error:
        named.append(arguments["name"])
    return [n for n in dict.fromkeys(named) if n in contract.tools]


@SOME
@given(st.data(), st.integers(2, 8))
def test_a_connection_lists_the_tools_it_was_shown(data: st.DataObject, limit: int) -> None:
    contract = among(load("bookings"), 40, limit=limit)
    sent = data.draw(calls_of(contract))
    before, whole, steps, elsewhere = anyio.run(session, contract, sent, "legacy")
    assert before == list(catalog.ENTRY) and elsewhere == list(catalog.ENTRY)
    ever: set[str] = set()
    listed_before: set[str] = set()
    notified = 0
    for call, (result, listing, heard) in zip(sent, steps, strict=True):
        names = [t["name"] for t in listing]
        assert names[:3] == list(catalog.ENTRY)
        shown = names[3:]
        now = shown_by(contract, call, result)
        ever |= set(now)
        assert set(now[:limit]) <= set(shown)  # what this answer showed is listed
        assert set(shown) <= ever and len(shown) <= limit  # nothing else, and no more than that
        assert shown == [n for n in whole if n in shown]  # in the catalog's order
        for tool_listed in listing[3:]:  # each as the whole catalog lists it
            assert tool_listed == whole[tool_listed["name"]]
        if set(shown) != listed_before:
            notified += 1
        assert heard == notified  # a notification for every change, and only then
        listed_before = set(shown)


@pytest.mark.parametrize("through", [False, True])
def test_the_tool_a_refusal_names_as_its_repair_is_listed(through: bool) -> None:
    contract = among(load("bookings"), 40, limit=5)
    call = ("call_tool", {"name": "create_booking", "arguments": BOOKING}) if through else (
        "create_booking", BOOKING)  # fmt: skip
    _, _, [(result, listing, heard)], _ = anyio.run(session, contract, [call], "legacy")
    envelope = envelope_of(result)
    assert envelope is not None and envelope["repair"]["tool"] == "search_rooms"
    names = [t["name"] for t in listing]
    assert names == [*catalog.ENTRY, "search_rooms", "create_booking"] and heard == 1


@pytest.mark.parametrize(
    ("mode", "ttl", "scope"), [("legacy", 0, "private"), ("auto", 60_000, "public")]
)
def test_a_listing_of_a_connections_own_is_not_kept_and_a_shared_one_is(
    mode: Any, ttl: int, scope: str
) -> None:
    async def run() -> Any:
        async with connect(
            Target(server=build_server(among(small(), 40, limit=5))), mode=mode
        ) as c:
            return await c.list_tools(cache_mode="bypass")

    listed = anyio.run(run)
    assert (listed.ttl_ms, listed.cache_scope) == (ttl, scope)


def test_a_connection_that_cannot_hear_of_changes_keeps_the_entry_tools() -> None:
    contract = among(small(), 40, limit=5)
    calls = [("find_tools", {"query": "echo note"}), ("describe_tool", {"name": "echo_note"})]
    before, _, steps, _ = anyio.run(session, contract, calls, "auto")  # 2026-07-28, no session
    assert before == list(catalog.ENTRY)
    for result, listing, heard in steps:
        assert not result.is_error
        assert [t["name"] for t in listing] == list(catalog.ENTRY) and heard == 0


class Finder:
    """Finds a tool, then finishes; keeps every listing it was given."""

    name = "finder"

    def __init__(self, query: str) -> None:
        self.query = query
        self.usage = Usage()
        self.listings: list[list[str]] = []
        self.sent = False

    async def begin(self, workflow: Workflow, tools: list[dict[str, Any]]) -> None:
        self.listings.append([str(t["name"]) for t in tools])

    def relisted(self, tools: list[dict[str, Any]]) -> None:
        self.listings.append([str(t["name"]) for t in tools])

    async def act(self, last: Observation | None) -> ToolCall | Finish:
        if self.sent:
            return Finish("done")
        self.sent = True
        return ToolCall("find_tools", {"query": self.query})


async def test_the_eval_host_relists_when_told_and_counts_the_listing_again(
    tmp_path: Path,
) -> None:
    target = targets("example", tmp_path, catalog=100)["drivable"]
    workflow = bundled("example")[0]
    agent = Finder("search notes")
    result = await run_trial(target, workflow, agent)
    first, again = agent.listings
    assert first == list(catalog.ENTRY)
    assert again[:3] == list(catalog.ENTRY) and "search_notes" in again[3:]
    # the second listing is discovery paid again: more than the entry listing alone
    alone = await run_trial(target, workflow, Finder("zzzz qqqq"))
    assert result.verdict["discovery"]["tokens"] > alone.verdict["discovery"]["tokens"] > 0
