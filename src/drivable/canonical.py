"""Canonical JSON: the one spelling of a value that is hashed, signed or compared as bytes.

Keys sorted, no whitespace, UTF-8. Non-finite numbers are written as Python's json writes them
(NaN, Infinity): values that came over the wire may hold them (the SDK's parser accepts them), and
a digest or a stored copy must not fail on what it was given; a caller that must refuse them (an
idempotency key's arguments, `drivable.effects.canonical`) refuses them when it normalises.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

_SEPARATORS = (",", ":")


def canonical_json(value: Any) -> bytes:
    """The canonical bytes of a JSON value; raises TypeError on a value JSON cannot carry."""
    return json.dumps(value, sort_keys=True, separators=_SEPARATORS, ensure_ascii=False).encode()


def canonical_text(value: Any) -> str:
    """`canonical_json` as text (what a TEXT column keeps)."""
    return json.dumps(value, sort_keys=True, separators=_SEPARATORS, ensure_ascii=False)


def binding_digest(value: Any) -> str:
    """The 32 hex characters a token is bound to for `value` (a query, a call's arguments).

    The canonical form with non-ASCII characters escaped and anything JSON cannot carry (a date)
    written as its str(): the spelling cursors were bound to from the first one issued, kept so
    that every cursor already issued stays good.
    """
    data = json.dumps(value, sort_keys=True, separators=_SEPARATORS, default=str)
    return hashlib.sha256(data.encode("ascii")).hexdigest()[:32]


__all__ = ["binding_digest", "canonical_json", "canonical_text"]
