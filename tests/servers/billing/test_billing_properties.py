"""Properties: whatever a model sends to refund_invoice, in any order, the books stay straight and
every answer is a result or an envelope that names the next call."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from drivable.contract import Contract
from drivable.servers.billing import server
from drivable.servers.billing.ledger import Ledger
from tests.servers.billing.billing_helpers import SIZE, conforms
from tests.servers.opened import started_on

AMOUNTS = st.one_of(
    st.integers(-10, 600_000),
    st.integers(1, 90_000).map(lambda n: f"{n:,}".replace(",", " ")),  # "4 000"
    st.sampled_from(["42,00", "4200.0", "1e3", "abc", "", None, "inv_123", 42.5, True]),
)
DRY_RUNS = st.sampled_from([True, False, "ano", "ne", "yes", "false", None])
STEPS = st.lists(
    st.tuples(AMOUNTS, DRY_RUNS, st.integers(0, 2), st.integers(0, 5)), min_size=1, max_size=6
)


@pytest.fixture
def loop() -> Iterator[asyncio.AbstractEventLoop]:
    """The one event loop every example runs on (the contract's lifespan is open on it)."""
    running = asyncio.new_event_loop()
    yield running
    running.close()


@pytest.fixture
def served(tmp_path: Path, loop: asyncio.AbstractEventLoop) -> Iterator[tuple[Ledger, Contract]]:
    """One store and contract for every example."""
    ledger = Ledger(f"sqlite:///{tmp_path / 'properties.sqlite'}", **SIZE)
    contract, close = started_on(loop.run_until_complete, server.contract, ledger=ledger)
    yield ledger, contract
    close()
    loop.run_until_complete(ledger.close())


async def scenario(served: tuple[Ledger, Contract], steps: list[tuple[Any, Any, int, int]]) -> None:
    ledger, contract = served
    paid = (await contract.call("find_invoices", {"state": "paid", "limit": 6})).structured
    invoices = [r["invoice_id"] for r in paid["results"]]
    run = uuid.uuid4().hex[:8]
    for amount, dry_run, key_slot, which in steps:
        args: dict[str, Any] = {
            "invoice_id": invoices[which % len(invoices)],
            "idempotency_key": f"prop-{run}-{key_slot}",
        }
        if amount is not None:
            args["amount_cents"] = amount
        if dry_run is not None:
            args["dry_run"] = dry_run
        out = await contract.call("refund_invoice", args)
        conforms(contract, "refund_invoice", out.structured, out.is_error)
        assert out.structured.get("code") != "internal_error", out.structured
        token = ((out.structured.get("next_call") or {}).get("arguments") or {}).get(
            "confirm_token"
        )
        if token:  # a model that got a token goes on to confirm it
            real = await contract.call(
                "refund_invoice", {**args, "dry_run": False, "confirm_token": token}
            )
            conforms(contract, "refund_invoice", real.structured, real.is_error)
            assert real.structured.get("code") != "internal_error", real.structured
    async with ledger.store.transaction() as tx:
        books = await tx.execute(
            "SELECT i.invoice_id, i.paid_cents, i.refunded_cents, "
            "(SELECT COALESCE(SUM(r.amount_cents), 0) FROM billing_refunds r "
            "WHERE r.invoice_id = i.invoice_id) FROM billing_invoices i"
        )
    for invoice_id, paid_cents, refunded_cents, rows_sum in books.rows:
        assert refunded_cents == rows_sum, invoice_id  # every refund is a row, and only those
        assert 0 <= refunded_cents <= paid_cents, invoice_id  # never overdrawn


@settings(
    max_examples=30,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(steps=STEPS)
def test_any_refund_sequence_keeps_the_books_straight(
    served: tuple[Ledger, Contract],
    loop: asyncio.AbstractEventLoop,
    steps: list[tuple[Any, Any, int, int]],
) -> None:
    loop.run_until_complete(scenario(served, steps))
