"""The distractor condition: other servers' tools listed beside the target's, as a host shows them.

A host that connects a model to several servers lists every server's tools together; a tool of
another domain is a tool the model may pick instead of the right one, and its description is
text the model reads before every turn (issue 40). `Distractors` opens a real client on each
distractor server (over its own transport, as the target), lists its tools, and routes a call of
one of them to the server that listed it. A name the target or an earlier distractor already
lists is shown as `<label>_<name>`, the way hosts keep two servers' tools apart; the call goes
out under the server's own name. The scorer sees a call of a distractor tool as a call no step
asked for.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterable, Sequence
from contextlib import AsyncExitStack, asynccontextmanager
from dataclasses import dataclass, field
from typing import Any, TextIO

from drivable.eval.turns import ToolCall
from drivable.target import Target, connect, wire


@dataclass(frozen=True)
class Distractor:
    """One server whose tools are listed beside the target's."""

    label: str
    target: Target


@dataclass
class Distractors:
    """The distractor servers' tools and the clients that answer them."""

    listed: list[dict[str, Any]] = field(default_factory=list)
    _routes: dict[str, tuple[Any, str]] = field(default_factory=dict)

    def tools(self) -> list[dict[str, Any]]:
        return list(self.listed)

    def handles(self, call: ToolCall) -> bool:
        return call.tool in self._routes

    def route(self, call: ToolCall) -> tuple[Any, str]:
        """The client that listed the tool, and the tool's name on that server."""
        return self._routes[call.tool]

    def add(
        self, label: str, client: Any, tools: Iterable[dict[str, Any]], taken: set[str]
    ) -> None:
        for tool in tools:
            name = str(tool["name"])
            shown = name if name not in taken else f"{label}_{name}"
            taken.add(shown)
            self.listed.append({**tool, "name": shown})
            self._routes[shown] = (client, name)


@asynccontextmanager
async def opened(
    distractors: Sequence[Distractor], taken: Iterable[str], errlog: TextIO | None = None
) -> AsyncIterator[Distractors]:
    """Every distractor connected and listed (every page); closed when the trial ends."""
    found = Distractors()
    names = set(taken)
    async with AsyncExitStack() as stack:
        for distractor in distractors:
            client = await stack.enter_async_context(connect(distractor.target, errlog=errlog))
            tools: list[dict[str, Any]] = []
            cursor: str | None = None
            while True:
                page = await client.list_tools(cursor=cursor, cache_mode="bypass")
                tools.extend(wire(t) for t in page.tools)
                cursor = page.next_cursor
                if not cursor:
                    break
            found.add(distractor.label, client, tools, names)
        yield found
