"""Mount a contract on the SDK's low-level Server: lists, calls, discover, cache hints.

The low-level Server validates nothing, which is what we want: the contract owns validation. Every
result of tools/call is a CallToolResult with structuredContent and a JSON text mirror; failures
are results with isError: true, never JSON-RPC errors, so a handler exception never becomes -32603.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import mcp_types as types
from mcp.server.caching import CacheHint
from mcp.server.context import ServerRequestContext
from mcp.server.lowlevel import Server

from drivable.contract import NAMESPACE, Contract, Principal

# The catalog changes only when the server is redeployed; clients may keep it a minute.
LIST_TTL_MS = 60_000

PRINCIPAL_KEY = "drivable.principal"


def tool_model(contract: Contract, name: str) -> types.Tool:
    return types.Tool.model_validate(contract.tool_wire(contract.tools[name]))


def build_server(contract: Contract) -> Server[Any]:
    """A low-level Server that serves `contract` in both protocol eras."""

    async def list_tools(
        ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        tools = [tool_model(contract, spec.name) for spec in contract.listed_tools()]
        return types.ListToolsResult(tools=tools)

    async def call_tool(
        ctx: ServerRequestContext[Any], params: types.CallToolRequestParams
    ) -> types.CallToolResult:
        progress = None
        raw_token = (params.meta or {}).get("progressToken") if params.meta else None
        token = raw_token if isinstance(raw_token, str | int) else None
        if token is not None and ctx.session is not None:
            session = ctx.session

            async def progress(done: float, total: float | None, message: str | None) -> None:
                await session.send_progress_notification(token, done, total=total, message=message)

        outcome = await contract.call(
            params.name,
            params.arguments,
            principal=principal_of(ctx),
            progress=progress,
        )
        return types.CallToolResult(
            content=[types.TextContent(type="text", text=outcome.text())],
            structured_content=outcome.structured,
            is_error=outcome.is_error,
        )

    @asynccontextmanager
    async def lifespan(server: Server[Any]) -> AsyncIterator[dict[str, Any]]:
        yield {}

    server: Server[Any] = Server(
        contract.name,
        version=contract.version,
        title=contract.title,
        instructions=contract.summary.text,
        cache_hints={
            "tools/list": CacheHint(ttl_ms=LIST_TTL_MS, scope="public"),
            "server/discover": CacheHint(ttl_ms=LIST_TTL_MS, scope="public"),
        },
        on_list_tools=list_tools,
        on_call_tool=call_tool,
    )

    async def discover(
        ctx: ServerRequestContext[Any], params: types.RequestParams | None
    ) -> types.DiscoverResult:
        meta: dict[str, Any] = {f"{NAMESPACE}/summary": contract.summary_dict()}
        if contract.fingerprint:
            meta[f"{NAMESPACE}/fingerprint"] = contract.fingerprint
        return types.DiscoverResult(
            supported_versions=["2026-07-28"],
            capabilities=server.get_capabilities(protocol_version=ctx.protocol_version),
            instructions=contract.summary.text,
            _meta=meta,
        )

    server.add_request_handler("server/discover", types.RequestParams, discover)
    return server


def principal_of(ctx: ServerRequestContext[Any]) -> Principal | None:
    """The caller, as the HTTP auth layer recorded it; stdio callers are the local user."""
    request = getattr(ctx, "request", None)
    scope = getattr(request, "scope", None)
    if isinstance(scope, dict):
        found = scope.get(PRINCIPAL_KEY)
        if isinstance(found, Principal):
            return found
    return None


async def compute_fingerprint(contract: Contract) -> str:
    """Collect the surface with a real client in process and fingerprint it as a snapshot does."""
    from drivable.surface.fingerprint import compute
    from drivable.surface.snapshot import canonical
    from drivable.target import Target, collect_surface, connect

    async with connect(Target(server=build_server(contract)), mode="auto") as client:
        surface = await collect_surface(client)
    value = compute(canonical(surface)).value
    contract.set_fingerprint(value)
    return value


def dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))
