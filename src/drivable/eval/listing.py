"""What the eval's host lists, read again when the server says its tools changed, as hosts do
(`notifications/tools/list_changed`; docs/decisions/0052-a-tool-shown-is-listed.md)."""

from __future__ import annotations

from typing import Any

import anyio

from drivable.target import wire

CHANGED = "notifications/tools/list_changed"


class Listing:
    """The tools/list pages the host last read, and whether the server said since that its
    tools changed."""

    def __init__(self) -> None:
        self.pages: list[Any] = []
        self.tools: list[dict[str, Any]] = []
        self._changed = anyio.Event()

    async def heard(self, message: Any) -> None:
        """A connection's message handler: a tools/list_changed notification makes it stale."""
        if getattr(message, "method", None) == CHANGED:
            self._changed.set()

    @property
    def stale(self) -> bool:
        return self._changed.is_set()

    async def read(self, client: Any) -> list[dict[str, Any]]:
        """Every page of tools/list, read now (a change heard meanwhile makes it stale again)."""
        self._changed = anyio.Event()
        pages: list[Any] = []
        tools: list[dict[str, Any]] = []
        cursor: str | None = None
        while True:
            page = await client.list_tools(cursor=cursor, cache_mode="bypass")
            pages.append(wire(page))
            tools.extend(wire(t) for t in page.tools)
            cursor = page.next_cursor
            if not cursor:
                break
        self.pages, self.tools = pages, tools
        return tools
