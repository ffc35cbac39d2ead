"""The signed `requestState` of 2026-07-28 input rounds: answers so far, bound to one request.

The client echoes `requestState` back untouched, but it is attacker-controlled, so it is signed
(HMAC-SHA256) and bound to what it was issued for: the method, the tool or prompt name, the
digest of its arguments and the caller it was issued to; it expires after `ROUND_TTL_S`. A state that fails any of these is
refused with -32602 rather than read. The state is signed, not encrypted: it carries only the
client's own earlier answers, which the client already knows.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import os
import time
from collections.abc import Mapping
from typing import Any

ROUND_TTL_S = 600.0
_VERSION = 1


class StateRejected(Exception):
    """The echoed requestState was not issued by this server for this request (or expired)."""


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).decode("ascii").rstrip("=")


def _unb64(text: str) -> bytes:
    """The bytes of `text`, which must be their one canonical spelling: base64 leaves spare bits in
    a last character, and a state altered there must be refused like any other change."""
    data = base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
    if _b64(data) != text:
        raise ValueError("not the canonical encoding")
    return data


def digest(arguments: Mapping[str, Any] | None) -> str:
    canonical = json.dumps(arguments or {}, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(canonical.encode()).hexdigest()[:32]


class RoundSeal:
    """Signs and verifies request states with one secret (give every worker the same one)."""

    def __init__(self, secret: bytes | None = None, *, ttl_s: float = ROUND_TTL_S) -> None:
        env = os.environ.get("DRIVABLE_SECRET", "").encode()
        self._key = hashlib.sha256(
            b"drivable.rounds\0" + (secret or env or os.urandom(32))
        ).digest()
        self.ttl_s = ttl_s

    def seal(
        self,
        method: str,
        name: str,
        arguments: Mapping[str, Any] | None,
        answers: Mapping[str, Any],
        principal: str = "",
    ) -> str:
        body = {
            "v": _VERSION,
            "m": method,
            "n": name,
            "a": digest(arguments),
            "p": principal,
            "x": int(time.time() + self.ttl_s),
            "r": dict(answers),
        }
        payload = json.dumps(body, separators=(",", ":"), ensure_ascii=False).encode()
        tag = hmac.new(self._key, payload, hashlib.sha256).digest()
        return f"{_b64(payload)}.{_b64(tag)}"

    def open(
        self,
        state: str,
        method: str,
        name: str,
        arguments: Mapping[str, Any] | None,
        principal: str = "",
    ) -> dict[str, Any]:
        """The answers carried by `state`, after every check; raises StateRejected."""
        try:
            encoded, _, tag = state.partition(".")
            payload = _unb64(encoded)
            good = hmac.compare_digest(
                _unb64(tag), hmac.new(self._key, payload, hashlib.sha256).digest()
            )
        except (ValueError, TypeError):
            raise StateRejected("malformed") from None
        if not good:
            raise StateRejected("signature")
        body = json.loads(payload)
        if body.get("v") != _VERSION or body.get("m") != method or body.get("n") != name:
            raise StateRejected("issued for another request")
        if body.get("a") != digest(arguments):
            raise StateRejected("issued for other arguments")
        if body.get("p") != principal:
            raise StateRejected("issued to another caller")
        if float(body.get("x", 0)) < time.time():
            raise StateRejected("expired")
        answers = body.get("r")
        if not isinstance(answers, dict):
            raise StateRejected("malformed")
        return answers
