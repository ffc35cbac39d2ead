"""Delivering `contract.changes` in both eras.

2026-07-28: `subscriptions/listen` is served by the SDK's ListenHandler over an in-process bus;
each change is published on the bus, and each open stream gets the kinds and URIs it asked for
(acknowledged first, tagged with its subscription id).

Handshake eras: `resources/subscribe` and `resources/unsubscribe` keep, per connection, the URIs
it watches; a resource update goes to the connections watching it, a list change to every
connection seen, on the connection's own channel (stdio, or the standalone GET stream of an HTTP
session). A connection that cannot be reached that way (stateless HTTP) simply gets nothing.
"""

from __future__ import annotations

import logging
import weakref
from typing import Any

import mcp_types as types
from mcp.server.context import ServerRequestContext
from mcp.server.subscriptions import (
    InMemorySubscriptionBus,
    ListenHandler,
    PromptsListChanged,
    ResourcesListChanged,
    ResourceUpdated,
    ServerEvent,
    ToolsListChanged,
)

from drivable.contract.changes import Change, Changes
from drivable.serve.asking import connection_of, modern

log = logging.getLogger("drivable.serve.subscriptions")


def event_of(change: Change) -> ServerEvent:
    if change.kind == "tools":
        return ToolsListChanged()
    if change.kind == "prompts":
        return PromptsListChanged()
    if change.kind == "resources":
        return ResourcesListChanged()
    assert change.uri is not None
    return ResourceUpdated(uri=change.uri)


def notification_of(change: Change) -> tuple[str, dict[str, Any] | None]:
    """The handshake-era notification (method, params) that tells a connection of `change`."""
    if change.kind == "resource":
        return "notifications/resources/updated", {"uri": change.uri}
    return f"notifications/{change.kind}/list_changed", None


WATCHED = "dev.drivable/watched"  # a connection's `state` key: the URIs it watches


def _watched(connection: Any) -> set[str]:
    state: dict[str, Any] = connection.state
    found: set[str] = state.setdefault(WATCHED, set())
    return found


class Subscriptions:
    """The listen handler, the handshake-era subscription table, and their delivery.

    A connection is remembered weakly and nothing remembered refers back to it: the URIs it
    watches live in the connection's own `state`, and a change goes out on its standalone
    channel (`Connection.notify`), never through a per-request session (a session holds its
    connection, so keeping one would keep the connection alive forever).
    """

    def __init__(self, changes: Changes) -> None:
        self.bus = InMemorySubscriptionBus()
        self.listen = ListenHandler(self.bus)
        self._seen: weakref.WeakSet[Any] = weakref.WeakSet()
        self.remove = changes.listen(self.deliver)

    def saw(self, ctx: ServerRequestContext[Any]) -> Any | None:
        """Remember a handshake-era connection that has a channel to tell it of list changes."""
        if ctx.session is None or modern(ctx):
            return None
        connection = connection_of(ctx.session)
        if not getattr(connection, "has_standalone_channel", False):
            return None  # stateless HTTP: nothing could reach it later
        self._seen.add(connection)
        return connection

    async def subscribe(
        self, ctx: ServerRequestContext[Any], params: types.SubscribeRequestParams
    ) -> types.EmptyResult:
        connection = self.saw(ctx)
        if connection is not None:
            _watched(connection).add(str(params.uri))
        return types.EmptyResult()

    async def unsubscribe(
        self, ctx: ServerRequestContext[Any], params: types.UnsubscribeRequestParams
    ) -> types.EmptyResult:
        connection = self.saw(ctx)
        if connection is not None:
            _watched(connection).discard(str(params.uri))
        return types.EmptyResult()

    def watching(self) -> int:
        """How many connections are remembered (the leak soak reads it)."""
        return len(self._seen)

    async def deliver(self, change: Change) -> None:
        await self.bus.publish(event_of(change))
        method, params = notification_of(change)
        for connection in list(self._seen):
            if change.kind == "resource" and change.uri not in _watched(connection):
                continue
            try:
                await connection.notify(method, params)
            except Exception:  # a connection gone between the listing and the send
                log.debug("could not tell a connection about a %s change", change.kind)
