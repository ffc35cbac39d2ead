"""What every client sends each reference server: a few good calls and one call per rejection class
the server has, with what the envelope must then carry.

A plan is data, so the same calls go through every client (the TypeScript SDKs in `drive.mjs`, the
Python SDK 1.x in `drive_mcp1.py`, the Python SDK 2.x in process, the Inspector CLI). Arguments may
name what an earlier step returned: `"$ref:STEP:a.b.0"`, or `{"$pick": ...}` for the first row of a
list whose field lies in a range (see `drive.mjs`). `tag` makes idempotency keys unique per run, so
runs against one long-lived HTTP server do not replay each other.

Not produced here, and why: `in_progress`, `rate_limited`, `unavailable`, `upstream_timeout` and
`internal_error` need a fault or a race, not a request (tests/reliability makes them);
`cursor_expired` needs the clock; `unauthenticated`/`invalid_credentials` are HTTP 401s before any
tool runs; `insufficient_scope` and `feature_disabled` apply to no reference-server tool (neither
declares scopes or switches).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

# Over the 256 KiB inline limit, under the HTTP body bound (inline + 64 KiB).
TOO_LARGE = "skoda " * 45_000


@dataclass(frozen=True)
class Step:
    """One tools/call and what must come back: `expect` is "ok" or the envelope's code."""

    id: str
    tool: str
    arguments: dict[str, Any]
    expect: str = "ok"
    issues: bool = False  # the envelope names at least one field
    readings: bool = False  # an issue offers the readings of an ambiguous value
    repair: bool = False  # the envelope carries a literally callable next call
    # The hint names a tool of the server. Off only where the runtime's hint names none (see the
    # report of this test: payload_too_large says "pass a reference" without a tool).
    names_tool: bool = True

    def wire(self) -> dict[str, Any]:
        return {"id": self.id, "tool": self.tool, "arguments": self.arguments}

    @property
    def rejection(self) -> bool:
        return self.expect != "ok"


def caselaw(tag: str) -> list[Step]:
    del tag  # read-only: nothing to keep apart
    return [
        Step("page", "search_decisions", {"query": "nahrada skody", "limit": 2}),
        # The long-running tool, called by clients that do not declare the tasks extension: a
        # blocking call whose structured result every client's output-schema check accepts.
        Step("summary", "summarize_decisions", {"query": "nahrada skody", "date_from": "2024"}),
        Step(
            "ambiguous_date",
            "search_decisions",
            {"date_from": "01/02/2026"},
            "invalid_arguments",
            issues=True,
            readings=True,
        ),
        Step(
            "unknown_property",
            "search_decisions",
            {"qeury": "skoda"},
            "invalid_arguments",
            issues=True,
        ),
        Step(
            "placeholder_id",
            "get_decision",
            {"decision_id": "dec_xxx"},
            "invalid_arguments",
            issues=True,
        ),
        Step(
            "not_found",
            "get_decision",
            {"decision_id": "dec_nosuchthing"},
            "not_found",
            repair=True,
        ),
        Step("unknown_tool", "find_decisions", {"query": "skoda"}, "unknown_tool", repair=True),
        Step(
            "invalid_cursor",
            "search_decisions",
            {"query": "smlouva", "cursor": "$ref:page:next_cursor"},
            "invalid_cursor",
            repair=True,
        ),
        Step(
            "payload_too_large",
            "search_decisions",
            {"query": TOO_LARGE},
            "payload_too_large",
            names_tool=False,
        ),
    ]


def billing(tag: str) -> list[Step]:
    key = f"interop-{tag}-refund"
    invoice = {
        "$pick": {
            "from": "paid",
            "list": "results",
            "where": "refundable_cents",
            "between": [10_000, 499_999],
            "take": "invoice_id",
        }
    }
    refund = {"invoice_id": invoice, "amount_cents": 100, "idempotency_key": key}
    return [
        Step("paid", "find_invoices", {"state": "paid", "limit": 50}),
        Step(
            "ambiguous_date",
            "find_invoices",
            {"date_from": "01/02/2026"},
            "invalid_arguments",
            issues=True,
            readings=True,
        ),
        Step(
            "placeholder_id",
            "get_invoice",
            {"invoice_id": "inv_xxx"},
            "invalid_arguments",
            issues=True,
        ),
        Step("not_found", "get_invoice", {"invoice_id": "inv_99999999"}, "not_found", repair=True),
        Step("unknown_tool", "search_invoices", {"state": "paid"}, "unknown_tool"),
        Step(
            "invalid_cursor",
            "find_invoices",
            {"state": "void", "cursor": "$ref:paid:next_cursor"},
            "invalid_cursor",
            repair=True,
        ),
        Step("preview", "refund_invoice", {**refund, "dry_run": True}),
        Step(
            "confirmation_required",
            "refund_invoice",
            {**refund, "dry_run": False},
            "confirmation_required",
            issues=True,
            repair=True,
        ),
        Step(
            "confirmation_invalid",
            "refund_invoice",
            {**refund, "dry_run": False, "confirm_token": "ct1.forged.token"},
            "confirmation_invalid",
            issues=True,
            repair=True,
        ),
        Step(
            "refunded",
            "refund_invoice",
            {
                **refund,
                "dry_run": False,
                "confirm_token": "$ref:preview:next_call.arguments.confirm_token",
            },
        ),
        Step(
            "idempotency_mismatch",
            "refund_invoice",
            {
                **refund,
                "amount_cents": 200,
                "dry_run": False,
                "confirm_token": "$ref:preview:next_call.arguments.confirm_token",
            },
            "idempotency_mismatch",
            issues=True,
            repair=True,
        ),
        Step(
            "refund_exceeds_balance",
            "refund_invoice",
            {**refund, "amount_cents": 500_000, "idempotency_key": key + "-over", "dry_run": True},
            "refund_exceeds_balance",
            repair=True,
        ),
        Step(
            "state_conflict",
            "void_invoice",
            {"invoice_id": invoice, "dry_run": True},
            "state_conflict",
            repair=True,
        ),
        Step(
            "conflict",
            "update_invoice",
            {"invoice_id": invoice, "expected_version": 1, "memo": "interop"},
            "conflict",
            repair=True,
        ),
        Step(
            "payload_too_large",
            "find_invoices",
            {"customer_id": TOO_LARGE},
            "payload_too_large",
            names_tool=False,
        ),
    ]


PLANS = {"caselaw": caselaw, "billing": billing}
