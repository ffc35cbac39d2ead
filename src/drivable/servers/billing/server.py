"""The billing reference server: invoices and refunds (the contract of seed 002, made real).

Seven tools: list_customers, find_invoices and get_invoice read; create_invoice (keyed, best effort
per line), update_invoice (expected_version), refund_invoice (keyed, two steps, bounded cents,
`refund_exceeds_balance`) and void_invoice (two steps) change. Money is integer minor units of an
ISO 4217 currency; every value is read through `drivable.kinds`; every write goes through the
call's effect transaction, so a refund, its receipt and its spent confirm token commit together.

`make_contract(ledger)` builds a contract on a prepared `Ledger`; `serve()` (what
`drivable serve billing` loads) opens the store named by `--store` / the environment.
"""

from __future__ import annotations

import datetime
import json
import secrets
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field
from pydantic.json_schema import SkipJsonSchema

from drivable.contract import (
    READ_ONLY,
    Call,
    Code,
    Contract,
    Effects,
    Recovery,
    Repair,
    Summary,
    ToolError,
)
from drivable.contract.collections import EACH_ON_ITS_OWN
from drivable.contract.durable import CONFIRM_TOKEN, DRY_RUN, IDEMPOTENCY_KEY, IdempotencyKey
from drivable.contract.envelope import Issue
from drivable.contract.output import Output
from drivable.contract.paging import Detail, PageInfo, Pager
from drivable.contract.resources import PromptArgumentSpec, ResourceBody, ResourceError
from drivable.effects import Transaction, Updated, VersionConflict
from drivable.kinds import Kind, KindModel, Reading, read
from drivable.kinds.money import Pending, both_units, settle
from drivable.servers.billing.data import CURRENCIES, DATA_VERSION, money
from drivable.servers.billing.ledger import Filters, InvoiceRecord, Ledger

NAME = "billing"
VERSION = "1.0.0"
CURSOR_LIFETIME_S = 3600
MAX_REFUND_CENTS = 500_000

# An amount in the invoice's minor units: spellings that need its currency ("42.00", "42.00 GBP")
# are settled by the handler once it has read the invoice (`money.settle`).
RefundAmount = Annotated[
    int | Pending,
    Kind("money", currency_from="invoice", minimum=1, maximum=MAX_REFUND_CENTS),
]
# A line's price, settled the same way once the invoice's currency is known (the call's or the
# customer's).
UnitPrice = Annotated[
    int | Pending, Kind("money", currency_from="invoice", minimum=0, maximum=100_000_000)
]
InvoiceId = Annotated[str, Kind("identifier", prefix="inv_")]  # = IdOf("inv_"), as a type
CustomerId = Annotated[str, Kind("identifier", prefix="cus_")]  # = IdOf("cus_")
Currency = Literal["CZK", "EUR", "GBP", "USD"]
InvoiceState = Literal["open", "paid", "partially_refunded", "refunded", "void"]
RefundReason = Literal["requested_by_customer", "duplicate", "failed_delivery", "disputed"]

REFUND_EXCEEDS_BALANCE = Code(
    "refund_exceeds_balance",
    Recovery.REREAD_STATE,
    "The refund is larger than what the invoice can still refund (paid minus already refunded). "
    "Re-read the invoice with the call in `repair` (its refundable_cents), re-plan, and do not "
    "retry the same amount.",
)


# -- output shapes -----------------------------------------------------------------------------


class LineOut(BaseModel):
    model_config = ConfigDict(extra="forbid")
    position: int
    description: str
    quantity: int
    unit_cents: int
    amount_cents: int


class PaymentOut(BaseModel):
    model_config = ConfigDict(extra="forbid")
    payment_id: str
    amount_cents: int
    paid_on: str
    method: str


class RefundOut(BaseModel):
    model_config = ConfigDict(extra="forbid")
    refund_id: str
    amount_cents: int
    reason: str
    refunded_on: str


class InvoiceRow(Output):
    """One invoice; memo and lines come with detail=full (and always from get_invoice)."""

    invoice_id: str = Field(description="Pass to get_invoice, update_invoice, refund_invoice.")
    customer_id: str
    customer_name: str
    state: InvoiceState
    currency: Currency = Field(description="ISO 4217; every *_cents field is in its minor unit.")
    total_cents: int
    paid_cents: int
    refunded_cents: int
    refundable_cents: int = Field(description="The most refund_invoice accepts now.")
    balance_due_cents: int
    issued_on: str
    due_on: str
    version: int = Field(description="Pass as expected_version to update_invoice.")
    memo: str | SkipJsonSchema[None] = None
    lines: list[LineOut] | SkipJsonSchema[None] = None


