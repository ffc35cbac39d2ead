"""The billing server's models: what each tool reads and returns, and its own error code.

Ids are typed (`InvoiceId`, `CustomerId`), money is minor units read through the money kind, and
every input model is closed (`KindModel`), so the schema a model sees is the one the handler reads.
"""

from __future__ import annotations

import datetime
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field
from pydantic.json_schema import SkipJsonSchema

from drivable.contract import (
    Code,
    Recovery,
)
from drivable.contract.collections import EACH_ON_ITS_OWN
from drivable.contract.durable import (
    CONFIRM_TOKEN,
    DRY_RUN,
    IDEMPOTENCY_KEY,
    ConfirmToken,
    IdempotencyKey,
)
from drivable.contract.output import Output
from drivable.contract.paging import Detail, PageInfo
from drivable.kinds import Kind, KindModel
from drivable.kinds.money import Pending

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
# Each id names the tool that lists it: a name sent where the id goes ("Wilson Trading" as
# customer_id) is refused with that call as the repair (list_customers {"query": ...}).
InvoiceId = Annotated[  # = IdOf("inv_", lookup=("find_invoices", None)), as a type
    str, Kind("identifier", prefix="inv_", lookup=("find_invoices", None))
]
CustomerId = Annotated[  # = IdOf("cus_", lookup=("list_customers", "query"))
    str, Kind("identifier", prefix="cus_", lookup=("list_customers", "query"))
]
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
    """One invoice of a page: what choosing one takes. customer_id, paid_cents, refunded_cents,
    due_on, memo and lines come with detail=full, and always from get_invoice: a summary row is a
    summary (docs/decisions/0023-what-a-model-is-shown.md, 3)."""

    invoice_id: str = Field(description="Pass to get_invoice, update_invoice, refund_invoice.")
    customer_name: str
    state: InvoiceState
    currency: Currency = Field(description="ISO 4217; every *_cents field is in its minor unit.")
    total_cents: int
    refundable_cents: int = Field(description="The most refund_invoice accepts now.")
    balance_due_cents: int
    issued_on: str
    version: int = Field(description="Pass as expected_version to update_invoice.")
    customer_id: str | SkipJsonSchema[None] = None
    paid_cents: int | SkipJsonSchema[None] = None
    refunded_cents: int | SkipJsonSchema[None] = None
    due_on: str | SkipJsonSchema[None] = None
    memo: str | SkipJsonSchema[None] = None
    lines: list[LineOut] | SkipJsonSchema[None] = None


class InvoiceDetail(InvoiceRow):
    customer_id: str
    paid_cents: int
    refunded_cents: int
    due_on: str
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
    customer_id: CustomerId | None = Field(
        None, description="Only this customer's invoices: a customer_id list_customers returned."
    )
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
    limit: int = Field(10, ge=1, le=50, description="Page size, 1 to 50.")
    detail: Detail = Field(
        "summary", description="summary: amounts and dates; full: adds memo and lines."
    )


class GetInput(KindModel):
    invoice_id: InvoiceId = Field(description="The invoice_id a find_invoices result carries.")


class LineDraft(KindModel):
    description: str = Field(min_length=1, max_length=200, description="What was sold.")
    quantity: int = Field(1, ge=1, le=10_000, description="How many, a whole number.")
    unit_cents: UnitPrice = Field(
        description="Price of one, in minor units (cents) of the invoice's currency, 0 to 100000000."
    )


class CreateInput(KindModel):
    customer_id: CustomerId = Field(
        description="The customer billed: a customer_id list_customers returned."
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
    invoice_id: InvoiceId = Field(
        description="The invoice to change, as find_invoices returned it."
    )
    expected_version: int = Field(
        ge=1,
        description="The version get_invoice or find_invoices returned; a stale one is refused.",
    )
    memo: str | None = Field(None, max_length=500, description="New memo; omit to keep it.")
    due_on: datetime.date | None = Field(
        None, description="New due date (YYYY-MM-DD, not before issued_on); omit to keep it."
    )


class RefundInput(KindModel):
    invoice_id: InvoiceId = Field(
        description="The invoice to refund, as find_invoices returned it."
    )
    amount_cents: RefundAmount = Field(
        description=(
            "Refund amount in minor units (cents) of the invoice's currency, 1 to 500000. Must not "
            "exceed the invoice's refundable_cents; overdrafts are refund_exceeds_balance."
        ),
    )
    reason: RefundReason = Field("requested_by_customer", description="Why the money goes back.")
    idempotency_key: IdempotencyKey = IDEMPOTENCY_KEY
    dry_run: bool = DRY_RUN
    confirm_token: ConfirmToken = CONFIRM_TOKEN


class VoidInput(KindModel):
    invoice_id: InvoiceId = Field(description="The invoice to void, as find_invoices returned it.")
    reason: str | None = Field(None, max_length=200, description="Kept with the voided invoice.")
    dry_run: bool = DRY_RUN
    confirm_token: ConfirmToken = CONFIRM_TOKEN
