"""The other billing tools, called as a model calls them: every outcome a next step."""

from __future__ import annotations

import copy
import json
import re
from pathlib import Path
from typing import Any

import pytest

from drivable.contract import Contract
from drivable.effects.outcomes import UnavailableReason
from drivable.servers.billing import server
from drivable.servers.billing.data import folded, generate, money
from drivable.servers.billing.ledger import Ledger, default_url
from tests.servers.billing.billing_helpers import (
    a_paid_invoice,
    an_open_invoice,
    call,
    scalar,
    token_of,
)


def test_generated_data_is_deterministic_and_adds_up() -> None:
    one, two = generate(20, 100), generate(20, 100)
    assert [i.invoice_id for i in one.invoices] == [i.invoice_id for i in two.invoices]
    assert [i.total_cents for i in one.invoices] == [i.total_cents for i in two.invoices]
    states = {i.state for i in one.invoices}
    assert {"open", "paid", "void"} <= states
    for invoice in one.invoices:
        assert invoice.refunded_cents <= invoice.paid_cents <= invoice.total_cents
        if invoice.state == "void":
            assert invoice.paid_cents == 0


def test_money_is_written_without_locale() -> None:
    assert money(4200, "EUR") == "42.00 EUR"
    assert money(123456789, "CZK") == "1234567.89 CZK"
    assert money(5, "USD") == "0.05 USD"


async def test_the_surface_states_effects_honestly(billing: Contract) -> None:
    wire = {spec.name: billing.tool_wire(spec) for spec in billing.tools.values()}
    assert set(wire) == {
        "list_customers",
        "find_invoices",
        "get_invoice",
        "create_invoice",
        "update_invoice",
        "refund_invoice",
        "void_invoice",
    }
    hints = {name: tool["annotations"] for name, tool in wire.items()}
    for reader in ("list_customers", "find_invoices", "get_invoice"):
        assert hints[reader]["readOnlyHint"] is True
    assert wire["refund_invoice"]["title"] == "Refund an invoice"  # once, not in annotations
    assert hints["refund_invoice"] == {
        "readOnlyHint": False,
        "destructiveHint": True,
        "idempotentHint": True,
        "openWorldHint": False,
    }
    assert hints["void_invoice"]["destructiveHint"] is True
    assert hints["create_invoice"]["idempotentHint"] is False
    assert hints["update_invoice"]["destructiveHint"] is False
    refund = wire["refund_invoice"]
    amount = refund["inputSchema"]["properties"]["amount_cents"]
    assert (amount["type"], amount["minimum"], amount["maximum"]) == ("integer", 1, 500000)
    assert refund["inputSchema"]["properties"]["dry_run"]["default"] is False
    assert set(refund["inputSchema"]["required"]) == {
        "invoice_id",
        "amount_cents",
        "idempotency_key",
    }
    assert set(refund["outputSchema"]["properties"]) == {
        "status",
        "refund_id",
        "amount_cents",
        "invoice_state",
        "summary",
        "message",
        "hint",
        "notes",
        "warnings",
        "next_call",
    }
    # the two steps are listed; the receipt window is in the detail (decision 0033)
    assert "10 minutes" in refund["description"] and "24 hours" not in refund["description"]
    assert "24 hours" in billing.tool_detail()["refund_invoice"]["description"]
    for tool in wire.values():
        assert "Example:" in tool["description"]
        whole = billing.tool_detail()[tool["name"]]["inputSchema"]["properties"]
        for name, prop in tool["inputSchema"]["properties"].items():
            if name.endswith("_id"):
                # listed: which tool returns the id, never a literal one (a model copied
                # 'cus_1001' from the description as a real filter); the pattern is in
                # server/discover
                assert not re.search(r"(inv|cus)_\d+", json.dumps(prop)), name
                assert re.search(r"find_invoices|list_customers", prop["description"]), name
                pattern = whole[name].get("pattern") or whole[name]["anyOf"][0]["pattern"]
                assert pattern.startswith(("^inv_", "^cus_")), name


async def test_get_invoice_not_found_repairs_with_the_find_call(billing: Contract) -> None:
    out = await call(billing, "get_invoice", {"invoice_id": "inv_nosuchinvoice"})
    assert out["code"] == "not_found"
    assert out["repair"] == {
        "tool": "find_invoices",
        "arguments": {},
        "next_step": "find_the_invoice_first",
    }
    placeholder = await call(billing, "get_invoice", {"invoice_id": "inv_xxx"})
    assert placeholder["code"] == "invalid_arguments"  # a copied template is no id at all
    assert placeholder["issues"][0]["code"] == "missing_property"
    counted = await call(billing, "get_invoice", {"invoice_id": "inv_123"})
    assert counted["code"] == "not_found"  # an id that counts is looked up, never no value
    bare = await call(billing, "get_invoice", {"invoice_id": " INV_30001 "})
    assert not bare["is_error"] and bare["invoice"]["invoice_id"] == "inv_30001"


