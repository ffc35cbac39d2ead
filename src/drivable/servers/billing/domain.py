"""What billing's tools share: invoice rows, refusals that name the next call, money read through
the kinds, and the filters an empty search is relaxed by.
"""

from __future__ import annotations

import datetime
from typing import Any

from drivable.contract import (
    Call,
    Repair,
    ToolError,
)
from drivable.contract.envelope import Issue
from drivable.contract.relax import Filter
from drivable.effects import Transaction
from drivable.kinds import Reading
from drivable.kinds.money import Pending, settle
from drivable.servers.billing.data import money
from drivable.servers.billing.ledger import InvoiceRecord, Ledger
from drivable.servers.billing.models import InvoiceDetail, LineOut, PaymentOut, RefundOut

# find_invoices' filters, for the minimal relaxation of an empty page (`Call.relax`).
INVOICE_FILTERS = (
    Filter("customer_id"),
    Filter("state"),
    Filter("currency"),
    Filter("date_from", "lower"),
    Filter("date_to", "upper"),
)


def line_out(row: Any) -> LineOut:
    return LineOut(
        position=int(row[0]),
        description=str(row[1]),
        quantity=int(row[2]),
        unit_cents=int(row[3]),
        amount_cents=int(row[4]),
    )


def invoice_row(
    record: InvoiceRecord, *, full: bool, lines: list[Any] | None = None
) -> dict[str, Any]:
    """A page's row (`InvoiceRow`): the summary, and with `full` the whole invoice but payments
    and refunds."""
    out: dict[str, Any] = {
        "invoice_id": record.invoice_id,
        "customer_name": record.customer_name,
        "state": record.state,
        "currency": record.currency,
        "total_cents": record.total_cents,
        "refundable_cents": record.refundable_cents,
        "balance_due_cents": record.balance_due_cents,
        "issued_on": record.issued_on,
        "version": record.version,
    }
    if full:
        out["customer_id"] = record.customer_id
        out["paid_cents"] = record.paid_cents
        out["refunded_cents"] = record.refunded_cents
        out["due_on"] = record.due_on
        out["memo"] = record.memo
        out["lines"] = [line_out(r) for r in lines or []]
    return out


def invoice_not_found(invoice_id: str) -> ToolError:
    return ToolError(
        "not_found",
        f"No invoice has the id {invoice_id}.",
        hint="Find the invoice with find_invoices (the call in `repair`) and use an invoice_id it returns.",
        repair=Repair("find_invoices", {}, "find_the_invoice_first"),
    )


def reread_repair(invoice_id: str) -> Repair:
    return Repair("get_invoice", {"invoice_id": invoice_id}, "reread_the_invoice_then_replan")


def void_conflict(record: InvoiceRecord, doing: str) -> ToolError:
    return ToolError(
        "state_conflict",
        f"Invoice {record.invoice_id} is void; it cannot be {doing}.",
        hint=f"Re-read it with get_invoice (the call in `repair`); a void invoice cannot be {doing}.",
        repair=reread_repair(record.invoice_id),
        details={"invoice_state": record.state},
    )


async def invoice_detail(ledger: Ledger, tx: Transaction, record: InvoiceRecord) -> InvoiceDetail:
    lines = (await ledger.lines(tx, [record.invoice_id])).get(record.invoice_id, [])
    payments = await ledger.payments(tx, record.invoice_id)
    refunds = await ledger.refunds(tx, record.invoice_id)
    return InvoiceDetail(
        **invoice_row(record, full=True, lines=lines),
        payments=[
            PaymentOut(payment_id=p[0], amount_cents=int(p[1]), paid_on=p[2], method=p[3])
            for p in payments
        ],
        refunds=[
            RefundOut(refund_id=r[0], amount_cents=int(r[1]), reason=r[2], refunded_on=r[3])
            for r in refunds
        ],
    )


def today() -> datetime.date:
    return datetime.datetime.now(datetime.UTC).date()


def due_date_refusal(tool: str, due_on: datetime.date, issued_on: str) -> ToolError:
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


def amount_in(currency: str, amount: int | Pending, call: Call, path: str, tool: str) -> int:
    """An amount in `currency`'s minor units, read through the money kind."""
    reading = settle(amount, currency)
    if reading.outcome != "value":
        raise unread_amount(reading, currency, path, tool)
    call.notes.extend(f"{path}: {note}" for note in reading.notes)
    return int(reading.value)


def unread_amount(reading: Reading, currency: str, path: str, tool: str) -> ToolError:
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


def exceeds_balance(record: InvoiceRecord, amount_cents: int) -> ToolError:
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
        repair=reread_repair(record.invoice_id),
        details={"refundable_cents": record.refundable_cents, "invoice_state": record.state},
    )


def kept_money_refusal(record: InvoiceRecord) -> ToolError:
    kept = money(record.refundable_cents, record.currency)
    return ToolError(
        "state_conflict",
        f"Invoice {record.invoice_id} has {kept} paid and not refunded; it cannot be voided.",
        hint="Re-read it with get_invoice (the call in `repair`); refund it with refund_invoice "
        "before voiding, or leave it as it is.",
        repair=reread_repair(record.invoice_id),
        details={"refundable_cents": record.refundable_cents, "invoice_state": record.state},
    )
