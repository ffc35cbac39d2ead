"""refund_invoice as seed 002 specifies it: two steps, once per key, overdrafts refused with a re-read."""

from __future__ import annotations

from drivable.contract import Contract, Recovery
from tests.servers.billing.billing_helpers import (
    a_paid_invoice,
    an_open_invoice,
    call,
    refunds_of,
    scalar,
    token_of,
)

KEY = "3f9a2c7e-refund-0001"


async def test_the_two_step_refund_end_to_end(either: Contract) -> None:
    invoice = await a_paid_invoice(either)
    inv = invoice["invoice_id"]
    args = {"invoice_id": inv, "amount_cents": 4200, "reason": "disputed", "idempotency_key": KEY}

    preview = await call(either, "refund_invoice", {**args, "dry_run": True})
    assert not preview["is_error"]
    assert preview["status"] == "would_refund" and preview["refund_id"] is None
    assert token_of(preview).startswith("ct2.")
    assert await refunds_of(either, inv) == 0  # a preview moves nothing

    real = await call(
        either,
        "refund_invoice",
        {**args, "dry_run": False, "confirm_token": token_of(preview)},
    )
    assert not real["is_error"], real
    shape = {k: v for k, v in real.items() if k != "is_error"}
    assert set(shape) == {"status", "refund_id", "amount_cents", "invoice_state", "summary"}
    assert real["status"] == "refunded" and real["refund_id"].startswith("rf_")
    assert real["amount_cents"] == 4200 and real["invoice_state"] == "partially_refunded"
    currency = invoice["currency"]
    assert real["summary"].startswith(f"Refunded 42.00 {currency} against invoice {inv}")
    assert await refunds_of(either, inv) == 1

    after = (await call(either, "get_invoice", {"invoice_id": inv}))["invoice"]
    assert after["refunded_cents"] == 4200
    assert after["refundable_cents"] == invoice["refundable_cents"] - 4200
    assert after["version"] == invoice["version"] + 1
    assert [r["refund_id"] for r in after["refunds"]] == [real["refund_id"]]


async def test_refunding_everything_closes_the_invoice_as_refunded(either: Contract) -> None:
    invoice = await a_paid_invoice(either)
    args = {
        "invoice_id": invoice["invoice_id"],
        "amount_cents": invoice["refundable_cents"],
        "idempotency_key": KEY,
    }
    token = token_of(await call(either, "refund_invoice", args))
    real = await call(either, "refund_invoice", {**args, "dry_run": False, "confirm_token": token})
    assert real["invoice_state"] == "refunded"
    assert "0.00" in real["summary"]


async def test_retries_replay_and_never_refund_twice(billing: Contract) -> None:
    inv = (await a_paid_invoice(billing))["invoice_id"]
    args = {"invoice_id": inv, "amount_cents": 1500, "idempotency_key": KEY}
    token = token_of(await call(billing, "refund_invoice", args))
    confirmed = {**args, "dry_run": False, "confirm_token": token}
    first = await call(billing, "refund_invoice", confirmed)
    for _ in range(5):  # the model retries the very same call (the token is already spent)
        again = await call(billing, "refund_invoice", confirmed)
        assert not again["is_error"]
        assert again["refund_id"] == first["refund_id"]
        assert again["notes"] == [
            "Replayed the result of the first call with this idempotency_key; nothing ran again."
        ]
    # The same key without the spent token, or with a fresh dry run's token: still the receipt.
    again = await call(billing, "refund_invoice", {**args, "dry_run": False})
    assert again["refund_id"] == first["refund_id"]
    assert await refunds_of(billing, inv) == 1
    refunded = await scalar(
        billing, "SELECT refunded_cents FROM billing_invoices WHERE invoice_id = ?", (inv,)
    )
    assert refunded == 1500