async def test_find_pages_with_cursors_and_explains_an_empty_page(billing: Contract) -> None:
    seen: list[str] = []
    args: dict[str, Any] = {"state": "paid", "limit": "7"}
    first = await call(billing, "find_invoices", args)
    total = first["total"]
    page = first
    while True:
        seen += [r["invoice_id"] for r in page["results"]]
        assert all(r["state"] == "paid" for r in page["results"])
        if not page["has_more"]:
            break
        page = await call(
            billing, "find_invoices", {**args, "detail": "full", "cursor": page["next_cursor"]}
        )
        assert all("lines" in r for r in page["results"])
    assert len(seen) == len(set(seen)) == total
    bad = await call(billing, "find_invoices", {**args, "cursor": "c1.bm90LmEuY3Vyc29y.x"})
    assert bad["code"] == "invalid_cursor" and bad["repair"]["tool"] == "find_invoices"
    invented = await call(billing, "find_invoices", {**args, "cursor": "0"})
    assert not invented["is_error"] and invented["results"] == first["results"]
    asked = await call(billing, "find_invoices", {"date_from": "01/02/2026"})
    assert asked["code"] == "invalid_arguments"
    assert asked["issues"][0]["code"] == "ambiguous_date"
    assert asked["issues"][0]["readings"] == ["2026-02-01", "2026-01-02"]
    year = await call(billing, "find_invoices", {"date_from": "2026", "date_to": "2026"})
    assert all(r["issued_on"].startswith("2026-") for r in year["results"])
    empty = await call(
        billing,
        "find_invoices",
        {"customer_id": "cus_1001", "currency": "eur", "state": "void", "date_from": "2031-01-01"},
    )
    assert empty["results"] == [] and empty["total"] == 0
    # no one filter left out finds an invoice (the customer bills in another currency, and
    # nothing is dated 2031): the pair that finds fewest goes, the customer and the state stay
    following = empty["next_call"]["arguments"]
    assert following == {"customer_id": "cus_1001", "state": "void"}
    assert [w["path"] for w in empty["warnings"]] == ["currency", "date_from"]
    assert empty["message"].startswith(
        "No invoice matches every filter together, nor with any one of them left out; "
        'without currency "EUR" and date_from "2031-01-01", '
    )
    assert empty["hint"].startswith("Call find_invoices again without currency and date_from ")
    assert (await call(billing, "find_invoices", following))["results"]


async def test_create_is_best_effort_per_line_and_keyed(either: Contract) -> None:
    args = {
        "customer_id": "cus_1001",
        "issued_on": "2026-03-02",
        "lines": [
            {"description": "Consulting hour", "quantity": "3", "unit_cents": "12 000"},
            {"description": "Travel", "quantity": "many", "unit_cents": 100},
            {"description": "Hosting", "quantity": 1, "unit_cents": -5},
            {"description": "Workshop", "unit_cents": 85000},
        ],
        "idempotency_key": "create-key-0001",
    }
    made = await call(either, "create_invoice", args)
    assert not made["is_error"], made
    invoice = made["invoice"]
    assert invoice["total_cents"] == 3 * 12000 + 85000
    assert [li["description"] for li in invoice["lines"]] == ["Consulting hour", "Workshop"]
    assert invoice["state"] == "open" and invoice["version"] == 1
    assert invoice["due_on"] == "2026-03-16"
    paths = {issue["path"] for entry in made["rejected"] for issue in entry["issues"]}
    assert paths == {"lines.1.quantity", "lines.2.unit_cents"}
    assert made["warnings"][0]["code"] == "partial_success"
    again = await call(either, "create_invoice", args)
    assert again["invoice"]["invoice_id"] == invoice["invoice_id"]
    count = await scalar(
        either,
        "SELECT COUNT(*) FROM billing_invoices WHERE customer_id = ? AND issued_on = ?",
        ("cus_1001", "2026-03-02"),
    )
    assert count == 1
    none_good = await call(
        either,
        "create_invoice",
        {
            **args,
            "lines": [{"description": "x", "unit_cents": "abc"}],
            "idempotency_key": "create-key-0002",
        },
    )
    assert none_good["code"] == "invalid_arguments"
    assert none_good["issues"][0]["path"] == "lines.0.unit_cents"
    stranger = await call(
        either,
        "create_invoice",
        {**args, "customer_id": "cus_9999", "idempotency_key": "create-key-0003"},
    )
    assert stranger["code"] == "not_found" and stranger["repair"]["tool"] == "list_customers"
    early = await call(
        either,
        "create_invoice",
        {**args, "due_on": "2026-03-01", "idempotency_key": "create-key-0004"},
    )
    assert early["code"] == "invalid_arguments" and early["issues"][0]["path"] == "due_on"


