"""ASGI layers in front of the SDK's streamable HTTP transport: what it refuses, and how.

- `TransportChecks`: a request the transport cannot serve for its path, HTTP method, Accept,
  Content-Type or MCP-Protocol-Version header is refused before the SDK sees it, the hint naming
  that part of the request (`drivable.contract.codes.TRANSPORT_REFUSALS`);
- `StructuredRefusals`: a request id the SDK would misread as a notification is refused (-32600),
  and every error the transport writes itself (plain text, bare codes, pydantic's text) leaves
  with the envelope in `error.data`, its hint chosen by what it is about (`drivable.serve.refusals`);
- `StreamBounds`: a session's GET event streams are bounded in number (in all, per caller) and
  in silence.
"""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any

import anyio
from mcp.server.streamable_http import check_accept_headers
from starlette.requests import Request
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from drivable.contract import Principal
from drivable.serve import refusals
from drivable.serve.auth import send_envelope
from drivable.serve.results import PRINCIPAL_KEY


class TransportChecks:
    """Refuse what the endpoint cannot serve before the SDK reads it, naming what was wrong.

    In order: the path (404), the HTTP method (405, with `Allow`), the Accept header (406, the
    SDK's own rule), the Content-Type of a POST (415), the MCP-Protocol-Version header (400,
    -32022, `data.supported` and `data.requested`, the request's id echoed). What passes reaches the SDK exactly as sent.
    """

    def __init__(self, app: ASGIApp, *, path: str, sessions: bool) -> None:
        self.app = app
        self.path = path.rstrip("/") or "/"
        self.sessions = sessions
        self.methods = ("POST", "GET", "DELETE") if sessions else ("POST",)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        found = self.refusal(scope)
        if found is None:
            await self.app(scope, receive, send)
            return
        status, message = found
        if message["error"]["code"] == refusals.UNSUPPORTED_PROTOCOL_VERSION:
            message["id"] = await _request_id(receive)
        headers = {"Allow": ", ".join(self.methods)} if status == 405 else None
        await send_envelope(send, status, json.dumps(message).encode(), headers=headers)

    def refusal(self, scope: Scope) -> tuple[int, dict[str, Any]] | None:
        def refuse(
            status: int, name: str, message: str, rpc: int = refusals.INVALID_REQUEST, **extra: Any
        ) -> tuple[int, dict[str, Any]]:
            hint = refusals.transport_hint(name, path=self.path, sessions=self.sessions)
            return status, refusals.transport_refusal(
                name, message, hint, rpc_code=rpc, extra=extra
            )

        if (scope.get("path", "").rstrip("/") or "/") != self.path:
            return refuse(404, "unknown_path", "Nothing is served at this path.")
        method = scope.get("method", "")
        if method not in self.methods:
            return refuse(
                405, "method_not_allowed", "The endpoint does not answer this HTTP method."
            )
        if method == "DELETE":
            return None
        request = Request(scope)
        has_json, has_sse = check_accept_headers(request)
        if not has_sse or (method == "POST" and not has_json):
            needed = "text/event-stream" if has_json or method == "GET" else "application/json"
            return refuse(406, "not_acceptable", f"The Accept header does not accept {needed}.")
        if method != "POST":
            return None
        kind = request.headers.get("content-type", "").split(";")[0].strip().lower()
        if kind != "application/json":
            return refuse(
                415, "unsupported_media_type", "The body is not declared as application/json."
            )
        version = request.headers.get("mcp-protocol-version")
        if version is not None and version not in refusals.SUPPORTED_VERSIONS:
            return refuse(
                400,
                "unsupported_protocol_version",
                "The MCP-Protocol-Version header names a version this server does not speak.",
                refusals.UNSUPPORTED_PROTOCOL_VERSION,
                supported=list(refusals.SUPPORTED_VERSIONS),
                requested=version,
            )
        return None


async def _request_id(receive: Receive, limit: int = 1 << 20) -> Any:
    """The id of the one JSON-RPC request in a body (None when it has none, bad or too long).

    A refusal that is an answer to a request carries its id (JSON-RPC 2.0, SEP-2575's check).
    """
    body = b""
    while True:
        message = await receive()
        if message["type"] != "http.request":
            return None
        body += message.get("body", b"")
        if len(body) > limit:
            return None
        if not message.get("more_body", False):
            break
    decoded, failed = refusals.decode(body)
    if failed or not isinstance(decoded, dict) or refusals.shape_refusal(decoded) is not None:
        return None
    return decoded.get("id")


class StructuredRefusals:
    """Every answer the SDK's transport gives on its own becomes a structured refusal.

    Before: a request whose id the SDK would misread as a notification (an object, an array, a
    fraction, null) is refused here with -32600, not answered 202 and dropped. After: an error
    the transport wrote (plain text, a bare JSON-RPC code, pydantic's text quoting the input) is
    rewritten with the envelope in `error.data` (`drivable.serve.refusals`).
    """

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        if scope.get("method") == "POST":
            first = await receive()
            body = first.get("body", b"") if first["type"] == "http.request" else b""
            if first["type"] == "http.request" and not first.get("more_body", False):
                decoded, failed = refusals.decode(body)
                refusal = None if failed else refusals.shape_refusal(decoded)
                if refusal is not None:
                    refusal = replace(refusal, hint=refusals.transport_hint("not_one_request"))
                    payload = json.dumps(refusals.error_message(refusal)).encode()
                    await send_envelope(send, 400, payload)
                    return
            handed = [first]

            async def replayed() -> Message:
                return handed.pop() if handed else await receive()

            await self.app(scope, replayed, _RewritingSend(send))
            return
        await self.app(scope, receive, _RewritingSend(send))


