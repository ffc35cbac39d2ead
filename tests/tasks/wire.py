"""A raw 2026-07-28 client for the tasks tests: JSON-RPC over HTTP, the envelope in `_meta`, the
routing headers, nothing else (the conformance suite is the reference client; this one keeps the
tests independent of any SDK's tasks support)."""

from __future__ import annotations

import itertools
import json
from typing import Any

import httpx2

EXTENSION = "io.modelcontextprotocol/tasks"
VERSION = "2026-07-28"
_ids = itertools.count(1)


class RpcError(Exception):
    def __init__(self, error: dict[str, Any]) -> None:
        super().__init__(error.get("message"))
        self.code: int = error["code"]
        self.data: Any = error.get("data")


def rpc(
    client: httpx2.Client,
    url: str,
    method: str,
    params: dict[str, Any] | None = None,
    *,
    token: str | None = None,
    tasks: bool = True,
    headers: dict[str, str] | None = None,
    events: list[dict[str, Any]] | None = None,
    capabilities: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """One request; the result, or RpcError for a JSON-RPC error. With `events`, every event of
    the answer's stream is appended to it (notifications included). `capabilities`: declared
    beside the extension (e.g. {"elicitation": {}})."""
    body = dict(params or {})
    declared: dict[str, Any] = {"extensions": {EXTENSION: {}}} if tasks else {}
    declared.update(capabilities or {})
    body["_meta"] = {
        "io.modelcontextprotocol/protocolVersion": VERSION,
        "io.modelcontextprotocol/clientCapabilities": declared,
        "io.modelcontextprotocol/clientInfo": {"name": "tasks-tests", "version": "1"},
    }
    sent = {
        "Content-Type": "application/json",
        "Accept": "application/json, text/event-stream",
        "MCP-Protocol-Version": VERSION,
        "Mcp-Method": method,
    }
    name = body.get("taskId") if method.startswith("tasks/") else body.get("name")
    if isinstance(name, str):
        sent["Mcp-Name"] = name
    if token is not None:
        sent["Authorization"] = f"Bearer {token}"
    sent.update(headers or {})
    request_id = next(_ids)
    answer = client.post(
        url,
        json={"jsonrpc": "2.0", "id": request_id, "method": method, "params": body},
        headers=sent,
    )
    if events is not None:
        events.extend(
            json.loads(line[5:]) for line in answer.text.splitlines() if line.startswith("data:")
        )
    message = _message(answer, request_id)
    if "error" in message:
        raise RpcError(message["error"])
    result: dict[str, Any] = message["result"]
    return result


def _message(answer: httpx2.Response, request_id: int) -> dict[str, Any]:
    if answer.headers.get("content-type", "").startswith("text/event-stream"):
        for line in answer.text.splitlines():
            if line.startswith("data:"):
                event = json.loads(line[5:])
                if event.get("id") == request_id:
                    return dict(event)
        raise AssertionError(f"no answer in the event stream: {answer.text[:500]}")
    return dict(answer.json())