async def test_the_same_key_with_other_arguments_names_the_fields(billing: Contract) -> None:
    inv = (await a_paid_invoice(billing))["invoice_id"]
    args = {"invoice_id": inv, "amount_cents": 1500, "idempotency_key": KEY}
    token = token_of(await call(billing, "refund_invoice", args))
    await call(billing, "refund_invoice", {**args, "dry_run": False, "confirm_token": token})
    other = await call(
        billing,
        "refund_invoice",
        {**args, "amount_cents": 2500, "reason": "duplicate", "dry_run": False},
    )
    assert other["is_error"] and other["code"] == "idempotency_mismatch"
    assert {i["path"] for i in other["issues"]} == {"amount_cents", "reason"}
    assert "new idempotency_key" in other["hint"]
    assert await refunds_of(billing, inv) == 1
    # the repair is this call under a key of its own, as its dry run: without a token the change
    # would be refused next (decision 0048)
    repair = other["repair"]
    assert repair["next_step"] == "new_idempotency_key_for_a_new_change"
    assert repair["arguments"]["idempotency_key"].startswith(KEY + "-")
    assert {k: v for k, v in repair["arguments"].items() if k != "idempotency_key"} == {
        "invoice_id": inv,
        "amount_cents": 2500,
        "reason": "duplicate",
        "dry_run": True,
    }
    asked = await call(billing, repair["tool"], repair["arguments"])
    assert not asked["is_error"] and asked["status"] == "would_refund"
    assert await refunds_of(billing, inv) == 1


async def test_a_key_that_names_another_refund_leads_to_a_key_of_its_own(
    either: Contract,
) -> None:
    """The real model reuses one key ("1234567890") for every refund: the second refund's preview
    leads on with a key of that refund's own, and its confirm sent under the old key is refused
    with exactly that call as the repair (the token stays valid: it is bound to the arguments)."""
    first = (await a_paid_invoice(either))["invoice_id"]
    second = (await a_paid_invoice(either, skip=1))["invoice_id"]
    reused = "1234567890"
    args = {"invoice_id": first, "amount_cents": 4200, "idempotency_key": reused}
    token = token_of(await call(either, "refund_invoice", args))
    await call(either, "refund_invoice", {**args, "dry_run": False, "confirm_token": token})

    preview = await call(either, "refund_invoice", {**args, "invoice_id": second, "dry_run": True})
    assert not preview["is_error"] and preview["status"] == "would_refund"
    confirm = preview["next_call"]["arguments"]
    own = confirm["idempotency_key"]
    assert own != reused and own.startswith(reused + "-")
    assert any(reused in note and own in note for note in preview["notes"])
    # previewed again, the same change derives the same key
    again = await call(either, "refund_invoice", {**args, "invoice_id": second, "dry_run": True})
    assert again["next_call"]["arguments"]["idempotency_key"] == own

    refused = await call(either, "refund_invoice", {**confirm, "idempotency_key": reused})
    assert refused["code"] == "idempotency_mismatch"
    assert refused["repair"]["arguments"] == confirm
    done = await call(either, refused["repair"]["tool"], refused["repair"]["arguments"])
    assert done["status"] == "refunded", done
    replay = await call(either, "refund_invoice", confirm)
    assert replay["refund_id"] == done["refund_id"]
    assert await refunds_of(either, first) == 1 and await refunds_of(either, second) == 1


async def test_an_overdraft_is_a_state_conflict_whose_repair_rereads(either: Contract) -> None:
    invoice = await a_paid_invoice(either)
    inv, refundable = invoice["invoice_id"], invoice["refundable_cents"]
    assert either.codes["refund_exceeds_balance"].recovery is Recovery.REREAD_STATE
    args = {"invoice_id": inv, "amount_cents": refundable + 1, "idempotency_key": KEY}
    for step in ({"dry_run": True}, {}, {"dry_run": False}):
        # a dry run, or a change without its token (refused with its own dry run): the same
        out = await call(either, "refund_invoice", {**args, **step})
        assert out["is_error"] and out["code"] == "refund_exceeds_balance"
        assert out["repair"] == {
            "tool": "get_invoice",
            "arguments": {"invoice_id": inv},
            "next_step": "reread_the_invoice_then_replan",
        }
        assert out["details"]["refundable_cents"] == refundable
        assert out["issues"][0]["path"] == "amount_cents"
        assert out["temporary"] is False
    # Re-read, re-plan: the repair's call shows what may still be refunded.
    reread = await call(either, "get_invoice", {"invoice_id": inv})
    assert reread["invoice"]["refundable_cents"] == refundable
    assert await refunds_of(either, inv) == 0


async def test_an_unpaid_invoice_has_nothing_to_refund(billing: Contract) -> None:
    inv = (await an_open_invoice(billing))["invoice_id"]
    out = await call(
        billing, "refund_invoice", {"invoice_id": inv, "amount_cents": 1, "idempotency_key": KEY}
    )
    assert out["code"] == "refund_exceeds_balance" and out["details"]["refundable_cents"] == 0