class InvoiceDetail(InvoiceRow):
    payments: list[PaymentOut] | SkipJsonSchema[None] = None
    refunds: list[RefundOut] | SkipJsonSchema[None] = None


class CustomerRow(BaseModel):
    model_config = ConfigDict(extra="forbid")
    customer_id: str = Field(description="Pass to create_invoice or find_invoices.")
    name: str
    email: str
    country: str = Field(description="ISO 3166-1 alpha-2.")
    currency: Currency = Field(description="The default currency of this customer's invoices.")


class CustomersOutput(PageInfo):
    results: list[CustomerRow]


class FindOutput(PageInfo):
    results: list[InvoiceRow]
    total: int = Field(description="Invoices matching every filter.")


class InvoiceOutput(BaseModel):
    model_config = ConfigDict(extra="forbid")
    invoice: InvoiceDetail


class RefundOutput(BaseModel):
    """Exactly the seed's refund contract: status, refund_id, amount_cents, invoice_state, summary."""

    model_config = ConfigDict(extra="forbid")
    status: Literal["would_refund", "refunded"] = Field(
        description="would_refund: a dry run, nothing moved; refunded: the money moved."
    )
    refund_id: str | None = Field(description="The refund's id; null on a dry run.")
    amount_cents: int
    invoice_state: InvoiceState = Field(description="The invoice's state after the refund.")
    summary: str


class VoidOutput(BaseModel):
    model_config = ConfigDict(extra="forbid")
    status: Literal["would_void", "voided", "already_void"]
    invoice_id: str
    invoice_state: InvoiceState
    summary: str


# -- inputs ------------------------------------------------------------------------------------


class ListCustomersInput(KindModel):
    query: str | None = Field(
        None, max_length=100, description="Part of the customer's name, any case; omit for all."
    )
    cursor: str | None = Field(
        None, description="next_cursor of the previous page; omit for the first page."
    )
    limit: int = Field(20, ge=1, le=50, description="Page size, 1 to 50.")


class FindInput(KindModel):
    customer_id: CustomerId | None = Field(None, description="Only this customer's invoices.")
    state: InvoiceState | None = Field(None, description="Only invoices in this state.")
    currency: Currency | None = Field(None, description="Only invoices in this currency.")
    date_from: datetime.date | None = Field(
        None, description="Issued on or after this day (YYYY-MM-DD; a bare year means 1 January)."
    )
    date_to: datetime.date | None = Field(
        None,
        description="Issued on or before this day (YYYY-MM-DD; a bare year means 31 December).",
    )
    cursor: str | None = Field(
        None, description="next_cursor of the previous page; omit for the first page."
    )
    limit: int = Field(20, ge=1, le=50, description="Page size, 1 to 50.")
    detail: Detail = Field(
        "summary", description="summary: amounts and dates; full: adds memo and lines."
    )


class GetInput(KindModel):
    invoice_id: InvoiceId = Field(description="The id find_invoices returned, e.g. 'inv_30001'.")


class LineDraft(KindModel):
    description: str = Field(min_length=1, max_length=200, description="What was sold.")
    quantity: int = Field(1, ge=1, le=10_000, description="How many, a whole number.")
    unit_cents: UnitPrice = Field(
        description="Price of one, in minor units (cents) of the invoice's currency, 0 to 100000000."
    )


class CreateInput(KindModel):
    customer_id: CustomerId = Field(
        description="The customer billed, as list_customers returns it."
    )
    currency: Currency | None = Field(
        None, description="ISO 4217 code; omit for the customer's own currency."
    )
    issued_on: datetime.date | None = Field(None, description="YYYY-MM-DD; omit for today (UTC).")
    due_on: datetime.date | None = Field(
        None, description="YYYY-MM-DD, not before issued_on; omit for 14 days after it."
    )
    memo: str | None = Field(None, max_length=500, description="Free text printed on the invoice.")
    lines: Annotated[list[LineDraft], EACH_ON_ITS_OWN] = Field(  # EachOnItsOwn[LineDraft]
        min_length=1,
        max_length=100,
        description="1 to 100 lines; each is checked on its own, bad ones come back in `rejected`.",
    )
    idempotency_key: IdempotencyKey = IDEMPOTENCY_KEY


class UpdateInput(KindModel):
    invoice_id: InvoiceId = Field(description="The invoice to change.")
    expected_version: int = Field(
        ge=1,
        description="The version get_invoice or find_invoices returned; a stale one is refused.",
    )
    memo: str | None = Field(None, max_length=500, description="New memo; omit to keep it.")
    due_on: datetime.date | None = Field(
        None, description="New due date (YYYY-MM-DD, not before issued_on); omit to keep it."
    )


