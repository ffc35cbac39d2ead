"""Confirm tokens: every forged, expired, reused or mismatched token is refused with its reason; a
fresh one redeems exactly once (the use is recorded in a real store, seen across store instances
and processes)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from drivable.effects import (
    ConfirmTokens,
    Refusal,
    RefusalReason,
    SqliteStore,
    arguments_digest,
    open_store,
)

SECRET = b"s" * 32
ARGS = {"invoice_id": "inv_1", "amount_cents": 4200}
DIGEST = arguments_digest(ARGS)

names = st.text(
    alphabet=st.characters(min_codepoint=32, max_codepoint=0x2FFF), min_size=0, max_size=24
)
arg_values = st.dictionaries(
    st.text(min_size=1, max_size=8).filter(
        lambda k: k not in ("idempotency_key", "dry_run", "confirm_token")
    ),
    st.one_of(st.integers(), st.text(max_size=8), st.booleans(), st.none()),
    min_size=1,
    max_size=4,
)


class FixedClock:
    def __init__(self, now: float = 1_800_000_000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


@pytest.fixture(scope="module")
def tokens(tmp_path_factory: pytest.TempPathFactory) -> ConfirmTokens:
    store = SqliteStore(tmp_path_factory.mktemp("tokens") / "t.db")
    return ConfirmTokens(SECRET, store=store)


def refusal(out: Any) -> RefusalReason | None:
    return out.reason if isinstance(out, Refusal) else None


@settings(max_examples=300, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(tool=names, principal=names, position=st.integers(min_value=0), replacement=st.integers())
def test_any_changed_character_is_forged(
    tokens: ConfirmTokens, tool: str, principal: str, position: int, replacement: int
) -> None:
    token = tokens.issue(tool, DIGEST, principal)
    i = position % len(token)
    alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.=+/é\x00"
    new = alphabet[replacement % len(alphabet)]
    if new == token[i]:
        new = "A" if token[i] != "A" else "B"
    forged = token[:i] + new + token[i + 1 :]
    assert refusal(tokens.verify(forged, tool, DIGEST, principal)) is RefusalReason.FORGED


@settings(max_examples=200, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(tool=names, principal=names, args=arg_values)
def test_tokens_are_short_whatever_they_bind(
    tokens: ConfirmTokens, tool: str, principal: str, args: dict[str, Any]
) -> None:
    # a model copies the token into its next call: its length must not grow with the bindings
    token = tokens.issue(tool, arguments_digest(args), principal)
    assert len(token) == 70 and token.isascii()


@settings(max_examples=200, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(garbage=st.text(max_size=200))
def test_garbage_is_forged(tokens: ConfirmTokens, garbage: str) -> None:
    expected = RefusalReason.MISSING if garbage == "" else RefusalReason.FORGED
    assert refusal(tokens.verify(garbage, "t", DIGEST, "p")) is expected


@settings(max_examples=100, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(tool=names, principal=names)
def test_token_signed_with_another_secret_is_forged(
    tokens: ConfirmTokens, tool: str, principal: str
) -> None:
    other = ConfirmTokens(b"o" * 32, store=tokens._store)
    token = other.issue(tool, DIGEST, principal)
    assert refusal(tokens.verify(token, tool, DIGEST, principal)) is RefusalReason.FORGED


@settings(max_examples=200, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(tool=names, other_tool=names, principal=names, other_principal=names)
def test_cross_tool_and_cross_principal(
    tokens: ConfirmTokens, tool: str, other_tool: str, principal: str, other_principal: str
) -> None:
    token = tokens.issue(tool, DIGEST, principal)
    if other_tool != tool:
        assert refusal(tokens.verify(token, other_tool, DIGEST, principal)) is (
            RefusalReason.OTHER_TOOL
        )
    if other_principal != principal:
        assert refusal(tokens.verify(token, tool, DIGEST, other_principal)) is (
            RefusalReason.OTHER_PRINCIPAL
        )
    assert not isinstance(tokens.verify(token, tool, DIGEST, principal), Refusal)


@settings(max_examples=200, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(args=arg_values, other=arg_values)
def test_cross_arguments(
    tokens: ConfirmTokens, args: dict[str, Any], other: dict[str, Any]
) -> None:
    token = tokens.issue("delete", arguments_digest(args), "p")
    expected = (
        None
        if arguments_digest(other) == arguments_digest(args)
        else (RefusalReason.OTHER_ARGUMENTS)
    )
    assert refusal(tokens.verify(token, "delete", arguments_digest(other), "p")) is expected
    # The dry run and the real run differ only in control fields: the token fits.
    real = {**args, "dry_run": False, "confirm_token": token, "idempotency_key": "k"}
    assert refusal(tokens.verify(token, "delete", arguments_digest(real), "p")) is None


@settings(max_examples=200, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(args=arg_values, tool=names, other_tool=names)
def test_without_a_digest_every_binding_but_the_arguments_is_checked(
    tokens: ConfirmTokens, args: dict[str, Any], tool: str, other_tool: str
) -> None:
    """`digest=None`: the early check of a call whose arguments the handler still settles."""
    token = tokens.issue(tool, arguments_digest(args), "p")
    assert refusal(tokens.verify(token, tool, None, "p")) is None
    assert refusal(tokens.verify(token, tool, None, "q")) is RefusalReason.OTHER_PRINCIPAL
    if other_tool != tool:
        assert refusal(tokens.verify(token, other_tool, None, "p")) is RefusalReason.OTHER_TOOL
    changed = token[:-1] + ("B" if token.endswith("A") else "A")
    assert refusal(tokens.verify(changed, tool, None, "p")) is RefusalReason.FORGED
    assert refusal(tokens.verify(None, tool, None, "p")) is RefusalReason.MISSING


@settings(max_examples=100, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(ttl=st.floats(min_value=1, max_value=3600), late=st.floats(min_value=0, max_value=1e6))
def test_expired(tokens: ConfirmTokens, ttl: float, late: float) -> None:
    clock = FixedClock()
    t = ConfirmTokens(SECRET, store=tokens._store, ttl_s=ttl, clock=clock)
    token = t.issue("delete", DIGEST, "p")
    clock.now += ttl + late + 1
    assert refusal(t.verify(token, "delete", DIGEST, "p")) is RefusalReason.EXPIRED
    clock.now = 1_800_000_000.0
    assert refusal(t.verify(token, "delete", DIGEST, "p")) is None


def test_default_ttl_is_ten_minutes(tokens: ConfirmTokens) -> None:
    assert tokens.ttl_s == 600


def test_missing(tokens: ConfirmTokens) -> None:
    out = tokens.verify(None, "delete", DIGEST, "p")
    assert isinstance(out, Refusal)
    assert out.reason is RefusalReason.MISSING and out.code == "confirmation_required"
    forged = tokens.verify("ct1.x.y", "delete", DIGEST, "p")
    assert isinstance(forged, Refusal) and forged.code == "confirmation_invalid"


@settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(tool=names, principal=names, args=arg_values)
def test_fresh_token_redeems_once_then_is_reused(
    tokens: ConfirmTokens, tool: str, principal: str, args: dict[str, Any]
) -> None:
    digest = arguments_digest(args)
    token = tokens.issue(tool, digest, principal)

    async def run() -> tuple[Any, Any]:
        return (
            await tokens.redeem(token, tool, digest, principal),
            await tokens.redeem(token, tool, digest, principal),
        )

    first, second = anyio.run(run)
    assert first is None
    assert refusal(second) is RefusalReason.REUSED


async def test_a_token_redeems_once_across_stores_and_processes(store_url: str) -> None:
    """Two store instances (separate connections) and a separate OS process share the record."""
    a = open_store(store_url)
    b = open_store(store_url)
    try:
        ta = ConfirmTokens(SECRET, store=a)
        tb = ConfirmTokens(SECRET, store=b)
        token = ta.issue("delete", DIGEST, "p")
        assert await tb.redeem(token, "delete", DIGEST, "p") is None
        assert refusal(await ta.redeem(token, "delete", DIGEST, "p")) is RefusalReason.REUSED

        second = ta.issue("delete", DIGEST, "p")
        code = (
            "import anyio, sys\n"
            "from drivable.effects import ConfirmTokens, open_store\n"
            "async def main():\n"
            "    s = open_store(sys.argv[1])\n"
            "    out = await ConfirmTokens(sys.argv[2].encode(), store=s).redeem(\n"
            "        sys.argv[3], 'delete', sys.argv[4], 'p')\n"
            "    print('ok' if out is None else out.reason.value)\n"
            "    await s.close()\n"
            "anyio.run(main)\n"
        )
        proc = subprocess.run(
            [sys.executable, "-c", code, store_url, SECRET.decode(), second, DIGEST],
            capture_output=True,
            text=True,
            timeout=60,
            check=True,
            cwd=Path(__file__).parent,
        )
        assert proc.stdout.strip() == "ok"
        assert refusal(await tb.redeem(second, "delete", DIGEST, "p")) is RefusalReason.REUSED
    finally:
        await a.close()
        await b.close()


async def test_spending_inside_a_failed_effect_keeps_the_token(store_url: str) -> None:
    store = open_store(store_url)
    try:
        tokens = ConfirmTokens(SECRET, store=store)
        token = tokens.issue("delete", DIGEST, "p")
        with pytest.raises(RuntimeError):
            async with store.transaction() as tx:
                assert await tokens.redeem(token, "delete", DIGEST, "p", transaction=tx) is None
                raise RuntimeError("the deletion failed")
        assert await tokens.redeem(token, "delete", DIGEST, "p") is None
    finally:
        await store.close()


def test_the_token_does_not_reveal_the_principal(tokens: ConfirmTokens) -> None:
    import base64

    token = tokens.issue("delete", DIGEST, "alice@example.com")
    payload = token.split(".")[1]
    decoded = base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4))
    assert b"alice" not in decoded


def test_short_secrets_are_refused(tokens: ConfirmTokens) -> None:
    with pytest.raises(ValueError):
        ConfirmTokens(b"short", store=tokens._store)