async def test_an_overdraft_found_at_the_real_run_rolls_back_and_frees_the_key(
    billing: Contract,
) -> None:
    """Two previews pass; the second real run finds the balance gone: refused, nothing kept."""
    invoice = await a_paid_invoice(billing)
    inv, whole = invoice["invoice_id"], invoice["refundable_cents"]
    a = {"invoice_id": inv, "amount_cents": whole, "idempotency_key": "key-a-00000001"}
    b = {"invoice_id": inv, "amount_cents": whole, "idempotency_key": "key-b-00000001"}
    ta = token_of(await call(billing, "refund_invoice", a))
    tb = token_of(await call(billing, "refund_invoice", b))
    assert not (
        await call(billing, "refund_invoice", {**a, "dry_run": False, "confirm_token": ta})
    )["is_error"]
    late = await call(billing, "refund_invoice", {**b, "dry_run": False, "confirm_token": tb})
    assert late["code"] == "refund_exceeds_balance" and late["details"]["refundable_cents"] == 0
    assert await refunds_of(billing, inv) == 1
    # The refused call spent neither its token nor its key: the rollback took both back.
    assert (
        await scalar(
            billing, "SELECT COUNT(*) FROM drivable_receipts WHERE key = ?", (b["idempotency_key"],)
        )
        == 0
    )


async def test_confirm_tokens_are_bound_to_the_arguments_and_single_use(billing: Contract) -> None:
    inv = (await a_paid_invoice(billing))["invoice_id"]
    args = {"invoice_id": inv, "amount_cents": 1000, "idempotency_key": KEY}
    token = token_of(await call(billing, "refund_invoice", args))
    other = await call(
        billing,
        "refund_invoice",
        {
            **args,
            "amount_cents": 9000,
            "idempotency_key": "other-key-0001",
            "dry_run": False,
            "confirm_token": token,
        },
    )
    assert other["code"] == "confirmation_invalid"
    assert other["repair"]["arguments"]["amount_cents"] == 9000
    assert other["repair"]["arguments"]["dry_run"] is True
    forged = await call(
        billing, "refund_invoice", {**args, "dry_run": False, "confirm_token": "ct1.forged.x"}
    )
    assert forged["code"] == "confirmation_invalid"
    assert await refunds_of(billing, inv) == 0


async def test_amount_bounds_and_the_spellings_models_send(billing: Contract) -> None:
    inv = (await a_paid_invoice(billing))["invoice_id"]
    base = {"invoice_id": inv, "idempotency_key": KEY, "dry_run": True}
    for amount in (0, 500_001, -5):
        out = await call(billing, "refund_invoice", {**base, "amount_cents": amount})
        assert out["code"] == "invalid_arguments"
        assert out["issues"][0]["path"] == "amount_cents"
    spelled = await call(
        billing,
        "refund_invoice",
        {**base, "amount_cents": "4 000", "dry_run": "ano", "reason": "Disputed"},
    )
    assert not spelled["is_error"], spelled
    assert spelled["amount_cents"] == 4000 and spelled["status"] == "would_refund"
    assert "amount_cents: Read '4 000' as 4000." in spelled["notes"]
    assert "dry_run: Read 'ano' as true." in spelled["notes"]
    # A decimal in a minor-unit field has two magnitudes: both are asked about, in minor units.
    major = await call(billing, "refund_invoice", {**base, "amount_cents": "42,00"})
    assert major["code"] == "invalid_arguments", major
    (issue,) = major["issues"]
    assert issue["path"] == "amount_cents" and issue["code"] == "ambiguous_amount"
    assert issue["readings"] == [4200, 42] and "4200 or 42" in major["hint"]
    assert "0.42" in issue["message"] and "42.00" in issue["message"]
    # One meaning left (42.5 minor units is not a whole number): the value, with its note.
    fraction = await call(billing, "refund_invoice", {**base, "amount_cents": 42.5})
    assert not fraction["is_error"], fraction
    assert fraction["amount_cents"] == 4250
    assert any(
        n.startswith("amount_cents: Read 42.5 as 4250 minor units") for n in fraction["notes"]
    )
    # The invoice's currency spelled out reads in major units; another currency is refused.
    invoice = await call(billing, "get_invoice", {"invoice_id": inv})
    currency = invoice["invoice"]["currency"]
    coded = await call(billing, "refund_invoice", {**base, "amount_cents": f"42.00 {currency}"})
    assert coded["amount_cents"] == 4200, coded
    assert f"42.00 {currency} (4200 minor units)" in coded["summary"]
    other = "JPY" if currency != "JPY" else "EUR"
    wrong = await call(billing, "refund_invoice", {**base, "amount_cents": f"42 {other}"})
    assert wrong["issues"][0]["code"] == "currency_mismatch"
    assert other in wrong["message"] and currency in wrong["message"]
    # A copied placeholder id on a write is asked about, never read as some invoice.
    placeholder = await call(
        billing, "refund_invoice", {**base, "invoice_id": "inv_xxx", "amount_cents": 100}
    )
    assert placeholder["code"] == "invalid_arguments"
    assert placeholder["issues"][0]["path"] == "invoice_id"


