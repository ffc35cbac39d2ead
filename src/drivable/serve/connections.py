"""Bounds on every HTTP connection: how long it may idle, send its headers, send its body, and how
many one worker holds at once.

uvicorn times out nothing but keep-alive after a finished request, and an ASGI layer never sees
a request whose headers have not finished, so the bounds live in the HTTP protocol itself:
`BoundedProtocol` is uvicorn's h11 protocol with one deadline per connection, moved as the
request advances:

- waiting for a request (a fresh connection, or keep-alive after an answer): `idle_timeout_s`,
  then the connection is closed without a word (nothing was asked);
- from a request's first byte to the end of its headers: `header_timeout_s`;
- from the end of the headers to the end of the body: `body_timeout_s` (in all, not between
  bytes, so a body that trickles is bounded too);
- while the app answers: no deadline here (a tool call, an event stream, bound elsewhere).

A request cut off by its deadline is answered HTTP 408 with the envelope (`invalid_request`, the
hint naming the part that did not arrive in time) and the connection closed. A connection over
`max_connections` in this worker is answered HTTP 503 with `Retry-After` and the envelope
`rate_limited` (temporary, `retry_after_ms`) once its headers arrive, and closed. TCP keep-alive
probes on every accepted socket let the kernel drop a peer that vanished (a half-open
connection) while an answer streams. Decision: docs/decisions/0001-connection-bounds.md.
"""

from __future__ import annotations

import asyncio
import socket
from dataclasses import dataclass
from typing import Any, ClassVar, Literal

import h11
from starlette.types import Receive, Scope, Send
from uvicorn.protocols.http.h11_impl import H11Protocol

from drivable.serve.auth import envelope_body, send_envelope

Phase = Literal["idle", "headers", "body", "answering"]

RETRY_BUSY_MS = 1000  # how soon a caller over the connection limit should come back
_KEEPALIVE_PROBE_S = 15  # idle seconds before the kernel probes a silent peer, and between probes
_KEEPALIVE_PROBES = 4


@dataclass(frozen=True)
class ConnectionBounds:
    """The four bounds of `drivable.settings` (`header_timeout_s`, `body_timeout_s`,
    `idle_timeout_s`, `max_connections`), checked once when a server starts."""

    header_timeout_s: float = 10.0
    body_timeout_s: float = 30.0
    idle_timeout_s: float = 5.0
    max_connections: int = 512

    def __post_init__(self) -> None:
        for name in ("header_timeout_s", "body_timeout_s", "idle_timeout_s"):
            value = getattr(self, name)
            if not value > 0:
                raise ValueError(f"{name} must be a positive number of seconds, not {value!r}")
        if self.max_connections < 1:
            raise ValueError(f"max_connections must be at least 1, not {self.max_connections!r}")

    @classmethod
    def from_settings(cls) -> ConnectionBounds:
        from drivable import settings

        chosen = settings.current()
        return cls(
            header_timeout_s=chosen.header_timeout_s,
            body_timeout_s=chosen.body_timeout_s,
            idle_timeout_s=chosen.idle_timeout_s,
            max_connections=chosen.max_connections,
        )


def timeout_body(phase: Phase, seconds: float) -> bytes:
    """The 408 envelope for a request whose headers or body did not arrive within `seconds`."""
    part = "headers" if phase == "headers" else "body"
    setting = "header_timeout_s" if phase == "headers" else "body_timeout_s"
    body, _ = envelope_body(
        None,
        "invalid_request",
        f"The request's {part} did not arrive within {seconds:g} s, so the connection was closed.",
        hint=(
            f"Send the whole request {part} at once, within {seconds:g} s of "
            + ("its first byte" if part == "headers" else "the end of its headers")
            + f"; the server's operator sets the bound with {setting}."
        ),
        details={"limit_s": seconds, "setting": setting},
    )
    return body


def busy_body(limit: int) -> bytes:
    body, _ = envelope_body(
        None,
        "rate_limited",
        f"This server holds its limit of {limit} connections right now.",
        hint=(
            "Retry the same request after retry_after_ms, on a new connection; close idle "
            "connections you hold. The server's operator sets the bound with max_connections."
        ),
        details={"limit_connections": limit, "setting": "max_connections"},
        retry_after_ms=RETRY_BUSY_MS,
    )
    return body


