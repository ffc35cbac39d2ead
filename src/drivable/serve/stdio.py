"""stdio: the protocol on stdout and nothing else; every log line goes to stderr.

drivable reads the lines itself rather than through the SDK's stdio transport, because that one
drops what it cannot parse without a word (the client then waits for its own timeout) and parses
with a stricter parser than HTTP's 2026-07-28 path. Here every line gets an answer or a defined
refusal (`drivable.serve.refusals`):

- a line that is not JSON (broken, not UTF-8, nested too deep to read) is answered -32700, and a
  message the SDK would misread (an object or fractional id, no "jsonrpc") -32600, each with the
  envelope in `error.data`;
- a line longer than the bound is answered -32600 `payload_too_large` without being kept;
- text the strict parser refuses but JSON allows (a lone surrogate escape) is read, so the
  boundary refuses it naming the field, as over HTTP;
- errors the SDK writes itself are rewritten with the envelope before they reach stdout;
- input that ends (a shell's `< requests > answers` ends it at once) closes the session only once
  every request read before the end is answered, or after `DRAIN_S`.

While serving, fd 0 reads from the null device and fd 1 writes to stderr, so stray reads and
prints of handlers or their children miss the wire (the SDK's transport does the same).
"""

from __future__ import annotations

import json
import logging
import os
import re
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import anyio
import mcp_types as types
from mcp.shared._context_streams import create_context_streams
from mcp.shared.message import SessionMessage

from drivable.contract import Contract, boundary
from drivable.contract.lifespan import LifespanError
from drivable.serve import refusals
from drivable.serve.mount import build_server, compute_fingerprint

log = logging.getLogger("drivable.serve.stdio")

# Arguments over the inline bound are refused by the runtime with the tool's name, up to four
# times the bound (plus the envelope's room); longer lines are refused unread, by their id.
LINE_ROOM_BYTES = 64 * 1024
LINE_FACTOR = 4
# How long the end of input waits for the requests read before it to be answered.
DRAIN_S = 30.0


def _logs_to_stderr() -> None:
    root = logging.getLogger()
    for handler in list(root.handlers):
        stream = getattr(handler, "stream", None)
        if stream is sys.stdout:
            root.removeHandler(handler)
    if not root.handlers:
        handler = logging.StreamHandler(sys.stderr)
        handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
        root.addHandler(handler)
        root.setLevel(logging.WARNING)


def _message_of(line: bytes) -> tuple[types.JSONRPCMessage | None, dict[str, Any] | None]:
    """The message a line carries, or the refusal to write back (a JSON-RPC error message)."""
    decoded, failed = refusals.decode(line)
    refusal = failed or refusals.shape_refusal(decoded)
    if refusal is not None:
        return None, refusals.error_message(refusal)
    try:
        return types.jsonrpc_message_adapter.validate_python(decoded, by_name=False), None
    except Exception:
        rid = decoded.get("id") if isinstance(decoded, dict) else None
        refusal = refusals.Refusal(
            refusals.INVALID_REQUEST,
            "The message is not a valid JSON-RPC request.",
            refusals.SHAPE_HINT,
            rid if isinstance(rid, str | int) and not isinstance(rid, bool) else None,
        )
        return None, refusals.error_message(refusal)


def _wire(message: types.JSONRPCMessage) -> str:
    """One line of stdout for an outgoing message; the SDK's own errors made structured."""
    try:
        body: dict[str, Any] = json.loads(
            message.model_dump_json(by_alias=True, exclude_unset=True)
        )
    except Exception:
        # Nothing the server builds should fail to encode; if it does, the id still gets an answer.
        boundary.log_failure(log, "an outgoing message could not be encoded")
        rid = getattr(message, "id", None)
        body = {"jsonrpc": "2.0", "id": rid, "error": {"code": -32603, "message": ""}}
    if isinstance(body.get("error"), dict):
        body["error"] = refusals.structured_error(body["error"])
    return json.dumps(body, ensure_ascii=False, separators=(",", ":"))


@asynccontextmanager
async def _claimed_stdio() -> AsyncIterator[tuple[Any, Any]]:
    """Private duplicates of fds 0 and 1 for the wire; fd 0 then reads /dev/null, fd 1 writes
    to stderr, until the transport closes and both are put back."""
    wire_in, wire_out = os.dup(0), os.dup(1)
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    os.dup2(2, 1)
    reader = anyio.wrap_file(os.fdopen(wire_in, "rb"))
    writer = anyio.wrap_file(os.fdopen(wire_out, "wb", buffering=0))
    try:
        yield reader, writer
    finally:
        os.dup2(wire_in, 0)
        os.dup2(wire_out, 1)
        await reader.aclose()
        await writer.aclose()


