"""Helpers for the billing tests: results checked against the contract, rows counted in the database."""

from __future__ import annotations

import re
from typing import Any

from drivable.contract import Contract
from drivable.testing import assert_conforms

# Small enough to load in a blink, big enough for paging and every state.
SIZE = {"customers": 30, "invoices": 240}

LEAKS = re.compile(
    r"sqlite|psycopg|OperationalError|IntegrityError|Traceback|(?-i:SELECT |INSERT |UPDATE )"
    r"|/tmp/|\.py(?![\w-])|Exception|billing_invoices",
    re.I,
)


def conforms(contract: Contract, tool: str, structured: dict[str, Any], is_error: bool) -> None:
    """A result matches the outputSchema; an error is the envelope and names the next call."""
    assert_conforms(contract, tool, structured, is_error, leaks=LEAKS)


async def call(contract: Contract, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
    out = await contract.call(tool, arguments)
    conforms(contract, tool, out.structured, out.is_error)
    return dict(out.structured, is_error=out.is_error)


def token_of(preview: dict[str, Any]) -> str:
    """The confirm_token offered for a call: a dry run carries it only inside next_call, and a
    change sent without one is refused with it inside `repair` (both are the confirming call)."""
    confirming = preview.get("next_call") or preview["repair"]
    return str(confirming["arguments"]["confirm_token"])


def ledger_of(contract: Contract) -> Any:
    assert contract.durability is not None
    return contract.durability.store


async def scalar(contract: Contract, sql: str, params: tuple[Any, ...] = ()) -> Any:
    """One value straight from the database (row counts: what really happened)."""
    async with ledger_of(contract).transaction() as tx:
        row = (await tx.execute(sql, params)).first()
    return row[0] if row else None


async def refunds_of(contract: Contract, invoice_id: str) -> int:
    return int(
        await scalar(
            contract, "SELECT COUNT(*) FROM billing_refunds WHERE invoice_id = ?", (invoice_id,)
        )
    )


async def a_paid_invoice(
    contract: Contract, *, at_least: int = 10_000, skip: int = 0
) -> dict[str, Any]:
    """A paid invoice whose whole amount is refundable and at least `at_least` cents."""
    found: list[dict[str, Any]] = []
    cursor = None
    while True:
        args: dict[str, Any] = {"state": "paid", "limit": 50}
        if cursor:
            args["cursor"] = cursor
        page = await call(contract, "find_invoices", args)
        found += [r for r in page["results"] if at_least <= r["refundable_cents"] <= 500_000]
        cursor = page["next_cursor"]
        if len(found) > skip or not cursor:
            break
    return found[skip]


async def an_open_invoice(contract: Contract) -> dict[str, Any]:
    page = await call(contract, "find_invoices", {"state": "open", "limit": 1})
    return dict(page["results"][0])
