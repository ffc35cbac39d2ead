"""The billing server written the naive way: the same seven tools over the same generated ledger.

Reads go to the ledger's tables (the same data the drivable server serves); writes are kept in
this process (a refund, an update, a void, a new invoice), as a quick server would do before it
had a database layer. Plain `str`/`int` parameters, no dry run, no confirm token, no idempotency
receipts, integer-offset cursors, errors as whatever the code raises. Run as a module for stdio.
"""

from __future__ import annotations

import datetime
import itertools
from typing import Any

from mcp.server.mcpserver import MCPServer

from drivable.servers.billing.ledger import Filters, InvoiceRecord, Ledger

server = MCPServer("billing-naive", version="1.0.0")
_LEDGER: list[Ledger] = []
_CHANGES: dict[str, dict[str, Any]] = {}  # invoice_id -> fields changed here
_NEW: dict[str, dict[str, Any]] = {}
_IDS = itertools.count(1)


async def _ledger() -> Ledger:
    if not _LEDGER:
        ledger = Ledger()
        await ledger.prepare()
        _LEDGER.append(ledger)
    return _LEDGER[0]


def _invoice(r: InvoiceRecord) -> dict[str, Any]:
    row = {
        "invoice_id": r.invoice_id,
        "customer_id": r.customer_id,
        "customer_name": r.customer_name,
        "currency": r.currency,
        "state": r.state,
        "issued_on": r.issued_on,
        "due_on": r.due_on,
        "memo": r.memo,
        "total_cents": r.total_cents,
        "paid_cents": r.paid_cents,
        "refunded_cents": r.refunded_cents,
        "version": r.version,
    }
    return row | _CHANGES.get(r.invoice_id, {})


async def _get(invoice_id: str) -> dict[str, Any]:
    if invoice_id in _NEW:
        return _NEW[invoice_id]
    ledger = await _ledger()
    async with ledger.using(None) as tx:
        found = await ledger.invoice(tx, invoice_id)
    if found is None:
        raise KeyError(invoice_id)
    return _invoice(found)


@server.tool()
async def find_invoices(
    customer_id: str | None = None,
    state: str | None = None,
    currency: str | None = None,
    date_from: str | None = None,
    date_to: str | None = None,
    cursor: str | None = None,
    limit: int = 20,
) -> dict[str, Any]:
    """Find invoices."""
    start = int(cursor) if cursor else 0
    filters = Filters(
        customer_id=customer_id,
        state=state,
        currency=currency,
        date_from=datetime.date.fromisoformat(date_from).isoformat() if date_from else None,
        date_to=datetime.date.fromisoformat(date_to).isoformat() if date_to else None,
    )
    ledger = await _ledger()
    async with ledger.using(None) as tx:
        rows, total = await ledger.find(tx, filters, start, limit)
    more = start + len(rows) < total
    return {
        "results": [_invoice(r) for r in rows],
        "next_cursor": str(start + limit) if more else None,
    }


@server.tool()
async def get_invoice(invoice_id: str) -> dict[str, Any]:
    """Get an invoice."""
    return {"invoice": await _get(invoice_id)}


@server.tool()
async def list_customers(
    query: str | None = None, cursor: str | None = None, limit: int = 20
) -> dict[str, Any]:
    """List customers."""
    start = int(cursor) if cursor else 0
    ledger = await _ledger()
    async with ledger.using(None) as tx:
        rows = await ledger.customers(tx, query, start, limit + 1)
    return {
        "results": [
            {"customer_id": r[0], "name": r[1], "email": r[2], "country": r[3], "currency": r[4]}
            for r in rows[:limit]
        ],
        "next_cursor": str(start + limit) if len(rows) > limit else None,
    }


@server.tool()
async def create_invoice(
    customer_id: str, lines: list[dict[str, Any]], currency: str | None = None
) -> dict[str, Any]:
    """Create an invoice."""
    total = sum(int(line.get("quantity", 1)) * int(line["unit_cents"]) for line in lines)
    invoice_id = f"inv_new{next(_IDS)}"
    today = datetime.date.today()
    _NEW[invoice_id] = {
        "invoice_id": invoice_id,
        "customer_id": customer_id,
        "currency": currency or "EUR",
        "state": "open",
        "issued_on": today.isoformat(),
        "due_on": (today + datetime.timedelta(days=14)).isoformat(),
        "total_cents": total,
        "paid_cents": 0,
        "refunded_cents": 0,
        "version": 1,
    }
    return {"invoice": _NEW[invoice_id]}


@server.tool()
async def update_invoice(
    invoice_id: str, memo: str | None = None, due_on: str | None = None
) -> dict[str, Any]:
    """Update an invoice."""
    invoice = await _get(invoice_id)
    change = _CHANGES.setdefault(invoice_id, {})
    if memo is not None:
        change["memo"] = memo
    if due_on is not None:
        change["due_on"] = datetime.date.fromisoformat(due_on).isoformat()
    change["version"] = int(invoice["version"]) + 1
    return {"invoice": await _get(invoice_id)}


@server.tool()
async def refund_invoice(invoice_id: str, amount_cents: int, reason: str = "") -> dict[str, Any]:
    """Refund an invoice."""
    invoice = await _get(invoice_id)
    left = int(invoice["paid_cents"]) - int(invoice["refunded_cents"])
    if invoice["state"] == "void" or amount_cents > left:
        raise ValueError("refund not possible")
    refunded = int(invoice["refunded_cents"]) + amount_cents
    state = "refunded" if refunded == int(invoice["paid_cents"]) else "partially_refunded"
    _CHANGES.setdefault(invoice_id, {}).update(refunded_cents=refunded, state=state)
    return {
        "status": "refunded",
        "refund_id": f"ref_{next(_IDS)}",
        "amount_cents": amount_cents,
        "invoice_state": state,
    }


@server.tool()
async def void_invoice(invoice_id: str, reason: str = "") -> dict[str, Any]:
    """Void an invoice."""
    invoice = await _get(invoice_id)
    if int(invoice["paid_cents"]) > int(invoice["refunded_cents"]):
        raise ValueError("cannot void")
    _CHANGES.setdefault(invoice_id, {}).update(state="void")
    return {"status": "voided", "invoice_id": invoice_id}


if __name__ == "__main__":
    server.run()
