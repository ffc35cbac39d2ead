"""contract.changes reaches clients in both eras; resumable streams replay what a client missed."""

from __future__ import annotations

from typing import Any

import anyio
import mcp_types as types
import pytest
from hypothesis import given
from hypothesis import strategies as st
from mcp import Client
from mcp.server.streamable_http import EventMessage

from drivable.contract.changes import Change, Changes
from drivable.serve import build_server
from drivable.serve.events import MemoryEventStore
from tests.conformance.fixture import WATCHED, contract


async def test_a_listen_stream_gets_only_the_kinds_it_asked_for() -> None:
    client = Client(build_server(contract), mode="auto", cache=None)
    async with (
        client,
        client.listen(prompts_list_changed=True) as prompts,
        client.listen(tools_list_changed=True, resource_subscriptions=[WATCHED]) as tools,
    ):
        await client.call_tool("test_trigger_tool_change", {})
        await client.call_tool("test_trigger_resource_update", {})
        await client.call_tool("test_trigger_prompt_change", {})
        with anyio.fail_after(10):
            seen = [type(await tools.__anext__()).__name__ for _ in range(2)]
            other = type(await prompts.__anext__()).__name__
    assert seen == ["ToolsListChanged", "ResourceUpdated"]
    assert other == "PromptsListChanged"  # the tool change before it never reached this stream
    assert "test_dynamic_tool" in contract.tools


@pytest.mark.filterwarnings("ignore::mcp.shared.exceptions.MCPDeprecationWarning")
async def test_handshake_connections_hear_list_changes_and_their_subscribed_resources() -> None:
    got: list[str] = []

    async def on_message(message: Any) -> None:
        method = getattr(message, "method", None)
        if isinstance(method, str) and method.startswith("notifications/"):
            got.append(method)

    server = build_server(contract)
    async with Client(server, mode="legacy", cache=None, message_handler=on_message) as client:
        assert client.server_capabilities.tools.list_changed  # type: ignore[union-attr]
        await client.call_tool("test_trigger_resource_update", {})  # not subscribed yet
        await client.subscribe_resource(WATCHED)
        await client.call_tool("test_trigger_resource_update", {})
        await client.unsubscribe_resource(WATCHED)
        await client.call_tool("test_trigger_resource_update", {})
        await client.call_tool("test_trigger_tool_change", {})
        with anyio.fail_after(10):
            while len(got) < 2:
                await anyio.sleep(0.01)
    assert got == ["notifications/resources/updated", "notifications/tools/list_changed"]


async def test_a_dropped_server_leaves_no_listener_behind() -> None:
    changes = Changes()
    heard: list[Change] = []

    class Transport:
        async def hear(self, change: Change) -> None:
            heard.append(change)

    kept = Transport()
    changes.listen(kept.hear)
    changes.listen(Transport().hear)  # dropped at once
    remove = changes.listen(kept.hear)
    remove()
    await changes.tools_changed()
    assert heard == [Change("tools")]


@given(st.lists(st.sampled_from(["a", "b", "c"]), max_size=60), st.integers(0, 59))
async def test_replay_sends_what_followed_the_last_seen_event_within_the_bounds(
    streams: list[str], pick: int
) -> None:
    store = MemoryEventStore(max_streams=2, max_events=5)
    ids: list[tuple[str, str]] = []
    for stream in streams:
        message = types.JSONRPCNotification(jsonrpc="2.0", method="notifications/x")
        ids.append((stream, await store.store_event(stream, message)))
    if not ids:
        return
    stream, last = ids[pick % len(ids)]
    replayed: list[str] = []

    async def send(event: EventMessage) -> None:
        replayed.append(str(event.event_id))

    found = await store.replay_events_after(last, send)
    later = [i for s, i in ids if s == stream and int(i) > int(last)]
    if found is None:
        assert replayed == []
    else:
        assert found == stream
        assert replayed == later[-5:] and len(replayed) <= 5
