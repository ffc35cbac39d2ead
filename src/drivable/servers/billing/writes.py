"""billing's write tools: create_invoice, update_invoice, refund_invoice and void_invoice, each
behind the write scope, declared on `server.contract` after its reads (tools are listed as
declared; the package's __init__ imports this module after `server`)."""

from __future__ import annotations

import datetime
import secrets
from typing import Any

from drivable.contract import (
    Call,
    Effects,
    Repair,
    ToolError,
)
from drivable.contract.envelope import Issue
from drivable.effects import Transaction, Updated, VersionConflict
from drivable.kinds.money import both_units
from drivable.servers.billing.data import money
from drivable.servers.billing.domain import (
    amount_in,
    due_date_refusal,
    exceeds_balance,
    invoice_detail,
    invoice_not_found,
    kept_money_refusal,
    reread_repair,
    today,
    void_conflict,
)
from drivable.servers.billing.ledger import InvoiceRecord, Ledger
from drivable.servers.billing.models import (
    CreateInput,
    InvoiceOutput,
    RefundInput,
    RefundOutput,
    UpdateInput,
    VoidInput,
    VoidOutput,
)
from drivable.servers.billing.server import WRITE_SCOPE, contract


@contract.tool(
    name="create_invoice",
    title="Create an invoice",
    description=(
        "Create an open invoice for a customer with one or more lines (quantity x unit_cents, "
        "in minor units). Use it when the user bills a customer; list_customers gives the "
        "customer_id. Invalid lines come back under `rejected`, the valid ones are invoiced. "
        'Example: {"customer_id": "<from list_customers>", "lines": [{"description": '
        '"<what is billed>", "quantity": "<how many>", "unit_cents": "<price>"}], "idempotency_key": '
        '"<a key you generate>"}.'
    ),
    more=(
        "Each line is checked on its own; rejected lines carry issues at lines.N.field: fix "
        "those and send them on a new invoice. currency defaults to the customer's, "
        "issued_on to today (UTC), due_on to 14 days later. An unknown customer is "
        "not_found (repair: list_customers)."
    ),
    effects=Effects(read_only=False, destructive=False, idempotent=False, open_world=False),
    scopes=[WRITE_SCOPE],
    errors=["not_found"],
)
async def create_invoice(args: CreateInput, call: Call, ledger: Ledger) -> InvoiceOutput:
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
        issued = args.issued_on or today()
        due = args.due_on or issued + datetime.timedelta(days=14)
        if due < issued:
            raise due_date_refusal("create_invoice", due, issued.isoformat())
        currency = args.currency or customer[4]
        prices = [
            amount_in(currency, li.unit_cents, call, f"lines.{i}.unit_cents", "create_invoice")
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
        tx.made("invoice", invoice_id)  # a void of it is said on a replay of this call
        record = await ledger.invoice(tx, invoice_id)
        assert record is not None
        return InvoiceOutput(invoice=await invoice_detail(ledger, tx, record))


async def open_invoice(
    ledger: Ledger, tx: Transaction, invoice_id: str, doing: str
) -> InvoiceRecord:
    """The invoice a change is made to: not_found when there is none, state_conflict when void."""
    record = await ledger.invoice(tx, invoice_id)
    if record is None:
        raise invoice_not_found(invoice_id)
    if record.state == "void":
        raise void_conflict(record, doing)
    return record


@contract.tool(
    name="update_invoice",
    title="Update an invoice",
    description=(
        "Change an invoice's memo or due date. Use it when the user corrects what an invoice "
        "says (amounts and lines do not change). Send the version get_invoice returned as "
        "expected_version; if the invoice changed since, the conflict's repair re-reads it. "
        'Example: {"invoice_id": "<from find_invoices>", "expected_version": "<its version>", '
        '"memo": "<the new memo>"}.'
    ),
    more=(
        "To change amounts or lines, void the invoice and create a new one. After a "
        "conflict (a refund, another update) re-read and reapply. Properties left out keep "
        "their value; resending a change already applied is answered as applied. A void "
        "invoice cannot change (state_conflict)."
    ),
    effects=Effects(read_only=False, destructive=False, idempotent=True, open_world=False),
    scopes=[WRITE_SCOPE],
    errors=["not_found", "conflict", "state_conflict"],
)
async def update_invoice(args: UpdateInput, call: Call, ledger: Ledger) -> InvoiceOutput:
    async with ledger.using(call.transaction) as tx:
        record = await open_invoice(ledger, tx, args.invoice_id, "changed")
        values: dict[str, Any] = {}
        if args.memo is not None:
            values["memo"] = args.memo
        if args.due_on is not None:
            if args.due_on.isoformat() < record.issued_on:
                raise due_date_refusal("update_invoice", args.due_on, record.issued_on)
            values["due_on"] = args.due_on.isoformat()
        current = {"memo": record.memo, "due_on": record.due_on}
        if args.expected_version == record.version and not values:
            call.note("Nothing to change: neither memo nor due_on was sent.")
            return InvoiceOutput(invoice=await invoice_detail(ledger, tx, record))
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
                return InvoiceOutput(invoice=await invoice_detail(ledger, tx, record))
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
                repair=reread_repair(args.invoice_id),
                details={"current_version": record.version},
            )
        assert isinstance(outcome, Updated)
        fresh = await ledger.invoice(tx, args.invoice_id)
        assert fresh is not None
        return InvoiceOutput(invoice=await invoice_detail(ledger, tx, fresh))