class RefundInput(KindModel):
    invoice_id: InvoiceId = Field(description="The invoice to refund, e.g. 'inv_30001'.")
    amount_cents: RefundAmount = Field(
        description=(
            "Refund amount in minor units (cents) of the invoice's currency, 1 to 500000. Must not "
            "exceed the invoice's refundable_cents; overdrafts are refund_exceeds_balance."
        ),
    )
    reason: RefundReason = Field("requested_by_customer", description="Why the money goes back.")
    idempotency_key: IdempotencyKey = IDEMPOTENCY_KEY
    dry_run: bool = DRY_RUN
    confirm_token: str | None = CONFIRM_TOKEN


class VoidInput(KindModel):
    invoice_id: InvoiceId = Field(description="The invoice to void, e.g. 'inv_30001'.")
    reason: str | None = Field(None, max_length=200, description="Kept with the voided invoice.")
    dry_run: bool = DRY_RUN
    confirm_token: str | None = CONFIRM_TOKEN


# -- helpers -----------------------------------------------------------------------------------


def _line(row: Any) -> LineOut:
    return LineOut(
        position=int(row[0]),
        description=str(row[1]),
        quantity=int(row[2]),
        unit_cents=int(row[3]),
        amount_cents=int(row[4]),
    )


def _row(record: InvoiceRecord, *, full: bool, lines: list[Any] | None = None) -> dict[str, Any]:
    out: dict[str, Any] = {
        "invoice_id": record.invoice_id,
        "customer_id": record.customer_id,
        "customer_name": record.customer_name,
        "state": record.state,
        "currency": record.currency,
        "total_cents": record.total_cents,
        "paid_cents": record.paid_cents,
        "refunded_cents": record.refunded_cents,
        "refundable_cents": record.refundable_cents,
        "balance_due_cents": record.balance_due_cents,
        "issued_on": record.issued_on,
        "due_on": record.due_on,
        "version": record.version,
    }
    if full:
        out["memo"] = record.memo
        out["lines"] = [_line(r) for r in lines or []]
    return out


def _not_found(invoice_id: str) -> ToolError:
    return ToolError(
        "not_found",
        f"No invoice has the id {invoice_id}.",
        hint="Find the invoice with find_invoices (the call in `repair`) and use an invoice_id it returns.",
        repair=Repair("find_invoices", {}, "find_the_invoice_first"),
    )


def _reread(invoice_id: str) -> Repair:
    return Repair("get_invoice", {"invoice_id": invoice_id}, "reread_the_invoice_then_replan")


def _void_conflict(record: InvoiceRecord, doing: str) -> ToolError:
    return ToolError(
        "state_conflict",
        f"Invoice {record.invoice_id} is void; it cannot be {doing}.",
        hint=f"Re-read it with get_invoice (the call in `repair`); a void invoice cannot be {doing}.",
        repair=_reread(record.invoice_id),
        details={"invoice_state": record.state},
    )


async def _detail(ledger: Ledger, tx: Transaction, record: InvoiceRecord) -> InvoiceDetail:
    lines = (await ledger.lines(tx, [record.invoice_id])).get(record.invoice_id, [])
    payments = await ledger.payments(tx, record.invoice_id)
    refunds = await ledger.refunds(tx, record.invoice_id)
    return InvoiceDetail(
        **_row(record, full=True, lines=lines),
        payments=[
            PaymentOut(payment_id=p[0], amount_cents=int(p[1]), paid_on=p[2], method=p[3])
            for p in payments
        ],
        refunds=[
            RefundOut(refund_id=r[0], amount_cents=int(r[1]), reason=r[2], refunded_on=r[3])
            for r in refunds
        ],
    )


def _today() -> datetime.date:
    return datetime.datetime.now(datetime.UTC).date()


def _due_issue(tool: str, due_on: datetime.date, issued_on: str) -> ToolError:
    return ToolError(
        "invalid_arguments",
        f"due_on {due_on.isoformat()} is before the invoice's issue date {issued_on}.",
        hint=f"Call {tool} again with due_on on or after {issued_on}, or without due_on.",
        issues=[
            Issue(
                "due_on",
                "out_of_range",
                f"due_on must be on or after {issued_on}.",
                received=due_on.isoformat(),
                expected=f"a date on or after {issued_on}",
                has_received=True,
            )
        ],
    )


# -- the contract ------------------------------------------------------------------------------


# A token with only the read scope can look but never change anything (or move money).
READ_SCOPE = "billing:read"
WRITE_SCOPE = "billing:write"


