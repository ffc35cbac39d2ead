"""One signing module: a token verifies for the purpose it was signed for, with the secret that
signed it, unchanged, and for nothing else; the tokens issued before it still verify."""

from __future__ import annotations

import ast
import base64
import json
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from drivable.canonical import binding_digest, canonical_json, canonical_text
from drivable.effects import ConfirmTokens, Refusal, SqliteStore, arguments_digest
from drivable.kinds.cursor import check_cursor, cursor_scope
from drivable.signing import PURPOSES, Purpose, Signer, b64decode, b64encode, purpose

SRC = Path(__file__).resolve().parents[2] / "src" / "drivable"
purposes = st.sampled_from(sorted(PURPOSES.values(), key=lambda p: p.name))
secrets = st.binary(min_size=1, max_size=64)
payloads = st.binary(max_size=96)


@given(secrets, payloads, purposes)
def test_a_token_verifies_for_its_purpose(secret: bytes, payload: bytes, use: Purpose) -> None:
    signer = Signer(secret)
    token = signer.sign(payload, use)
    assert token.isascii() and token.count(".") == 1
    assert signer.verify(token, use) == payload


@given(secrets, payloads, purposes, purposes)
def test_a_token_never_verifies_for_another_purpose(
    secret: bytes, payload: bytes, signed_for: Purpose, read_as: Purpose
) -> None:
    if signed_for != read_as:
        assert Signer(secret).verify(Signer(secret).sign(payload, signed_for), read_as) is None


@given(secrets, payloads, purposes, st.data())
def test_any_changed_character_is_refused(
    secret: bytes, payload: bytes, use: Purpose, data: st.DataObject
) -> None:
    signer = Signer(secret)
    token = signer.sign(payload, use)
    at = data.draw(st.integers(min_value=0, max_value=len(token) - 1))
    new = data.draw(st.characters(codec="utf-8").filter(lambda c: c != token[at]))
    for altered in (token[:at] + new + token[at + 1 :], token[:at] + token[at + 1 :]):
        assert signer.verify(altered, use) is None
    assert signer.verify(token + new, use) is None


@given(secrets, secrets, payloads, purposes)
def test_another_secret_never_verifies(a: bytes, b: bytes, payload: bytes, use: Purpose) -> None:
    if a != b:
        assert Signer(b).verify(Signer(a).sign(payload, use), use) is None


@given(st.text(max_size=40), purposes)
def test_garbage_is_refused_never_raised(text: str, use: Purpose) -> None:
    token = Signer(b"k" * 32).verify(text, use)
    assert token is None or Signer(b"k" * 32).sign(token, use) == text


ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"


@given(st.binary(min_size=1, max_size=64))
def test_base64_is_read_in_its_one_spelling(data: bytes) -> None:
    text = b64encode(data)
    assert b64decode(text) == data and "=" not in text
    for last in ALPHABET:  # the spare bits of a last character spell the same bytes otherwise
        alias = text[:-1] + last
        if alias != text and base64.urlsafe_b64decode(alias + "=" * (-len(alias) % 4)) == data:
            assert b64decode(alias) is None
    assert b64decode(text + "=") is None and b64decode(text[:1] + "+" + text[2:]) is None


def test_labels_are_prefix_free_and_a_new_overlapping_one_is_refused() -> None:
    labels = [p.label for p in PURPOSES.values()]
    assert not any(a != b and a.startswith(b) for a in labels for b in labels)
    for label in (b"c1.x", b"c", b"drivable/confirm-token/v2\x00more"):
        with pytest.raises(ValueError, match="prefix-free"):
            purpose("overlapping", label)
    with pytest.raises(ValueError):
        purpose("empty", b"")
    assert "overlapping" not in PURPOSES


# Issued by the signers before they shared this module (commit ee6cf6a); they must still verify.
GOLDEN_SECRET = b"golden-secret-0123456789"
GOLDEN_CURSOR = "c1.eyJwIjp7ImsiOiLFvmx1xaUiLCJvIjoyMH0sInQiOjE3OTAwMDAwMDB9.inmh7wG7niKrxD7WVBfCww"
GOLDEN_CONFIRM = "ct2.a0nUWAABAgMEBQYHgVFAtga9oLspr4Xk9z69M0BlIY8.HcShumBIPvh72D-AmeHv2A"


def test_a_cursor_issued_before_still_verifies() -> None:
    scope = cursor_scope("search", {"query": "nájem", "court": "NS", "when": None, "n": 1.5})
    assert scope == "search:1d37b89b74656e8749cbe57f650769ac"
    check = check_cursor(GOLDEN_CURSOR, secret=GOLDEN_SECRET, scope=scope)
    assert check.status == "ok" and check.payload == {"o": 20, "k": "žluť"}
    assert check.issued_at == 1_790_000_000


def test_a_confirm_token_issued_before_still_verifies(tmp_path: Path) -> None:
    tokens = ConfirmTokens(
        GOLDEN_SECRET, store=SqliteStore(tmp_path / "t.db"), clock=lambda: 1_800_000_000.0
    )
    digest = arguments_digest({"invoice_id": "inv_1", "amount_cents": 4200})
    claims = tokens.verify(GOLDEN_CONFIRM, "refund_invoice", digest, "ada")
    assert not isinstance(claims, Refusal) and claims.nonce == bytes(range(8)).hex()
    # and a cursor's signature never stands in for a confirm token's, nor the other way round
    cursor_body, cursor_mac = GOLDEN_CURSOR[3:].split(".")
    assert isinstance(tokens.verify(f"ct2.{cursor_body}.{cursor_mac}", "t", None, "ada"), Refusal)
    as_cursor = "c1." + GOLDEN_CONFIRM[4:]
    assert check_cursor(as_cursor, secret=GOLDEN_SECRET, scope="search:x").status == "forged"


values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner),
    max_leaves=12,
)


@given(values)
def test_canonical_json_reads_back_and_ignores_key_order(value: object) -> None:
    data = canonical_json(value)
    assert json.loads(data) == value and data.decode() == canonical_text(value)
    if isinstance(value, dict):
        reordered = dict(reversed(list(value.items())))
        assert canonical_json(reordered) == data
        assert binding_digest(reordered) == binding_digest(value)
    assert len(binding_digest(value)) == 32


def test_only_the_signing_module_computes_or_compares_macs() -> None:
    """hmac is imported in one place: no second signer, no second comparison."""
    importers = []
    for path in SRC.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = (
                [a.name for a in node.names]
                if isinstance(node, ast.Import)
                else [node.module or ""]
                if isinstance(node, ast.ImportFrom)
                else []
            )
            if "hmac" in names:
                importers.append(path.relative_to(SRC).as_posix())
    assert importers == ["signing.py"]
