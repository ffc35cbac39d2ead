"""Mount a contract on the SDK's low-level Server: lists, calls, discover, cache hints.

The low-level Server validates nothing, which is what we want: the contract owns validation. A success
of tools/call is a CallToolResult with structuredContent and a JSON text mirror; a failure is a
result with isError: true carrying the envelope (`call_result`), never a JSON-RPC error, so a
handler exception never becomes -32603.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import mcp_types as types
from mcp.server.caching import CacheHint
from mcp.server.context import ServerRequestContext
from mcp.server.lowlevel import Server
from mcp.shared.exceptions import MCPError
from mcp_types import INTERNAL_ERROR, INVALID_PARAMS

from drivable.contract import NAMESPACE, Contract, Outcome, Principal
from drivable.contract.envelope import ENVELOPE_META_KEY, Envelope
from drivable.contract.finish import finish, request_id
from drivable.contract.resources import ResourceError

log = logging.getLogger("drivable.serve")

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
        single_page(contract, params, "tools/list")
        tools = [tool_model(contract, spec.name) for spec in contract.listed_tools()]
        return types.ListToolsResult(tools=tools)

    async def call_tool(
        ctx: ServerRequestContext[Any], params: types.CallToolRequestParams
    ) -> types.CallToolResult:
        # The session reports against the caller's progressToken in every era and transport
        # (notifications/progress over JSON-RPC and the 2026 HTTP stream, the caller's callback on
        # the in-process dispatcher) and does nothing when the caller asked for no progress.
        progress = ctx.session.report_progress if ctx.session is not None else None
        outcome = await contract.call(
            params.name,
            params.arguments,
            principal=principal_of(ctx),
            progress=progress,
        )
        return call_result(outcome)

    @asynccontextmanager
    async def lifespan(server: Server[Any]) -> AsyncIterator[dict[str, Any]]:
        yield {}

    async def list_resources(
        ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
    ) -> types.ListResourcesResult:
        single_page(contract, params, "resources/list")
        specs = [contract.resources[uri] for uri in sorted(contract.resources)]
        return types.ListResourcesResult(
            resources=[types.Resource.model_validate(s.wire()) for s in specs]
        )

    async def list_templates(
        ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
    ) -> types.ListResourceTemplatesResult:
        single_page(contract, params, "resources/templates/list")
        specs = [contract.templates[t] for t in sorted(contract.templates)]
        return types.ListResourceTemplatesResult(
            resource_templates=[types.ResourceTemplate.model_validate(s.wire()) for s in specs]
        )

    async def read_resource(
        ctx: ServerRequestContext[Any], params: types.ReadResourceRequestParams
    ) -> types.ReadResourceResult:
        uri = str(params.uri)
        try:
            body = await contract.read_resource(uri)
        except ResourceError as failure:
            raise resource_failure(contract, failure, uri) from None
        except Exception:
            log.exception("resource read failed")
            raise resource_failure(
                contract,
                ResourceError(
                    "internal_error",
                    "Reading the resource failed unexpectedly on the server.",
                    hint="Read it once more; if it fails again, tell the user.",
                ),
                uri,
            ) from None
        content: dict[str, Any] = {"uri": uri, "mimeType": body.mime_type, "text": body.text}
        if body.meta:
            content["_meta"] = dict(body.meta)
        return types.ReadResourceResult(
            contents=[types.TextResourceContents.model_validate(content)]
        )

    async def list_prompts(
        ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
    ) -> types.ListPromptsResult:
        single_page(contract, params, "prompts/list")
        specs = [contract.prompts[n] for n in sorted(contract.prompts)]
        return types.ListPromptsResult(
            prompts=[types.Prompt.model_validate(s.wire(NAMESPACE)) for s in specs]
        )

    async def get_prompt(
        ctx: ServerRequestContext[Any], params: types.GetPromptRequestParams
    ) -> types.GetPromptResult:
        spec = contract.prompts.get(params.name)
        if spec is None:
            raise resource_failure(
                contract,
                ResourceError(
                    "not_found",
                    f"No prompt is named {params.name!r}.",
                    hint=f"Prompts: {', '.join(sorted(contract.prompts)) or 'none'}.",
                ),
                None,
            )
        arguments = dict(params.arguments or {})
        known = {a.name for a in spec.arguments}
        text = await spec.renderer(**{k: v for k, v in arguments.items() if k in known})
        return types.GetPromptResult(
            description=spec.description,
            messages=[
                types.PromptMessage(role="user", content=types.TextContent(type="text", text=text))
            ],
        )

    async def complete(
        ctx: ServerRequestContext[Any], params: types.CompleteRequestParams
    ) -> types.CompleteResult:
        ref = params.ref
        values: list[str] = []
        template_uri = getattr(ref, "uri", None)
        if template_uri is not None:
            spec = contract.templates.get(str(template_uri))
            if spec is not None and spec.complete is not None:
                values = await spec.complete(params.argument.name, params.argument.value)
        return types.CompleteResult(
            completion=types.Completion(
                values=values[:100], total=len(values), has_more=len(values) > 100
            )
        )

    hints = {
        "tools/list": CacheHint(ttl_ms=LIST_TTL_MS, scope="public"),
        "server/discover": CacheHint(ttl_ms=LIST_TTL_MS, scope="public"),
    }
    handlers: dict[str, Any] = {"on_list_tools": list_tools, "on_call_tool": call_tool}
    if contract.resources or contract.templates:
        handlers.update(
            on_list_resources=list_resources,
            on_list_resource_templates=list_templates,
            on_read_resource=read_resource,
        )
        hints["resources/list"] = CacheHint(ttl_ms=LIST_TTL_MS, scope="public")
        hints["resources/templates/list"] = CacheHint(ttl_ms=LIST_TTL_MS, scope="public")
        hints["resources/read"] = CacheHint(ttl_ms=LIST_TTL_MS, scope="public")
    if contract.prompts:
        handlers.update(on_list_prompts=list_prompts, on_get_prompt=get_prompt)
        hints["prompts/list"] = CacheHint(ttl_ms=LIST_TTL_MS, scope="public")
    if any(t.complete is not None for t in contract.templates.values()):
        handlers["on_completion"] = complete
    contract.check()
    server: Server[Any] = Server(
        contract.name,
        version=contract.version,
        title=contract.title,
        instructions=contract.summary.instructions(),
        cache_hints=hints,  # type: ignore[arg-type]
        **handlers,
    )

    async def discover(
        ctx: ServerRequestContext[Any], params: types.RequestParams | None
    ) -> types.DiscoverResult:
        meta: dict[str, Any] = {
            f"{NAMESPACE}/summary": contract.summary_dict(),
            f"{NAMESPACE}/errors": contract.error_catalog(),
        }
        if contract.fingerprint:
            meta[f"{NAMESPACE}/fingerprint"] = contract.fingerprint
        return types.DiscoverResult(
            supported_versions=["2026-07-28"],
            capabilities=server.get_capabilities(protocol_version=ctx.protocol_version),
            instructions=contract.summary.instructions(),
            _meta=meta,
        )

    server.add_request_handler("server/discover", types.RequestParams, discover)
    from drivable.tasks import install as install_tasks

    install_tasks(server, contract)  # long-running tools: the tasks extension (docs/tasks.md)
    return server


def call_result(outcome: Outcome) -> types.CallToolResult:
    """The wire form of one call's outcome.

    A success is structuredContent with its JSON text mirror. An error carries the envelope as
    the JSON text (what a model reads) and in `_meta` (what a machine reads), and no
    structuredContent: the TypeScript SDK 1.x validates structured content against the tool's
    outputSchema even when isError is true, and would throw instead of passing the envelope on.
    """
    text = [types.TextContent(type="text", text=outcome.text())]
    if not outcome.is_error:
        return types.CallToolResult(
            content=text, structured_content=outcome.structured, _meta=outcome.meta
        )
    meta = {**(outcome.meta or {}), ENVELOPE_META_KEY: outcome.structured}
    return types.CallToolResult(content=text, is_error=True, _meta=meta)


def single_page(
    contract: Contract, params: types.PaginatedRequestParams | None, method: str
) -> None:
    """The catalogs fit one page, so no cursor was ever issued: a sent one is invented."""
    if params is not None and params.cursor is not None:
        raise resource_failure(
            contract,
            ResourceError(
                "invalid_cursor",
                f"{method} has a single page and issued no cursor.",
                hint=f"Call {method} without a cursor.",
            ),
            None,
            rpc=INVALID_PARAMS,
        )


def resource_failure(
    contract: Contract, failure: ResourceError, uri: str | None, *, rpc: int | None = None
) -> MCPError:
    """A JSON-RPC error carrying the finished envelope, renamed for the JSON-RPC side ([6.rename])."""
    envelope = Envelope(failure.code, failure.message, hint=failure.hint, repair=failure.repair)
    finish(
        envelope, request_id=request_id(), codes=contract.codes, fingerprint=contract.fingerprint
    )
    body = envelope.to_dict()
    data: dict[str, Any] = {
        "machine_code": body.pop("code"),
        "human_message": body.pop("message"),
        **body,
    }
    if uri is not None:
        data["resource_uri"] = uri
    if rpc is None:
        rpc = (
            INVALID_PARAMS
            if data["machine_code"] in ("not_found", "invalid_arguments")
            else INTERNAL_ERROR
        )
    return MCPError(code=rpc, message=data["human_message"], data=data)


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
