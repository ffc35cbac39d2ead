"""Streamable HTTP: a contract served by uvicorn, stateless, in both protocol eras.

The app is the SDK's streamable HTTP app in stateless mode (so several worker processes can serve one
endpoint: no session lives in a process), with drivable's layers in front of it, outermost first:

1. the fingerprint is computed at startup (lifespan), as stdio does;
2. bearer authentication when a `TokenVerifier` is given (`drivable.serve.auth`); without one the
   caller is anonymous and holds only the scopes of read-only tools, and a contract with tools
   that change data refuses to be served at all unless `insecure=True` says so;
3. the request body is bounded before anything parses it: a body over the limit is answered 413 with
   the envelope `payload_too_large` (by its declared Content-Length at once, else while it streams);
4. the SDK's transport, which keeps DNS-rebinding protection (Host and Origin checks) for a server
   bound to a loopback address.

`run_http` serves a contract object (one worker) or an import path `module:attr` naming a contract
or a function returning one (any number of workers).
"""

from __future__ import annotations

import importlib
import logging
from contextlib import AsyncExitStack
from typing import Any

import uvicorn
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from drivable import settings
from drivable.contract import Contract, Principal
from drivable.contract.lifespan import LifespanError
from drivable.serve.auth import BearerAuth, TokenVerifier, envelope_body, send_envelope
from drivable.serve.connections import BoundedProtocol, ConnectionBounds, bounded
from drivable.serve.events import RETRY_MS, MemoryEventStore
from drivable.serve.guards import StreamBounds, StructuredRefusals, TransportChecks
from drivable.serve.mount import build_server, compute_fingerprint
from drivable.serve.results import PRINCIPAL_KEY

DEFAULT_PATH = "/mcp"
LOOPBACK = frozenset({"127.0.0.1", "localhost", "::1"})
# A request body carries the arguments plus the JSON-RPC envelope and `_meta`: the inline bound of
# the arguments plus this much room. Arguments over the inline bound but within the body bound reach
# the runtime, which refuses them with the same code and the tool's name.
ENVELOPE_ROOM_BYTES = 64 * 1024
DRAIN_BYTES = 4 * 1024 * 1024

log = logging.getLogger("drivable.serve.http")


def body_limit(contract: Contract) -> int:
    return contract.max_inline_bytes + ENVELOPE_ROOM_BYTES


async def _discard(receive: Receive, budget: int) -> None:
    """Read and drop the rest of a request body, at most `budget` bytes."""
    while budget > 0:
        message = await receive()
        if message["type"] != "http.request":
            return
        budget -= len(message.get("body", b""))
        if not message.get("more_body", False):
            return


class BodyLimit:
    """Refuse a request body over `limit` bytes before the app reads it, with the envelope."""

    def __init__(self, app: ASGIApp, limit: int, contract: Contract | None = None) -> None:
        self.app = app
        self.limit = limit
        self.contract = contract
        # A client sending a body does not read the answer until it has sent it all: closing on
        # it mid-send loses the 413. Up to this much is read and dropped (never kept) first.
        self.drain_limit = max(4 * limit, DRAIN_BYTES)

    async def _refuse(self, send: Send, received: int | None) -> None:
        details: dict[str, Any] = {"limit_bytes": self.limit, "setting": "max_body_bytes"}
        if received is not None:
            details["received_bytes"] = received
        size = f"{received} bytes" if received is not None else "larger than the limit"
        body, _ = envelope_body(
            self.contract,
            "payload_too_large",
            f"The request body is {size}; this server accepts at most {self.limit} bytes.",
            hint=(
                "Pass a reference instead of inline content: the id or URI of something already "
                "stored, as the tool's description says. The server's operator can raise the "
                "bound with --max-body-bytes (DRIVABLE_MAX_BODY_BYTES)."
            ),
            details=details,
        )
        await send_envelope(send, 413, body, headers={"Connection": "close"})

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared: int | None = None
        for key, value in scope.get("headers", ()):
            if key.lower() == b"content-length":
                try:
                    declared = int(value)
                except ValueError:
                    declared = None
        if declared is not None and declared > self.limit:
            if declared <= self.drain_limit:
                await _discard(receive, self.drain_limit)
            await self._refuse(send, declared)
            return
        chunks: list[bytes] = []
        size = 0
        pending: list[Message] = []
        while True:
            message = await receive()
            if message["type"] != "http.request":
                pending.append(message)
                break
            body = message.get("body", b"")
            size += len(body)
            if size > self.limit:
                if message.get("more_body", False):
                    await _discard(receive, self.drain_limit - size)
                await self._refuse(send, None)
                return
            chunks.append(body)
            if not message.get("more_body", False):
                break
        replay: list[Message] = [
            {"type": "http.request", "body": b"".join(chunks), "more_body": False}
        ]
        replay.extend(pending)

        async def replayed() -> Message:
            # After the buffered body, hand through what the server sends next: the
            # `http.disconnect` that cancels a long call when the client gives up.
            if replay:
                return replay.pop(0)
            return await receive()

        await self.app(scope, replayed, send)


