"""Mount a contract on the SDK's low-level Server: lists, calls, discover, cache hints.

The low-level Server validates nothing, which is what we want: the contract owns validation. A success
of tools/call is a CallToolResult with structuredContent and a JSON text mirror; a failure is a
result with isError: true carrying the envelope (`call_result`), never a JSON-RPC error, so a
handler exception never becomes -32603.
"""

from __future__ import annotations

import logging
import warnings
from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager
from typing import Any

import mcp_types as types
from mcp.server.caching import CacheHint
from mcp.server.context import ServerRequestContext
from mcp.server.lowlevel import Server
from mcp.server.lowlevel.server import NotificationOptions
from mcp.server.models import InitializationOptions
from mcp.shared.exceptions import MCPDeprecationWarning, MCPError
from mcp_types import INVALID_PARAMS
from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS, MODERN_PROTOCOL_VERSIONS

from drivable.contract import NAMESPACE, Contract, Principal, ToolSpec, boundary, catalog
from drivable.contract.client import InputRequired, MissingCapability
from drivable.contract.content import wire_messages
from drivable.contract.finish import request_id
from drivable.contract.resources import ResourceError
from drivable.contract.stages.handler import internal_error
from drivable.serve.asking import Asking
from drivable.serve.results import (
    call_result,
    principal_of,
    resource_failure,
)
from drivable.serve.subscriptions import Subscriptions
from drivable.serve.tasks import install as install_tasks

log = logging.getLogger("drivable.serve")

# Every revision this server answers, newest first: 2026-07-28 statelessly, the rest by handshake.
SUPPORTED_VERSIONS = [*MODERN_PROTOCOL_VERSIONS, *reversed(HANDSHAKE_PROTOCOL_VERSIONS)]

# The catalog changes only when the server is redeployed; clients may keep it a minute.
LIST_TTL_MS = 60_000


def tool_model(contract: Contract, name: str) -> types.Tool:
    return types.Tool.model_validate(contract.tool_wire(contract.tools[name]))


