"""Shared pieces of the hostile-input tests: billing served for real, raw request builders.

Billing runs as `drivable serve billing` (stdio subprocesses and uvicorn over HTTP) on a fresh
SQLite file or PostgreSQL schema, with a static token table from the environment (a reader, a
writer). Raw requests are built as bytes, so they carry what no SDK client would encode.
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from mcp.shared.inbound import NAME_BEARING_METHODS, encode_header_value

from drivable.contract.envelope import envelope_of
from drivable.reliability.processes import Served, serve, stop
from drivable.target import Target

CANARY = "CANARY-h0st1le"
READER = "reader-token-h0st1le-0123"
WRITER = "writer-token-h0st1le-0123"
TOKENS = {
    READER: {"principal": "reader", "scopes": ["billing:read"]},
    WRITER: {"principal": "writer", "scopes": ["billing:read", "billing:write"]},
}
VERIFIER = "drivable.serve.auth:env_verifier"
MODERN = "2026-07-28"
META = {
    "io.modelcontextprotocol/protocolVersion": MODERN,
    "io.modelcontextprotocol/clientCapabilities": {},
    "io.modelcontextprotocol/clientInfo": {"name": "hostile-test", "version": "0"},
}
ACCEPT = {"accept": "application/json, text/event-stream", "content-type": "application/json"}


def server_env(store: str) -> dict[str, str]:
    return {"DRIVABLE_STORE": store, "DRIVABLE_TOKENS": json.dumps(TOKENS)}


@contextmanager
def billing_http(store: str, work: Path, *extra_env: tuple[str, str]) -> Iterator[Served]:
    served = serve(
        "billing",
        work,
        verifier=VERIFIER,
        env={**server_env(store), **dict(extra_env)},
        ready_token=READER,
    )
    try:
        yield served
    finally:
        stop(served)


def billing_stdio(store: str) -> Target:
    return Target(
        command=(sys.executable, "-m", "drivable", "serve", "billing", "--store", store),
        env={"DRIVABLE_STORE": store, **_passthrough()},
    )


def _passthrough() -> dict[str, str]:
    return {k: os.environ[k] for k in ("PATH", "HOME", "XDG_CACHE_HOME") if k in os.environ}


def request(method: str, params: bytes, *, modern: bool, request_id: bytes = b"7") -> bytes:
    """A raw JSON-RPC request; `params` is a JSON object's bytes (2026-07-28 adds `_meta`)."""
    if modern:
        meta = json.dumps(META).encode()
        params = (
            params[:-1] + (b"," if params.strip() != b"{}" else b"") + b'"_meta":' + meta + b"}"
        )
    return (
        b'{"jsonrpc":"2.0","id":' + request_id + b',"method":"' + method.encode() + b'","params":'
        + params + b"}"
    )  # fmt: skip


def tool_call(name: str, arguments: bytes, *, modern: bool, request_id: bytes = b"7") -> bytes:
    """A raw tools/call whose arguments are the given JSON bytes (lone surrogates and all)."""
    params = b'{"name":' + json.dumps(name).encode() + b',"arguments":' + arguments + b"}"
    return request("tools/call", params, modern=modern, request_id=request_id)


def http_headers(body: bytes, *, modern: bool, token: str | None = WRITER) -> dict[str, str]:
    """What a 2026-07-28 client sends beside the body (the routing headers), or the handshake
    era's plain headers."""
    headers = dict(ACCEPT)
    if token:
        headers["authorization"] = f"Bearer {token}"
    if modern:
        headers["mcp-protocol-version"] = MODERN
        try:
            message = json.loads(body)
        except ValueError:
            return headers
        if isinstance(message, dict) and isinstance(message.get("method"), str):
            method = message["method"]
            headers["mcp-method"] = method
            key = NAME_BEARING_METHODS.get(method)
            name = (message.get("params") or {}).get(key) if key else None
            if isinstance(name, str):
                # a lone surrogate has no header spelling: the server must say so
                with contextlib.suppress(UnicodeEncodeError):
                    headers["mcp-name"] = encode_header_value(name)
    return headers


def answer_of(content_type: str, text: str) -> dict[str, Any] | None:
    """The JSON-RPC message of an HTTP answer (plain JSON or the first SSE data line)."""
    if content_type.startswith("text/event-stream"):
        for line in text.splitlines():
            if line.startswith("data:"):
                found: dict[str, Any] = json.loads(line[5:])
                return found
        return None
    try:
        value = json.loads(text)
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


def envelope_of_result(result: Mapping[str, Any]) -> dict[str, Any] | None:
    """The envelope of a tools/call result on the wire (whichever carrier it travels in)."""
    found: dict[str, Any] | None = envelope_of(dict(result))
    return found
