"""Every HTTP connection is bounded: idle, headers, body, and how many one worker holds.

A real `drivable serve --http` process with short bounds (set through the settings' environment
variables, as an operator would), and raw sockets that say nothing, stop half way through their
headers or body, or trickle; each must be closed within its bound, a cut-off request answered 408
with the envelope naming the bound, and a connection over the limit answered 503 with Retry-After
and a temporary envelope.
"""

from __future__ import annotations

import json
import socket
import time
from collections.abc import Iterator
from typing import Any

import pytest

from drivable.reliability.processes import Served, serve, stop
from drivable.serve.connections import ConnectionBounds

IDLE_S, HEADER_S, BODY_S, LIMIT = 0.8, 1.2, 1.6, 6
SLACK_S = 2.5  # a shared 2-core machine: the close comes within the bound plus this
BOUNDS = {
    "DRIVABLE_IDLE_TIMEOUT_S": str(IDLE_S),
    "DRIVABLE_HEADER_TIMEOUT_S": str(HEADER_S),
    "DRIVABLE_BODY_TIMEOUT_S": str(BODY_S),
    "DRIVABLE_MAX_CONNECTIONS": str(LIMIT),
}
LIST = b'{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}'


def head(port: int, length: int, *, close: bool = False) -> bytes:
    lines = [
        "POST /mcp HTTP/1.1",
        f"Host: 127.0.0.1:{port}",
        "Content-Type: application/json",
        "Accept: application/json, text/event-stream",
        "MCP-Protocol-Version: 2025-11-25",
        f"Content-Length: {length}",
        *(["Connection: close"] if close else []),
    ]
    return ("\r\n".join(lines) + "\r\n\r\n").encode()


@pytest.fixture(scope="module", params=[1, 2], ids=["1 worker", "2 workers"])
def server(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Served]:
    served = serve("caselaw", tmp_path_factory.mktemp("bounds"), env=BOUNDS, workers=request.param)
    try:
        yield served
    finally:
        stop(served)


@pytest.fixture(scope="module", params=[1, 2], ids=["1 worker", "2 workers"])
def crowded(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Served]:
    """The same limit, with idle, header and body bounds long enough that no held place frees itself
    while a busy machine opens the rest (at 1.2 s, CI saw a held place time out and a probe get in).
    """
    env = BOUNDS | {f"DRIVABLE_{b}_TIMEOUT_S": "60" for b in ("IDLE", "HEADER", "BODY")}
    served = serve("caselaw", tmp_path_factory.mktemp("crowded"), env=env, workers=request.param)
    try:
        yield served
    finally:
        stop(served)


def connect(served: Served) -> socket.socket:
    sock = socket.create_connection(("127.0.0.1", served.port), timeout=IDLE_S + BODY_S + 30)
    return sock


def until_closed(sock: socket.socket) -> tuple[float, bytes]:
    """Seconds until the server closed the connection, and everything it sent before."""
    started, received = time.monotonic(), b""
    with sock:
        while True:
            try:
                chunk = sock.recv(65536)
            except ConnectionResetError:
                break
            if not chunk:
                break
            received += chunk
    return time.monotonic() - started, received


def answer(raw: bytes) -> tuple[int, dict[str, str], dict[str, Any]]:
    top, _, body = raw.partition(b"\r\n\r\n")
    status_line, *header_lines = top.decode("latin-1").split("\r\n")
    headers = {k.strip().lower(): v.strip() for k, v in (h.split(":", 1) for h in header_lines)}
    return int(status_line.split()[1]), headers, json.loads(body)


def test_a_silent_connection_is_closed_after_the_idle_bound(server: Served) -> None:
    waited, received = until_closed(connect(server))
    assert received == b""  # nothing was asked, nothing is answered
    assert IDLE_S * 0.8 <= waited <= IDLE_S + SLACK_S