ANONYMOUS = Principal(id="anonymous", scopes=frozenset())


INSECURE = Principal(id="anonymous", scopes=None)


class Anonymous:
    """Without a verifier, an HTTP caller is anonymous and holds only `public` scopes.

    `build_app` makes the scopes of read-only tools public (nobody checks tokens, so reads are
    open); a tool that changes anything is refused with `insufficient_scope` rather than opened
    to the network (stdio's local user keeps every scope). Only a server started with
    `insecure=True` hands every anonymous caller every scope.
    """

    def __init__(
        self, app: ASGIApp, *, insecure: bool = False, public: frozenset[str] = frozenset()
    ) -> None:
        self.app = app
        self.principal = INSECURE if insecure else Principal(id="anonymous", scopes=public)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            scope = dict(scope)
            scope[PRINCIPAL_KEY] = self.principal
        await self.app(scope, receive, send)


class InsecureServingError(RuntimeError):
    """Mutating tools over HTTP with nobody checking who calls."""


def check_access(contract: Contract, verifier: object | None, insecure: bool) -> None:
    """Refuse to serve tools that change anything over HTTP without a verifier, unless asked to."""
    if verifier is not None or insecure:
        return
    mutating = sorted(n for n, spec in contract.tools.items() if not spec.effects.read_only)
    if mutating:
        raise InsecureServingError(
            f"{contract.name} has tools that change data ({', '.join(mutating)}) and no token "
            "verifier: pass --verifier MODULE:ATTR (a TokenVerifier), or --insecure to let any "
            "caller on the network use every tool."
        )


class Fingerprinted:
    """Open the contract's lifespan and compute its fingerprint when the server starts, before
    it answers anything; close the lifespan when it stops. A lifespan that fails to open fails
    the startup with its one line (uvicorn exits), never a trace a client sees."""

    def __init__(self, app: ASGIApp, contract: Contract) -> None:
        self.app = app
        self.contract = contract

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "lifespan":
            await self.app(scope, receive, send)
            return
        async with AsyncExitStack() as held:

            async def on_startup() -> Message:
                message = await receive()
                if message["type"] == "lifespan.startup":
                    await held.enter_async_context(self.contract.started())
                    if self.contract.fingerprint is None:
                        await self.contract.prepare()
                        await compute_fingerprint(self.contract)
                elif message["type"] == "lifespan.shutdown":
                    await held.aclose()
                return message

            try:
                await self.app(scope, on_startup, send)
            except LifespanError as failed:
                await send({"type": "lifespan.startup.failed", "message": str(failed)})


def build_app(
    contract: Contract,
    *,
    host: str = "127.0.0.1",
    verifier: TokenVerifier | None = None,
    max_body_bytes: int | None = None,
    path: str = DEFAULT_PATH,
    sessions: bool = False,
    insecure: bool = False,
) -> ASGIApp:
    """The ASGI app serving `contract` at `path` (streamable HTTP, both eras).

    Stateless by default, so any number of worker processes can serve it. `sessions=True` keeps
    handshake-era sessions in this process (one worker only): a handshake-era client's
    `notifications/cancelled` then reaches its running call, which a stateless server cannot tie
    to anything, server-to-client requests (elicitation, sampling, roots) have a stream to ride,
    and each POST stream is resumable (`drivable.serve.events`). 2026-07-28 requests are
    stateless either way (they cancel by closing the stream).
    """
    check_access(contract, verifier, insecure)
    limit = max_body_bytes or body_limit(contract)
    server = build_server(contract)
    # Passing the bind host lets the SDK switch DNS-rebinding protection on for loopback hosts.
    # Sessions also get resumable streams (priming event, ids, Last-Event-ID replay).
    resumable = {"event_store": MemoryEventStore(), "retry_interval": RETRY_MS} if sessions else {}
    app: ASGIApp = server.streamable_http_app(
        streamable_http_path=path,
        stateless_http=not sessions,
        host=host,
        max_request_body_size=limit,
        **resumable,  # type: ignore[arg-type]
    )
    app = StructuredRefusals(app)
    app = BodyLimit(app, limit, contract)
    if sessions:
        app = StreamBounds(app)
    app = TransportChecks(app, path=path, sessions=sessions)
    if verifier is None:
        public = frozenset(
            s for spec in contract.tools.values() if spec.effects.read_only for s in spec.scopes
        )
        app = Anonymous(app, insecure=insecure, public=public)
    else:
        app = BearerAuth(app, verifier, contract=contract)
    return Fingerprinted(app, contract)


def load(path: str) -> Any:
    """Import `module:attr` (attr may be dotted); call it when it is a function returning the object."""
    module_name, sep, attr = path.rpartition(":")
    if not sep or not module_name or not attr:
        raise ValueError(f"expected MODULE:ATTR (or FILE.py:ATTR), got {path!r}")
    found: Any = _import(module_name)
    for part in attr.split("."):
        found = getattr(found, part)
    return found