async def test_a_stale_version_is_a_conflict_whose_repair_is_the_read(either: Contract) -> None:
    invoice = await a_paid_invoice(either)
    inv, version = invoice["invoice_id"], invoice["version"]
    args = {"invoice_id": inv, "amount_cents": 100, "idempotency_key": "refund-key-0001"}
    token = token_of(await call(either, "refund_invoice", args))
    await call(either, "refund_invoice", {**args, "dry_run": False, "confirm_token": token})
    stale = await call(
        either,
        "update_invoice",
        {"invoice_id": inv, "expected_version": version, "memo": "PO 4471"},
    )
    assert stale["code"] == "conflict"
    assert stale["repair"] == {
        "tool": "get_invoice",
        "arguments": {"invoice_id": inv},
        "next_step": "reread_the_invoice_then_replan",
    }
    assert stale["details"]["current_version"] == version + 1
    assert stale["issues"][0]["path"] == "expected_version"
    fresh = (await call(either, "get_invoice", stale["repair"]["arguments"]))["invoice"]
    update = {
        "invoice_id": inv,
        "expected_version": fresh["version"],
        "memo": "PO 4471",
        "due_on": "2026-12-31",
    }
    done = await call(either, "update_invoice", update)
    assert not done["is_error"], done
    assert (
        done["invoice"]["memo"] == "PO 4471" and done["invoice"]["version"] == fresh["version"] + 1
    )
    retried = await call(either, "update_invoice", update)  # the model resends the same call
    assert not retried["is_error"] and retried["notes"][0].startswith("Already applied")
    assert retried["invoice"]["version"] == fresh["version"] + 1


async def test_void_takes_two_steps_and_only_when_no_money_is_kept(either: Contract) -> None:
    inv = (await an_open_invoice(either))["invoice_id"]
    preview = await call(
        either, "void_invoice", {"invoice_id": inv, "reason": "issued twice", "dry_run": True}
    )
    assert preview["status"] == "would_void"
    unconfirmed = await call(
        either, "void_invoice", {"invoice_id": inv, "reason": "issued twice", "dry_run": False}
    )
    assert unconfirmed["code"] == "confirmation_required"
    assert unconfirmed["details"]["preview"]["status"] == "would_void"
    assert unconfirmed["repair"]["arguments"] == {
        "invoice_id": inv,
        "reason": "issued twice",
        "dry_run": False,
        "confirm_token": token_of(unconfirmed),
    }
    real = {
        "invoice_id": inv,
        "reason": "issued twice",
        "dry_run": "no",
        "confirm_token": token_of(preview),
    }
    voided = await call(either, "void_invoice", real)
    assert voided["status"] == "voided" and voided["invoice_state"] == "void"
    resent = await call(either, "void_invoice", real)  # a duplicate replays (decision 0056)
    assert {k: v for k, v in resent.items() if k != "notes"} == {
        k: v for k, v in voided.items() if k != "notes"
    }
    reused = await call(either, "void_invoice", {**real, "reason": "another reason"})
    assert reused["code"] == "confirmation_invalid"
    again = await call(either, "void_invoice", {"invoice_id": inv, "dry_run": True})
    assert again["status"] == "already_void"
    state = await scalar(either, "SELECT state FROM billing_invoices WHERE invoice_id = ?", (inv,))
    assert state == "void"
    frozen = await call(
        either, "update_invoice", {"invoice_id": inv, "expected_version": 2, "memo": "x"}
    )
    assert frozen["code"] == "state_conflict"
    paid = (await a_paid_invoice(either))["invoice_id"]
    kept = await call(either, "void_invoice", {"invoice_id": paid})
    assert kept["code"] == "state_conflict" and kept["repair"]["tool"] == "get_invoice"


async def test_list_customers_pages_and_matches_names(either: Contract) -> None:
    page = await call(either, "list_customers", {"limit": 10})
    assert len(page["results"]) == 10 and page["has_more"]
    nxt = await call(either, "list_customers", {"limit": 10, "cursor": page["next_cursor"]})
    assert not {c["customer_id"] for c in page["results"]} & {
        c["customer_id"] for c in nxt["results"]
    }
    name = page["results"][0]["name"].split()[1].upper()
    found = await call(either, "list_customers", {"query": name})
    assert found["results"] and all(name.lower() in c["name"].lower() for c in found["results"])
    # Any case, with or without accents; wildcards are literal.
    everyone = (await call(either, "list_customers", {"limit": 50}))["results"]
    accented = next(c["name"] for c in everyone if any(ord(ch) > 127 for ch in c["name"]))
    plain = folded(accented.split()[0]).upper()  # "Dvořák" -> "DVORAK"
    found = await call(either, "list_customers", {"query": plain})
    assert accented in [c["name"] for c in found["results"]]
    assert (await call(either, "list_customers", {"query": "%"}))["results"] == []


