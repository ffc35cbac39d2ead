"""HTTP bearer-token authentication: who calls, and with which scopes.

The server author implements `TokenVerifier` (`verify(token) -> Principal | None`; None for an
unknown, malformed or expired token) or uses `StaticTokenVerifier` (a table of tokens, for tests and
small deployments). `BearerAuth` is the ASGI layer in front of the MCP endpoint:

- no `Authorization` header: HTTP 401, envelope `unauthenticated`;
- a credential that does not verify (unknown, expired, not a bearer token): HTTP 401, envelope
  `invalid_credentials`;
- a verified credential: the `Principal` rides in the ASGI scope under `drivable.principal`, where
  `drivable.serve.results.principal_of` finds it, and the runtime refuses a tool whose scopes the
  principal lacks with the tool-level envelope `insufficient_scope` naming the missing scopes.

Both 401 bodies are the pinned envelope (JSON) with a `WWW-Authenticate` header (RFC 6750). Nothing
of the token is ever logged or echoed.
"""

from __future__ import annotations

import datetime
import hashlib
import json
import logging
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

from starlette.types import ASGIApp, Receive, Scope, Send

from drivable import settings
from drivable.contract import ERROR_CODES, Contract, Envelope, Principal, boundary
from drivable.contract.finish import finish, request_id
from drivable.serve.results import PRINCIPAL_KEY
from drivable.signing import equal

log = logging.getLogger("drivable.serve.auth")


@runtime_checkable
class TokenVerifier(Protocol):
    """Turns a bearer token into the principal it stands for, or None when it does not verify.

    Return None for an unknown, revoked, malformed or expired token; never raise for a bad token
    (an exception is an outage of the verifier, answered as `internal_error`).
    """

    async def verify(self, token: str) -> Principal | None: ...


@dataclass(frozen=True)
class StaticToken:
    """One entry of a static token table: who the token is, what it may do, until when."""

    principal: str
    scopes: frozenset[str] = frozenset()
    expires_at: datetime.datetime | None = None  # aware; None: never expires


def _digest(token: str) -> bytes:
    return hashlib.sha256(token.encode("utf-8")).digest()


class StaticTokenVerifier:
    """A fixed table of tokens (tests, single-team deployments).

    Tokens are kept only as SHA-256 digests; a lookup compares digests in constant time.
    """

    def __init__(
        self,
        tokens: Mapping[str, StaticToken],
        *,
        clock: Callable[[], datetime.datetime] | None = None,
    ) -> None:
        self._entries: list[tuple[bytes, StaticToken]] = [
            (_digest(token), entry) for token, entry in tokens.items()
        ]
        self._clock = clock or (lambda: datetime.datetime.now(datetime.UTC))

    @classmethod
    def of(
        cls,
        table: Mapping[
            str, tuple[str, Iterable[str]] | tuple[str, Iterable[str], datetime.datetime]
        ],
    ) -> StaticTokenVerifier:
        """`{token: (principal, scopes)}` or `{token: (principal, scopes, expires_at)}`."""
        tokens: dict[str, StaticToken] = {}
        for token, row in table.items():
            expires = row[2] if len(row) == 3 else None
            tokens[token] = StaticToken(row[0], frozenset(row[1]), expires)
        return cls(tokens)

    async def verify(self, token: str) -> Principal | None:
        digest = _digest(token)
        found: StaticToken | None = None
        for known, entry in self._entries:  # no early exit: every entry is compared
            if equal(known, digest):
                found = entry
        if found is None:
            return None
        if found.expires_at is not None and self._clock() >= found.expires_at:
            return None
        return Principal(id=found.principal, scopes=found.scopes)


def envelope_body(
    contract: Contract | None,
    code: str,
    message: str,
    hint: str,
    *,
    details: Mapping[str, Any] | None = None,
    retry_after_ms: int | None = None,
) -> tuple[bytes, str]:
    """The pinned envelope for a transport-level refusal (JSON bytes) and its request id."""
    rid = request_id()
    envelope = finish(
        Envelope(
            code, message, hint=hint, details=dict(details or {}), retry_after_ms=retry_after_ms
        ),
        request_id=rid,
        codes=contract.codes if contract is not None else ERROR_CODES,
        fingerprint=contract.fingerprint if contract is not None else None,
    )
    body = json.dumps(envelope.to_dict(), ensure_ascii=False, separators=(",", ":"))
    return body.encode("utf-8"), rid