def make_contract(ledger: Ledger) -> Contract:
    """The billing contract on a prepared ledger (`await ledger.prepare()` first)."""
    if not ledger.secret:
        raise RuntimeError("prepare the ledger before building the contract")
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
    )
    contract.use_effects(ledger.store, ledger.secret)
    pager = Pager(secret=ledger.secret, lifetime_s=CURSOR_LIFETIME_S)

    @contract.tool(
        name="list_customers",
        title="List customers",
        description=(
            "List the customers invoices can be created for, by id, a page at a time. Use it to "
            "find a customer_id for create_invoice or find_invoices; `query` matches part of the "
            "name in any case; an empty page means no name matches. Pass next_cursor back as "
            "cursor for the next page. "
            'Example: {"query": "novák", "limit": 10}.'
        ),
        effects=READ_ONLY,
        scopes=[READ_SCOPE],
        errors=["invalid_cursor", "cursor_expired"],
    )
    async def list_customers(args: ListCustomersInput, call: Call) -> CustomersOutput:
        start = pager.offset("list_customers", args)
        async with ledger.using(None) as tx:
            rows = await ledger.customers(tx, args.query, start, args.limit + 1)
        shown = rows[: args.limit]
        page = pager.page("list_customers", args, start, len(shown), len(rows) > args.limit)
        return CustomersOutput(
            results=[
                CustomerRow(customer_id=r[0], name=r[1], email=r[2], country=r[3], currency=r[4])
                for r in shown
            ],
            has_more=page.has_more,
            next_cursor=page.next_cursor,
        )

    @contract.tool(
        name="find_invoices",
        title="Find invoices",
        description=(
            "Find invoices by customer, state, currency and issue-date range, newest first, a "
            "page at a time; use it before get_invoice, update_invoice, refund_invoice or "
            "void_invoice to get an invoice_id and its version. Every filter is optional; "
            "date_from/date_to are YYYY-MM-DD (a bare year covers the whole year). An empty "
            "page under filters carries a no_hits_filtered warning naming what would match. "
            "detail=full adds memo and lines. Pass next_cursor back as cursor for the next page. "
            'Example: {"state": "open", "limit": 10}.'
        ),
        effects=READ_ONLY,
        scopes=[READ_SCOPE],
        errors=["invalid_cursor", "cursor_expired"],
    )
    async def find_invoices(args: FindInput, call: Call) -> FindOutput:
        start = pager.offset("find_invoices", args)
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
            if not records and start == 0 and filters.active():
                asked = args.model_dump(
                    mode="json", exclude_none=True, exclude_defaults=True, exclude={"cursor"}
                )
                await _explain_empty(ledger, tx, call, filters, asked)
        more = start + len(records) < total
        page = pager.page("find_invoices", args, start, len(records), more)
        return FindOutput(
            results=[
                InvoiceRow(**_row(r, full=full, lines=lines.get(r.invoice_id))) for r in records
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
            "most it accepts) and update_invoice (version is its expected_version), and to "
            "re-read after a conflict. If no invoice has the id, the error is not_found and its "
            "repair is the find_invoices call to make. "
            'Example: {"invoice_id": "inv_30001"}.'
        ),
        effects=READ_ONLY,
        scopes=[READ_SCOPE],
        errors=["not_found"],
    )
    async def get_invoice(args: GetInput, call: Call) -> InvoiceOutput:
        async with ledger.using(None) as tx:
            record = await ledger.invoice(tx, args.invoice_id)
            if record is None:
                raise _not_found(args.invoice_id)
            return InvoiceOutput(invoice=await _detail(ledger, tx, record))

    @contract.tool(
        name="create_invoice",
        title="Create an invoice",
        description=(
            "Create an open invoice for a customer with one or more lines (quantity x unit_cents, "
            "in minor units of the currency). Use it when the user bills a customer for goods or "
            "work; use list_customers first for the customer_id. Each line is checked on its own: valid lines are "
            "invoiced, the others come back under `rejected` with issues at lines.N.field; fix "
            "those and send them on a new invoice. currency defaults to the customer's, "
            "issued_on to today (UTC), due_on to 14 days later. An unknown customer is "
            "not_found (repair: list_customers). "
            'Example: {"customer_id": "cus_1001", "lines": [{"description": "Consulting hour", '
            '"quantity": 3, "unit_cents": 12000}], "idempotency_key": "4f1c2b9e-create-1"}.'
        ),
        effects=Effects(read_only=False, destructive=False, idempotent=False, open_world=False),
        scopes=[WRITE_SCOPE],
        errors=["not_found"],
    )
    async def create_invoice(args: CreateInput, call: Call) -> InvoiceOutput:
        async with ledger.using(call.transaction) as tx:
            customer = await ledger.customer(tx, args.customer_id)
            if customer is None:
                raise ToolError(
                    "not_found",
                    f"No customer has the id {args.customer_id}.",
                    hint="Find the customer with list_customers (the call in `repair`) and use a "
                    "customer_id it returns.",
                    repair=Repair("list_customers", {}, "find_the_customer_first"),
                )
            issued = args.issued_on or _today()
            due = args.due_on or issued + datetime.timedelta(days=14)
            if due < issued:
                raise _due_issue("create_invoice", due, issued.isoformat())
            currency = args.currency or customer[4]
            prices = [
                _amount_in(currency, li.unit_cents, call, f"lines.{i}.unit_cents", "create_invoice")
                for i, li in enumerate(args.lines)
            ]
            invoice_id = f"inv_{secrets.token_hex(5)}"
            total = sum(li.quantity * price for li, price in zip(args.lines, prices, strict=True))
            await tx.execute(
                "INSERT INTO billing_invoices (invoice_id, customer_id, currency, state, "
                "issued_on, due_on, memo, total_cents, paid_cents, refunded_cents, version) "
                "VALUES (?, ?, ?, 'open', ?, ?, ?, ?, 0, 0, 1)",
                (
                    invoice_id,
                    args.customer_id,
                    currency,
                    issued.isoformat(),
                    due.isoformat(),
                    args.memo,
                    total,
                ),
            )
            for position, (li, price) in enumerate(zip(args.lines, prices, strict=True), 1):
                await tx.execute(
                    "INSERT INTO billing_lines (invoice_id, position, description, quantity, "
                    "unit_cents, amount_cents) VALUES (?, ?, ?, ?, ?, ?)",
                    (invoice_id, position, li.description, li.quantity, price, li.quantity * price),
                )
            record = await ledger.invoice(tx, invoice_id)
            assert record is not None
            return InvoiceOutput(invoice=await _detail(ledger, tx, record))

    @contract.tool(
        name="update_invoice",
        title="Update an invoice",
        description=(
            "Change an invoice's memo or due date. Use it when the user corrects what an invoice "
            "says; amounts and lines do not change (void it and create a new one). Send the version get_invoice or "
            "find_invoices returned as expected_version: if the invoice changed since (a refund, "
            "another update), the call is a conflict whose repair is the get_invoice call to "
            "re-read it; then reapply. Properties left out keep their value; resending a change "
            "already applied is answered as applied. A void invoice cannot change "
            "(state_conflict). "
            'Example: {"invoice_id": "inv_30001", "expected_version": 1, "memo": "PO 4471"}.'
        ),
        effects=Effects(read_only=False, destructive=False, idempotent=True, open_world=False),
        scopes=[WRITE_SCOPE],
        errors=["not_found", "conflict", "state_conflict"],
    )
    async def update_invoice(args: UpdateInput, call: Call) -> InvoiceOutput:
        async with ledger.using(call.transaction) as tx:
            record = await ledger.invoice(tx, args.invoice_id)
            if record is None:
                raise _not_found(args.invoice_id)
            if record.state == "void":
                raise _void_conflict(record, "changed")
            values: dict[str, Any] = {}
            if args.memo is not None:
                values["memo"] = args.memo
            if args.due_on is not None:
                if args.due_on.isoformat() < record.issued_on:
                    raise _due_issue("update_invoice", args.due_on, record.issued_on)
                values["due_on"] = args.due_on.isoformat()
            current = {"memo": record.memo, "due_on": record.due_on}
            if args.expected_version == record.version and not values:
                call.note("Nothing to change: neither memo nor due_on was sent.")
                return InvoiceOutput(invoice=await _detail(ledger, tx, record))
            outcome = await tx.compare_and_set(
                "billing_invoices",
                key={"invoice_id": args.invoice_id},
                expected_version=args.expected_version,
                values=values,
                reread_tool="get_invoice",
                reread_arguments={"invoice_id": args.invoice_id},
            )
            if isinstance(outcome, VersionConflict):
                if values and all(current[k] == v for k, v in values.items()):
                    # A retry of a change that already landed: the state is what was asked for.
                    call.note(
                        f"Already applied: the invoice already has these values (version "
                        f"{record.version})."
                    )
                    return InvoiceOutput(invoice=await _detail(ledger, tx, record))
                raise ToolError(
                    "conflict",
                    f"Invoice {args.invoice_id} is at version {record.version}, not "
                    f"{args.expected_version}: it changed since it was read.",
                    hint="Re-read it with get_invoice (the call in `repair`), check the change "
                    "still makes sense, and resend with the new version as expected_version.",
                    issues=[
                        Issue(
                            "expected_version",
                            "out_of_range",
                            f"The current version is {record.version}.",
                            received=args.expected_version,
                            expected=str(record.version),
                            has_received=True,
                        )
                    ],
                    repair=_reread(args.invoice_id),
                    details={"current_version": record.version},
                )
            assert isinstance(outcome, Updated)
            fresh = await ledger.invoice(tx, args.invoice_id)
            assert fresh is not None
            return InvoiceOutput(invoice=await _detail(ledger, tx, fresh))

    @contract.tool(
        name="refund_invoice",
        title="Refund an invoice",
        description=(
            "Refund money received on an invoice, once. Use it when the user asks to give money "
            "back for a failed delivery, a dispute or a duplicate payment. amount_cents is in minor units of the invoice's currency (4200 = 42.00), 1 to "
            "500000, and at most the invoice's refundable_cents (get_invoice shows it); more is "
            "refund_exceeds_balance, whose repair re-reads the invoice: re-plan, do not retry the "
            "same amount. A void invoice cannot be refunded (state_conflict). Returns status, "
            "refund_id, amount_cents, invoice_state and a one-line summary. "
            'Example: {"invoice_id": "inv_30001", "amount_cents": 4200, "reason": "disputed", '
            '"idempotency_key": "9d2e6c1a-refund-1", "dry_run": true}.'
        ),
        effects=Effects(read_only=False, destructive=True, idempotent=True, open_world=False),
        scopes=[WRITE_SCOPE],
        errors=["not_found", "refund_exceeds_balance", "state_conflict"],
    )
    async def refund_invoice(args: RefundInput, call: Call) -> RefundOutput:
        async with ledger.using(call.transaction) as tx:
            record = await ledger.invoice(tx, args.invoice_id)
            if record is None:
                raise _not_found(args.invoice_id)
            if record.state == "void":
                raise _void_conflict(record, "refunded")
            cents = _amount_in(
                record.currency, args.amount_cents, call, "amount_cents", "refund_invoice"
            )
            if cents > record.refundable_cents:
                raise _exceeds(record, cents)
            after = record.refunded_cents + cents
            state = "refunded" if after == record.paid_cents else "partially_refunded"
            amount = money(cents, record.currency)
            left = money(record.refundable_cents - cents, record.currency)
            if args.dry_run:
                # Both units, so a slip of a factor of a hundred shows before money moves.
                return RefundOutput(
                    status="would_refund",
                    refund_id=None,
                    amount_cents=cents,
                    invoice_state=state,
                    summary=f"Would refund {both_units(cents, record.currency)} against invoice "
                    f"{record.invoice_id}; {left} would remain refundable.",
                )
            # The balance is checked again by the UPDATE itself: two refunds under different
            # keys cannot both pass a check made before either wrote (PostgreSQL row lock).
            done = await tx.execute(
                "UPDATE billing_invoices SET refunded_cents = refunded_cents + ?, "
                "state = CASE WHEN refunded_cents + ? = paid_cents THEN 'refunded' "
                "ELSE 'partially_refunded' END, version = version + 1 "
                "WHERE invoice_id = ? AND state <> 'void' AND paid_cents - refunded_cents >= ? "
                "RETURNING state",
                (cents, cents, args.invoice_id, cents),
            )
            row = done.first()
            if row is None:
                fresh = await ledger.invoice(tx, args.invoice_id)
                assert fresh is not None
                if fresh.state == "void":
                    raise _void_conflict(fresh, "refunded")
                raise _exceeds(fresh, cents)
            refund_id = f"rf_{secrets.token_hex(6)}"
            await tx.execute(
                "INSERT INTO billing_refunds (refund_id, invoice_id, amount_cents, reason, "
                "refunded_on) VALUES (?, ?, ?, ?, ?)",
                (refund_id, args.invoice_id, cents, args.reason, _today().isoformat()),
            )
            return RefundOutput(
                status="refunded",
                refund_id=refund_id,
                amount_cents=cents,
                invoice_state=str(row[0]),
                summary=f"Refunded {amount} against invoice {record.invoice_id}; {left} remains "
                "refundable.",
            )

    @contract.tool(
        name="void_invoice",
        title="Void an invoice",
        description=(
            "Void an invoice. Use it only when an invoice was issued by mistake: it stays on record with state void, "
            "owes nothing, and can no longer be changed or refunded; this cannot be undone. Only "
            "an invoice with no money kept (nothing paid, or everything refunded) can be voided; "
            "otherwise state_conflict (refund with refund_invoice first). Voiding a void invoice "
            "answers already_void. "
            'Example: {"invoice_id": "inv_30001", "reason": "issued twice", "dry_run": true}.'
        ),
        effects=Effects(read_only=False, destructive=True, idempotent=True, open_world=False),
        scopes=[WRITE_SCOPE],
        errors=["not_found", "state_conflict"],
    )
    async def void_invoice(args: VoidInput, call: Call) -> VoidOutput:
        async with ledger.using(call.transaction) as tx:
            record = await ledger.invoice(tx, args.invoice_id)
            if record is None:
                raise _not_found(args.invoice_id)
            if record.state == "void":
                return VoidOutput(
                    status="already_void",
                    invoice_id=record.invoice_id,
                    invoice_state="void",
                    summary=f"Invoice {record.invoice_id} was already void; nothing changed.",
                )
            if record.refundable_cents > 0:
                raise _kept_money(record)
            total = money(record.total_cents, record.currency)
            if args.dry_run:
                return VoidOutput(
                    status="would_void",
                    invoice_id=record.invoice_id,
                    invoice_state="void",
                    summary=f"Would void invoice {record.invoice_id} ({total}, "
                    f"{record.customer_name}).",
                )
            done = await tx.execute(
                "UPDATE billing_invoices SET state = 'void', void_reason = ?, "
                "version = version + 1 WHERE invoice_id = ? AND state <> 'void' "
                "AND paid_cents = refunded_cents RETURNING version",
                (args.reason, args.invoice_id),
            )
            if done.first() is None:
                fresh = await ledger.invoice(tx, args.invoice_id)
                assert fresh is not None
                raise _kept_money(fresh)
            return VoidOutput(
                status="voided",
                invoice_id=record.invoice_id,
                invoice_state="void",
                summary=f"Voided invoice {record.invoice_id} ({total}, {record.customer_name}).",
            )

    @contract.resource(
        "billing://summary",
        name="summary",
        title="What the billing server does",
        description="The capability summary: what the server does and does not do, its tools, currencies and data.",
    )
    async def summary_resource() -> ResourceBody:
        body = contract.summary_dict()
        async with ledger.using(None) as tx:
            body["data"] = {
                "version": DATA_VERSION,
                "invoices": await ledger.count(tx, Filters()),
                "currencies": list(CURRENCIES),
                "money": "integer minor units (*_cents) of the invoice's ISO 4217 currency",
            }
        body["resources"] = {"invoice": "billing://invoices/{invoice_id}"}
        return ResourceBody(json.dumps(body, ensure_ascii=False))

    async def complete(argument: str, value: str) -> list[str]:
        if argument != "invoice_id":
            return []
        async with ledger.using(None) as tx:
            return await ledger.invoice_ids(tx, value.strip().lower() or "inv_")

    @contract.resource_template(
        "billing://invoices/{invoice_id}",
        name="invoice",
        title="An invoice",
        description="One invoice as get_invoice returns it: amounts, state, version, lines, payments, refunds.",
        complete=complete,
    )
    async def invoice_resource(invoice_id: str) -> ResourceBody:
        reading = read("identifier", invoice_id, prefix="inv_")
        record = None
        async with ledger.using(None) as tx:
            if reading.outcome == "value":
                record = await ledger.invoice(tx, str(reading.value))
            if record is None:
                raise ResourceError(
                    "not_found",
                    f"No invoice has the id {invoice_id!r}.",
                    hint="Find the invoice with find_invoices and use an invoice_id it returns.",
                    repair=Repair("find_invoices", {}, "find_the_invoice_first"),
                )
            detail = await _detail(ledger, tx, record)
        return ResourceBody(detail.model_dump_json())

    @contract.prompt(
        name="refund_an_invoice",
        title="Refund an invoice safely",
        description=(
            "Use when the user asks to give money back on an invoice: find it, check what is "
            "refundable, preview, confirm."
        ),
        when_to_use="When the user asks to give money back on an invoice (a dispute, a failed delivery, a duplicate).",
        arguments=[
            PromptArgumentSpec(
                "invoice", "The invoice id, or what the user said about it.", required=True
            ),
            PromptArgumentSpec(
                "amount", "The amount to refund, as the user said it.", required=False
            ),
        ],
        prerequisites={
            "tools": ["find_invoices", "get_invoice", "refund_invoice"],
            "permissions": [],
        },
        followups=["get_invoice", "refund_invoice"],
    )
    async def refund_an_invoice(invoice: str = "", amount: str = "") -> str:
        how_much = (
            f" The user asked for {json.dumps(amount, ensure_ascii=False)}." if amount else ""
        )
        return (
            f"Invoice: {json.dumps(invoice, ensure_ascii=False)}.{how_much}\n"
            "1. If that is not an invoice_id (inv_...), call find_invoices with what you know "
            "(customer_id, state paid, dates) and pick the invoice with the user.\n"
            "2. Call get_invoice: refundable_cents is the most you may refund, in minor units of "
            "its currency (4200 = 42.00).\n"
            "3. Call refund_invoice with a new idempotency_key and dry_run true; show the summary "
            "to the user.\n"
            "4. Only after the user agrees, repeat the same call with dry_run false and the "
            "confirm_token. On any error, follow its repair; on refund_exceeds_balance re-read "
            "the invoice and ask the user, never retry the same amount."
        )

    return contract


