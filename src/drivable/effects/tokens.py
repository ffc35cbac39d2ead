"""Confirm tokens for two-step destructive actions.

A dry run issues a token bound to the tool, the digest of the canonical arguments and the
principal; the real run redeems it. A token is ``ct2.<payload>.<mac>`` (base64url, no padding),
70 characters: a model copies it back into its next call, and a 290-character token made a
correct call longer than a small model's reply limit. The payload is 32 bytes: the expiry (uint32
seconds), a 64-bit nonce, and keyed tags of the bindings (32 bits of the tool, 64 of the
principal, 64 of the argument digest; keyed, so neither the principal nor the arguments are
readable or computable from the token). The MAC is `drivable.signing`'s (purpose `confirm-token`,
128 bits; the tags under `confirm-tag`): any changed character is forged. The verifier is given
the tool, the digest and the principal and compares their tags, so each refusal still says which
binding differs. Redemption records the nonce in the effect store, so a token confirms one call, across
processes.
"""

from __future__ import annotations

import secrets
import struct
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Final

from drivable.effects.outcomes import Refusal, RefusalReason, StoreUnavailable
from drivable.effects.protocol import EffectStore
from drivable.effects.transaction import Transaction
from drivable.signing import CONFIRM_TAG, CONFIRM_TOKEN, Signer, equal

DEFAULT_TTL_S: Final = 600.0
_PREFIX: Final = "ct2"
_MAX_TOKEN_CHARS: Final = 2048
# payload layout: exp (4) | nonce (8) | tool tag (4) | principal tag (8) | digest tag (8)
_LAYOUT: Final = struct.Struct(">I8s4s8s8s")


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
        self._signer = Signer(secret)
        self._store = store
        self.ttl_s = ttl_s
        self._clock = clock

    def _tag(self, kind: bytes, value: str, size: int) -> bytes:
        return self._signer.mac(CONFIRM_TAG, kind + b"\x00" + value.encode("utf-8"))[:size]

    def issue(self, tool: str, digest: str, principal: str) -> str:
        """A fresh token for this exact call (``digest`` = ``arguments_digest(args)``)."""
        payload = _LAYOUT.pack(
            int(self._clock() + self.ttl_s),
            secrets.token_bytes(8),
            self._tag(b"tool", tool, 4),
            self._tag(b"sub", principal, 8),
            self._tag(b"args", digest, 8),
        )
        return f"{_PREFIX}.{self._signer.sign(payload, CONFIRM_TOKEN)}"

    def verify(
        self, token: str | None, tool: str, digest: str | None, principal: str
    ) -> TokenClaims | Refusal:
        """Everything but single use: signature, expiry and the bindings. ``digest=None`` checks
        all but the arguments: an early refusal for a call whose arguments the handler has still
        to settle (it is redeemed with the digest once they are)."""
        if token is None or token == "":
            return Refusal(RefusalReason.MISSING)
        fields = self._decode(token)
        if fields is None:
            return Refusal(RefusalReason.FORGED)
        expires_at, nonce, tool_tag, sub_tag, args_tag = fields
        if expires_at <= self._clock():
            return Refusal(RefusalReason.EXPIRED)
        if not equal(tool_tag, self._tag(b"tool", tool, 4)):
            return Refusal(RefusalReason.OTHER_TOOL)
        if not equal(sub_tag, self._tag(b"sub", principal, 8)):
            return Refusal(RefusalReason.OTHER_PRINCIPAL)
        if digest is not None and not equal(args_tag, self._tag(b"args", digest, 8)):
            return Refusal(RefusalReason.OTHER_ARGUMENTS)
        return TokenClaims(
            tool=tool,
            digest=digest or "",
            subject=sub_tag.hex(),
            expires_at=expires_at,
            nonce=nonce,
        )

    def _decode(self, token: str) -> tuple[int, str, bytes, bytes, bytes] | None:
        if not isinstance(token, str) or len(token) > _MAX_TOKEN_CHARS or not token.isascii():
            return None
        prefix, _, signed = token.partition(".")
        payload = self._signer.verify(signed, CONFIRM_TOKEN) if prefix == _PREFIX else None
        if payload is None or len(payload) != _LAYOUT.size:
            return None
        expires_at, nonce, tool_tag, sub_tag, args_tag = _LAYOUT.unpack(payload)
        return int(expires_at), nonce.hex(), tool_tag, sub_tag, args_tag

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
