"""Progress notifications and cancellation of a long call, over real stdio and HTTP, both eras."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client

from drivable.serve.http import run_http
from drivable.target import Mode, Target, connect
from tests.serve.conftest import WRITER_TOKEN, HttpServer, start_http, stop_http

BOUND = 60.0


async def events(client: Client, clear: bool = False) -> list[str]:
    result = await client.call_tool("list_count_events", {"clear": clear})
    assert not result.is_error
    assert result.structured_content is not None
    found: list[str] = result.structured_content["events"]
    return found


async def test_progress_reaches_the_callback(open_client: Any) -> None:
    seen: list[tuple[float, float | None, str | None]] = []

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        seen.append((float(progress), None if total is None else float(total), message))

    with anyio.fail_after(BOUND):
        async with open_client(app=True) as client:
            result = await client.call_tool(
                "count_slowly", {"steps": 3, "delay_ms": 0}, progress_callback=on_progress
            )
            assert not result.is_error
            assert result.structured_content == {"counted": 3}
    assert seen == [(1.0, 3.0, "step 1"), (2.0, 3.0, "step 2"), (3.0, 3.0, "step 3")]


async def test_no_progress_requested_is_no_progress_sent(open_client: Any) -> None:
    with anyio.fail_after(BOUND):
        async with open_client(app=True) as client:
            result = await client.call_tool("count_slowly", {"steps": 2, "delay_ms": 0})
            assert result.structured_content == {"counted": 2}


async def test_a_cancelled_call_stops_and_the_server_keeps_answering(
    open_client: Any, transport: str, mode: Mode
) -> None:
    with anyio.fail_after(BOUND):
        async with open_client(app=True) as client:
            await events(client, clear=True)
            with anyio.move_on_after(0.6) as scope:
                await client.call_tool("count_slowly", {"steps": 200, "delay_ms": 50})
            assert scope.cancelled_caught  # the client gave up waiting
            if not (transport == "http" and mode == "legacy"):
                seen = await wait_for_cancelled(client)
                await anyio.sleep(0.5)
                after = await events(client)
                # The handler saw its cancellation and took no step after it.
                assert after == seen
                assert seen[-1] == "cancelled"
                assert 1 <= len(seen) - 1 < 200
            # The same connection keeps answering.
            result = await client.call_tool("get_note", {"note_id": "note_4"})
            assert not result.is_error
        if transport == "http" and mode == "legacy":
            # Stateless handshake-era HTTP: the cancel notification travels in a POST of its own
            # that no server process can tie to the running call; the call ends when its response
            # stream closes, which the client does when it disconnects. (`--sessions` fixes this
            # for one worker: see below.)
            async with open_client(app=True) as client:
                seen = await wait_for_cancelled(client)
                assert seen[-1] == "cancelled"
                assert len(seen) - 1 < 200


async def wait_for_cancelled(client: Client) -> list[str]:
    while True:
        seen = await events(client)
        if "cancelled" in seen:
            return seen
        await anyio.sleep(0.05)


@pytest.fixture(scope="module")
def sessions_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[HttpServer]:
    server = start_http(
        Path(tmp_path_factory.mktemp("sessions")), "--sessions", "--verifier", "serve_app:verifier"
    )
    yield server
    stop_http(server)


@pytest.mark.parametrize("mode", ["legacy", "auto"])
async def test_with_sessions_a_cancelled_http_call_stops_at_once(
    sessions_server: HttpServer, mode: Mode
) -> None:
    seen_progress: list[float] = []

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        seen_progress.append(float(progress))

    target = Target(url=sessions_server.url, bearer_token=WRITER_TOKEN)
    with anyio.fail_after(BOUND):
        async with connect(target, mode=mode) as client:
            await client.call_tool(
                "count_slowly", {"steps": 2, "delay_ms": 0}, progress_callback=on_progress
            )
            assert seen_progress == [1.0, 2.0]
            await events(client, clear=True)
            with anyio.move_on_after(0.6):
                await client.call_tool("count_slowly", {"steps": 200, "delay_ms": 50})
            seen = await wait_for_cancelled(client)
            await anyio.sleep(0.5)
            assert await events(client) == seen  # no step after the cancellation
            assert 1 <= len(seen) - 1 < 200
            result = await client.call_tool("get_note", {"note_id": "note_5"})
            assert not result.is_error


def test_sessions_need_a_single_worker() -> None:
    with pytest.raises(ValueError, match="one worker"):
        run_http("tests.serve.serve_app:contract", workers=2, sessions=True)