def _amount_in(currency: str, amount: int | Pending, call: Call, path: str, tool: str) -> int:
    """An amount in `currency`'s minor units, read through the money kind."""
    reading = settle(amount, currency)
    if reading.outcome != "value":
        raise _unread_amount(reading, currency, path, tool)
    call.notes.extend(f"{path}: {note}" for note in reading.notes)
    return int(reading.value)


def _unread_amount(reading: Reading, currency: str, path: str, tool: str) -> ToolError:
    """The money kind's question or refusal, as the envelope a validation issue would be."""
    if reading.readings:
        then = "with the one you mean: " + " or ".join(str(r) for r in reading.readings)
    else:
        then = f"with a JSON integer of {currency} minor units"
        if tool == "refund_invoice":
            then += " (get_invoice shows refundable_cents)"
    return ToolError(
        "invalid_arguments",
        f"{path}: {reading.hint}",
        hint=f"Call {tool} again {then}.",
        issues=[
            Issue(
                path,
                reading.code,
                reading.hint,
                received=reading.received,
                expected=f"{reading.expected} of {currency}",
                readings=list(reading.readings) or None,
                has_received=True,
            )
        ],
    )


def _exceeds(record: InvoiceRecord, amount_cents: int) -> ToolError:
    refundable = money(record.refundable_cents, record.currency)
    return ToolError(
        "refund_exceeds_balance",
        f"Invoice {record.invoice_id} can refund at most {refundable} "
        f"({record.refundable_cents} cents); {amount_cents} cents were asked.",
        hint="Re-read the invoice with get_invoice (the call in `repair`) and re-plan with its "
        "refundable_cents; do not retry the same amount.",
        issues=[
            Issue(
                "amount_cents",
                "out_of_range",
                f"At most {record.refundable_cents} for this invoice now.",
                received=amount_cents,
                expected=f"1 to {record.refundable_cents}",
                has_received=True,
            )
        ],
        repair=_reread(record.invoice_id),
        details={"refundable_cents": record.refundable_cents, "invoice_state": record.state},
    )


