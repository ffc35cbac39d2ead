"""A destructive tool's dry run carries its confirm_token only inside `next_call`.

For every destructive tool of the reference servers (the example notes server and billing): the
preview has no top-level confirm_token (nor does the outputSchema declare one), its `next_call` is
the same tool with the same arguments, dry_run false and a token, and sending that `next_call` as
it is performs the change exactly once (sent again, it changes nothing more and replays the first
answer, decision 0056). A change asked for
without a token (dry_run omitted or false) is refused with that preview and the same call in its
`repair` (decision 0049), which performs it the same way.

Measured with the real small model: shown the token twice, at the top level and in next_call, it
confirmed delete_note 0 times in 8 and refund_invoice 5 in 8; shown it only in next_call, 5 in 8
and 8 in 8.
"""

from __future__ import annotations

import asyncio
import copy
import tempfile
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import jsonschema
from hypothesis import given, settings
from hypothesis import strategies as st

from drivable.contract import Contract
from drivable.contract.stages.effects import REPLAYED_CONFIRMED_NOTE, REPLAYED_NOTE
from drivable.servers.billing import server
from drivable.servers.billing.ledger import Ledger
from tests.contract.example_server import DELETED
from tests.contract.example_server import contract as example
from tests.servers.billing.billing_helpers import SIZE, refunds_of, scalar

# Every destructive tool of each reference server: a new one fails this until it has a case below.
DESTRUCTIVE = {"example": {"delete_note"}, "billing": {"refund_invoice", "void_invoice"}}
DRY_RUN = st.sampled_from([None, True, False])  # omitted (the default, false), true or false


def destructive_tools(contract: Contract) -> set[str]:
    return {name for name, spec in contract.tools.items() if spec.effects.destructive}


def on_a_fresh_ledger(go: Callable[[Contract], Awaitable[None]]) -> None:
    """Run `go` against billing on a ledger of its own (each hypothesis example starts clean)."""

    async def run(directory: str) -> None:
        ledger = Ledger(f"sqlite:///{Path(directory) / 'billing.sqlite'}", **SIZE)
        try:
            async with copy.copy(server.contract).started(ledger=ledger) as contract:
                await go(contract)
        finally:
            await ledger.close()

    with tempfile.TemporaryDirectory() as directory:
        asyncio.run(run(directory))


def test_every_destructive_tool_of_the_reference_servers_is_covered() -> None:
    billing = server.contract  # the declared tools: nothing to open
    assert destructive_tools(example) == DESTRUCTIVE["example"]
    assert destructive_tools(billing) == DESTRUCTIVE["billing"]
    for contract in (example, billing):
        for name in destructive_tools(contract):
            assert "confirm_token" not in contract.tools[name].output_schema["properties"]
            assert "next_call" in contract.tools[name].output_schema["properties"]


async def two_steps(
    contract: Contract,
    tool: str,
    sent: dict[str, Any],
    dry_run: bool | None,
    changes: Callable[[], Awaitable[int]],
) -> dict[str, Any]:
    """The dry run, then its next_call sent literally, twice; `changes` counts what the tool did.
    Returns the confirmed result."""
    first = dict(sent) if dry_run is None else {**sent, "dry_run": dry_run}
    preview = await contract.call(tool, first)
    if dry_run is True:
        assert not preview.is_error, preview.structured
        shown = preview.structured
        following = shown["next_call"]
    else:  # refused with its dry run: the preview in details, the confirming call as the repair
        assert preview.structured["code"] == "confirmation_required", preview.structured
        shown = preview.structured["details"]["preview"]
        repair = preview.structured["repair"]
        following = {"tool": repair["tool"], "arguments": repair["arguments"]}
    jsonschema.validate(shown, contract.tools[tool].output_schema)
    assert "confirm_token" not in shown
    assert set(following) == {"tool", "arguments"} and following["tool"] == tool
    arguments = following["arguments"]
    assert arguments["dry_run"] is False
    assert isinstance(arguments["confirm_token"], str) and arguments["confirm_token"]
    assert {k: arguments[k] for k in sent} == sent  # the same call, as it was read
    assert await changes() == 0  # a preview changes nothing

    done = await contract.call(following["tool"], following["arguments"])
    assert not done.is_error, done.structured
    assert "next_call" not in done.structured
    assert await changes() == 1
    again = await contract.call(following["tool"], following["arguments"])
    # sent again as it was, the confirmed call is a duplicate: it replays the first answer, with
    # a note, whether the tool takes an idempotency_key or not (decision 0056)
    assert not again.is_error, again.structured
    replayed = {k: v for k, v in again.structured.items() if k != "notes"}
    assert replayed == {k: v for k, v in done.structured.items() if k != "notes"}
    assert again.structured["notes"][-1] in (REPLAYED_NOTE, REPLAYED_CONFIRMED_NOTE)
    assert await changes() == 1  # sent twice, it still changed once
    return dict(done.structured)


