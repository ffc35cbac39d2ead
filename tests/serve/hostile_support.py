"""Shared pieces of the hostile-input tests: billing served for real, raw request builders.

Billing runs as `drivable serve billing` (stdio subprocesses and uvicorn over HTTP) on a fresh
SQLite file or PostgreSQL schema, with a static token table from the environment (a reader, a
writer). Raw requests are built as bytes, so they carry what no SDK client would encode.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any

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
            headers["mcp-method"] = message["method"]
            name = (message.get("params") or {}).get("name")
            if isinstance(name, str) and name.isascii():
                headers["mcp-name"] = name
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
    """The envelope of a tools/call result on the wire, in the old or the new shape."""
    try:
        from drivable.contract.envelope import envelope_of  # type: ignore[attr-defined]
    except ImportError:
        envelope_of = None
    if envelope_of is not None:
        found: dict[str, Any] | None = envelope_of(dict(result))
        return found
    meta = result.get("_meta") or {}
    if isinstance(meta.get("dev.drivable/envelope"), dict):
        return dict(meta["dev.drivable/envelope"])
    structured = result.get("structuredContent")
    if isinstance(structured, dict) and "code" in structured:
        return structured
    for item in result.get("content") or []:
        try:
            value = json.loads(item.get("text", ""))
        except ValueError:
            continue
        if isinstance(value, dict) and "code" in value:
            return value
    return None
