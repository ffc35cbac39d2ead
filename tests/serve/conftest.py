"""Real transports for the serve tests: stdio subprocesses and uvicorn on a free loopback port."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest
from mcp import Client

from drivable.target import Mode, Target, connect

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
EXAMPLE = ROOT / "tests" / "contract" / "example_server.py"
SERVE_APP = HERE / "serve_app.py"
WRITER_TOKEN = "writer-token-0123456789"
READER_TOKEN = "reader-token-0123456789"
EXPIRED_TOKEN = "expired-token-0123456789"
START_TIMEOUT = 60.0
CALL_TIMEOUT = 30.0


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@dataclass
class HttpServer:
    url: str
    port: int
    process: subprocess.Popen[bytes]
    log: Path


def _wait_listening(port: int, process: subprocess.Popen[bytes], log: Path) -> None:
    deadline = time.monotonic() + START_TIMEOUT
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"the HTTP server exited early: {log.read_text()[-2000:]}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return
        except OSError:
            time.sleep(0.1)
    raise RuntimeError("the HTTP server did not start listening in time")


def start_http(tmp: Path, *extra: str) -> HttpServer:
    """`drivable serve serve_app:contract --http ...` in a subprocess (the serve command alone)."""
    port = free_port()
    log = tmp / f"http-{port}.log"
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(
        [str(HERE), str(ROOT), *filter(None, [env.get("PYTHONPATH")])]
    )
    command = [
        sys.executable,
        "-c",
        "from drivable.serve.command import main; main()",
        "serve_app:contract",
        "--http",
        "--port",
        str(port),
        *extra,
    ]
    with log.open("wb") as sink:
        process = subprocess.Popen(
            command, cwd=HERE, env=env, stdout=sink, stderr=subprocess.STDOUT
        )
    server = HttpServer(f"http://127.0.0.1:{port}/mcp", port, process, log)
    try:
        _wait_listening(port, process, log)
    except BaseException:
        stop_http(server)
        raise
    return server


def stop_http(server: HttpServer) -> None:
    server.process.terminate()
    try:
        server.process.wait(timeout=15)
    except subprocess.TimeoutExpired:
        server.process.kill()
        server.process.wait(timeout=15)


@pytest.fixture(scope="session")
def http_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[HttpServer]:
    """One authenticated uvicorn server (single worker) for the session."""
    server = start_http(tmp_path_factory.mktemp("http"), "--verifier", "serve_app:verifier")
    yield server
    stop_http(server)


@pytest.fixture(params=["stdio", "http"])
def transport(request: pytest.FixtureRequest) -> str:
    value: str = request.param
    return value


@pytest.fixture(params=["auto", "legacy"])
def mode(request: pytest.FixtureRequest) -> Mode:
    value: Mode = request.param
    return value


def stdio_target(script: Path) -> Target:
    return Target(command=(sys.executable, str(script)), cwd=str(ROOT))


@pytest.fixture
def open_client(transport: str, mode: Mode, request: pytest.FixtureRequest) -> object:
    """`async with open_client(app=False) as client`: the example server over the chosen transport.

    stdio runs `tests/contract/example_server.py` (or `serve_app.py` with app=True); HTTP always
    serves serve_app (the example's tools and more) with the writer token.
    """

    server: HttpServer | None = (
        request.getfixturevalue("http_server") if transport == "http" else None
    )

    @asynccontextmanager
    async def opened(app: bool = False, token: str = WRITER_TOKEN) -> AsyncIterator[Client]:
        if server is None:
            target = stdio_target(SERVE_APP if app else EXAMPLE)
        else:
            target = Target(url=server.url, bearer_token=token)
        with open(os.devnull, "w") as errlog:
            async with connect(
                target, mode=mode, errlog=errlog, read_timeout_seconds=CALL_TIMEOUT
            ) as client:
                expected = "2026-07-28" if mode == "auto" else "2025-11-25"
                assert client.protocol_version == expected
                yield client

    return opened