async def send_envelope(
    send: Send,
    status: int,
    body: bytes,
    *,
    headers: Mapping[str, str] | None = None,
) -> None:
    raw_headers = [
        (b"content-type", b"application/json"),
        (b"content-length", str(len(body)).encode("ascii")),
        (b"cache-control", b"no-store"),
    ]
    for key, value in (headers or {}).items():
        raw_headers.append((key.lower().encode("latin-1"), value.encode("latin-1")))
    await send({"type": "http.response.start", "status": status, "headers": raw_headers})
    await send({"type": "http.response.body", "body": body})


def _header(scope: Scope, name: bytes) -> str | None:
    for key, value in scope.get("headers", ()):
        if key.lower() == name:
            return bytes(value).decode("latin-1")
    return None


class BearerAuth:
    """ASGI middleware: verify the bearer token, record the principal, refuse with the envelope."""

    def __init__(
        self,
        app: ASGIApp,
        verifier: TokenVerifier,
        *,
        contract: Contract | None = None,
        realm: str | None = None,
    ) -> None:
        self.app = app
        self.verifier = verifier
        self.contract = contract
        self.realm = realm or (contract.name if contract is not None else "mcp")

    def _where(self) -> str:
        url = self.contract.settings_url if self.contract is not None else None
        return f" A person can issue one at {url}." if url else ""

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        header = _header(scope, b"authorization")
        if header is None or not header.strip():
            body, _ = envelope_body(
                self.contract,
                "unauthenticated",
                "This server needs a bearer token and none was sent.",
                hint=(
                    "Stop and ask the user to configure a bearer token for this server "
                    f"(sent as 'Authorization: Bearer <token>').{self._where()}"
                ),
            )
            challenge = f'Bearer realm="{self.realm}"'
            await send_envelope(send, 401, body, headers={"WWW-Authenticate": challenge})
            return
        scheme, _, token = header.strip().partition(" ")
        token = token.strip()
        principal: Principal | None = None
        if scheme.lower() == "bearer" and token:
            try:
                principal = await self.verifier.verify(token)
            except Exception:
                body, rid = envelope_body(
                    self.contract,
                    "internal_error",
                    "The credential could not be checked: the server failed unexpectedly.",
                    hint="Retry once; if it fails again, stop and tell the user, quoting request_id.",
                )
                boundary.log_failure(log, "token verifier failed (request_id=%s)", rid)
                await send_envelope(send, 500, body)
                return
        if principal is None:
            body, _ = envelope_body(
                self.contract,
                "invalid_credentials",
                "The bearer token sent is not valid: it is unknown, malformed or expired.",
                hint=(
                    "Stop and ask the user to renew the bearer token for this server; retrying "
                    f"with the same token will fail the same way.{self._where()}"
                ),
            )
            challenge = (
                f'Bearer realm="{self.realm}", error="invalid_token", '
                'error_description="The access token is invalid or expired"'
            )
            await send_envelope(send, 401, body, headers={"WWW-Authenticate": challenge})
            return
        scope = dict(scope)
        scope[PRINCIPAL_KEY] = principal
        await self.app(scope, receive, send)


TOKENS_ENV = settings.TOKENS.name


def env_verifier() -> StaticTokenVerifier:
    """A static table from the environment: `--verifier drivable.serve.auth:env_verifier`.

    DRIVABLE_TOKENS holds JSON `{"<token>": {"principal": "alice", "scopes": ["billing:read"]}}`;
    every worker process reads the same table. An empty or absent table verifies no token.
    """
    raw = settings.TOKENS.get()
    table = json.loads(raw) if raw else {}
    if not isinstance(table, dict):
        raise ValueError(f"{TOKENS_ENV} must be a JSON object of token: {{principal, scopes}}")
    tokens = {
        str(token): StaticToken(str(row["principal"]), frozenset(map(str, row.get("scopes", ()))))
        for token, row in table.items()
    }
    return StaticTokenVerifier(tokens)