class _Unanswered:
    """The ids of requests read and not yet answered. Input that ends at once (a shell's
    `< requests > answers`) would otherwise close the session under its last calls."""

    def __init__(self) -> None:
        self._ids: set[Any] = set()
        self._none = anyio.Event()
        self._none.set()

    def read(self, message: types.JSONRPCMessage) -> None:
        if isinstance(message, types.JSONRPCRequest):
            if not self._ids:
                self._none = anyio.Event()
            self._ids.add(message.id)

    def written(self, message: types.JSONRPCMessage) -> None:
        if isinstance(message, types.JSONRPCResponse | types.JSONRPCError):
            self._ids.discard(message.id)
            if not self._ids:
                self._none.set()

    async def answered(self, within_s: float) -> None:
        with anyio.move_on_after(within_s):
            await self._none.wait()


@asynccontextmanager
async def line_transport(
    reader: Any, writer: Any, max_line_bytes: int
) -> AsyncIterator[tuple[Any, Any]]:
    """The SDK's (read, write) stream pair over a byte reader and writer of JSON lines."""
    read_in, read_stream = create_context_streams[SessionMessage | Exception](0)
    write_stream, write_out = create_context_streams[SessionMessage](0)
    lock = anyio.Lock()
    unanswered = _Unanswered()

    async def put(line: str) -> None:
        async with lock:
            await writer.write(line.encode("utf-8", "surrogatepass") + b"\n")

    async def read_lines() -> None:
        async with read_in:
            while True:
                line = await _readline(reader, max_line_bytes + 1)
                if not line:
                    await unanswered.answered(DRAIN_S)
                    return
                if len(line) > max_line_bytes and not line.endswith(b"\n"):
                    head = line[:4096]
                    while line and not line.endswith(b"\n"):
                        line = await _readline(reader, 1 << 20)
                    await put(json.dumps(_too_long(max_line_bytes, _id_in(head))))
                    continue
                if not line.strip():
                    continue
                message, refusal = _message_of(line)
                if refusal is not None:
                    await put(json.dumps(refusal, ensure_ascii=False))
                    continue
                assert message is not None
                unanswered.read(message)
                await read_in.send(SessionMessage(message))

    async def write_lines() -> None:
        async with write_out:
            async for session_message in write_out:
                await put(_wire(session_message.message))
                unanswered.written(session_message.message)

    async with anyio.create_task_group() as group:
        group.start_soon(read_lines)
        group.start_soon(write_lines)
        yield read_stream, write_stream
        group.cancel_scope.cancel()


async def _readline(reader: Any, limit: int) -> bytes:
    """One line of at most `limit` bytes, read in a worker thread (stdin blocks)."""
    line: bytes = await anyio.to_thread.run_sync(
        reader.wrapped.readline, limit, abandon_on_cancel=True
    )
    return line


_ID = re.compile(rb'"id"\s*:\s*(-?\d{1,18}|"(?:[^"\\]|\\.){0,200}")')


def _id_in(head: bytes) -> Any:
    """The request id near the start of a line too long to read, so the refusal names it (the
    caller would otherwise wait for its own timeout); None when it is not found there."""
    found = _ID.search(head)
    if found is None:
        return None
    try:
        value = json.loads(found.group(1))
    except ValueError:
        return None
    return value if isinstance(value, str | int) else None


def _too_long(limit: int, request_id: Any = None) -> dict[str, Any]:
    message = f"The line is longer than {limit} bytes, the most this server reads."
    hint = (
        "Pass a reference instead of inline content: the id or URI of something already stored, "
        "as the tool's description says."
    )
    data = refusals.error_data(message, hint, {"limit_bytes": limit}, code="payload_too_large")
    return {
        "jsonrpc": "2.0",
        "id": request_id,
        "error": {"code": refusals.INVALID_REQUEST, "message": message, "data": data},
    }


async def serve_stdio(contract: Contract) -> None:
    _logs_to_stderr()
    # The lifespan is open from before the first line to after the last (once per start).
    async with contract.started():
        await contract.prepare()
        await compute_fingerprint(contract)
        server = build_server(contract)
        limit = LINE_FACTOR * (contract.max_inline_bytes + LINE_ROOM_BYTES)
        async with (
            _claimed_stdio() as (reader, writer),
            line_transport(reader, writer, limit) as (read_stream, write_stream),
        ):
            await server.run(read_stream, write_stream, server.create_initialization_options())


def run_stdio(contract: Contract) -> None:
    """Serve `contract` on this process's stdin/stdout until the client closes it; a lifespan
    that fails to open ends the process with its one line on stderr (no client sees it)."""
    try:
        anyio.run(serve_stdio, contract)
    except LifespanError as failed:
        print(f"drivable serve: {failed}", file=sys.stderr)
        raise SystemExit(1) from None