class _RewritingSend:
    """Rewrites the SDK's own error answers in flight (JSON bodies, SSE events, plain text)."""

    def __init__(self, send: Send) -> None:
        self.send = send
        self.start: Message | None = None
        self.kind = ""
        self.buffer = b""

    async def __call__(self, message: Message) -> None:
        if message["type"] == "http.response.start":
            headers = {k.lower(): v for k, v in message.get("headers", ())}
            self.kind = headers.get(b"content-type", b"").decode("latin-1")
            status = int(message["status"])
            if self.kind.startswith("text/event-stream"):
                await self.send(message)
                self.kind = "sse"
                return
            if status >= 400 or self.kind.startswith("application/json"):
                self.start = message  # held until the body is whole
                return
            self.kind = ""
            await self.send(message)
            return
        if message["type"] != "http.response.body":
            await self.send(message)
            return
        if self.kind == "sse":
            chunk = message.get("body", b"")
            if b'"error"' in chunk:
                message = {**message, "body": _rewrite_events(chunk)}
            await self.send(message)
            return
        if self.start is None:
            await self.send(message)
            return
        self.buffer += message.get("body", b"")
        if message.get("more_body", False):
            return
        start, body = self.start, self.buffer
        self.start, self.buffer = None, b""
        status = int(start["status"])
        rewritten = _rewrite_json(body, status, self.kind.startswith("application/json"))
        if rewritten is None:
            await self.send(start)
            await self.send({"type": "http.response.body", "body": body})
            return
        kept = [
            (k, v)
            for k, v in start.get("headers", ())
            if k.lower() not in (b"content-length", b"content-type")
        ]
        kept += [
            (b"content-type", b"application/json"),
            (b"content-length", str(len(rewritten)).encode("ascii")),
        ]
        await self.send({**start, "headers": kept})
        await self.send({"type": "http.response.body", "body": rewritten})


def _rewrite_json(body: bytes, status: int, is_json: bool) -> bytes | None:
    """The structured form of an error body, or None to send the body as it is."""
    if not is_json:
        if status < 400:
            return None
        return json.dumps(refusals.status_refusal(status, body)).encode()
    if status < 400 and b'"result"' in body[:256]:
        return None  # a result (the common case): not parsed again
    try:
        message = json.loads(body)
    except ValueError:
        return json.dumps(refusals.status_refusal(status, body)).encode() if status >= 400 else None
    if not isinstance(message, dict) or not isinstance(message.get("error"), dict):
        return None
    fixed = refusals.structured_error(message["error"], status if status >= 400 else None)
    if fixed == message["error"]:
        return None
    return json.dumps({**message, "error": fixed}).encode()


def _rewrite_events(chunk: bytes) -> bytes:
    lines = chunk.split(b"\n")
    for i, line in enumerate(lines):
        if not line.startswith(b"data:"):
            continue
        end = b"\r" if line.endswith(b"\r") else b""
        rewritten = _rewrite_json(line[5:].strip(), 200, True)
        if rewritten is not None:
            lines[i] = b"data: " + rewritten + end
    return b"\n".join(lines)


# Event streams (GET) a server holds at once, in all and per caller, and how long one may stay
# silent before it is closed (a session's client reconnects; a stalled one lets go).
MAX_STREAMS = 64
MAX_STREAMS_PER_CLIENT = 8
STREAM_IDLE_S = 300.0


class StreamBounds:
    """Bound a session's long-lived GET event streams: at most `max_total` at once and
    `max_per_client` per caller (the principal, else the client address), each closed after
    `idle_s` without an event. (A stateless server has none: `TransportChecks` refuses GET.)"""

    def __init__(
        self,
        app: ASGIApp,
        *,
        max_total: int = MAX_STREAMS,
        max_per_client: int = MAX_STREAMS_PER_CLIENT,
        idle_s: float = STREAM_IDLE_S,
    ) -> None:
        self.app = app
        self.max_total = max_total
        self.max_per_client = max_per_client
        self.idle_s = idle_s
        self.open: dict[str, int] = {}

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope.get("method") != "GET":
            await self.app(scope, receive, send)
            return
        key = _caller(scope)
        if (
            sum(self.open.values()) >= self.max_total
            or self.open.get(key, 0) >= self.max_per_client
        ):
            await _refuse_stream(
                send,
                429,
                "Too many event streams are open on this server right now.",
                "Close an event stream you hold, or retry after retry_after_ms.",
            )
            return
        self.open[key] = self.open.get(key, 0) + 1
        try:
            await self._bounded(scope, receive, send)
        finally:
            self.open[key] -= 1
            if not self.open[key]:
                del self.open[key]

    async def _bounded(self, scope: Scope, receive: Receive, send: Send) -> None:
        last = [anyio.current_time()]

        async def sending(message: Message) -> None:
            last[0] = anyio.current_time()
            await send(message)

        async with anyio.create_task_group() as group:

            async def watch() -> None:
                while True:
                    await anyio.sleep(max(0.05, last[0] + self.idle_s - anyio.current_time()))
                    if anyio.current_time() - last[0] >= self.idle_s:
                        group.cancel_scope.cancel()
                        return

            group.start_soon(watch)
            await self.app(scope, receive, sending)
            group.cancel_scope.cancel()


def _caller(scope: Scope) -> str:
    principal = scope.get(PRINCIPAL_KEY)
    if isinstance(principal, Principal) and principal.id != "anonymous":
        return f"principal:{principal.id}"
    client = scope.get("client") or ("unknown", 0)
    return f"address:{client[0]}"


async def _refuse_stream(send: Send, status: int, message: str, hint: str) -> None:
    body = refusals.transport_refusal("too_many_streams", message, hint, retry_after_ms=5000)
    await send_envelope(send, status, json.dumps(body).encode())
