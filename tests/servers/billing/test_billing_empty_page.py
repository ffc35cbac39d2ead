"""An empty filtered page of find_invoices carries the search to make next as its `next_call`,
and says why and what to do in a refusal's words (`message`, `hint`).

Replayed after an empty page whose warning named the next call only in its text, the 1.5B model
resent its own search (the refund's greedy trial ended on identical resends); the call to copy is
now a field of the result, as a page with more after it and a dry run's preview have it. Shown
the same words as a warning, it then searched a third time instead of refunding (1 of 22
replays went on); shown them as the page's message and hint, 12 of 22 went on (8 of 22 with
the short warning beside them, as sent).
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any
from unittest.mock import ANY

from hypothesis import given, settings
from hypothesis import strategies as st

from drivable.contract import Contract
from tests.servers.billing.billing_helpers import call
from tests.servers.billing.conftest import open_billing

FILTERS = st.fixed_dictionaries(
    {},
    optional={
        "state": st.sampled_from(["open", "paid", "partially_refunded", "refunded", "void"]),
        "currency": st.sampled_from(["CZK", "EUR", "GBP", "USD"]),
        "customer_id": st.sampled_from(["cus_1001", "cus_1029", "cus_9999"]),
        "date_from": st.sampled_from(["2019-01-01", "2026-01-01", "2030-01-01"]),
        "date_to": st.sampled_from(["2019-12-31", "2026-06-30", "2030-12-31"]),
    },
)


def test_an_empty_filtered_page_leads_by_next_call_to_invoices(tmp_path: Path) -> None:
    async def go(contract: Contract) -> None:
        @settings(max_examples=40, deadline=None)
        @given(filters=FILTERS)
        def empty_pages_lead_on(filters: dict[str, Any]) -> None:
            def send(tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
                return asyncio.run_coroutine_threadsafe(
                    call(contract, tool, arguments), loop
                ).result()

            page = send("find_invoices", filters)
            assert not page["is_error"]
            hops = 0
            while not page["results"] and filters:
                # an empty page under filters: its next_call drops one filter, which its hint
                # and its warning name; its message says what each filter alone matches
                following = page["next_call"]
                assert following["tool"] == "find_invoices"
                assert len(following["arguments"]) == len(filters) - 1
                assert set(following["arguments"].items()) < set(filters.items())
                (dropped,) = set(filters) - set(following["arguments"])
                assert page["hint"].startswith(f"Call find_invoices again without {dropped}, ")
                assert page["warnings"] == [
                    {"code": "no_hits_filtered", "message": ANY, "path": dropped}
                ]
                assert page["message"].startswith("No invoice matches every filter together")
                assert all(f"{name}=" in page["message"] for name in filters)
                filters = following["arguments"]
                page = send("find_invoices", filters)
                hops += 1
            assert page["results"] or not filters  # no filter left: the ledger is empty
            assert "message" not in page and "hint" not in page  # a page with invoices: no words
            assert hops <= 5

        loop = asyncio.get_running_loop()
        await asyncio.to_thread(empty_pages_lead_on)

    async def run() -> None:
        ledger, contract = await open_billing(f"sqlite:///{tmp_path / 'billing.sqlite'}")
        try:
            await go(contract)
        finally:
            await ledger.close()

    asyncio.run(run())
