"""HTTP only: credentials, the body bound, DNS-rebinding protection, several workers."""

from __future__ import annotations

import json
import os
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import anyio
import httpx2
import pytest

from drivable.contract import envelope_of as result_envelope
from drivable.target import Mode, Target, connect
from tests.serve.conftest import (
    EXPIRED_TOKEN,
    READER_TOKEN,
    WRITER_TOKEN,
    HttpServer,
    start_http,
    stop_http,
)

BOUND = 60.0
LIST = {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}}
HEADERS = {"accept": "application/json, text/event-stream", "content-type": "application/json"}


async def post(
    server: HttpServer,
    body: bytes | dict[str, Any],
    token: str | None,
    **extra: str,
) -> httpx2.Response:
    headers = dict(HEADERS)
    if token is not None:
        headers["authorization"] = f"Bearer {token}"
    headers.update(extra)
    content = body if isinstance(body, bytes) else json.dumps(body).encode()
    async with httpx2.AsyncClient(timeout=httpx2.Timeout(30.0)) as http:
        return await http.post(server.url, content=content, headers=headers)


def envelope_of(response: httpx2.Response, code: str) -> dict[str, Any]:
    assert response.headers["content-type"].startswith("application/json")
    envelope: dict[str, Any] = response.json()
    assert envelope["code"] == code
    assert envelope["issues"] == []
    assert envelope["temporary"] is False
    assert envelope["retry_after_ms"] is None
    assert envelope["request_id"]
    assert envelope["hint"].strip()
    return envelope


async def test_missing_token_is_unauthenticated(http_server: HttpServer) -> None:
    with anyio.fail_after(BOUND):
        response = await post(http_server, LIST, None)
    assert response.status_code == 401
    envelope = envelope_of(response, "unauthenticated")
    assert response.headers["www-authenticate"].startswith("Bearer realm=")
    assert "https://example.test/settings/notes" in envelope["hint"]


@pytest.mark.parametrize("token", ["not-a-token", EXPIRED_TOKEN])
async def test_wrong_or_expired_token_is_invalid_credentials(
    http_server: HttpServer, token: str
) -> None:
    with anyio.fail_after(BOUND):
        response = await post(http_server, LIST, token)
    assert response.status_code == 401
    envelope_of(response, "invalid_credentials")
    assert 'error="invalid_token"' in response.headers["www-authenticate"]
    assert token not in response.text


async def test_not_a_bearer_token_is_invalid_credentials(http_server: HttpServer) -> None:
    with anyio.fail_after(BOUND):
        response = await post(http_server, LIST, None, authorization=f"Basic {WRITER_TOKEN}")
    assert response.status_code == 401
    envelope_of(response, "invalid_credentials")


@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_the_sdk_client_cannot_connect_without_a_valid_token(
    http_server: HttpServer, mode: Mode
) -> None:
    for token in (None, "not-a-token", EXPIRED_TOKEN):
        with anyio.fail_after(BOUND), pytest.raises(Exception):  # noqa: B017
            async with connect(Target(url=http_server.url, bearer_token=token), mode=mode) as c:
                await c.list_tools()


@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_insufficient_scope_names_the_scopes(http_server: HttpServer, mode: Mode) -> None:
    with anyio.fail_after(BOUND):
        target = Target(url=http_server.url, bearer_token=READER_TOKEN)
        async with connect(target, mode=mode) as client:
            # The reader's token opens the server and reads ...
            ok = await client.call_tool("get_note", {"note_id": "note_1"})
            assert not ok.is_error
            # ... and is refused a tool needing notes:write, by name.
            result = await client.call_tool("archive_note", {"note_id": "note_1"})
            assert result.is_error
            env = result_envelope(result)
            assert isinstance(env, dict)
            assert env["code"] == "insufficient_scope"
            assert env["details"] == {"required_scopes": ["notes:write"]}
            assert "notes:write" in env["hint"]
            assert "https://example.test/settings/notes" in env["hint"]
        target = Target(url=http_server.url, bearer_token=WRITER_TOKEN)
        async with connect(target, mode=mode) as client:
            result = await client.call_tool("archive_note", {"note_id": "note_1"})
            assert not result.is_error
            assert result.structured_content == {"archived": "note_1"}