@contract.tool(
    name="refund_invoice",
    title="Refund an invoice",
    description=(
        "Refund money received on an invoice, once. Use it when the user asks to give money "
        "back. amount_cents is in minor units (1250 = 12.50), at most the invoice's "
        "refundable_cents (get_invoice shows it); more is refund_exceeds_balance: re-plan, do "
        "not retry the same amount. "
        'Example: {"invoice_id": "<from find_invoices>", "amount_cents": "<amount in cents>", '
        '"idempotency_key": "<a key you generate>", "dry_run": true}.'
    ),
    more=(
        "Reasons: a failed delivery, a dispute, a duplicate payment, or the customer asked. "
        "amount_cents is 1 to 500000 in the invoice's currency; refund_exceeds_balance's "
        "repair re-reads the invoice. A void invoice cannot be refunded (state_conflict). "
        "Returns status, refund_id, amount_cents, invoice_state and a one-line summary."
    ),
    effects=Effects(read_only=False, destructive=True, idempotent=True, open_world=False),
    scopes=[WRITE_SCOPE],
    errors=["not_found", "refund_exceeds_balance", "state_conflict"],
)
async def refund_invoice(args: RefundInput, call: Call, ledger: Ledger) -> RefundOutput:
    async with ledger.using(call.transaction) as tx:
        record = await open_invoice(ledger, tx, args.invoice_id, "refunded")
        cents = amount_in(
            record.currency, args.amount_cents, call, "amount_cents", "refund_invoice"
        )
        if cents > record.refundable_cents:
            raise exceeds_balance(record, cents)
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
                raise void_conflict(fresh, "refunded")
            raise exceeds_balance(fresh, cents)
        refund_id = f"rf_{secrets.token_hex(6)}"
        await tx.execute(
            "INSERT INTO billing_refunds (refund_id, invoice_id, amount_cents, reason, "
            "refunded_on) VALUES (?, ?, ?, ?, ?)",
            (refund_id, args.invoice_id, cents, args.reason, today().isoformat()),
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
        "Void an invoice issued by mistake: it stays on record as void and owes nothing; this "
        "cannot be undone. Use it only when nothing is paid or everything is refunded, else "
        'state_conflict (refund first). Example: {"invoice_id": "<from find_invoices>", '
        '"reason": "<why>", "dry_run": true}.'
    ),
    more=(
        "A void invoice can no longer be changed or refunded. Voiding a void invoice answers "
        "already_void."
    ),
    effects=Effects(read_only=False, destructive=True, idempotent=True, open_world=False),
    scopes=[WRITE_SCOPE],
    errors=["not_found", "state_conflict"],
)
async def void_invoice(args: VoidInput, call: Call, ledger: Ledger) -> VoidOutput:
    async with ledger.using(call.transaction) as tx:
        record = await ledger.invoice(tx, args.invoice_id)
        if record is None:
            raise invoice_not_found(args.invoice_id)
        if record.state == "void":
            return VoidOutput(
                status="already_void",
                invoice_id=record.invoice_id,
                invoice_state="void",
                summary=f"Invoice {record.invoice_id} was already void; nothing changed.",
            )
        if record.refundable_cents > 0:
            raise kept_money_refusal(record)
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
            raise kept_money_refusal(fresh)
        await tx.undo("invoice", record.invoice_id)  # create_invoice's replay says so
        return VoidOutput(
            status="voided",
            invoice_id=record.invoice_id,
            invoice_state="void",
            summary=f"Voided invoice {record.invoice_id} ({total}, {record.customer_name}).",
        )