def test_the_store_flag_wins_over_the_billing_variable(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.delenv("DRIVABLE_STORE", raising=False)
    monkeypatch.delenv("DRIVABLE_BILLING_STORE", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert default_url() == f"sqlite:///{tmp_path / 'drivable' / 'billing.sqlite'}"
    monkeypatch.setenv("DRIVABLE_BILLING_STORE", "sqlite:///billing-env.db")
    assert default_url() == "sqlite:///billing-env.db"
    monkeypatch.setenv("DRIVABLE_STORE", "postgresql://app@db/billing")  # `serve --store`
    assert default_url() == "postgresql://app@db/billing"


async def test_a_store_that_cannot_open_is_unavailable_without_driver_text(tmp_path: Path) -> None:
    """The database cannot be opened (its path is a directory): every tool answers `unavailable`,
    temporary, naming the call to retry, with nothing of SQLite's message or the path."""
    ledger = Ledger(f"sqlite:///{tmp_path}")
    ledger.secret = b"s" * 32  # what prepare() would have read from the store
    try:
        # a prepared ledger is used as it is (this one cannot open its store)
        async with copy.copy(server.contract).started(ledger=ledger) as contract:
            for tool, args in (
                ("find_invoices", {}),
                ("get_invoice", {"invoice_id": "inv_30001"}),
                (
                    "refund_invoice",
                    {
                        "invoice_id": "inv_30001",
                        "amount_cents": 100,
                        "idempotency_key": "down-key-0001",
                    },
                ),
                (
                    "refund_invoice",
                    {
                        "invoice_id": "inv_30001",
                        "amount_cents": 100,
                        "idempotency_key": "down-key-0001",
                        "dry_run": False,
                        "confirm_token": "ct1.x.y",
                    },
                ),
            ):
                out = await call(contract, tool, args)
                assert out["code"] == "unavailable", out
                assert out["temporary"] is True and out["retry_after_ms"] > 0
                assert tool in out["hint"]
                # what happened to the call, not to the store (a model answered with the latter)
                assert out["message"] == f"{tool} could not run just now; nothing was applied."
                assert out["details"]["reason"] in {r.value for r in UnavailableReason}
                assert str(tmp_path) not in str(out)
    finally:
        await ledger.close()


@pytest.mark.parametrize("key", ["abc123", "1", "k-7"])
async def test_a_short_key_refunds_once_and_its_retry_replays(either: Contract, key: str) -> None:
    # the model minted "abc123" and was refused for its length nine times in a row
    inv = (await a_paid_invoice(either))["invoice_id"]
    args = {"invoice_id": inv, "amount_cents": 100, "idempotency_key": key}
    dry = await call(either, "refund_invoice", {**args, "dry_run": True})
    assert not dry["is_error"] and any("shorter than 8" in n for n in dry["notes"]), dry
    done = {**args, "dry_run": False, "confirm_token": token_of(dry)}
    first = await call(either, "refund_invoice", done)
    assert first["status"] == "refunded", first
    again = await call(either, "refund_invoice", done)
    assert again["refund_id"] == first["refund_id"]
    assert any(n.startswith("Replayed") for n in again["notes"])
    other = await call(either, "refund_invoice", {**done, "amount_cents": 200})
    assert other["code"] in ("idempotency_mismatch", "confirmation_invalid"), other


async def test_a_copied_placeholder_key_is_refused_with_a_key_to_use(either: Contract) -> None:
    inv = (await a_paid_invoice(either))["invoice_id"]
    args = {"invoice_id": inv, "amount_cents": 100, "idempotency_key": "<a key you generate>"}
    refused = await call(either, "refund_invoice", args)
    assert refused["code"] == "invalid_arguments"
    assert refused["issues"][0]["code"] == "invalid_key"
    # the repair is the same call with a key of its own (decision 0044)
    repair = refused["repair"]
    assert repair["arguments"] == {  # its dry run: a change needs its token (decision 0048)
        **args,
        "idempotency_key": repair["arguments"]["idempotency_key"],
        "dry_run": True,
    }
    assert re.fullmatch(r"[0-9a-f-]{36}", repair["arguments"]["idempotency_key"])
    dry = await call(either, "refund_invoice", repair["arguments"])
    assert not dry["is_error"] and dry["status"] == "would_refund"