async def test_a_void_invoice_cannot_be_refunded(billing: Contract) -> None:
    page = await call(billing, "find_invoices", {"state": "void", "limit": 1})
    inv = page["results"][0]["invoice_id"]
    out = await call(
        billing, "refund_invoice", {"invoice_id": inv, "amount_cents": 100, "idempotency_key": KEY}
    )
    assert out["code"] == "state_conflict"
    assert out["repair"]["tool"] == "get_invoice"


async def test_a_retry_under_a_fresh_key_cannot_reuse_the_spent_token(billing: Contract) -> None:
    """A model that makes up a new idempotency_key on every retry still refunds once: the
    confirm token it copies was spent by the first run."""
    inv = (await a_paid_invoice(billing))["invoice_id"]
    args = {"invoice_id": inv, "amount_cents": 700, "idempotency_key": KEY}
    token = token_of(await call(billing, "refund_invoice", args))
    first = await call(
        billing, "refund_invoice", {**args, "dry_run": False, "confirm_token": token}
    )
    assert first["status"] == "refunded"
    retry = {
        **args,
        "idempotency_key": "fresh-key-000002",
        "dry_run": False,
        "confirm_token": token,
    }
    again = await call(billing, "refund_invoice", retry)
    assert again["code"] == "confirmation_invalid"
    assert again["repair"]["arguments"]["dry_run"] is True
    assert await refunds_of(billing, inv) == 1


async def test_a_key_of_another_refund_with_a_token_that_confirms_nothing_leads_to_the_dry_run(
    billing: Contract,
) -> None:
    """The next-steps property drew it: a key that names another refund and a confirm_token "0"
    (no token this server issued). The repair under a new key would be refused next for that
    token; it is the dry run (decision 0048)."""
    first = (await a_paid_invoice(billing))["invoice_id"]
    second = (await a_paid_invoice(billing, skip=1))["invoice_id"]
    token = token_of(
        await call(
            billing,
            "refund_invoice",
            {"invoice_id": first, "amount_cents": 100, "idempotency_key": KEY},
        )
    )
    await call(
        billing,
        "refund_invoice",
        {
            "invoice_id": first,
            "amount_cents": 100,
            "idempotency_key": KEY,
            "dry_run": False,
            "confirm_token": token,
        },
    )
    sent = {
        "invoice_id": second,
        "amount_cents": 100,
        "idempotency_key": KEY,
        "dry_run": False,
        "confirm_token": "0",
    }
    other = await call(billing, "refund_invoice", sent)
    assert other["code"] == "idempotency_mismatch"
    repair = other["repair"]["arguments"]
    assert repair["dry_run"] is True and "confirm_token" not in repair
    preview = await call(billing, "refund_invoice", repair)
    assert not preview["is_error"] and preview["status"] == "would_refund"


async def test_a_refund_sent_to_perform_without_a_key_is_repaired_to_its_keyed_dry_run(
    billing: Contract,
) -> None:
    """The missing key's repair (decision 0044) is the dry run when the call would otherwise be
    refused next for want of a confirm_token (decision 0048): two calls to the change, not three."""
    inv = (await a_paid_invoice(billing))["invoice_id"]
    sent = {"invoice_id": inv, "amount_cents": 4200, "reason": "disputed", "dry_run": False}
    refused = await call(billing, "refund_invoice", sent)
    repair = refused["repair"]
    key = repair["arguments"].pop("idempotency_key")
    assert repair["arguments"] == {**sent, "dry_run": True} and key
    preview = await call(billing, "refund_invoice", {**repair["arguments"], "idempotency_key": key})
    assert preview["status"] == "would_refund"
    real = await call(billing, preview["next_call"]["tool"], preview["next_call"]["arguments"])
    assert real["status"] == "refunded" and await refunds_of(billing, inv) == 1