def _import(name: str) -> Any:
    """A module by its dotted name, or a source file by its path (`examples/app.py`)."""
    if not name.endswith(".py"):
        return importlib.import_module(name)
    import sys
    from importlib.util import module_from_spec, spec_from_file_location
    from pathlib import Path

    file = Path(name).resolve()
    if not file.is_file():
        raise FileNotFoundError(f"no file {name}")
    module_name = f"_drivable_target_{file.stem}"
    if module_name in sys.modules:
        return sys.modules[module_name]
    spec = spec_from_file_location(module_name, file)
    assert spec is not None and spec.loader is not None
    module = module_from_spec(spec)
    sys.modules[module_name] = module  # before running it: pydantic resolves names through it
    spec.loader.exec_module(module)
    return module


def load_contract(path: str) -> Contract:
    found = load(path)
    if not isinstance(found, Contract) and callable(found):
        found = found()
    if not isinstance(found, Contract):
        raise TypeError(f"{path} is not a drivable Contract (nor a function returning one)")
    return found


def load_verifier(path: str) -> TokenVerifier:
    found = load(path)
    if not isinstance(found, TokenVerifier) and callable(found):
        found = found()
    if not isinstance(found, TokenVerifier):
        raise TypeError(f"{path} is not a TokenVerifier (nor a function returning one)")
    return found


def app_from_env() -> ASGIApp:
    """The app factory each uvicorn worker process calls (the contract named by the environment)."""
    verifier_path = settings.HTTP_VERIFIER.get()
    return build_app(
        load_contract(settings.HTTP_CONTRACT.require()),
        host=settings.HTTP_HOST.get() or "127.0.0.1",
        verifier=load_verifier(verifier_path) if verifier_path else None,
        max_body_bytes=settings.HTTP_MAX_BODY.get(),
        insecure=bool(settings.HTTP_INSECURE.get()),
    )


def run_http(
    target: Contract | str,
    host: str = "127.0.0.1",
    port: int = 8000,
    workers: int = 1,
    *,
    verifier: TokenVerifier | str | None = None,
    max_body_bytes: int | None = None,
    log_level: str = "warning",
    sessions: bool = False,
    insecure: bool = False,
    log_config: dict[str, Any] | None = None,
    worker_timeout_s: int = 60,
    bounds: ConnectionBounds | None = None,
) -> None:
    """Serve `target` over streamable HTTP at http://host:port/mcp until interrupted.

    `target` is a Contract, or `module:attr` naming one (or a function returning one). Several
    `workers` need the import path form (each worker process imports the contract itself), and a
    verifier, if any, as an import path too. Every connection is bounded (`bounds`, else the
    settings: `drivable.serve.connections`).
    """
    if workers < 1:
        raise ValueError("workers must be at least 1")
    # uvicorn's own logging set-up unless the caller brings one (`serve` does: worker notices).
    logging_options: dict[str, Any] = {} if log_config is None else {"log_config": log_config}
    if sessions and workers != 1:
        raise ValueError("sessions live in one process: use one worker, or no sessions")
    if host not in LOOPBACK:
        # The SDK keeps DNS-rebinding protection for loopback binds only.
        log.warning(
            "serving on %s: not a loopback address, so no DNS-rebinding protection%s",
            host,
            "" if verifier is not None else ", and no bearer authentication",
        )
    if workers == 1:
        contract = load_contract(target) if isinstance(target, str) else target
        chosen = load_verifier(verifier) if isinstance(verifier, str) else verifier
        app = build_app(
            contract,
            host=host,
            verifier=chosen,
            max_body_bytes=max_body_bytes,
            sessions=sessions,
            insecure=insecure,
        )
        config = uvicorn.Config(
            app,
            host=host,
            port=port,
            log_level=log_level,
            lifespan="on",
            http=bounded(bounds or ConnectionBounds.from_settings()),
            **logging_options,
        )
        uvicorn.Server(config).run()
        return
    if not isinstance(target, str):
        raise ValueError("several workers need the contract as an import path MODULE:ATTR")
    if verifier is not None and not isinstance(verifier, str):
        raise ValueError("several workers need the verifier as an import path MODULE:ATTR")
    # Fail here, in the parent, rather than in every worker.
    check_access(load_contract(target), load_verifier(verifier) if verifier else None, insecure)
    if insecure:
        settings.HTTP_INSECURE.hand_down("1")
    settings.HTTP_CONTRACT.hand_down(target)
    settings.HTTP_HOST.hand_down(host)
    if verifier is not None:
        settings.HTTP_VERIFIER.hand_down(verifier)
    if max_body_bytes is not None:
        settings.HTTP_MAX_BODY.hand_down(str(max_body_bytes))
    if bounds is not None:  # each worker's protocol reads its bounds from the settings
        for key, value in bounds.__dict__.items():
            settings.hand_down(key, value)
    uvicorn.run(
        "drivable.serve.http:app_from_env",
        factory=True,
        host=host,
        port=port,
        workers=workers,
        log_level=log_level,
        lifespan="on",
        http=f"{BoundedProtocol.__module__}:{BoundedProtocol.__name__}",
        timeout_worker_healthcheck=worker_timeout_s,
        **logging_options,
    )
