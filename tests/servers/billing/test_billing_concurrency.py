"""Concurrency through the runtime: many retries of one refund refund once; many refunds of one
invoice under different keys never refund more than was paid."""

from __future__ import annotations

import asyncio

from drivable.contract import Contract
from tests.servers.billing.billing_helpers import (
    a_paid_invoice,
    call,
    refunds_of,
    scalar,
    token_of,
)


async def test_fifty_concurrent_refunds_with_one_key_refund_exactly_once(either: Contract) -> None:
    inv = (await a_paid_invoice(either))["invoice_id"]
    args = {"invoice_id": inv, "amount_cents": 2500, "idempotency_key": "one-key-00000001"}
    token = token_of(await call(either, "refund_invoice", args))
    confirmed = {**args, "dry_run": False, "confirm_token": token}

    async def attempt() -> dict[str, object]:
        # A retry that meets the first call still running may be told `in_progress`; a model
        # then retries after retry_after_ms with the same key, as the envelope says.
        for _ in range(50):
            out = await call(either, "refund_invoice", confirmed)
            if out.get("code") != "in_progress":
                return out
            await asyncio.sleep(int(out["retry_after_ms"]) / 1000)
        raise AssertionError("still in progress")

    results = await asyncio.gather(*(attempt() for _ in range(50)))
    assert all(not r["is_error"] for r in results), [r for r in results if r["is_error"]][:1]
    assert len({r["refund_id"] for r in results}) == 1
    replays = [r for r in results if r.get("notes")]
    assert len(replays) == 49  # every call but one replayed the receipt
    assert await refunds_of(either, inv) == 1
    refunded = await scalar(
        either, "SELECT refunded_cents FROM billing_invoices WHERE invoice_id = ?", (inv,)
    )
    assert refunded == 2500


async def test_concurrent_refunds_under_different_keys_never_overdraw(either: Contract) -> None:
    invoice = await a_paid_invoice(either)
    inv, whole = invoice["invoice_id"], invoice["refundable_cents"]
    part = whole // 3 + 1  # three of these do not fit; two do

    calls = [
        {"invoice_id": inv, "amount_cents": part, "idempotency_key": f"split-key-{n:06d}"}
        for n in range(8)
    ]
    # Every preview passes (nothing has moved yet); then all eight real runs race.
    tokens = [token_of(await call(either, "refund_invoice", args)) for args in calls]
    results = await asyncio.gather(
        *(
            call(either, "refund_invoice", {**args, "dry_run": False, "confirm_token": token})
            for args, token in zip(calls, tokens, strict=True)
        )
    )
    done = [r for r in results if not r["is_error"]]
    refused = [r for r in results if r["is_error"]]
    assert len(done) == 2
    assert {r["code"] for r in refused} == {"refund_exceeds_balance"}
    assert await refunds_of(either, inv) == 2
    refunded = await scalar(
        either, "SELECT refunded_cents FROM billing_invoices WHERE invoice_id = ?", (inv,)
    )
    assert refunded == 2 * part <= whole


async def test_racing_updates_with_one_expected_version_apply_once(either: Contract) -> None:
    invoice = await a_paid_invoice(either)
    inv, version = invoice["invoice_id"], invoice["version"]
    results = await asyncio.gather(
        *(
            call(
                either,
                "update_invoice",
                {"invoice_id": inv, "expected_version": version, "memo": f"PO {n:04d}"},
            )
            for n in range(10)
        )
    )
    won = [r for r in results if not r["is_error"]]
    assert len(won) == 1
    assert {r["code"] for r in results if r["is_error"]} == {"conflict"}
    memo = await scalar(either, "SELECT memo FROM billing_invoices WHERE invoice_id = ?", (inv,))
    assert memo == won[0]["invoice"]["memo"]
    assert won[0]["invoice"]["version"] == version + 1
