"""Refund amounts spelled in money, over `drivable serve billing` on stdio with the SDK client:
the invoice's currency settles the magnitude, a bare decimal is asked about with both readings,
and the preview shows the amount in both units before anything moves."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from drivable.contract.envelope import envelope_of
from drivable.target import Target, connect
from tests.cli import CLI
from tests.servers.billing.billing_helpers import token_of


async def _call(client: Any, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    result = await client.call_tool(name, arguments)
    if result.is_error:
        envelope = envelope_of(result)
        assert envelope is not None, result
        return dict(envelope, is_error=True)
    return dict(result.structured_content or json.loads(result.content[0].text), is_error=False)


async def test_a_refund_spelled_in_money_over_stdio(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'money.sqlite'}"
    target = Target(command=(*CLI, "serve", "billing", "--store", url))
    with open(os.devnull, "w") as errlog:
        async with connect(target, mode="auto", errlog=errlog, read_timeout_seconds=60) as client:
            page = await _call(
                client, "find_invoices", {"state": "paid", "currency": "GBP", "limit": 50}
            )
            inv = next(r for r in page["results"] if r["refundable_cents"] >= 10_000)
            base = {"invoice_id": inv["invoice_id"], "idempotency_key": "money-wire-0001"}

            asked = await _call(client, "refund_invoice", {**base, "amount_cents": "42.00"})
            assert asked["is_error"] and asked["code"] == "invalid_arguments", asked
            (issue,) = asked["issues"]
            assert issue["code"] == "ambiguous_amount" and issue["readings"] == [4200, 42]
            assert "42.00 GBP" in issue["message"] and "0.42 GBP" in issue["message"]

            spelled = {**base, "amount_cents": "42.00 GBP"}
            preview = await _call(client, "refund_invoice", {**spelled, "dry_run": True})
            assert preview["status"] == "would_refund" and preview["amount_cents"] == 4200, preview
            assert "42.00 GBP (4200 minor units)" in preview["summary"]
            assert (
                "amount_cents: Read '42.00 GBP' as 4200 minor units (42.00 GBP)."
                in (preview["notes"])
            )

            done = await _call(
                client,
                "refund_invoice",
                {**spelled, "dry_run": False, "confirm_token": token_of(preview)},
            )
            assert done["status"] == "refunded" and done["amount_cents"] == 4200, done
            after = await _call(client, "get_invoice", {"invoice_id": inv["invoice_id"]})
            assert after["invoice"]["refundable_cents"] == inv["refundable_cents"] - 4200

            other = {**base, "idempotency_key": "money-wire-0002", "amount_cents": "€42"}
            euros = await _call(client, "refund_invoice", other)
            assert euros["issues"][0]["code"] == "currency_mismatch"
            assert "EUR" in euros["issues"][0]["message"] and "GBP" in euros["issues"][0]["message"]

            # A line's price is read in the invoice's currency too: the call's, else the customer's.
            people = await _call(client, "list_customers", {"limit": 50})
            gbp = next(c for c in people["results"] if c["currency"] == "GBP")
            draft = {"customer_id": gbp["customer_id"], "idempotency_key": "money-wire-0003"}

            def line(price: Any) -> list[dict[str, Any]]:
                return [{"description": "Consulting", "quantity": 2, "unit_cents": price}]

            asked = await _call(client, "create_invoice", {**draft, "lines": line("120.00")})
            (issue,) = asked["issues"]
            assert issue["path"] == "lines.0.unit_cents" and issue["readings"] == [12000, 120]
            made = await _call(client, "create_invoice", {**draft, "lines": line("£120")})
            assert made["invoice"]["total_cents"] == 24000, made
            assert made["invoice"]["currency"] == "GBP"
            euro = {**draft, "currency": "EUR", "idempotency_key": "money-wire-0004"}
            made = await _call(client, "create_invoice", {**euro, "lines": line("120,50 €")})
            assert made["invoice"]["total_cents"] == 24100, made


async def test_a_confirm_token_binds_to_the_amount_read_not_its_spelling(tmp_path: Path) -> None:
    """ "42.00 GBP" and 4200 are one refund: either spelling confirms the other's dry run; another
    amount, in any spelling, is refused and moves nothing."""
    url = f"sqlite:///{tmp_path / 'token.sqlite'}"
    target = Target(command=(*CLI, "serve", "billing", "--store", url))
    with open(os.devnull, "w") as errlog:
        async with connect(target, mode="auto", errlog=errlog, read_timeout_seconds=60) as client:
            page = await _call(
                client, "find_invoices", {"state": "paid", "currency": "GBP", "limit": 50}
            )
            inv = next(r for r in page["results"] if r["refundable_cents"] >= 20_000)
            invoice = {"invoice_id": inv["invoice_id"]}

            async def refundable() -> int:
                got = await _call(client, "get_invoice", invoice)
                return int(got["invoice"]["refundable_cents"])

            async def preview(amount: Any, key: str) -> str:
                dry = await _call(
                    client,
                    "refund_invoice",
                    {**invoice, "amount_cents": amount, "idempotency_key": key, "dry_run": True},
                )
                assert dry["status"] == "would_refund" and dry["amount_cents"] == 4200, dry
                return token_of(dry)

            async def confirm(amount: Any, key: str, token: str) -> dict[str, Any]:
                return await _call(
                    client,
                    "refund_invoice",
                    {
                        **invoice,
                        "amount_cents": amount,
                        "idempotency_key": key,
                        "dry_run": False,
                        "confirm_token": token,
                    },
                )

            start = await refundable()
            # Spelled in money for the preview, an integer for the real run.
            done = await confirm(
                4200, "token-wire-0001", await preview("42.00 GBP", "token-wire-0001")
            )
            assert done["status"] == "refunded" and done["amount_cents"] == 4200, done
            # An integer for the preview, spelled in money (another spelling too) for the real run.
            token = await preview(4200, "token-wire-0002")
            done = await confirm("£42", "token-wire-0002", token)
            assert done["status"] == "refunded" and done["amount_cents"] == 4200, done
            assert await refundable() == start - 8400

            # A changed amount is another call, whichever side is spelled in money.
            for dry, real in (("42.00 GBP", "43.00 GBP"), ("42.00 GBP", 4300), (4200, "43 GBP")):
                refused = await confirm(
                    real, "token-wire-0003", await preview(dry, "token-wire-0003")
                )
                assert refused["is_error"] and refused["code"] == "confirmation_invalid", refused
                assert refused["details"]["reason"] == "other_arguments", refused
            # A spent token stays spent in the other spelling, and a missing one is refused first.
            again = await confirm("42.00 GBP", "token-wire-0004", token)
            assert again["is_error"] and again["code"] == "confirmation_invalid", again
            missing = await _call(
                client,
                "refund_invoice",
                {
                    **invoice,
                    "amount_cents": "42.00 GBP",
                    "idempotency_key": "token-wire-0005",
                    "dry_run": False,
                },
            )
            assert missing["is_error"] and missing["code"] == "confirmation_required", missing
            assert await refundable() == start - 8400
