"""The signed `requestState` of 2026-07-28 input rounds: answers so far, bound to one request.

The client echoes `requestState` back untouched, but it is attacker-controlled, so it is signed
(`drivable.signing`, purpose `round-state`) and bound to what it was issued for: the method, the
tool or prompt name, the digest of its arguments and the caller it was issued to; it expires after
`ROUND_TTL_S`. A state that fails any of these is refused with -32602 rather than read. The state
is signed, not encrypted: it carries only the client's own earlier answers, which the client
already knows.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Mapping
from typing import Any

from drivable import settings
from drivable.canonical import binding_digest, canonical_json
from drivable.signing import ROUND_STATE, Signer

ROUND_TTL_S = 600.0
_VERSION = 2


class StateRejected(Exception):
    """The echoed requestState was not issued by this server for this request (or expired)."""


def digest(arguments: Mapping[str, Any] | None) -> str:
    return binding_digest(arguments or {})


class RoundSeal:
    """Signs and verifies request states with one secret (give every worker the same one)."""

    def __init__(self, secret: bytes | None = None, *, ttl_s: float = ROUND_TTL_S) -> None:
        self._signer = Signer(secret or settings.SECRET.get() or os.urandom(32))
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
        return self._signer.sign(canonical_json(body), ROUND_STATE)

    def open(
        self,
        state: str,
        method: str,
        name: str,
        arguments: Mapping[str, Any] | None,
        principal: str = "",
    ) -> dict[str, Any]:
        """The answers carried by `state`, after every check; raises StateRejected."""
        payload = self._signer.verify(state, ROUND_STATE)
        if payload is None:
            raise StateRejected("malformed, or not signed by this server")
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
