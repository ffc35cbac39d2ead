"""ASGI layers in front of the SDK's streamable HTTP transport: structured refusals, bounded streams.

- `StructuredRefusals`: a request id the SDK would misread as a notification is refused (-32600),
  and every error the transport writes itself (plain text, bare codes, pydantic's text) leaves
  with the envelope in `error.data` (`drivable.serve.refusals`);
- `StreamBounds`: GET event streams are bounded in number (in all, per caller) and in silence.
"""

from __future__ import annotations

import json

import anyio
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from drivable.contract import Principal
from drivable.serve import refusals
from drivable.serve.auth import send_envelope
from drivable.serve.mount import PRINCIPAL_KEY


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
    fixed = refusals.structured_error(message["error"])
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
    """Bound the long-lived GET event streams: a stateless server has none to offer (405); with
    sessions, at most `max_total` at once and `max_per_client` per caller (the principal, else
    the client address), each closed after `idle_s` without an event."""

    def __init__(
        self,
        app: ASGIApp,
        *,
        stateless: bool,
        max_total: int = MAX_STREAMS,
        max_per_client: int = MAX_STREAMS_PER_CLIENT,
        idle_s: float = STREAM_IDLE_S,
    ) -> None:
        self.app = app
        self.stateless = stateless
        self.max_total = max_total
        self.max_per_client = max_per_client
        self.idle_s = idle_s
        self.open: dict[str, int] = {}

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope.get("method") != "GET":
            await self.app(scope, receive, send)
            return
        if self.stateless:
            await _refuse_stream(
                send,
                405,
                "This server keeps no sessions, so it has no event stream to open.",
                "POST each JSON-RPC request; answers come on the POST's own response.",
                headers={"Allow": "POST"},
            )
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
                code="rate_limited",
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


async def _refuse_stream(
    send: Send,
    status: int,
    message: str,
    hint: str,
    *,
    code: str = "invalid_request",
    headers: dict[str, str] | None = None,
) -> None:
    data = refusals.error_data(message, hint)
    data["machine_code"] = code
    if code == "rate_limited":
        data["temporary"], data["retry_after_ms"] = True, 5000
    body = {
        "jsonrpc": "2.0",
        "id": None,
        "error": {"code": -32600, "message": message, "data": data},
    }
    await send_envelope(send, status, json.dumps(body).encode(), headers=headers)
