"""The wrapped server, kept connected: one SDK client, restarted when the server stops.

The client lives in a task of its own (an SDK client is entered and left in one task, and a
lifespan may be left in another), which opens it, waits until a call finds the connection gone,
and opens it again. A call that finds it gone is answered `unavailable` with a retry; the next
call meets the restarted server. Lines the server prints on stdout that are no JSON-RPC message
(logs) are skipped by the transport and counted here, never fatal.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable, Mapping
from typing import Any, TextIO, TypeVar

import anyio
from mcp import Client, MCPError
from mcp_types import (
    CONNECTION_CLOSED,
    REQUEST_TIMEOUT,
    CallToolResult,
    GetPromptResult,
    ReadResourceResult,
)

from drivable.target import Target, connect

log = logging.getLogger("drivable.wrap")
T = TypeVar("T")


class _SkipUnread(logging.Filter):
    """The SDK logs each stdout line it cannot read with its trace; the wrapper counts them."""

    def filter(self, record: logging.LogRecord) -> bool:
        return not record.getMessage().startswith("Failed to parse JSONRPC message")


logging.getLogger("mcp.client.stdio").addFilter(_SkipUnread())
START_TIMEOUT_S = 30.0  # a server's start (an npm or uv launcher) is no call: its own bound
RESTART_DELAY_S = 0.2
MAX_RESTART_DELAY_S = 5.0


class Gone(Exception):
    """The upstream stopped (or could not be started) while a call needed it."""


class TimedOut(Exception):
    """The upstream did not answer within the call's timeout."""


class Upstream:
    """A connection to the wrapped server that outlives the server's own crashes."""

    def __init__(self, target: Target, *, errlog: TextIO | None = None) -> None:
        self.target = target
        self.errlog = errlog
        self.log_lines = 0  # stdout lines that were no JSON-RPC message
        self.restarts = 0
        self.calls = 0
        self._client: Client | None = None
        self._ready = asyncio.Event()
        self._gone = asyncio.Event()
        self._stopping = False
        self._task: asyncio.Task[None] | None = None

    async def start(self, timeout_s: float = 30.0) -> None:
        """Start the client's task and wait for the first connection (Gone if there is none)."""
        self._task = asyncio.get_running_loop().create_task(self._supervise())
        await self._wait_ready(timeout_s)

    async def stop(self) -> None:
        if self.log_lines:
            log.warning(
                "the wrapped server printed %d lines on stdout that are no MCP message; skipped",
                self.log_lines,
            )
        self._stopping = True
        self._gone.set()
        if self._task is not None:
            with anyio.CancelScope(shield=True), contextlib.suppress(BaseException):
                await asyncio.wait_for(asyncio.shield(self._task), timeout=10)
            if not self._task.done():
                self._task.cancel()

    async def call(
        self, name: str, arguments: Mapping[str, Any], timeout_s: float
    ) -> CallToolResult:
        """One tools/call upstream; Gone or TimedOut when it cannot answer, MCPError when it
        answers with a JSON-RPC error."""
        return await self._request(
            name,
            timeout_s,
            lambda c: c.call_tool(name, dict(arguments), read_timeout_seconds=timeout_s),
        )

    async def read_resource(self, uri: str, timeout_s: float) -> ReadResourceResult:
        """One resources/read upstream (failures as `call`'s)."""
        return await self._request(uri, timeout_s, lambda c: c.read_resource(uri))

    async def get_prompt(
        self, name: str, arguments: Mapping[str, str], timeout_s: float
    ) -> GetPromptResult:
        """One prompts/get upstream (failures as `call`'s)."""
        return await self._request(name, timeout_s, lambda c: c.get_prompt(name, dict(arguments)))

    async def _request(
        self, name: str, timeout_s: float, send: Callable[[Client], Awaitable[T]]
    ) -> T:
        client = await self._wait_ready(timeout_s)
        self.calls += 1
        try:
            with anyio.fail_after(timeout_s):
                return await send(client)
        except MCPError as error:
            if error.error.code == CONNECTION_CLOSED:
                self._lost(client)
                raise Gone(name) from None
            if error.error.code == REQUEST_TIMEOUT:
                raise TimedOut(name) from None
            raise
        except TimeoutError:
            raise TimedOut(name) from None
        except (anyio.ClosedResourceError, anyio.BrokenResourceError, anyio.EndOfStream, OSError):
            self._lost(client)
            raise Gone(name) from None

    async def list_tools(self) -> list[dict[str, Any]]:
        return await self._list("tools")

    async def list_others(self) -> dict[str, list[dict[str, Any]]]:
        """The upstream's resources, resource templates and prompts ([] for what it does not
        serve: a server without the capability answers the list with an error)."""
        out: dict[str, list[dict[str, Any]]] = {}
        for what in ("resources", "resource_templates", "prompts"):
            try:
                out[what] = await self._list(what)
            except MCPError:
                out[what] = []
        return out

    async def _list(self, what: str) -> list[dict[str, Any]]:
        """Every item of a list method (tools, resources, ...), across its pages, as wire dicts."""
        client = await self._wait_ready(30.0)
        items: list[dict[str, Any]] = []
        cursor: str | None = None
        while True:
            page = await getattr(client, f"list_{what}")(cursor=cursor, cache_mode="bypass")
            items += [
                t.model_dump(by_alias=True, mode="json", exclude_none=True)
                for t in getattr(page, what)
            ]
            cursor = page.next_cursor
            if not cursor:
                return items

    async def _wait_ready(self, timeout_s: float) -> Client:
        try:
            await asyncio.wait_for(self._ready.wait(), timeout=timeout_s)
        except TimeoutError:
            raise Gone("start") from None
        if self._client is None:
            raise Gone("start")
        return self._client

    def _lost(self, client: Client) -> None:
        if self._client is client:
            self._client = None
            self._ready.clear()
            self._gone.set()

    async def _on_message(self, message: Any) -> None:
        if isinstance(message, Exception):
            self.log_lines += 1  # a line on stdout the transport could not read: a log, skipped

    async def _supervise(self) -> None:
        delay = RESTART_DELAY_S
        while not self._stopping:
            self._gone = asyncio.Event()
            try:
                async with connect(
                    self.target,
                    errlog=self.errlog,
                    read_timeout_seconds=None,
                    message_handler=self._on_message,
                ) as client:
                    # The wrapper passes the upstream's result on whole, in a result of its own
                    # schema: the client's check of it against the upstream's outputSchema would
                    # turn a result that strays from it into a failure, and cost a listing.
                    client.session.validate_tool_result = _accept_result  # type: ignore[method-assign]
                    self._client = client
                    self._ready.set()
                    delay = RESTART_DELAY_S
                    await self._gone.wait()
            except asyncio.CancelledError:
                raise
            except BaseException as error:  # a failed start or a broken transport: restart
                log.warning("the wrapped server stopped: %s", type(error).__name__)
            finally:
                self._client = None
                self._ready.clear()
            if self._stopping:
                return
            self.restarts += 1
            await asyncio.sleep(delay)
            delay = min(delay * 2, MAX_RESTART_DELAY_S)


async def _accept_result(name: str, result: CallToolResult) -> None:
    return None
