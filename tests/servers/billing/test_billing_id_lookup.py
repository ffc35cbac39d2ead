"""A name sent where an id goes is refused with the call that looks the id up as the repair.

The small real model, asked for a customer's open invoices, sent the customer's name as
customer_id; shown only "an id like 'cus_2231'" it then sent cus_2231. Each id of billing declares
the tool that returns it (`IdOf(prefix, lookup=...)`): the refusal's `repair` is that call with the
name as its query, and following it leads to the id and the invoices.
"""

from __future__ import annotations

import asyncio
import string
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from drivable.contract import Contract
from drivable.kinds.absence import placeholder_of
from tests.servers.billing.billing_helpers import call
from tests.servers.billing.conftest import open_billing

# Text that is no id: a space, or a letter outside an id's alphabet, somewhere in it; and no
# template placeholder ("YOUR VALUE HERE" reads as no value, as it does for every kind).
NAMES = st.text(alphabet=string.ascii_letters + " .,&čšžé", min_size=1, max_size=40).filter(
    lambda text: (
        text.strip()
        and (" " in text.strip() or not text.strip().isascii())
        and placeholder_of(text) is None
    )
)


def with_billing(directory: Path, go: object) -> None:
    async def run() -> None:
        async with open_billing(f"sqlite:///{directory / 'billing.sqlite'}") as contract:
            await go(contract)  # type: ignore[operator]

    asyncio.run(run())


def test_a_name_as_customer_id_is_refused_with_the_lookup_as_the_repair(tmp_path: Path) -> None:
    async def go(contract: Contract) -> None:
        @settings(max_examples=40, deadline=None)
        @given(name=NAMES)
        def refused(name: str) -> None:
            out = asyncio.run_coroutine_threadsafe(
                call(contract, "find_invoices", {"customer_id": name}), loop
            ).result()
            assert out["is_error"] and out["code"] == "invalid_arguments"
            assert out["repair"] == {
                "next_step": "look_the_id_up_first",
                "tool": "list_customers",
                "arguments": {"query": name.strip()},
            }
            assert "list_customers" in out["hint"] and "cus_" not in out["hint"]
            looked_up = asyncio.run_coroutine_threadsafe(
                call(contract, "list_customers", out["repair"]["arguments"]), loop
            ).result()
            assert not looked_up["is_error"]

        loop = asyncio.get_running_loop()
        await asyncio.to_thread(refused)

    with_billing(tmp_path, go)


def test_following_the_repair_finds_the_customers_invoices(tmp_path: Path) -> None:
    async def go(contract: Contract) -> None:
        customers = (await call(contract, "list_customers", {"limit": 50}))["results"]
        for customer in customers[:10]:
            refused = await call(contract, "find_invoices", {"customer_id": customer["name"]})
            repair = refused["repair"]
            found = await call(contract, repair["tool"], repair["arguments"])
            ids = [row["customer_id"] for row in found["results"]]
            assert customer["customer_id"] in ids
            invoices = await call(
                contract,
                "find_invoices",
                {"customer_id": customer["customer_id"], "detail": "full"},
            )
            assert not invoices["is_error"]
            assert {row["customer_id"] for row in invoices["results"]} <= {customer["customer_id"]}
            # a summary row names the customer; its id comes with detail=full
            summary = await call(
                contract, "find_invoices", {"customer_id": customer["customer_id"]}
            )
            assert {row["customer_name"] for row in summary["results"]} <= {customer["name"]}
            assert all("customer_id" not in row for row in summary["results"])

    with_billing(tmp_path, go)


def test_a_mistyped_id_is_no_name_and_an_invoice_name_looks_up_invoices(tmp_path: Path) -> None:
    async def go(contract: Contract) -> None:
        mistyped = await call(contract, "find_invoices", {"customer_id": "cus_12 34"})
        assert mistyped["is_error"] and "repair" not in mistyped
        named = await call(contract, "get_invoice", {"invoice_id": "the Weber invoice"})
        assert named["repair"] == {
            "next_step": "look_the_id_up_first",
            "tool": "find_invoices",
            "arguments": {},
        }

    with_billing(tmp_path, go)
