"""Billing's resources and prompt: the capability summary with live counts, each invoice as a
resource (with id completion), and the advisory refund prompt, declared on `server.contract`;
each reader takes the open `Ledger` by its annotation, as a tool does."""

from __future__ import annotations

import json

from drivable.contract import Repair
from drivable.contract.resources import PromptArgumentSpec, ResourceBody, ResourceError
from drivable.kinds import read
from drivable.servers.billing.data import CURRENCIES, DATA_VERSION
from drivable.servers.billing.domain import invoice_detail
from drivable.servers.billing.ledger import Filters, Ledger
from drivable.servers.billing.server import contract


@contract.resource(
    "billing://summary",
    name="summary",
    title="What the billing server does",
    description="The capability summary: what the server does and does not do, its tools, currencies and data.",
)
async def summary_resource(ledger: Ledger) -> ResourceBody:
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


async def complete(argument: str, value: str, ledger: Ledger) -> list[str]:
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
async def invoice_resource(invoice_id: str, ledger: Ledger) -> ResourceBody:
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
        detail = await invoice_detail(ledger, tx, record)
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
        PromptArgumentSpec("amount", "The amount to refund, as the user said it.", required=False),
    ],
    prerequisites={
        "tools": ["find_invoices", "get_invoice", "refund_invoice"],
        "permissions": [],
    },
    followups=["get_invoice", "refund_invoice"],
)
async def refund_an_invoice(invoice: str = "", amount: str = "") -> str:
    how_much = f" The user asked for {json.dumps(amount, ensure_ascii=False)}." if amount else ""
    return (
        f"Invoice: {json.dumps(invoice, ensure_ascii=False)}.{how_much}\n"
        "1. If that is not an invoice_id (inv_...), call find_invoices with what you know "
        "(customer_id, state paid, dates) and pick the invoice with the user.\n"
        "2. Call get_invoice: refundable_cents is the most you may refund, in minor units of "
        "its currency (4200 = 42.00).\n"
        "3. Call refund_invoice with a new idempotency_key and dry_run true; show the summary "
        "to the user.\n"
        "4. Only after the user agrees, make the preview's next_call: the same call with "
        "dry_run false and its confirm_token. On any error, follow its repair; on "
        "refund_exceeds_balance re-read the invoice and ask the user, never retry the same "
        "amount."
    )
