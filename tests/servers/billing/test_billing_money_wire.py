"""Refund amounts spelled in money, over `drivable serve billing` on stdio with the SDK client:
the invoice's currency settles the magnitude, a bare decimal is asked about with both readings,
and the preview shows the amount in both units before anything moves."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

from drivable.contract.envelope import envelope_of
from drivable.target import Target, connect

CLI = (sys.executable, "-c", "from drivable.cli import main; main()")


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
                {**spelled, "dry_run": False, "confirm_token": preview["confirm_token"]},
            )
            assert done["status"] == "refunded" and done["amount_cents"] == 4200, done
            after = await _call(client, "get_invoice", {"invoice_id": inv["invoice_id"]})
            assert after["invoice"]["refundable_cents"] == inv["refundable_cents"] - 4200

            other = {**base, "idempotency_key": "money-wire-0002", "amount_cents": "€42"}
            euros = await _call(client, "refund_invoice", other)
            assert euros["issues"][0]["code"] == "currency_mismatch"
            assert "EUR" in euros["issues"][0]["message"] and "GBP" in euros["issues"][0]["message"]
