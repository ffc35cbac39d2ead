"""One table of surface changes, each with the exact classified entries it must produce.

Each case adds its own tools (named after the case) to a v1 and a v2 server spec, so one pair of real
servers (`servers/spec_server.py`) carries every case at once, and the same specs diff offline too.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import Any

# (class, subject, path) triples a case must produce, and nothing else for its subjects
Expected = list[tuple[str, str, str]]


def obj(props: dict[str, Any], required: list[str] | None = None, **extra: Any) -> dict[str, Any]:
    out: dict[str, Any] = {"type": "object", "properties": props}
    if required:
        out["required"] = required
    out.update(extra)
    return out


def tool(name: str, inp: dict[str, Any] | None = None, **extra: Any) -> dict[str, Any]:
    out: dict[str, Any] = {
        "name": name,
        "description": f"The {name} tool.",
        "inputSchema": inp or obj({}),
    }
    out.update(extra)
    return out


STR = {"type": "string"}
INT = {"type": "integer"}
READ_ONLY = {
    "readOnlyHint": True,
    "destructiveHint": False,
    "idempotentHint": True,
    "openWorldHint": False,
}


@dataclass
class Case:
    id: str
    klass: str  # the class this case is about
    v1_tools: list[dict[str, Any]] = field(default_factory=list)
    v2_tools: list[dict[str, Any]] = field(default_factory=list)
    expected: Expected = field(default_factory=list)


def _t(case_id: str) -> str:
    return f"tool:{case_id}"


def _p(case_id: str, rest: str = "") -> str:
    return f"tools.{case_id}{'.' + rest if rest else ''}"


def _pair(
    case_id: str, klass: str, v1: dict[str, Any], v2: dict[str, Any], *exp: tuple[str, str]
) -> Case:
    """A case whose one tool (named `case_id`) changes from v1 to v2."""
    return Case(
        case_id,
        klass,
        [tool(case_id, **v1)],
        [tool(case_id, **v2)],
        [(c, _t(case_id), _p(case_id, p)) for c, p in exp],
    )


PET: dict[str, Any] = {
    "$defs": {
        "Pet": obj(
            {"kind": {"type": "string", "enum": ["cat", "dog", "fish"]}, "name": STR},
            ["kind"],
        )
    }
}
PET_NARROWED = copy.deepcopy(PET)
PET_NARROWED["$defs"]["Pet"]["properties"]["kind"]["enum"] = ["cat", "dog"]

ORDER_OUT = obj(
    {"order": {"$ref": "#/$defs/Order"}},
    ["order"],
    **{
        "$defs": {
            "Order": obj(
                {"order_id": {**STR, "description": "The order's id."}, "total": INT},
                ["order_id", "total"],
            )
        }
    },
)
ORDER_OUT_RENAMED = copy.deepcopy(ORDER_OUT)
_order = ORDER_OUT_RENAMED["$defs"]["Order"]
_order["properties"] = {"orderId": _order["properties"]["order_id"], "total": INT}
_order["required"] = ["orderId", "total"]

CASES: list[Case] = [
    # --- breaking -------------------------------------------------------------------------------
    Case("gone", "breaking", [tool("gone")], [], [("breaking", "tool:gone", "tools.gone")]),
    Case(
        "lookup_order",
        "breaking",
        [tool("lookup_order", obj({"order_id": STR}, ["order_id"]), description="Find an order.")],
        [tool("lookupOrder", obj({"order_id": STR}, ["order_id"]), description="Find an order.")],
        [("breaking", "tool:lookup_order", "tools.lookup_order")],
    ),
    _pair(
        "req_added",
        "breaking",
        {"inputSchema": obj({"a": STR}, ["a"])},
        {"inputSchema": obj({"a": STR, "b": STR}, ["a", "b"])},
        ("breaking", "inputSchema.b"),
    ),
    _pair(
        "opt_to_req",
        "breaking",
        {"inputSchema": obj({"a": STR, "b": STR}, ["a"])},
        {"inputSchema": obj({"a": STR, "b": STR}, ["a", "b"])},
        ("breaking", "inputSchema.b.required"),
    ),
    _pair(
        "type_narrowed",
        "breaking",
        {"inputSchema": obj({"n": {"type": "number"}})},
        {"inputSchema": obj({"n": INT})},
        ("breaking", "inputSchema.n.type"),
    ),
    _pair(
        "union_narrowed",
        "breaking",
        {"inputSchema": obj({"v": {"anyOf": [STR, INT]}})},
        {"inputSchema": obj({"v": STR})},
        ("breaking", "inputSchema.v|integer"),
    ),
    _pair(
        "enum_narrowed",
        "breaking",
        {"inputSchema": obj({"mode": {"type": "string", "enum": ["a", "b", "c"]}})},
        {"inputSchema": obj({"mode": {"type": "string", "enum": ["a", "b"]}})},
        ("breaking", "inputSchema.mode.enum"),
    ),
    _pair(
        "nested_enum_narrowed",
        "breaking",
        {"inputSchema": obj({"pets": {"type": "array", "items": {"$ref": "#/$defs/Pet"}}}, **PET)},
        {
            "inputSchema": obj(
                {"pets": {"type": "array", "items": {"$ref": "#/$defs/Pet"}}}, **PET_NARROWED
            )
        },
        ("breaking", "inputSchema.pets[].kind.enum"),
    ),
    _pair(
        "format_removed",
        "breaking",
        {"inputSchema": obj({"day": {"type": "string", "format": "date"}})},
        {"inputSchema": obj({"day": STR})},
        ("breaking", "inputSchema.day.format"),
    ),
    _pair(
        "bound_tightened",
        "breaking",
        {"inputSchema": obj({"limit": {"type": "integer", "minimum": 1, "maximum": 100}})},
        {"inputSchema": obj({"limit": {"type": "integer", "minimum": 1, "maximum": 50}})},
        ("breaking", "inputSchema.limit.maximum"),
    ),
    _pair(
        "length_tightened",
        "breaking",
        {"inputSchema": obj({"q": {"type": "string", "maxLength": 200}})},
        {"inputSchema": obj({"q": {"type": "string", "maxLength": 20}})},
        ("breaking", "inputSchema.q.maxLength"),
    ),
    _pair(
        "closed_input",
        "breaking",
        {"inputSchema": obj({"q": STR})},
        {"inputSchema": obj({"q": STR}, additionalProperties=False)},
        ("breaking", "inputSchema.additionalProperties"),
    ),
    _pair(
        "default_changed",
        "breaking",
        {"inputSchema": obj({"dry_run": {"type": "boolean", "default": True}})},
        {"inputSchema": obj({"dry_run": {"type": "boolean", "default": False}})},
        ("breaking", "inputSchema.dry_run.default"),
    ),
    _pair(
        "opaque_keyword",
        "breaking",
        {"inputSchema": obj({"q": {**STR, "not": {"const": ""}}})},
        {"inputSchema": obj({"q": {**STR, "not": {"const": "x"}}})},
        ("breaking", "inputSchema.q.not"),
    ),
    _pair(
        "in_renamed",
        "breaking",
        {"inputSchema": obj({"refund_id": {**STR, "description": "rf_*"}}, ["refund_id"])},
        {"inputSchema": obj({"refundId": {**STR, "description": "rf_*"}}, ["refundId"])},
        ("breaking", "inputSchema.refund_id"),
    ),
    _pair(
        "out_enum_narrowed",
        "breaking",
        {"outputSchema": obj({"state": {"type": "string", "enum": ["open", "paid", "void"]}})},
        {"outputSchema": obj({"state": {"type": "string", "enum": ["open", "paid"]}})},
        ("breaking", "outputSchema.state.enum"),
    ),
    _pair(
        "out_removed",
        "breaking",
        {"outputSchema": obj({"id": STR, "note": STR}, ["id"])},
        {"outputSchema": obj({"id": STR}, ["id"])},
        ("breaking", "outputSchema.note"),
    ),
    _pair(
        "out_renamed",
        "breaking",
        {"outputSchema": ORDER_OUT},
        {"outputSchema": ORDER_OUT_RENAMED},
        ("breaking", "outputSchema.order.order_id"),
    ),
    _pair(
        "out_retyped",
        "breaking",
        {"outputSchema": obj({"total": STR}, ["total"])},
        {"outputSchema": obj({"total": INT}, ["total"])},
        ("breaking", "outputSchema.total.type"),
    ),
    _pair(
        "out_may_be_absent",
        "breaking",
        {"outputSchema": obj({"id": STR}, ["id"])},
        {"outputSchema": obj({"id": STR})},
        ("breaking", "outputSchema.id.required"),
    ),
    _pair(
        "out_nullable",
        "breaking",
        {"outputSchema": obj({"id": STR}, ["id"])},
        {"outputSchema": obj({"id": {"type": ["string", "null"]}}, ["id"])},
        ("breaking", "outputSchema.id|null"),
    ),
    _pair(
        "out_schema_removed",
        "breaking",
        {"outputSchema": obj({"id": STR})},
        {},
        ("breaking", "outputSchema.id"),
    ),
    _pair(
        "ro_lost",
        "breaking",
        {"annotations": READ_ONLY},
        {"annotations": {**READ_ONLY, "readOnlyHint": False}},
        ("breaking", "annotations.readOnlyHint"),
    ),
    _pair(
        "now_destructive",
        "breaking",
        {"annotations": {**READ_ONLY, "readOnlyHint": False}},
        {"annotations": {**READ_ONLY, "readOnlyHint": False, "destructiveHint": True}},
        ("breaking", "annotations.destructiveHint"),
    ),
    _pair(
        "idem_lost",
        "breaking",
        {"annotations": READ_ONLY},
        {"annotations": {**READ_ONLY, "idempotentHint": False}},
        ("breaking", "annotations.idempotentHint"),
    ),
    _pair(
        "open_world",
        "breaking",
        {"annotations": READ_ONLY},
        {"annotations": {**READ_ONLY, "openWorldHint": True}},
        ("breaking", "annotations.openWorldHint"),
    ),
    _pair(
        "tool_codes",
        "breaking",
        {
            "_meta": {
                "dev.x/errors": [
                    {"code": "GONE", "temporary": False, "description": "It is gone."},
                    {"code": "BUSY", "temporary": True, "description": "Retry later."},
                    {"code": "NOPE", "temporary": False, "description": "Ask the user."},
                ]
            }
        },
        {
            "_meta": {
                "dev.x/errors": [
                    {"code": "BUSY", "temporary": False, "description": "Retry later."},
                    {"code": "NOPE", "temporary": False, "description": "Look the id up first."},
                    {"code": "NEW", "temporary": False, "description": "New."},
                ]
            }
        },
        ("breaking", "errors.GONE"),
        ("breaking", "errors.BUSY"),
        ("breaking", "errors.NOPE.description"),
        ("additive", "errors.NEW"),
    ),
    # --- routing --------------------------------------------------------------------------------
    _pair(
        "desc_changed",
        "routing",
        {"description": "Find orders."},
        {"description": "Find orders and invoices."},
        ("routing", "description"),
    ),
    _pair(
        "title_changed",
        "routing",
        {"title": "Orders"},
        {"title": "Order search"},
        ("routing", "title"),
    ),
    _pair(
        "prop_desc",
        "routing",
        {"inputSchema": obj({"q": {**STR, "description": "Text."}})},
        {"inputSchema": obj({"q": {**STR, "description": "Words to find."}})},
        ("routing", "inputSchema.q.description"),
    ),
    _pair(
        "deprecated",
        "routing",
        {"_meta": {"dev.x/lifecycle": {"stability": "stable"}}},
        {
            "_meta": {
                "dev.x/lifecycle": {
                    "stability": "stable",
                    "deprecation": {
                        "since": "2.0",
                        "removal_at_or_after": "2027-01-01",
                        "replaced_by": "desc_changed",
                        "migration": "Call desc_changed.",
                    },
                }
            }
        },
        ("routing", "lifecycle.deprecation"),
    ),
    # --- additive -------------------------------------------------------------------------------
    Case("fresh", "additive", [], [tool("fresh")], [("additive", "tool:fresh", "tools.fresh")]),
    _pair(
        "opt_added",
        "additive",
        {"inputSchema": obj({"a": STR})},
        {"inputSchema": obj({"a": STR, "b": STR})},
        ("additive", "inputSchema.b"),
    ),
    _pair(
        "out_added",
        "additive",
        {"outputSchema": obj({"id": STR}, ["id"])},
        {"outputSchema": obj({"id": STR, "currency": STR}, ["id"])},
        ("additive", "outputSchema.currency"),
    ),
    _pair(
        "enum_widened",
        "additive",
        {"inputSchema": obj({"mode": {"type": "string", "enum": ["a"]}})},
        {"inputSchema": obj({"mode": {"type": "string", "enum": ["a", "b"]}})},
        ("additive", "inputSchema.mode.enum"),
    ),
    _pair(
        "req_relaxed",
        "additive",
        {"inputSchema": obj({"a": STR}, ["a"])},
        {"inputSchema": obj({"a": STR})},
        ("additive", "inputSchema.a.required"),
    ),
    _pair(
        "safer",
        "additive",
        {"annotations": {**READ_ONLY, "readOnlyHint": False}},
        {"annotations": READ_ONLY},
        ("additive", "annotations.readOnlyHint"),
    ),
    # --- cosmetic -------------------------------------------------------------------------------
    _pair(
        "schema_title",
        "cosmetic",
        {"inputSchema": obj({"a": STR}, title="schema_titleArguments")},
        {"inputSchema": obj({"a": STR}, title="Arguments")},
        ("cosmetic", "inputSchema.title"),
    ),
    _pair(
        "restated",
        "cosmetic",
        {
            "inputSchema": obj(
                {"n": {"type": "integer", "exclusiveMaximum": 10, "exclusiveMinimum": 0}}
            )
        },
        {"inputSchema": obj({"n": {"type": "integer", "maximum": 9, "minimum": 1}})},
        ("cosmetic", "inputSchema.n.maximum"),
        ("cosmetic", "inputSchema.n.minimum"),
    ),
    _pair(
        "hint_stated",
        "cosmetic",
        {},
        {"annotations": {"openWorldHint": True}},
        ("cosmetic", "annotations.openWorldHint"),
    ),
    _pair(
        "required_reordered",
        "cosmetic",
        {"inputSchema": obj({"a": STR, "b": STR}, ["a", "b"])},
        {"inputSchema": obj({"a": STR, "b": STR}, ["b", "a"])},
    ),
]

BASE_V1: dict[str, Any] = {
    "name": "cases",
    "version": "1.0.0",
    "instructions": "Use the tools.",
    "discover_meta": {
        "dev.x/errors": [
            {"code": "RATE_LIMITED", "temporary": True, "description": "Slow down."},
            {"code": "OLD_CODE", "temporary": False, "description": "Old."},
        ]
    },
    "resources": [
        {"uri": "cases://readme", "name": "readme", "mimeType": "text/plain"},
        {"uri": "cases://docs/guide", "name": "guide", "mimeType": "text/markdown"},
    ],
    "resource_templates": [
        {"uriTemplate": "cases://orders/{id}", "name": "order", "mimeType": "application/json"}
    ],
    "prompts": [
        {
            "name": "triage",
            "description": "Triage.",
            "arguments": [{"name": "ticket", "required": True}],
        },
        {"name": "summarize_ticket", "description": "Summarize a ticket for a handover."},
    ],
}
BASE_V2: dict[str, Any] = {
    "name": "cases",
    "version": "2.0.0",
    "instructions": "Use the tools; start with desc_changed.",
    "discover_meta": {
        "dev.x/errors": [
            {"code": "RATE_LIMITED", "temporary": True, "description": "Slow down."},
            {"code": "NEW_CODE", "temporary": False, "description": "New."},
        ]
    },
    "completions": True,
    "resources": [{"uri": "cases://guide", "name": "guide", "mimeType": "text/markdown"}],
    "resource_templates": [
        {"uriTemplate": "cases://orders/{id}", "name": "order", "mimeType": "text/csv"}
    ],
    "prompts": [
        {
            "name": "triage",
            "description": "Triage.",
            "arguments": [{"name": "ticket", "required": True}, {"name": "team", "required": True}],
        },
        {"name": "summarizeTicket", "description": "Summarize a ticket for a handover."},
    ],
}
SERVER_EXPECTED: Expected = [
    ("breaking", "server", "error_codes.OLD_CODE"),
    ("additive", "server", "error_codes.NEW_CODE"),
    ("routing", "server", "instructions"),
    ("additive", "server", "capabilities.completions"),
    ("cosmetic", "server", "server.version"),
    ("breaking", "resource:cases://readme", "resources.cases://readme"),
    ("breaking", "resource:cases://orders/{id}", "resource_templates.cases://orders/{id}.mimeType"),
    ("breaking", "prompt:triage", "prompts.triage.arguments.team"),
    ("breaking", "resource:cases://docs/guide", "resources.cases://docs/guide"),
    ("breaking", "prompt:summarize_ticket", "prompts.summarize_ticket"),
]


def specs() -> tuple[dict[str, Any], dict[str, Any]]:
    v1 = copy.deepcopy(BASE_V1)
    v2 = copy.deepcopy(BASE_V2)
    v1["tools"] = [t for c in CASES for t in copy.deepcopy(c.v1_tools)]
    v2["tools"] = [t for c in CASES for t in copy.deepcopy(c.v2_tools)]
    return v1, v2


def expected() -> Expected:
    out = list(SERVER_EXPECTED)
    for case in CASES:
        out.extend(case.expected)
    return out


def collected_from_spec(spec: dict[str, Any]) -> dict[str, Any]:
    """What `collect_surface` returns for `servers/spec_server.py` serving this spec (offline)."""
    caps: dict[str, Any] = {"tools": {"listChanged": False}}
    if spec.get("resources") or spec.get("resource_templates"):
        caps["resources"] = {"listChanged": False, "subscribe": bool(spec.get("subscribe"))}
    if spec.get("prompts"):
        caps["prompts"] = {"listChanged": False}
    if spec.get("completions"):
        caps["completions"] = {}
    return {
        "server": {"name": spec.get("name"), "version": spec.get("version")},
        "capabilities": caps,
        "instructions": spec.get("instructions"),
        "discover": {"_meta": spec.get("discover_meta") or {}},
        "tools": spec.get("tools", []),
        "resources": spec.get("resources", []),
        "resource_templates": spec.get("resource_templates", []),
        "prompts": spec.get("prompts", []),
        "capability_summary": spec.get("summary"),
    }
