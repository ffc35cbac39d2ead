"""An empty filtered page of find_invoices, over the real wire (`drivable serve billing` on a real
SQLite file, stdio, the SDK client), under generated filter sets: its next_call is the same search
without the one filter whose removal finds the fewest invoices, every other argument as sent, and
it names the values that would have matched (`tests.servers.relaxation.check_empty_page`).

On main's rule (drop the filter that alone keeps fewest) this fails at once: beside a currency the
customer never bills in, it dropped customer_id and led to other customers' invoices (the real
model reported one of them as the answer; docs/decisions/0006-minimal-relaxation.md).
"""

from __future__ import annotations

import asyncio
import datetime
from collections import Counter
from pathlib import Path
from typing import Any

from hypothesis import example, given, settings
from hypothesis import strategies as st

from drivable.servers.billing.data import END, START
from drivable.servers.billing.models import FindInput
from drivable.target import Target
from tests.cli import CLI
from tests.servers.relaxation import PASSED, check_empty_page, over_stdio, read_as

FILTERS = [
    ("customer_id", "equal"),
    ("state", "equal"),
    ("currency", "equal"),
    ("date_from", "lower"),
    ("date_to", "upper"),
]


def days(first: datetime.date, last: datetime.date) -> st.SearchStrategy[str]:
    return st.dates(first, last).map(datetime.date.isoformat)


SEARCHES = st.fixed_dictionaries(
    {},
    optional={
        # customers with invoices, and an id no customer has
        "customer_id": st.sampled_from([f"cus_{n}" for n in range(1001, 1121, 7)] + ["cus_9999"]),
        "state": st.sampled_from(["open", "paid", "partially_refunded", "refunded", "void"]),
        "currency": st.sampled_from(["CZK", "EUR", "GBP", "USD", "eur"]),
        "date_from": days(START, END + datetime.timedelta(days=400)) | st.just("2026"),
        "date_to": days(START - datetime.timedelta(days=400), END) | st.just("2025"),
        "limit": st.integers(1, 50),
        "detail": st.sampled_from(["summary", "full"]),
    },
)


def test_an_empty_filtered_page_leads_to_its_minimal_relaxation(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'billing.sqlite'}"
    seen: Counter[str] = Counter()
    with over_stdio(Target(command=(*CLI, "serve", "billing", "--store", url), env=PASSED)) as send:

        @settings(max_examples=60, deadline=None)
        @given(sent=SEARCHES)
        @example(sent={"customer_id": "cus_1001", "currency": "GBP"})  # "one", met on every run
        def each(sent: dict[str, Any]) -> None:
            async def go() -> None:
                page = await send("find_invoices", sent)
                assert not page["is_error"], page
                read = read_as(FindInput, sent)
                assert read is not None
                seen[await check_empty_page(send, "find_invoices", read, FILTERS, page)] += 1

            asyncio.run(go())

        each()
    assert seen["one"] and seen["rows"], seen


def test_a_filled_currency_goes_before_the_customer(tmp_path: Path) -> None:
    """The filler's habit (a currency nobody asked for beside the customer): the customer stays."""
    url = f"sqlite:///{tmp_path / 'billing.sqlite'}"
    with over_stdio(Target(command=(*CLI, "serve", "billing", "--store", url), env=PASSED)) as send:

        async def go() -> None:
            mine = await send("find_invoices", {"customer_id": "cus_1001", "limit": 50})
            (currency,) = {r["currency"] for r in mine["results"]}
            other = next(c for c in ("CZK", "EUR", "GBP", "USD") if c != currency)
            sent = {"customer_id": "cus_1001", "currency": other, "state": "paid"}
            page = await send("find_invoices", sent)
            assert page["results"] == []
            assert page["next_call"]["arguments"] == {"customer_id": "cus_1001", "state": "paid"}
            assert page["warnings"][0]["path"] == "currency"
            assert f'"{currency}"' in page["warnings"][0]["message"]
            assert 'not limited to currency "' in page["hint"]

        asyncio.run(go())