@pytest.mark.parametrize(
    "sent",
    [b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Le", b"P", b"GET /mcp HTTP/1.1\r\n"],
    ids=["half a header", "one byte", "request line only"],
)
def test_headers_that_stop_half_way_get_408_within_the_header_bound(
    server: Served, sent: bytes
) -> None:
    sock = connect(server)
    sock.sendall(sent)
    waited, received = until_closed(sock)
    assert HEADER_S * 0.8 <= waited <= HEADER_S + SLACK_S
    status, headers, envelope = answer(received)
    assert status == 408 and headers["connection"] == "close"
    assert envelope["code"] == "invalid_request" and envelope["temporary"] is False
    assert envelope["details"] == {"limit_s": HEADER_S, "setting": "header_timeout_s"}
    assert "headers" in envelope["hint"] and "header_timeout_s" in envelope["hint"]


def test_a_body_that_stops_half_way_gets_408_within_the_body_bound(server: Served) -> None:
    sock = connect(server)
    sock.sendall(head(server.port, len(LIST)) + LIST[:10])
    waited, received = until_closed(sock)
    assert BODY_S * 0.8 <= waited <= BODY_S + SLACK_S
    status, _, envelope = answer(received)
    assert status == 408
    assert envelope["details"] == {"limit_s": BODY_S, "setting": "body_timeout_s"}
    assert "body" in envelope["hint"] and "body_timeout_s" in envelope["hint"]


def test_a_body_that_trickles_is_bounded_in_all_not_between_bytes(server: Served) -> None:
    sock = connect(server)
    sock.sendall(head(server.port, len(LIST)) + LIST[:10])
    started = time.monotonic()
    try:
        for byte in LIST[10:-1]:  # a byte every 0.1 s, never the last one
            sock.sendall(bytes([byte]))
            time.sleep(0.1)
            if time.monotonic() - started > BODY_S + SLACK_S:
                break
    except OSError:
        pass  # closed under us: what the bound promises
    until_closed(sock)
    assert BODY_S * 0.8 <= time.monotonic() - started <= BODY_S + SLACK_S


def test_keep_alive_after_an_answer_is_bounded_by_the_idle_bound(server: Served) -> None:
    sock = connect(server)
    sock.sendall(head(server.port, len(LIST)) + LIST)
    received = b""
    while b"\r\n0\r\n\r\n" not in received:  # the SSE answer's last chunk
        chunk = sock.recv(65536)
        assert chunk, received
        received += chunk
    assert received.startswith(b"HTTP/1.1 200")
    time.sleep(0.3)  # still answered within the idle bound: a second request on it
    sock.sendall(head(server.port, len(LIST)) + LIST)
    waited, rest = until_closed(sock)
    assert rest.startswith(b"HTTP/1.1 200")
    assert waited <= IDLE_S + SLACK_S


def test_a_connection_over_the_limit_gets_503_with_a_retry_time(crowded: Served) -> None:
    server = crowded
    # Each worker holds LIMIT, but the kernel spreads accepts unevenly between workers (CI saw one
    # with room after twice the limit in all): hold more places, round by round, until a probe
    # that asks to be closed after its answer is refused.
    held: list[socket.socket] = []
    refused: list[bytes] = []
    try:
        for _ in range(6):
            for _ in range(LIMIT * server.workers):
                held.append(connect(server))
                held[-1].sendall(b"P")  # it holds its place, headers unfinished
            for _ in range(3):
                sock = connect(server)
                sock.sendall(head(server.port, len(LIST), close=True) + LIST)
                refused.append(until_closed(sock)[1])
            if any(r.startswith(b"HTTP/1.1 503") for r in refused):
                break
        assert any(r.startswith(b"HTTP/1.1 503") for r in refused), refused
        status, headers, envelope = answer(next(r for r in refused if b" 503 " in r[:20]))
        assert status == 503 and headers["retry-after"] == "1"
        assert envelope["code"] == "rate_limited" and envelope["temporary"] is True
        assert envelope["retry_after_ms"] == 1000
        assert envelope["details"]["setting"] == "max_connections"
    finally:
        for sock in held:
            sock.close()
    time.sleep(0.3)
    sock = connect(server)  # the places held are given back
    sock.sendall(head(server.port, len(LIST)) + LIST)
    assert sock.recv(65536).startswith(b"HTTP/1.1 200")
    sock.close()


def test_bounds_refuse_what_cannot_bound() -> None:
    for wrong in ({"header_timeout_s": 0}, {"idle_timeout_s": -1.0}, {"max_connections": 0}):
        with pytest.raises(ValueError, match=next(iter(wrong))):
            ConnectionBounds(**wrong)


def test_the_defaults_are_safe() -> None:
    defaults = ConnectionBounds.from_settings()
    assert defaults.body_timeout_s <= 30 and defaults.header_timeout_s <= 30
    assert defaults.idle_timeout_s <= 30 and defaults.max_connections <= 1024