def _raw_response(status: int, reason: bytes, body: bytes, extra: bytes = b"") -> bytes:
    head = (
        b"HTTP/1.1 %d %s\r\ncontent-type: application/json\r\ncontent-length: %d\r\n"
        b"cache-control: no-store\r\nconnection: close\r\n%s\r\n"
    ) % (status, reason, len(body), extra)
    return head + body


class BoundedProtocol(H11Protocol):
    """uvicorn's h11 protocol with the connection bounds (the module docstring says which)."""

    bounds: ClassVar[ConnectionBounds | None] = None  # None: read from the settings once

    def __init__(self, config: Any, server_state: Any, app_state: Any, _loop: Any = None) -> None:
        super().__init__(config, server_state, app_state, _loop)
        cls = type(self)
        if cls.bounds is None:
            cls.bounds = ConnectionBounds.from_settings()
        self.limits: ConnectionBounds = cls.bounds
        self.timeout_keep_alive = self.limits.idle_timeout_s  # type: ignore[assignment]
        self.phase: Phase = "idle"
        self.deadline: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        _probe_silent_peers(transport)
        if len(self.connections) > self.limits.max_connections:
            self.app = _refuse_busy(self.limits.max_connections)
        self._enter("idle")

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        super().connection_lost(exc)

    def data_received(self, data: bytes) -> None:
        if self.phase == "idle":
            self._enter("headers")  # the clock of the headers starts at their first byte
        super().data_received(data)
        self._follow()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        self._follow()

    def _follow(self) -> None:
        """Move the deadline to where the request is (h11 knows how much of it arrived); a phase
        kept keeps its deadline, so each bound is on the whole part, not between bytes."""
        state = self.conn.their_state
        if self.transport.is_closing() or state in (h11.CLOSED, h11.ERROR):
            self._disarm()
            return
        answering = self.cycle is not None and not self.cycle.response_complete
        if state is h11.SEND_BODY:
            phase: Phase = "body"
        elif answering:
            phase = "answering"
        elif state is h11.IDLE and self.conn.trailing_data[0]:
            phase = "headers"  # part of the next request is in
        else:
            phase = "idle"
        if phase != self.phase:
            self._enter(phase)

    def _enter(self, phase: Phase) -> None:
        self._disarm()
        self.phase = phase
        seconds = {
            "idle": self.limits.idle_timeout_s,
            "headers": self.limits.header_timeout_s,
            "body": self.limits.body_timeout_s,
        }.get(phase)
        if seconds is not None:
            self.deadline = self.loop.call_later(seconds, self._expired, phase, seconds)

    def _disarm(self) -> None:
        if self.deadline is not None:
            self.deadline.cancel()
            self.deadline = None

    def _expired(self, phase: Phase, seconds: float) -> None:
        self.deadline = None
        if self.transport.is_closing() or phase != self.phase:
            return
        answered = phase == "body" and self.cycle is not None and self.cycle.response_started
        if phase != "idle" and not answered:
            # Written raw and then closed: the request never completed, so h11 has no response
            # to send for it, and nothing follows on this connection.
            body = timeout_body(phase, seconds)
            self.transport.write(_raw_response(408, b"Request Timeout", body))
        self.transport.close()


def _refuse_busy(limit: int) -> Any:
    body = busy_body(limit)
    retry = str(max(1, RETRY_BUSY_MS // 1000))

    async def refuse(scope: Scope, receive: Receive, send: Send) -> None:
        await send_envelope(send, 503, body, headers={"Retry-After": retry, "Connection": "close"})

    return refuse


def _probe_silent_peers(transport: asyncio.Transport) -> None:
    """Ask the kernel to probe a peer that went silent while we wait on it to read an answer."""
    sock = transport.get_extra_info("socket")
    if sock is None:
        return
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_KEEPALIVE, 1)
        for name, value in (
            ("TCP_KEEPIDLE", _KEEPALIVE_PROBE_S),
            ("TCP_KEEPINTVL", _KEEPALIVE_PROBE_S),
            ("TCP_KEEPCNT", _KEEPALIVE_PROBES),
        ):
            option = getattr(socket, name, None)
            if option is not None:
                sock.setsockopt(socket.IPPROTO_TCP, option, value)
    except OSError:
        return  # not a TCP socket (a Unix socket): nothing to probe


def bounded(bounds: ConnectionBounds) -> type[BoundedProtocol]:
    """The protocol class with `bounds` fixed (one process; workers read the settings)."""
    return type("BoundedProtocol", (BoundedProtocol,), {"bounds": bounds})
