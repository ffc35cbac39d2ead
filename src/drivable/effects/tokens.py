"""Confirm tokens for two-step destructive actions.

A dry run issues a token bound to the tool, the digest of the canonical arguments and the
principal; the real run redeems it. A token is ``ct1.<payload>.<mac>`` (base64url, no padding):
the payload is JSON ``{"tool", "args", "sub", "exp", "nonce"}`` where ``sub`` is a keyed hash of
the principal (the principal's name is not readable from the token) and the MAC is HMAC-SHA256
over the payload bytes. Redemption records the nonce in the effect store, so a token confirms one
call, across processes.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import json
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Final

from drivable.effects.outcomes import Refusal, RefusalReason, StoreUnavailable
from drivable.effects.store import EffectStore, Transaction

DEFAULT_TTL_S: Final = 600.0
_PREFIX: Final = "ct1"
_MAC_CONTEXT: Final = b"drivable/confirm-token/v1\x00"
_SUB_CONTEXT: Final = b"drivable/confirm-token/principal\x00"
_MAX_TOKEN_CHARS: Final = 2048


def _b64encode(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def _b64decode(text: str) -> bytes | None:
    try:
        data = base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
    except (binascii.Error, ValueError):
        return None
    # Only the canonical spelling is accepted: no alias decodes to the same bytes.
    return data if _b64encode(data) == text else None


@dataclass(frozen=True, slots=True)
class TokenClaims:
    tool: str
    digest: str
    subject: str
    expires_at: int
    nonce: str


class ConfirmTokens:
    """Issue and redeem single-use confirm tokens.

    ``secret`` signs the tokens (at least 16 bytes; keep it stable across the processes that
    serve the same tools). ``store`` records redeemed nonces."""

    def __init__(
        self,
        secret: bytes,
        *,
        store: EffectStore,
        ttl_s: float = DEFAULT_TTL_S,
        clock: Callable[[], float] = time.time,
    ) -> None:
        if len(secret) < 16:
            raise ValueError("a confirm-token secret needs at least 16 bytes")
        self._secret = secret
        self._store = store
        self.ttl_s = ttl_s
        self._clock = clock

    def _subject(self, principal: str) -> str:
        mac = hmac.new(self._secret, _SUB_CONTEXT + principal.encode("utf-8"), hashlib.sha256)
        return mac.hexdigest()[:32]

    def _mac(self, payload: bytes) -> bytes:
        return hmac.new(self._secret, _MAC_CONTEXT + payload, hashlib.sha256).digest()

    def issue(self, tool: str, digest: str, principal: str) -> str:
        """A fresh token for this exact call (``digest`` = ``arguments_digest(args)``)."""
        claims = {
            "tool": tool,
            "args": digest,
            "sub": self._subject(principal),
            "exp": int(self._clock() + self.ttl_s),
            "nonce": secrets.token_hex(16),
        }
        payload = json.dumps(claims, sort_keys=True, separators=(",", ":")).encode("utf-8")
        return f"{_PREFIX}.{_b64encode(payload)}.{_b64encode(self._mac(payload))}"

    def verify(
        self, token: str | None, tool: str, digest: str, principal: str
    ) -> TokenClaims | Refusal:
        """Everything but single use: signature, expiry and the bindings."""
        if token is None or token == "":
            return Refusal(RefusalReason.MISSING)
        claims = self._decode(token)
        if claims is None:
            return Refusal(RefusalReason.FORGED)
        if claims.expires_at <= self._clock():
            return Refusal(RefusalReason.EXPIRED)
        if claims.tool != tool:  # tool names are public
            return Refusal(RefusalReason.OTHER_TOOL)
        if not hmac.compare_digest(claims.subject.encode(), self._subject(principal).encode()):
            return Refusal(RefusalReason.OTHER_PRINCIPAL)
        if not hmac.compare_digest(claims.digest.encode(), digest.encode()):
            return Refusal(RefusalReason.OTHER_ARGUMENTS)
        return claims

    def _decode(self, token: str) -> TokenClaims | None:
        if not isinstance(token, str) or len(token) > _MAX_TOKEN_CHARS or not token.isascii():
            return None
        parts = token.split(".")
        if len(parts) != 3 or parts[0] != _PREFIX:
            return None
        payload = _b64decode(parts[1])
        mac = _b64decode(parts[2])
        if payload is None or mac is None:
            return None
        if not hmac.compare_digest(mac, self._mac(payload)):
            return None
        try:
            raw: Any = json.loads(payload)
        except ValueError:
            return None
        if not isinstance(raw, dict):
            return None
        tool, args, sub, exp, nonce = (raw.get(k) for k in ("tool", "args", "sub", "exp", "nonce"))
        if not (
            isinstance(tool, str)
            and isinstance(args, str)
            and isinstance(sub, str)
            and isinstance(exp, int)
            and isinstance(nonce, str)
        ):
            return None
        return TokenClaims(tool=tool, digest=args, subject=sub, expires_at=exp, nonce=nonce)

    async def redeem(
        self,
        token: str | None,
        tool: str,
        digest: str,
        principal: str,
        *,
        transaction: Transaction | None = None,
    ) -> Refusal | StoreUnavailable | None:
        """None when the token confirms this call (and is now spent); otherwise why not.

        Pass the effect's ``transaction`` to spend the token only if the effect commits."""
        claims = self.verify(token, tool, digest, principal)
        if isinstance(claims, Refusal):
            return claims
        # Keep the nonce a little past expiry so that purging never reopens a live token.
        used = await self._store.use_nonce(
            claims.nonce, claims.expires_at + 60.0, transaction=transaction
        )
        if isinstance(used, StoreUnavailable):
            return used
        return None if used else Refusal(RefusalReason.REUSED)
