"""A keyed create_invoice resent after its invoice was voided says so and invoices nothing, and
its repair invoices once (docs/effects.md, "Undone since"), on both stores."""

from __future__ import annotations

from drivable.contract import Contract
from tests.servers.billing.billing_helpers import call, scalar, token_of

INVOICE = {
    "customer_id": "cus_1001",
    "issued_on": "2026-03-02",
    "lines": [{"description": "Workshop", "quantity": 1, "unit_cents": 85000}],
    "idempotency_key": "void-then-resend-0001",
}


async def _count(contract: Contract) -> int:
    return int(
        await scalar(
            contract,
            "SELECT COUNT(*) FROM billing_invoices WHERE customer_id = ? AND issued_on = ?",
            ("cus_1001", "2026-03-02"),
        )
    )


async def test_a_create_resent_after_its_invoice_was_voided_says_so(either: Contract) -> None:
    before = await _count(either)
    made = await call(either, "create_invoice", INVOICE)
    inv = made["invoice"]["invoice_id"]
    replayed = await call(either, "create_invoice", INVOICE)
    assert replayed["invoice"]["invoice_id"] == inv  # standing: a plain replay
    preview = await call(
        either, "void_invoice", {"invoice_id": inv, "reason": "issued twice", "dry_run": True}
    )
    voided = await call(either, "void_invoice", preview["next_call"]["arguments"])
    assert voided["status"] == "voided", voided

    resent = await call(either, "create_invoice", INVOICE)
    assert resent["is_error"] and resent["code"] == "change_undone", resent
    assert resent["details"]["made"] == {"kind": "invoice", "id": inv}
    assert resent["details"]["undone_by"] == "void_invoice"
    assert resent["details"]["first_result"]["invoice"]["state"] == "open"
    assert await _count(either) == before + 1  # nothing ran
    repair = resent["repair"]
    assert repair["tool"] == "create_invoice"
    kept = {k: v for k, v in repair["arguments"].items() if k != "idempotency_key"}
    assert kept == {k: v for k, v in INVOICE.items() if k != "idempotency_key"} | {
        "lines": [{"description": "Workshop", "quantity": 1, "unit_cents": 85000}]
    }
    assert repair["arguments"]["idempotency_key"] != INVOICE["idempotency_key"]

    again = await call(either, "create_invoice", repair["arguments"])
    assert not again["is_error"] and again["invoice"]["state"] == "open"
    assert again["invoice"]["invoice_id"] != inv
    retried = await call(either, "create_invoice", repair["arguments"])
    assert retried["invoice"]["invoice_id"] == again["invoice"]["invoice_id"]
    assert await _count(either) == before + 2
    # the dry run of a void changes nothing: the new invoice's create still replays as itself
    await call(either, "void_invoice", {"invoice_id": again["invoice"]["invoice_id"]})
    assert (await call(either, "create_invoice", repair["arguments"]))["is_error"] is False
    assert token_of(preview)  # the void was confirmed by its own dry run's token
