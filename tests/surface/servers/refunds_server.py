"""A refunds server (MCPServer, pydantic models, stdio) in two versions: v2 with REFUNDS_VERSION=2 or --v2.

v2 makes exactly the changes agents do not survive and that no compiler notices (seed 002):
`refund_id` becomes `refundId` in the result type shared by three tools, the `reason` enum loses
`other`, `get_refund` stops being read-only, `void_invoice` becomes destructive, `list_refunds.limit`
is capped lower, the error catalog loses a code and changes the meaning of another. It also adds an
output field, an error code and a tool, and deprecates `search_invoices` in favour of `find_invoices`.
"""

from __future__ import annotations

import json
import os
import sys
from typing import Annotated, Any, Literal

from mcp.server.mcpserver import MCPServer
from mcp_types import ToolAnnotations
from pydantic import BaseModel, Field

V2 = "--v2" in sys.argv or os.environ.get("REFUNDS_VERSION") == "2"
NS = "dev.drivable.refunds"
srv = MCPServer("refunds", version="2.0.0" if V2 else "1.0.0")

if V2:

    class RefundResult(BaseModel):
        status: Literal["pending", "refunded", "failed"]
        refundId: str = Field(description="Identifier of the refund, rf_*.")
        amount_cents: int
        invoice_state: str
        summary: str
        currency: str = Field(description="ISO-4217 code.")

    Reason = Literal["duplicate", "fraud", "requested_by_customer"]
    CATALOG: list[dict[str, Any]] = [
        {"code": "INVALID_FIELD", "temporary": False, "description": "Fix the named field."},
        {"code": "INVOICE_NOT_FOUND", "temporary": False, "description": "Look the id up first."},
        {"code": "UPSTREAM_TIMEOUT", "temporary": False, "description": "Retry with the same key."},
        {"code": "ROLE_FORBIDDEN", "temporary": False, "description": "Stop and ask the user."},
    ]
    LIMIT_MAX = 50
else:

    class RefundResult(BaseModel):  # type: ignore[no-redef]
        status: Literal["pending", "refunded", "failed"]
        refund_id: str = Field(description="Identifier of the refund, rf_*.")
        amount_cents: int
        invoice_state: str
        summary: str

    Reason = Literal["duplicate", "fraud", "requested_by_customer", "other"]  # type: ignore[misc]
    CATALOG = [
        {"code": "INVALID_FIELD", "temporary": False, "description": "Fix the named field."},
        {"code": "INVOICE_NOT_FOUND", "temporary": False, "description": "Look the id up first."},
        {"code": "UPSTREAM_TIMEOUT", "temporary": True, "description": "Retry with the same key."},
        {
            "code": "REFUND_EXCEEDS_BALANCE",
            "temporary": False,
            "description": "Re-read the invoice.",
        },
    ]
    LIMIT_MAX = 100


class RefundPage(BaseModel):
    items: list[RefundResult]
    next_cursor: str | None = None


class Invoice(BaseModel):
    invoice_id: str
    state: str


class InvoicePage(BaseModel):
    items: list[Invoice]


def _lifecycle(stability: str, deprecation: dict[str, Any] | None = None) -> dict[str, Any]:
    return {f"{NS}/lifecycle": {"stability": stability, "deprecation": deprecation}}


@srv.tool(
    description="Refund a failed or disputed invoice, once. Dry run by default.",
    annotations=ToolAnnotations(
        read_only_hint=False, destructive_hint=True, idempotent_hint=True, open_world_hint=False
    ),
    meta={f"{NS}/errors": CATALOG, **_lifecycle("stable")},
)
def refund_invoice(
    invoice_id: Annotated[str, Field(pattern=r"^inv_[a-z0-9]+$", description="inv_*")],
    amount_cents: Annotated[int, Field(ge=1, le=500000)],
    reason: Reason,
    idempotency_key: str,
    dry_run: bool = True,
) -> RefundResult:
    raise NotImplementedError


@srv.tool(
    description="Read one refund by id.",
    annotations=ToolAnnotations(
        read_only_hint=not V2, destructive_hint=False, idempotent_hint=True, open_world_hint=False
    ),
)
def get_refund(refund_id: str) -> RefundResult:
    raise NotImplementedError


@srv.tool(
    description="List the refunds of an invoice, newest first.",
    annotations=ToolAnnotations(read_only_hint=True, open_world_hint=False),
)
def list_refunds(
    invoice_id: str,
    status: Literal["pending", "refunded", "failed"] | None = None,
    limit: Annotated[int, Field(ge=1, le=LIMIT_MAX)] = 20,
) -> RefundPage:
    raise NotImplementedError


@srv.tool(
    description="Void an open invoice so it can no longer be paid.",
    annotations=ToolAnnotations(
        read_only_hint=False, destructive_hint=V2, idempotent_hint=True, open_world_hint=False
    ),
)
def void_invoice(invoice_id: str) -> Invoice:
    raise NotImplementedError


_SEARCH_DEPRECATION = {
    "since": "2.0.0",
    "removal_at_or_after": "2027-06-01",
    "replaced_by": "find_invoices",
    "migration": "Call find_invoices with the same query.",
}


@srv.tool(
    description="Search invoices by customer name or number.",
    annotations=ToolAnnotations(read_only_hint=True, open_world_hint=False),
    meta=_lifecycle("stable", _SEARCH_DEPRECATION if V2 else None),
)
def search_invoices(query: str) -> InvoicePage:
    raise NotImplementedError


if V2:

    @srv.tool(
        description="Find invoices by customer, number or state.",
        annotations=ToolAnnotations(read_only_hint=True, open_world_hint=False),
        meta=_lifecycle("preview"),
    )
    def find_invoices(query: str, state: str | None = None) -> InvoicePage:
        raise NotImplementedError


@srv.resource(
    "surface://capabilities",
    name="capability-summary",
    description="What this server does and does not do.",
    mime_type="application/json",
)
def capability_summary() -> str:
    return json.dumps(
        {
            "server": {"name": "refunds", "version": "2.0.0" if V2 else "1.0.0"},
            "does": ["refund invoices", "void invoices", "search invoices"],
            "does_not": ["create invoices"],
            "failure_codes": {"missing_credential": "ROLE_FORBIDDEN"} if V2 else {},
        }
    )


if __name__ == "__main__":
    if "--http" in sys.argv:  # --http PORT: streamable HTTP on 127.0.0.1:PORT/mcp
        port = int(sys.argv[sys.argv.index("--http") + 1])
        srv.run("streamable-http", host="127.0.0.1", port=port)
    else:
        srv.run()
