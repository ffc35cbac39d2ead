"""The billing reference server: invoices and refunds (the contract of seed 002, made real).

Seven tools: list_customers, find_invoices and get_invoice read; create_invoice (keyed, best effort
per line), update_invoice (expected_version), refund_invoice (keyed, two steps, bounded cents,
`refund_exceeds_balance`) and void_invoice (two steps) change. Money is integer minor units of an
ISO 4217 currency; every value is read through `drivable.kinds`; every write goes through the
call's effect transaction, so a refund, its receipt and its spent confirm token commit together.

`contract` is what `drivable serve billing` serves: its lifespan (`open_ledger`) opens the
`Ledger` on the store `--store` / the environment names, once per server start, and every
handler takes it by a parameter annotated `Ledger`. A test opens it on its own store:
`async with contract.started(ledger=Ledger(url)):`.

The package keeps its parts apart, as a server to copy: `models` (the tools' input and output
models and the server's own error code), `domain` (what the tools share: rows, refusals with their
repairs, money read through the kinds), `ledger` (the SQL), this module (the contract, its
lifespan and the reads), `writes` (the four write tools) and `resources` (the resources and the
prompt). The package's __init__ imports the last two, so that any import of the server declares
all of it, the reads first (tools are listed as declared).
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from drivable.contract import (
    READ_ONLY,
    Call,
    Contract,
    Summary,
)
from drivable.servers.billing.domain import (
    INVOICE_FILTERS,
    invoice_detail,
    invoice_not_found,
    invoice_row,
)
from drivable.servers.billing.ledger import Filters, Ledger
from drivable.servers.billing.models import (
    NAME,
    REFUND_EXCEEDS_BALANCE,
    VERSION,
    CustomerRow,
    CustomersOutput,
    FindInput,
    FindOutput,
    GetInput,
    InvoiceOutput,
    InvoiceRow,
    ListCustomersInput,
)

# A token with only the read scope can look but never change anything (or move money).
READ_SCOPE = "billing:read"
WRITE_SCOPE = "billing:write"


@asynccontextmanager
async def open_ledger(contract: Contract, ledger: Ledger | None = None) -> AsyncIterator[Ledger]:
    """The ledger the handlers use, prepared (tables and data, once per store), with its store
    keeping the receipts too, so a refund and its receipt commit together. `ledger`: a test's own
    (prepared unless it is, left open: its owner closes it); else the one the settings name,
    closed at the end."""
    opened = ledger or Ledger()
    if not opened.secret:  # prepared already: a test's own, as it made it
        await opened.prepare()
    contract.use_effects(opened.store, opened.secret)
    try:
        yield opened
    finally:
        if ledger is None:
            await opened.close()


contract = Contract(
    NAME,
    version=VERSION,
    title="Billing (drivable reference server)",
    summary=Summary(
        text=(
            "Invoices and refunds. Read with find_invoices and get_invoice; change with "
            "create_invoice, update_invoice, refund_invoice and void_invoice. Money is in "
            "integer minor units (cents) of the invoice's ISO 4217 currency. It does not "
            "charge cards, collect payments, edit customers or convert currencies. Call "
            "find_invoices first."
        ),
        does=[
            "list customers",
            "find and read invoices with their lines, payments and refunds",
            "create invoices with lines",
            "change an invoice's memo or due date",
            "refund paid invoices, once per idempotency_key, after a dry run",
            "void unpaid invoices, after a dry run",
        ],
        does_not=[
            "charge cards or collect payments",
            "create or edit customers",
            "convert currencies",
            "delete invoices (void them instead)",
        ],
        prerequisites={"store": "SQLite file or PostgreSQL (drivable serve billing --store)"},
    ),
    domain_codes=[REFUND_EXCEEDS_BALANCE],
    lifespan=open_ledger,
)


@contract.tool(
    name="find_invoices",
    title="Find invoices",
    description=(
        "Find invoices by customer, state, currency and issue date, newest first, a page at "
        "a time: a page with more after it carries next_call, the same search for the next "
        "page. Use it to get the invoice_id and version the other invoice tools take. An "
        'empty page under filters names the next call to make. Example: {"state": "<state>", '
        '"limit": "<page size>"}.'
    ),
    more=(
        "Every filter is optional; date_from/date_to are YYYY-MM-DD (a bare year covers the "
        "whole year). The empty page's no_hits_filtered warning names what would match. "
        "detail=full adds customer_id, paid, refunded and due amounts, memo and lines (get_invoice "
        "reads one invoice whole). Pass next_cursor back as cursor for the next page."
    ),
    effects=READ_ONLY,
    scopes=[READ_SCOPE],
    errors=["invalid_cursor", "cursor_expired"],
)
async def find_invoices(args: FindInput, call: Call, ledger: Ledger) -> FindOutput:
    start = ledger.pager.offset("find_invoices", args)
    filters = Filters(
        customer_id=args.customer_id,
        state=args.state,
        currency=args.currency,
        date_from=args.date_from.isoformat() if args.date_from else None,
        date_to=args.date_to.isoformat() if args.date_to else None,
    )
    full = args.detail == "full"
    async with ledger.using(None) as tx:
        records, total = await ledger.find(tx, filters, start, args.limit)
        lines = await ledger.lines(tx, [r.invoice_id for r in records]) if full else {}
        if not records and start == 0:
            # the same search without the one filter whose removal finds fewest invoices
            await call.relax(
                args,
                INVOICE_FILTERS,
                count=lambda kept: ledger.count(tx, Filters(**kept)),
                facet=lambda name, kept: ledger.values(tx, Filters(**kept), name),
                noun="invoice",
            )
    more = start + len(records) < total
    page = ledger.pager.page("find_invoices", args, start, len(records), more)
    return FindOutput(
        results=[
            InvoiceRow(**invoice_row(r, full=full, lines=lines.get(r.invoice_id))) for r in records
        ],
        total=total,
        has_more=page.has_more,
        next_cursor=page.next_cursor,
    )


@contract.tool(
    name="get_invoice",
    title="Get an invoice",
    description=(
        "Read one invoice by the invoice_id find_invoices returned: amounts, state, version, "
        "lines, payments and refunds. Use it before refund_invoice (refundable_cents is the "
        "most it accepts) and update_invoice (version is its expected_version). If no "
        "invoice has the id, the error is not_found with the find_invoices call to make. "
        'Example: {"invoice_id": "<invoice_id of a find_invoices result>"}.'
    ),
    more="Re-read an invoice with it after a conflict.",
    effects=READ_ONLY,
    scopes=[READ_SCOPE],
    errors=["not_found"],
)
async def get_invoice(args: GetInput, call: Call, ledger: Ledger) -> InvoiceOutput:
    async with ledger.using(None) as tx:
        record = await ledger.invoice(tx, args.invoice_id)
        if record is None:
            raise invoice_not_found(args.invoice_id)
        return InvoiceOutput(invoice=await invoice_detail(ledger, tx, record))


@contract.tool(
    name="list_customers",
    title="List customers",
    description=(
        "List the customers invoices can be created for, a page at a time. Use it to find a "
        "customer_id for create_invoice or find_invoices; `query` matches part of the name; "
        'an empty page means no name matches. Example: {"query": "<part of the name>"}.'
    ),
    more=("query matches in any case. Pass next_cursor back as cursor for the next page."),
    effects=READ_ONLY,
    scopes=[READ_SCOPE],
    errors=["invalid_cursor", "cursor_expired"],
)
async def list_customers(args: ListCustomersInput, call: Call, ledger: Ledger) -> CustomersOutput:
    start = ledger.pager.offset("list_customers", args)
    async with ledger.using(None) as tx:
        rows = await ledger.customers(tx, args.query, start, args.limit + 1)
    shown = rows[: args.limit]
    page = ledger.pager.page("list_customers", args, start, len(shown), len(rows) > args.limit)
    return CustomersOutput(
        results=[
            CustomerRow(customer_id=r[0], name=r[1], email=r[2], country=r[3], currency=r[4])
            for r in shown
        ],
        has_more=page.has_more,
        next_cursor=page.next_cursor,
    )


__all__ = ["READ_SCOPE", "WRITE_SCOPE", "Ledger", "contract", "open_ledger"]
