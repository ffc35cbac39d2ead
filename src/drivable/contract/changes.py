"""Telling clients that something changed: the tool, prompt or resource lists, or one resource.

A handler (or any server code) calls `await contract.changes.tools_changed()` after adding or
removing a tool, `prompts_changed()`, `resources_changed()`, or `resource_updated(uri)` after a
resource's body changed. The transports deliver it in the caller's era: `subscriptions/listen`
streams in 2026-07-28 (each stream only the kinds and URIs it asked for), list-changed
notifications and `resources/subscribe`d updates on handshake-era connections.

Delivery reaches the clients connected to this process; several worker processes need a shared
bus behind the listeners (the SDK's `SubscriptionBus` seam).
"""

from __future__ import annotations

import inspect
import logging
import weakref
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Literal

log = logging.getLogger("drivable.contract.changes")

ChangeKind = Literal["tools", "prompts", "resources", "resource"]


@dataclass(frozen=True)
class Change:
    """One change: a list (`tools`, `prompts`, `resources`) or one resource (`resource`, uri)."""

    kind: ChangeKind
    uri: str | None = None


Listener = Callable[[Change], Awaitable[None]]


class Changes:
    """Fans a change out to every transport listening (none: nothing is sent)."""

    def __init__(self) -> None:
        # A bound method is held weakly: a server built and dropped (tests, fingerprinting)
        # leaves no listener behind.
        self._listeners: list[Callable[[], Listener | None]] = []

    def listen(self, listener: Listener) -> Callable[[], None]:
        """Register a transport's listener; returns the function that removes it."""
        held: Callable[[], Listener | None] = (
            weakref.WeakMethod(listener) if inspect.ismethod(listener) else lambda: listener
        )
        self._listeners.append(held)

        def remove() -> None:
            if held in self._listeners:
                self._listeners.remove(held)

        return remove

    async def emit(self, change: Change) -> None:
        for held in list(self._listeners):
            listener = held()
            if listener is None:
                self._listeners.remove(held)
                continue
            try:
                await listener(change)
            except Exception:  # one transport failing must not stop the others, nor the handler
                log.exception("a change listener failed (%s)", change.kind)

    async def tools_changed(self) -> None:
        await self.emit(Change("tools"))

    async def prompts_changed(self) -> None:
        await self.emit(Change("prompts"))

    async def resources_changed(self) -> None:
        await self.emit(Change("resources"))

    async def resource_updated(self, uri: str) -> None:
        await self.emit(Change("resource", uri))