@settings(max_examples=15, deadline=None)
@given(note=st.integers(min_value=1, max_value=30), dry_run=DRY_RUN)
def test_delete_notes_next_call_deletes_once(note: int, dry_run: bool | None) -> None:
    note_id = f"note_{note}"

    async def deleted() -> int:
        return DELETED.count(note_id)

    async def go() -> None:
        done = await two_steps(example, "delete_note", {"note_id": note_id}, dry_run, deleted)
        assert done["status"] == "deleted"

    DELETED.clear()
    try:
        asyncio.run(go())
    finally:
        DELETED.clear()  # the example server's notes are shared by every module of a worker


@settings(max_examples=10, deadline=None)
@given(
    which=st.integers(min_value=0, max_value=5),
    share=st.integers(min_value=1, max_value=100),
    reason=st.one_of(
        st.none(),
        st.sampled_from(["requested_by_customer", "duplicate", "failed_delivery", "disputed"]),
    ),
    key=st.uuids().map(str),
    dry_run=DRY_RUN,
)
def test_refund_invoices_next_call_refunds_once(
    which: int, share: int, reason: str | None, key: str, dry_run: bool | None
) -> None:
    async def go(contract: Contract) -> None:
        paid = await contract.call("find_invoices", {"state": "paid", "limit": 6})
        invoice = paid.structured["results"][which]
        amount = max(1, min(invoice["refundable_cents"], 500_000) * share // 100)
        sent: dict[str, Any] = {
            "invoice_id": invoice["invoice_id"],
            "amount_cents": amount,
            "idempotency_key": key,
        }
        if reason is not None:
            sent["reason"] = reason

        async def refunded() -> int:
            return await refunds_of(contract, invoice["invoice_id"])

        done = await two_steps(contract, "refund_invoice", sent, dry_run, refunded)
        assert done["status"] == "refunded" and done["amount_cents"] == amount
        moved = await scalar(
            contract,
            "SELECT refunded_cents FROM billing_invoices WHERE invoice_id = ?",
            (invoice["invoice_id"],),
        )
        assert moved == amount

    on_a_fresh_ledger(go)


@settings(max_examples=10, deadline=None)
@given(
    which=st.integers(min_value=0, max_value=4),
    reason=st.one_of(st.none(), st.sampled_from(["issued twice", "wrong customer"])),
    dry_run=DRY_RUN,
)
def test_void_invoices_next_call_voids_once(
    which: int, reason: str | None, dry_run: bool | None
) -> None:
    async def go(contract: Contract) -> None:
        found = await contract.call("find_invoices", {"state": "open", "limit": 20})
        unpaid = [r for r in found.structured["results"] if r["refundable_cents"] == 0]
        invoice_id = unpaid[which]["invoice_id"]
        before = await scalar(
            contract, "SELECT version FROM billing_invoices WHERE invoice_id = ?", (invoice_id,)
        )
        sent: dict[str, Any] = {"invoice_id": invoice_id}
        if reason is not None:
            sent["reason"] = reason

        async def voided() -> int:
            state = await scalar(
                contract, "SELECT state FROM billing_invoices WHERE invoice_id = ?", (invoice_id,)
            )
            version = await scalar(
                contract, "SELECT version FROM billing_invoices WHERE invoice_id = ?", (invoice_id,)
            )
            assert (state == "void") == (version != before)
            return int(version - before)  # one void bumps the version once

        done = await two_steps(contract, "void_invoice", sent, dry_run, voided)
        assert done["status"] == "voided" and done["invoice_state"] == "void"

    on_a_fresh_ledger(go)
