"""The serve side of `drivable.contract.client`: one ClientSide per request, in its era.

2026-07-28: the ClientSide reads `inputResponses` and the verified `requestState`; an
`InputRequired` becomes an `input_required` result with the requests and a fresh signed state.
Handshake eras: the ClientSide sends `elicitation/create`, `sampling/createMessage` and
`roots/list` on the call's own stream and waits for the answers. In both, a missing client
capability is JSON-RPC -32021 with `requiredCapabilities`, and log messages go out at the level
the client asked for (`logging/setLevel` before 2026; the request's `logLevel` from then on,
which the SDK applies).
"""

from __future__ import annotations

import warnings
import weakref
from collections.abc import Mapping
from typing import Any

import mcp_types as types
from mcp.server.context import ServerRequestContext
from mcp.shared.exceptions import MCPDeprecationWarning, MCPError, NoBackChannelError
from mcp.shared.message import ServerMessageMetadata
from mcp_types import INVALID_PARAMS, MISSING_REQUIRED_CLIENT_CAPABILITY
from mcp_types.version import MODERN_PROTOCOL_VERSIONS
from pydantic import BaseModel

from drivable.contract.client import (
    LEVELS,
    ClientSide,
    InputRequired,
    LogLevel,
    MissingCapability,
)
from drivable.contract.envelope import Envelope, ToolError, rpc_data
from drivable.contract.rounds import RoundSeal, StateRejected

_REQUESTS: dict[str, tuple[type[BaseModel], type[BaseModel]]] = {
    "elicitation/create": (types.ElicitRequest, types.ElicitResult),
    "sampling/createMessage": (types.CreateMessageRequest, types.CreateMessageResult),
    "roots/list": (types.ListRootsRequest, types.ListRootsResult),
}


def modern(ctx: ServerRequestContext[Any]) -> bool:
    return ctx.protocol_version in MODERN_PROTOCOL_VERSIONS


def _dump(value: Any) -> Any:
    if isinstance(value, BaseModel):
        return value.model_dump(by_alias=True, mode="json", exclude_none=True)
    return value


def connection_of(session: Any) -> Any:
    """What outlives one request of a session: its connection.

    The SDK builds a ServerSession per request around the connection and exposes the connection
    only privately; the session itself is the fallback (one request's worth of memory).
    """
    return getattr(session, "_connection", session)


class LogLevels:
    """The level each handshake-era connection set with `logging/setLevel` (default: all)."""

    def __init__(self) -> None:
        self._levels: weakref.WeakKeyDictionary[Any, LogLevel] = weakref.WeakKeyDictionary()

    def set(self, session: Any, level: LogLevel) -> None:
        self._levels[connection_of(session)] = level

    def allows(self, session: Any, level: LogLevel) -> bool:
        floor = self._levels.get(connection_of(session), "debug")
        return LEVELS.index(level) >= LEVELS.index(floor)


class Asking:
    """Builds the ClientSide of each request and answers what a handler could not finish."""

    def __init__(self, seal: RoundSeal | None = None) -> None:
        self.seal = seal or RoundSeal()
        self.levels = LogLevels()

    def client_side(
        self,
        ctx: ServerRequestContext[Any],
        method: str,
        name: str,
        arguments: Mapping[str, Any] | None,
        params: types.InputResponseRequestParams,
        principal: str = "",
    ) -> ClientSide:
        session = ctx.session
        declared = session.client_capabilities if session is not None else None
        capabilities = (lambda: _dump(declared)) if declared is not None else None
        send_log = self._log_sender(ctx)
        if modern(ctx):
            carried = None
            if params.request_state is not None:
                try:
                    carried = self.seal.open(
                        params.request_state, method, name, arguments, principal
                    )
                except StateRejected:
                    raise self.rejected_state(method, name) from None
            responses = {k: _dump(v) for k, v in (params.input_responses or {}).items()}
            return ClientSide(capabilities, responses=responses, carried=carried, send_log=send_log)

        async def send_request(wire_method: str, wire_params: dict[str, Any]) -> Any:
            request_type, result_type = _REQUESTS[wire_method]
            request = request_type.model_validate({"method": wire_method, "params": wire_params})
            try:
                result = await session.send_request(
                    request,  # type: ignore[arg-type]
                    result_type,
                    metadata=ServerMessageMetadata(related_request_id=ctx.request_id),
                )
            except NoBackChannelError:
                # Stateless HTTP in a handshake era: no stream exists to carry the question.
                raise ToolError(
                    "feature_disabled",
                    f"This server cannot send {wire_method} to the client: it serves "
                    "handshake-era HTTP clients statelessly.",
                    hint="Tell the user this server must be started with sessions "
                    "(drivable serve --http --sessions) to ask questions, or use a client that "
                    "speaks 2026-07-28.",
                ) from None
            return _dump(result)

        return ClientSide(
            capabilities,
            send_request=send_request,
            send_log=send_log,
            release_stream=ctx.close_sse_stream,
        )

    def _log_sender(self, ctx: ServerRequestContext[Any]) -> Any:
        session = ctx.session
        if session is None:
            return None
        legacy = not modern(ctx)

        async def send_log(level: LogLevel, data: Any, logger: str | None) -> None:
            if legacy and not self.levels.allows(session, level):
                return
            with warnings.catch_warnings():
                # Deprecated at 2026-07-28, where the SDK sends only what the request asked for.
                warnings.simplefilter("ignore", MCPDeprecationWarning)
                await session.send_log_message(
                    level, data, logger=logger, related_request_id=ctx.request_id
                )

        return send_log

    def input_required(
        self,
        pending: InputRequired,
        method: str,
        name: str,
        arguments: Mapping[str, Any] | None,
        principal: str = "",
    ) -> types.InputRequiredResult:
        requests = {
            key: {"method": request.method, "params": request.params()}
            for key, request in pending.requests.items()
        }
        return types.InputRequiredResult.model_validate(
            {
                "resultType": "input_required",
                "inputRequests": requests,
                "requestState": self.seal.seal(method, name, arguments, pending.answers, principal),
            }
        )

    @staticmethod
    def missing_capability(missing: MissingCapability) -> MCPError:
        envelope = Envelope(
            "invalid_request",
            f"The server needs to send {missing.method}, which this client did not declare "
            f"({missing.capability}).",
            hint=f"Use a client that declares the {missing.capability} capability, or "
            "ask the user directly and call again with what they said.",
        )
        return MCPError(
            code=MISSING_REQUIRED_CLIENT_CAPABILITY,
            message=f"This request needs the client capability {missing.capability!r}.",
            data={"requiredCapabilities": {missing.capability: {}}, **rpc_data(envelope)},
        )

    @staticmethod
    def rejected_state(method: str, name: str) -> MCPError:
        envelope = Envelope(
            "invalid_arguments",
            "The requestState is altered, expired, or was issued for another request.",
            hint=f"Send {method} for {name!r} again without requestState and "
            "inputResponses, and answer the questions it returns.",
        )
        return MCPError(
            code=INVALID_PARAMS,
            message="The requestState was not issued by this server for this request.",
            data=rpc_data(envelope),
        )
