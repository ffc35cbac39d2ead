"""Nothing a request leaves behind outlives it: no session, no connection, in either era.

The served app runs in this process (its lifespan driven by hand, requests through httpx's ASGI
transport), so the objects a request created can be counted once it is answered. The soak in the
reliability tier measures the same promise as resident memory over a real socket.
"""

from __future__ import annotations

import gc
import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import anyio
import httpx2
import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st
from mcp import Client
from mcp.server.connection import Connection
from mcp.server.session import ServerSession
from starlette.types import ASGIApp, Message, Scope

from drivable.serve import build_server
from drivable.serve.http import build_app
from tests.conformance.fixture import WATCHED
from tests.conformance.fixture import contract as conformance
from tests.contract.example_server import contract as example
from tests.serve.hostile_support import ACCEPT, META

ORIGIN = "http://127.0.0.1:8000"
HANDSHAKE, MODERN = "2025-11-25", "2026-07-28"


async def settled() -> None:
    """Let the server's per-request tasks end: a request is answered before its task returns."""
    await anyio.sleep(0.2)


def alive(kind: type) -> int:
    gc.collect()
    return sum(isinstance(o, kind) for o in gc.get_objects())


@asynccontextmanager
async def served(app: ASGIApp) -> AsyncIterator[httpx2.AsyncClient]:
    """`app` started (lifespan) in this process, and a client posting to it."""
    to_app, app_reads = anyio.create_memory_object_stream[Message](4)
    app_writes, from_app = anyio.create_memory_object_stream[Message](4)
    async with anyio.create_task_group() as tasks:
        scope: Scope = {"type": "lifespan", "asgi": {"version": "3.0"}, "state": {}}

        async def run() -> None:  # start_soon takes a coroutine function; an ASGI app is awaitable
            await app(scope, app_reads.receive, app_writes.send)

        tasks.start_soon(run)
        await to_app.send({"type": "lifespan.startup"})
        assert (await from_app.receive())["type"] == "lifespan.startup.complete"
        transport = httpx2.ASGITransport(app=app)
        async with httpx2.AsyncClient(transport=transport, base_url=ORIGIN) as http:
            yield http
        await to_app.send({"type": "lifespan.shutdown"})
        assert (await from_app.receive())["type"] == "lifespan.shutdown.complete"


def request(method: str, params: dict[str, Any], version: str, n: int) -> dict[str, Any]:
    if version == MODERN:
        params = {**params, "_meta": META}
    return {"jsonrpc": "2.0", "id": n, "method": method, "params": params}


def headers(method: str, params: dict[str, Any], version: str) -> dict[str, str]:
    routing = {"mcp-protocol-version": version}
    if version == MODERN:  # 2026-07-28 routes by headers that repeat the body
        routing["mcp-method"] = method
        if "name" in params:
            routing["mcp-name"] = params["name"]
    return {**ACCEPT, **routing}


CALLS = st.sampled_from(
    [
        ("tools/list", {}),
        ("tools/call", {"name": "search_notes", "arguments": {"query": "budget"}}),
        ("tools/call", {"name": "search_notes", "arguments": {"query": 5, "limit": "lots"}}),
        ("resources/subscribe", {"uri": "notes://summary"}),
        ("ping", {}),
    ]
)


@settings(
    max_examples=6,
    deadline=None,
    phases=[Phase.explicit, Phase.generate],  # a failing run prints its example; shrinking a served
    suppress_health_check=[HealthCheck.too_slow],  # app takes minutes and says nothing more
)
@given(
    version=st.sampled_from([HANDSHAKE, MODERN]),
    calls=st.lists(CALLS, min_size=20, max_size=60),
)
def test_stateless_http_requests_leave_no_session_or_connection(
    version: str, calls: list[tuple[str, dict[str, Any]]]
) -> None:
    async def run() -> None:
        before = alive(ServerSession), alive(Connection)
        async with served(build_app(example, insecure=True)) as http:
            for n, (method, params) in enumerate(calls):
                response = await http.post(
                    "/mcp",
                    content=json.dumps(request(method, params, version, n)),
                    headers=headers(method, params, version),
                )
                assert response.status_code < 500, response.text  # answered, refusals included
            await settled()
            # while the server still runs: nothing of the answered requests is kept
            assert (alive(ServerSession), alive(Connection)) == before

    anyio.run(run)


@pytest.mark.filterwarnings("ignore::mcp.shared.exceptions.MCPDeprecationWarning")
async def test_a_closed_handshake_connection_is_forgotten_with_its_subscriptions() -> None:
    server = build_server(conformance)
    before = alive(Connection)
    for _ in range(5):
        async with Client(server, mode="legacy", cache=None) as client:
            await client.subscribe_resource(WATCHED)
            await client.call_tool("test_trigger_resource_update", {})
            assert alive(Connection) == before + 1  # the open one is remembered while it lasts
    assert alive(Connection) == before
