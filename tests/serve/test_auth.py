"""The static token verifier: digests only, expiry by the clock, the (principal, scopes) table form."""

from __future__ import annotations

import datetime

from drivable.contract import Principal
from drivable.serve.auth import StaticToken, StaticTokenVerifier, TokenVerifier

UTC = datetime.UTC
NOON = datetime.datetime(2026, 6, 1, 12, 0, tzinfo=UTC)


async def test_a_known_token_is_its_principal_until_it_expires() -> None:
    now = [NOON]
    verifier = StaticTokenVerifier(
        {"t-1": StaticToken("ana", frozenset({"a", "b"}), expires_at=NOON.replace(hour=13))},
        clock=lambda: now[0],
    )
    assert isinstance(verifier, TokenVerifier)
    assert await verifier.verify("t-1") == Principal("ana", frozenset({"a", "b"}))
    now[0] = NOON.replace(hour=13)
    assert await verifier.verify("t-1") is None  # expired at its instant
    assert await verifier.verify("t-2") is None
    assert await verifier.verify("") is None


async def test_the_table_form() -> None:
    verifier = StaticTokenVerifier.of(
        {
            "r": ("reader", ["notes:read"]),
            "old": ("x", [], datetime.datetime(2020, 1, 1, tzinfo=UTC)),
        }
    )
    assert await verifier.verify("r") == Principal("reader", frozenset({"notes:read"}))
    assert await verifier.verify("old") is None


def test_tokens_are_not_kept_in_the_clear() -> None:
    verifier = StaticTokenVerifier({"secret-token-value": StaticToken("ana")})
    assert "secret-token-value" not in repr(vars(verifier))
