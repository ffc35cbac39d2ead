"""Signing: one keyed MAC for every token the runtime hands a client, each under its own purpose.

A MAC is HMAC-SHA256(secret, purpose label + message), truncated to the purpose's size (RFC 2104,
section 5, allows truncation to half the output: still unforgeable, and fewer characters for a model
to copy). The labels of the purposes declared here are prefix-free (checked as each is declared),
so no message signed for one purpose is a message of another: a cursor never verifies as a confirm
token, whatever either carries. Comparisons are constant-time; base64url is read only in its one
canonical spelling, so a token altered in a character's spare bits is refused like any other.

`Signer.sign` and `Signer.verify` make and read the common token, base64url(payload) "."
base64url(MAC over the payload). A cursor signs its own text instead (`drivable.kinds.cursor`: its
label is its token prefix, and its scope follows the text), through `Signer.mac` and
`Signer.matches`. One secret at a time: no signer rotates keys.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
from dataclasses import dataclass
from typing import Final


@dataclass(frozen=True)
class Purpose:
    """What a MAC is for: a label prepended to every message, and how many bytes are kept."""

    name: str
    label: bytes
    mac_bytes: int


PURPOSES: dict[str, Purpose] = {}


def purpose(name: str, label: bytes, mac_bytes: int = 16) -> Purpose:
    """Declare a purpose; refused when its label and a declared one are prefixes of each other."""
    if not label or not 4 <= mac_bytes <= 32:
        raise ValueError("a purpose needs a non-empty label and a MAC of 4 to 32 bytes")
    for other in PURPOSES.values():
        if other.name == name or label.startswith(other.label) or other.label.startswith(label):
            raise ValueError(
                f"purpose {name!r} overlaps {other.name!r}: labels must be prefix-free"
            )
    declared = PURPOSES[name] = Purpose(name, label, mac_bytes)
    return declared


# The labels of the tokens already issued, kept byte for byte so those tokens still verify.
CURSOR: Final = purpose("cursor", b"c1.")
CONFIRM_TOKEN: Final = purpose("confirm-token", b"drivable/confirm-token/v2\x00")
CONFIRM_TAG: Final = purpose("confirm-tag", b"drivable/confirm-token/tag\x00", 8)
ROUND_STATE: Final = purpose("round-state", b"drivable/round-state/v2\x00", 32)


def b64encode(data: bytes) -> str:
    """base64url without padding."""
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def b64decode(text: str) -> bytes | None:
    """The bytes `text` spells in canonical unpadded base64url, or None for any other text."""
    try:
        data = base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
    except (binascii.Error, ValueError):
        return None
    return data if b64encode(data) == text else None


def equal(a: bytes, b: bytes) -> bool:
    """`a == b` in time that does not depend on where they differ (for MACs, tags and digests)."""
    return hmac.compare_digest(a, b)


class Signer:
    """MACs under one secret (give every process that serves the same tools the same one)."""

    __slots__ = ("_keyed",)

    def __init__(self, secret: bytes) -> None:
        if not secret:
            raise ValueError("signing needs a non-empty secret")
        self._keyed = hmac.new(secret, digestmod=hashlib.sha256)

    def mac(self, purpose: Purpose, message: bytes) -> bytes:
        keyed = self._keyed.copy()
        keyed.update(purpose.label)
        keyed.update(message)
        return keyed.digest()[: purpose.mac_bytes]

    def matches(self, purpose: Purpose, message: bytes, mac: bytes) -> bool:
        """`mac` is the MAC of `message` for `purpose` (compared in constant time)."""
        return equal(mac, self.mac(purpose, message))

    def sign(self, payload: bytes, purpose: Purpose) -> str:
        """base64url(payload) "." base64url(MAC): ASCII, no padding, no other separator."""
        return f"{b64encode(payload)}.{b64encode(self.mac(purpose, payload))}"

    def verify(self, token: str, purpose: Purpose) -> bytes | None:
        """The payload of a token `sign` made for `purpose` with this secret, else None."""
        if not isinstance(token, str) or not token.isascii():
            return None
        encoded, dot, signature = token.partition(".")
        payload, mac = b64decode(encoded), b64decode(signature)
        if not dot or payload is None or mac is None:
            return None
        return payload if self.matches(purpose, payload, mac) else None


__all__ = [
    "CONFIRM_TAG",
    "CONFIRM_TOKEN",
    "CURSOR",
    "PURPOSES",
    "ROUND_STATE",
    "Purpose",
    "Signer",
    "b64decode",
    "b64encode",
    "equal",
    "purpose",
]