def build_server(contract: Contract, *, asking: Asking | None = None) -> Server[Any]:
    """A low-level Server that serves `contract` in both protocol eras."""
    asking = asking or Asking()
    subscriptions = Subscriptions(contract.changes)
    declared: list[Contract] = []

    def entry() -> Contract:
        """The entry tools of a large catalog (`drivable.contract.catalog`), declared once."""
        if not declared:
            declared.append(catalog.entry_contract(contract))
        return declared[0]

    async def list_tools(
        ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        single_page(contract, params, "tools/list")
        if catalog.entered(contract) and not catalog.asks_full(params.meta if params else None):
            # a large catalog is entered through three tools
            entered = [types.Tool.model_validate(w) for w in catalog.listed(entry())]
            return types.ListToolsResult(tools=entered)
        tools = [tool_model(contract, spec.name) for spec in contract.listed_tools()]
        return types.ListToolsResult(tools=tools)

    async def call_tool(
        ctx: ServerRequestContext[Any], params: types.CallToolRequestParams
    ) -> types.CallToolResult | types.InputRequiredResult:
        # The session reports against the caller's progressToken in every era and transport
        # (notifications/progress over JSON-RPC and the 2026 HTTP stream, the caller's callback on
        # the in-process dispatcher) and does nothing when the caller asked for no progress.
        progress = ctx.session.report_progress if ctx.session is not None else None
        principal = principal_of(ctx)
        who = principal.id if principal is not None else LOCAL_USER
        ask = asking.client_side(ctx, "tools/call", params.name, params.arguments, params, who)
        answers, name, arguments = contract, params.name, params.arguments
        if catalog.entered(contract):
            answers, name, arguments = catalog.route(contract, entry(), name, arguments)
        try:
            outcome = await answers.call(
                name,
                arguments,
                principal=principal,
                progress=progress,
                client=ask,
            )
        except InputRequired as pending:
            return asking.input_required(pending, "tools/call", params.name, params.arguments, who)
        except MissingCapability as lacking:
            raise asking.missing_capability(lacking) from None
        except Exception:
            # The pipeline answers every failure itself; this is the last line, so that even a
            # fault of its own is an envelope, never a bare -32603 or a logged value.
            boundary.log_failure(log, "tools/call failed outside the pipeline")
            rid = request_id()
            outcome = contract.finish(internal_error(boundary.safe_text(params.name), rid), rid)
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
        refused = guard_values(contract, "resources/read", {"uri": uri})
        if refused is not None:
            raise refused
        try:
            body = await contract.read_resource(uri)
        except ResourceError as failure:
            raise resource_failure(
                contract, failure, uri, rpc=not_found_code(failure, ctx.protocol_version)
            ) from None
        except Exception:
            boundary.log_failure(log, "resource read failed")
            raise unexpected(contract, "Reading the resource", uri) from None
        contents = [body.contents(uri), *(more.contents(uri) for more in body.more)]
        return types.ReadResourceResult.model_validate({"contents": contents})

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
    ) -> types.GetPromptResult | types.InputRequiredResult:
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
        refused = guard_values(contract, f"prompt {spec.name}", arguments)
        if refused is not None:
            raise refused
        missing = [a.name for a in spec.arguments if a.required and not arguments.get(a.name)]
        if missing:
            # Rendering with an empty required argument would hand the model a broken prompt.
            raise resource_failure(
                contract,
                ResourceError(
                    "invalid_arguments",
                    f"The prompt {spec.name!r} needs the argument"
                    f"{'s' if len(missing) > 1 else ''} {', '.join(missing)}.",
                    hint=f"Call prompts/get for {spec.name!r} again with "
                    + ", ".join(f"{m} set" for m in missing)
                    + " (prompts/list describes each argument).",
                ),
                None,
                rpc=INVALID_PARAMS,
            )
        known = {a.name for a in spec.arguments}
        given: dict[str, Any] = {k: v for k, v in arguments.items() if k in known}
        who = caller_id(ctx)
        if spec.asks:
            given["client"] = asking.client_side(
                ctx, "prompts/get", spec.name, arguments, params, who
            )
        try:
            rendered = await spec.renderer(**given, **contract.inject(spec.renderer))
        except InputRequired as pending:
            return asking.input_required(pending, "prompts/get", spec.name, arguments, who)
        except MissingCapability as lacking:
            raise asking.missing_capability(lacking) from None
        except ResourceError as failure:  # a renderer's own refusal, with its registered code
            raise resource_failure(contract, failure, None) from None
        except Exception:
            boundary.log_failure(log, "prompt %s failed to render", spec.name)
            raise unexpected(contract, "Rendering the prompt") from None
        return types.GetPromptResult.model_validate(
            {"description": spec.description, "messages": wire_messages(rendered)}
        )

    async def set_logging_level(
        ctx: ServerRequestContext[Any], params: types.SetLevelRequestParams
    ) -> types.EmptyResult:
        asking.levels.set(ctx.session, params.level)
        return types.EmptyResult()

    async def complete(
        ctx: ServerRequestContext[Any], params: types.CompleteRequestParams
    ) -> types.CompleteResult:
        ref = params.ref
        values: list[str] = []
        template_uri = getattr(ref, "uri", None)
        prompt_name = getattr(ref, "name", None)
        asked = {"name": params.argument.name, "value": params.argument.value}
        refused = guard_values(contract, "completion/complete", {"argument": asked})
        if refused is not None:
            raise refused
        if template_uri is not None:
            spec = contract.templates.get(str(template_uri))
            if spec is not None and spec.complete is not None:
                try:
                    values = await spec.complete(
                        params.argument.name,
                        params.argument.value,
                        **contract.inject(spec.complete),
                    )
                except Exception:
                    boundary.log_failure(log, "completion failed")
                    raise unexpected(contract, "Completing the value") from None
        elif prompt_name is not None and prompt_name in contract.prompts:
            for argument in contract.prompts[prompt_name].arguments:
                if argument.name == params.argument.name:
                    values = argument.complete(params.argument.value)
        return types.CompleteResult(
            completion=types.Completion(
                values=values[:100], total=len(values), has_more=len(values) > 100
            )
        )

    hints = {
        "tools/list": CacheHint(ttl_ms=LIST_TTL_MS, scope="public"),
        "server/discover": CacheHint(ttl_ms=LIST_TTL_MS, scope="public"),
    }
    handlers: dict[str, Any] = {
        "on_list_tools": list_tools,
        "on_call_tool": call_tool,
        # Logging is deprecated at 2026-07-28: served to the handshake eras only (see discover).
        "on_set_logging_level": set_logging_level,
        "on_subscriptions_listen": subscriptions.listen,
    }
    if contract.resources or contract.templates or contract.read_other is not None:
        handlers.update(
            on_list_resources=list_resources,
            on_list_resource_templates=list_templates,
            on_read_resource=read_resource,
            on_subscribe_resource=subscriptions.subscribe,
            on_unsubscribe_resource=subscriptions.unsubscribe,
        )
        hints["resources/list"] = CacheHint(ttl_ms=LIST_TTL_MS, scope="public")
        hints["resources/templates/list"] = CacheHint(ttl_ms=LIST_TTL_MS, scope="public")
        hints["resources/read"] = CacheHint(ttl_ms=LIST_TTL_MS, scope="public")
    if contract.prompts:
        handlers.update(on_list_prompts=list_prompts, on_get_prompt=get_prompt)
        hints["prompts/list"] = CacheHint(ttl_ms=LIST_TTL_MS, scope="public")
    if any(t.complete is not None for t in contract.templates.values()) or any(
        a.choices for p in contract.prompts.values() for a in p.arguments
    ):
        handlers["on_completion"] = complete
    contract.check()
    listed: dict[str, tuple[ToolSpec, Mapping[str, Any]]] = {}

    def input_schema(name: str) -> Mapping[str, Any] | None:
        # The listed inputSchema, for the SDK's Mcp-Param header check of a 2026-07-28 tools/call;
        # without it the SDK runs the whole tools/list handler on every call (decision 0005).
        if catalog.entered(contract) and name in catalog.ENTRY:
            return catalog.input_schema(entry(), name)
        spec = contract.tools.get(name)
        if spec is None:
            return None
        known = listed.get(name)
        if known is None or known[0] is not spec:  # a tool redeclared since: its schema anew
            known = listed[name] = (spec, contract.tool_wire(spec)["inputSchema"])
        return known[1]

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", MCPDeprecationWarning)  # logging, for the 2025 eras
        server: Server[Any] = MountedServer(
            contract.name,
            version=contract.version,
            title=contract.title,
            instructions=contract.summary.instructions(),
            cache_hints=hints,  # type: ignore[arg-type]
            get_tool_input_schema=input_schema,
            # every session holds the contract's lifespan open; sessions share one opening
            lifespan=lambda _server: contract.started(),
            **handlers,
        )

    async def discover(
        ctx: ServerRequestContext[Any], params: types.RequestParams | None
    ) -> types.DiscoverResult:
        meta: dict[str, Any] = {
            f"{NAMESPACE}/summary": contract.summary_dict(),
            f"{NAMESPACE}/errors": contract.error_catalog(),
            f"{NAMESPACE}/tools": contract.tool_detail(),
        }
        if contract.fingerprint:
            meta[f"{NAMESPACE}/fingerprint"] = contract.fingerprint
        if catalog.entered(contract):
            meta[catalog.FULL_KEY] = catalog.discover_meta(contract)
        capabilities = server.get_capabilities(protocol_version=ctx.protocol_version)
        capabilities.logging = None  # deprecated at 2026-07-28: not advertised there
        return types.DiscoverResult(
            supported_versions=SUPPORTED_VERSIONS,
            capabilities=capabilities,
            instructions=contract.summary.instructions(),
            _meta=meta,
        )

    server.add_request_handler("server/discover", types.RequestParams, discover)

    async def remember(ctx: ServerRequestContext[Any], call_next: Any) -> Any:
        subscriptions.saw(ctx)  # a handshake-era connection hears of list changes
        return await call_next(ctx)

    server.middleware.append(remember)
    install_tasks(server, contract, asking=asking)  # long-running tools (docs/tasks.md)
    return server


