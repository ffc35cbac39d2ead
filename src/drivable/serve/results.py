"""What serve answers with besides a handler's own words: a call's outcome as a CallToolResult,
a failure outside tools/call as a JSON-RPC error carrying the envelope, and who asked.

Apart from `mount` so that the tasks extension (`drivable.serve.tasks`), which `mount` installs,
answers in the same forms without importing `mount` back.
"""

from __future__ import annotations

from typing import Any

import mcp_types as types
from mcp.server.context import ServerRequestContext
from mcp.shared.exceptions import MCPError
from mcp_types import INTERNAL_ERROR, INVALID_PARAMS
from pydantic import TypeAdapter

from drivable.contract import Contract, Outcome, Principal
from drivable.contract.call import WIRE_ENCODER
from drivable.contract.content import wire_blocks
from drivable.contract.envelope import ENVELOPE_META_KEY, Envelope, rpc_data
from drivable.contract.finish import finish, request_id
from drivable.contract.resources import ResourceError

PRINCIPAL_KEY = "drivable.principal"


def call_result(outcome: Outcome) -> types.CallToolResult:
    """The wire form of one call's outcome.

    A success is structuredContent with its JSON text mirror; a prose tool's success is its
    text, with no structuredContent (and its notes or warnings, if any, as a JSON second block);
    a data tool's success that holds prose (`Output.prose_field`) is that text, the rest of the
    result as a JSON second block, and structuredContent whole.
    An error carries the envelope as
    the JSON text (what a model reads) and in `_meta` (what a machine reads), and no
    structuredContent: the TypeScript SDK 1.x validates structured content against the tool's
    outputSchema even when isError is true, and would throw instead of passing the envelope on.
    """
    text = [types.TextContent(type="text", text=outcome.text())]
    if outcome.prose is not None:  # prose: its text, then what the runtime says about the call
        after = outcome.after_prose()
        if after:
            text.append(types.TextContent(type="text", text=WIRE_ENCODER.encode(after)))
        return types.CallToolResult(
            content=[*text, *blocks(outcome.content)],
            # a data tool read as prose still answers its outputSchema (Output.prose_field)
            structured_content=None if outcome.prose_from is None else outcome.structured,
            _meta=outcome.meta,
        )
    if not outcome.is_error:
        return types.CallToolResult(
            content=[*text, *blocks(outcome.content)],  # attached blocks after the JSON text
            structured_content=outcome.structured,
            _meta=outcome.meta,
        )
    meta = {**(outcome.meta or {}), ENVELOPE_META_KEY: outcome.structured}
    return types.CallToolResult(content=text, is_error=True, _meta=meta)


def tool_result(outcome: Outcome) -> dict[str, Any]:
    """An outcome as the CallToolResult wire dict a blocking call answers (the same shaping)."""
    dumped: dict[str, Any] = call_result(outcome).model_dump(
        by_alias=True, mode="json", exclude_none=True
    )
    return dumped


def blocks(attached: tuple[Any, ...]) -> list[types.ContentBlock]:
    """Content blocks a handler attached, as SDK models."""
    return [_BLOCK.validate_python(block) for block in wire_blocks(list(attached))]


_BLOCK: TypeAdapter[types.ContentBlock] = TypeAdapter(types.ContentBlock)


def resource_failure(
    contract: Contract, failure: ResourceError, uri: str | None, *, rpc: int | None = None
) -> MCPError:
    """A JSON-RPC error carrying the finished envelope, renamed for the JSON-RPC side ([6.rename])."""
    envelope = Envelope(failure.code, failure.message, hint=failure.hint, repair=failure.repair)
    finish(
        envelope, request_id=request_id(), codes=contract.codes, fingerprint=contract.fingerprint
    )
    data = rpc_data(envelope)
    if uri is not None:
        data["uri"] = uri  # where the spec puts it (SEP-2164)
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