def _kept_money(record: InvoiceRecord) -> ToolError:
    kept = money(record.refundable_cents, record.currency)
    return ToolError(
        "state_conflict",
        f"Invoice {record.invoice_id} has {kept} paid and not refunded; it cannot be voided.",
        hint="Re-read it with get_invoice (the call in `repair`); refund it with refund_invoice "
        "before voiding, or leave it as it is.",
        repair=_reread(record.invoice_id),
        details={"refundable_cents": record.refundable_cents, "invoice_state": record.state},
    )


async def _explain_empty(
    ledger: Ledger, tx: Transaction, call: Call, filters: Filters, asked: dict[str, Any]
) -> None:
    """An empty first page under filters names, per filter, how many invoices it alone keeps, and
    ends with the next call to make, literally (a model copies a call; prose it resent)."""
    active = filters.active()
    alone = {
        name: await ledger.count(tx, Filters(**{name: value})) for name, value in active.items()
    }
    parts = ", ".join(f"{name}={active[name]} alone matches {n}" for name, n in alone.items())
    empty = [name for name, n in alone.items() if n == 0]
    advice = (
        f"Omit or change {', '.join(empty)}, which matches nothing on its own."
        if empty
        else "Omit filters one at a time."
    )
    drop = empty[0] if empty else min(alone, key=lambda name: alone[name])
    arguments = {k: v for k, v in asked.items() if k != drop}
    call.warn(
        "no_hits_filtered",
        f"No invoice matches every filter together ({parts}). {advice} Next call: "
        f"find_invoices {json.dumps(arguments, ensure_ascii=False)}",
        empty[0] if empty else None,
    )


def serve() -> Contract:
    """The contract on the store `--store` / DRIVABLE_BILLING_STORE names (`drivable serve billing`)."""
    ledger = Ledger()
    ledger.prepare_blocking()
    return make_contract(ledger)


__all__ = ["Ledger", "make_contract", "serve"]