class MountedServer(Server[Any]):
    """The low-level Server, announcing list changes to handshake-era clients.

    `contract.changes` delivers them in every era, so the initialize result says so (the SDK
    otherwise leaves listChanged false unless told at each initialize).
    """

    def create_initialization_options(
        self,
        notification_options: NotificationOptions | None = None,
        experimental_capabilities: dict[str, dict[str, Any]] | None = None,
        extensions: dict[str, dict[str, Any]] | None = None,
    ) -> InitializationOptions:
        every = NotificationOptions(
            prompts_changed=True, resources_changed=True, tools_changed=True
        )
        return super().create_initialization_options(
            notification_options or every, experimental_capabilities, extensions
        )


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


# Resource not found before 2026-07-28; from then on it is Invalid params (SEP-2164).
RESOURCE_NOT_FOUND_2025 = -32002


def not_found_code(failure: ResourceError, protocol_version: str | None) -> int | None:
    """The JSON-RPC code for a resource failure in the caller's protocol era (None: the default)."""
    if failure.code != "not_found":
        return None
    if protocol_version is not None and protocol_version < "2026-07-28":
        return RESOURCE_NOT_FOUND_2025
    return INVALID_PARAMS


def caller_id(ctx: ServerRequestContext[Any]) -> str:
    """Who a request state is issued to (the local user when no auth layer says otherwise)."""
    found = principal_of(ctx)
    return found.id if found is not None else LOCAL_USER


LOCAL_USER = Principal().id


def guard_values(contract: Contract, subject: str, values: Mapping[str, Any]) -> MCPError | None:
    """The boundary's refusal of a non-tool request's values (text a store cannot keep, nesting,
    size), as the JSON-RPC error -32602 with the envelope; None when they pass."""
    envelope = boundary.refusal(subject, values, contract.max_inline_bytes)
    if envelope is None:
        return None
    issue = envelope.issues[0] if envelope.issues else None
    hint = (
        f"Fix {issue.path} ({issue.message.rstrip('.')}) and send {subject} again."
        if issue is not None
        else envelope.hint
    )
    failure = ResourceError(envelope.code, envelope.message, hint=hint)
    refusal = resource_failure(contract, failure, None, rpc=INVALID_PARAMS)
    if isinstance(refusal.error.data, dict):
        refusal.error.data["issues"] = [i.to_dict() for i in envelope.issues]
    return refusal


def unexpected(contract: Contract, what: str, uri: str | None = None) -> MCPError:
    """An unexpected failure outside tools/call: -32603 with the envelope, nothing of the cause."""
    failure = ResourceError(
        "internal_error",
        f"{what} failed unexpectedly on the server.",
        hint="Send the request once more; if it fails again, tell the user.",
    )
    return resource_failure(contract, failure, uri)


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
