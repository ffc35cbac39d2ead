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


class Subscriptions:
    """The listen handler, the handshake-era subscription table, and their delivery."""

    def __init__(self, changes: Changes) -> None:
        self.bus = InMemorySubscriptionBus()
        self.listen = ListenHandler(self.bus)
        # connection -> (the latest session proxy for it, the URIs it watches)
        self._seen: weakref.WeakKeyDictionary[Any, tuple[Any, set[str]]] = (
            weakref.WeakKeyDictionary()
        )
        self.remove = changes.listen(self.deliver)

    def saw(self, ctx: ServerRequestContext[Any]) -> None:
        """Remember a handshake-era connection, to tell it about list changes."""
        if ctx.session is None or modern(ctx):
            return
        key = connection_of(ctx.session)
        _, watched = self._seen.get(key, (None, set()))
        self._seen[key] = (ctx.session, watched)

    async def subscribe(
        self, ctx: ServerRequestContext[Any], params: types.SubscribeRequestParams
    ) -> types.EmptyResult:
        self.saw(ctx)
        self._seen[connection_of(ctx.session)][1].add(str(params.uri))
        return types.EmptyResult()

    async def unsubscribe(
        self, ctx: ServerRequestContext[Any], params: types.UnsubscribeRequestParams
    ) -> types.EmptyResult:
        self.saw(ctx)
        self._seen[connection_of(ctx.session)][1].discard(str(params.uri))
        return types.EmptyResult()

    async def deliver(self, change: Change) -> None:
        await self.bus.publish(event_of(change))
        for session, watched in list(self._seen.values()):
            try:
                if change.kind == "resource":
                    if change.uri in watched:
                        await session.send_resource_updated(change.uri)
                elif change.kind == "tools":
                    await session.send_tool_list_changed()
                elif change.kind == "prompts":
                    await session.send_prompt_list_changed()
                else:
                    await session.send_resource_list_changed()
            except Exception:  # a connection without a channel of its own, or gone
                log.debug("could not tell a connection about a %s change", change.kind)