async def test_a_body_over_the_bound_is_refused_before_parsing(http_server: HttpServer) -> None:
    limit = 256 * 1024 + 64 * 1024
    body = b"{" + b" " * (limit + 10) + b"}"  # not even parsed: the size alone refuses it
    with anyio.fail_after(BOUND):
        response = await post(http_server, body, WRITER_TOKEN)
    assert response.status_code == 413
    envelope = envelope_of(response, "payload_too_large")
    assert envelope["details"]["limit_bytes"] == limit
    assert envelope["details"]["received_bytes"] == len(body)
    assert "reference" in envelope["hint"]
    # The setting that raises the bound is named, for the operator (docs/settings.md).
    assert envelope["details"]["setting"] == "max_body_bytes"
    assert "--max-body-bytes" in envelope["hint"] and "DRIVABLE_MAX_BODY_BYTES" in envelope["hint"]


async def test_a_streamed_body_over_the_bound_is_refused(http_server: HttpServer) -> None:
    async def chunks() -> AsyncIterator[bytes]:
        for _ in range(40):  # 40 x 16 KiB, no Content-Length (chunked)
            yield b" " * 16 * 1024

    headers = dict(HEADERS, authorization=f"Bearer {WRITER_TOKEN}")
    with anyio.fail_after(BOUND):
        async with httpx2.AsyncClient(timeout=httpx2.Timeout(30.0)) as http:
            response = await http.post(http_server.url, content=chunks(), headers=headers)
    assert response.status_code == 413
    envelope_of(response, "payload_too_large")


async def test_a_huge_body_is_cut_off_and_the_server_lives_on(http_server: HttpServer) -> None:
    body = b" " * (24 * 1024 * 1024)  # past what the server reads to deliver its 413
    with anyio.fail_after(BOUND):
        try:
            response = await post(http_server, body, WRITER_TOKEN)
        except httpx2.TransportError:
            pass  # the server closed the connection while the client was still sending
        else:
            assert response.status_code == 413
            envelope_of(response, "payload_too_large")
        after = await post(http_server, LIST, WRITER_TOKEN)
    assert after.status_code == 200


@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_the_server_answers_after_a_refused_body(http_server: HttpServer, mode: Mode) -> None:
    with anyio.fail_after(BOUND):
        async with connect(Target(url=http_server.url, bearer_token=WRITER_TOKEN), mode=mode) as c:
            with pytest.raises(Exception):  # noqa: B017
                await c.call_tool("search_notes", {"query": "x" * 400_000})
        async with connect(Target(url=http_server.url, bearer_token=WRITER_TOKEN), mode=mode) as c:
            result = await c.call_tool("get_note", {"note_id": "note_2"})
            assert not result.is_error


async def test_dns_rebinding_protection_is_kept(http_server: HttpServer) -> None:
    with anyio.fail_after(BOUND):
        foreign_host = await post(
            http_server, LIST, WRITER_TOKEN, host=f"attacker.example:{http_server.port}"
        )
        foreign_origin = await post(
            http_server, LIST, WRITER_TOKEN, origin="http://attacker.example"
        )
    assert foreign_host.status_code in (400, 403, 421)
    assert foreign_origin.status_code in (400, 403)


@pytest.fixture(scope="module")
def two_workers(tmp_path_factory: pytest.TempPathFactory) -> Iterator[HttpServer]:
    if os.cpu_count() == 1:
        pytest.skip("one CPU")
    server = start_http(
        Path(tmp_path_factory.mktemp("workers")),
        "--workers",
        "2",
        "--verifier",
        "serve_app:verifier",
    )
    yield server
    stop_http(server)


@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_several_workers_serve_one_endpoint(two_workers: HttpServer, mode: Mode) -> None:
    with anyio.fail_after(BOUND):
        for i in range(1, 7):  # separate connections: they may land on either worker
            target = Target(url=two_workers.url, bearer_token=WRITER_TOKEN)
            async with connect(target, mode=mode) as client:
                result = await client.call_tool("get_note", {"note_id": f"note_{i}"})
                assert not result.is_error, result.structured_content
                refused = result_envelope(
                    await client.call_tool("get_note", {"note_id": "note_999"})
                )
                assert refused is not None
                assert refused["code"] == "not_found"


async def test_each_worker_is_a_process_that_checks_tokens(two_workers: HttpServer) -> None:
    children = Path(f"/proc/{two_workers.process.pid}/task/{two_workers.process.pid}/children")
    if not children.exists():
        pytest.skip("no /proc here")
    deadline = anyio.current_time() + BOUND
    pids: list[str] = []
    while anyio.current_time() < deadline:
        pids = children.read_text().split()
        if len(pids) >= 2:
            break
        await anyio.sleep(0.2)
    assert len(pids) >= 2, pids  # uvicorn's supervisor and its worker processes
    with anyio.fail_after(BOUND):
        for _ in range(4):
            response = await post(two_workers, LIST, None)
            assert response.status_code == 401
            envelope_of(response, "unauthenticated")
