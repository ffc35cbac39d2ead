"""One-defect servers: each blind spot of the auditor (issue 37) planted alone, and its clean twin.

Run: python planted.py CASE [--clean]. Every server is otherwise written to the checklist (closed
schemas checked in the handler, output schemas, annotations, titles, the error envelope naming
the field), so the defect is the one thing its audit should report at critical or major; the
twin (`--clean`) is the same server with the defect fixed, and its audit should report nothing at
critical or major. The labels (what each audit must and must not report) are in
tests/audit/planted_corpus.py.
"""

from __future__ import annotations

import base64
import binascii
import json
import sys
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import anyio
import jsonschema
from mcp import types
from mcp.server import Server
from mcp.server.stdio import stdio_server

LIFECYCLE = {"org.drivable.test/lifecycle": {"stability": "stable"}}
READS = types.ToolAnnotations(
    read_only_hint=True, destructive_hint=False, idempotent_hint=True, open_world_hint=False
)
KEY = {
    "type": "string",
    "minLength": 8,
    "maxLength": 128,
    "pattern": r"^[A-Za-z0-9][A-Za-z0-9_.:-]{7,127}$",
    "description": "A key you generate once per change (a UUID) and resend on its retries.",
}
NOT_KEYS = frozenset({"uuid", "guid", "key", "string", "example", "idempotency_key"})
PLACEHOLDER_WORDS = frozenset({"example", "string", "sample", "todo", "xxx", "n/a", "none"})
Answer = types.CallToolResult


def closed(props: dict[str, Any], required: tuple[str, ...] = (), **extra: Any) -> dict[str, Any]:
    schema: dict[str, Any] = {"type": "object", "properties": props, "additionalProperties": False}
    if required:
        schema["required"] = list(required)
    return {**schema, **extra}


def rows(item: dict[str, Any], key: str = "results") -> dict[str, Any]:
    """An output schema: a page of `item` rows under `key`."""
    return closed({key: {"type": "array", "items": item}}, (key,))


def tool(
    name: str,
    title: str,
    description: str,
    input_schema: dict[str, Any],
    output_schema: dict[str, Any],
    annotations: types.ToolAnnotations = READS,
) -> types.Tool:
    return types.Tool(
        name=name,
        title=title,
        description=description,
        input_schema=input_schema,
        output_schema=output_schema,
        annotations=annotations,
        _meta=LIFECYCLE,
    )


def ok(structured: dict[str, Any]) -> Answer:
    return types.CallToolResult(
        content=[types.TextContent(type="text", text=json.dumps(structured))],
        structured_content=structured,
    )


def refuse(code: str, message: str, hint: str, issues: list[dict[str, Any]]) -> Answer:
    """The envelope as JSON in the first text block, and no structuredContent."""
    envelope = {
        "code": code,
        "message": message,
        "hint": hint,
        "issues": issues,
        "temporary": False,
        "retry_after_ms": None,
        "request_id": uuid.uuid4().hex[:12],
    }
    return types.CallToolResult(
        content=[types.TextContent(type="text", text=json.dumps(envelope))], is_error=True
    )


def issue(path: str, code: str, message: str, expected: Any = None) -> dict[str, Any]:
    out = {"path": path, "code": code, "message": message}
    if expected is not None:
        out["expected"] = expected
    return out


def issues_of(schema: dict[str, Any], args: dict[str, Any]) -> list[dict[str, Any]]:
    """Every schema violation as an issue naming its field (a `oneOf` names its choices)."""
    out = []
    props = schema.get("properties", {})
    for err in jsonschema.Draft202012Validator(schema).iter_errors(args):
        path = ".".join(str(p) for p in err.absolute_path)
        if err.validator == "required":
            for name in [r for r in err.validator_value if r not in (err.instance or {})]:
                out.append(issue(name, "required", f"{name} is required."))
        elif err.validator == "additionalProperties":
            for name in sorted(set(err.instance) - set(props)):
                out.append(
                    issue(name, "unknown_property", f"{name} is no parameter.", sorted(props))
                )
        elif err.validator == "oneOf" and not path:
            choices = [b["required"][0] for b in err.validator_value]
            out.append(
                issue(choices[0], "one_of", f"Give exactly one of {', '.join(choices)}.", choices)
            )
        else:
            top = path.split(".")[0] or "arguments"
            node = props.get(top, {})
            expected = node.get("enum") or node.get("items", {}).get("enum") or node.get("type")
            out.append(
                issue(path or top, "invalid_value", f"{path or top}: {err.message}", expected)
            )
    return out


def placeholder(value: Any) -> bool:
    return isinstance(value, str) and value.strip().casefold() in PLACEHOLDER_WORDS


@dataclass
class Case:
    """One server: its tools (the twin's where they differ), and what each call answers."""

    name: str
    title: str
    instructions: str
    tools: list[types.Tool]
    answer: Callable[[str, dict[str, Any], bool], Answer]
    twin_tools: dict[str, types.Tool] = field(default_factory=dict)
    twin_name: str | None = None
    # tools whose own checks (past the schema) answer without naming the field
    unnamed: frozenset[str] = frozenset()
    # the schema the handler checks where the twin's listed one would differ
    checked: dict[str, dict[str, Any]] = field(default_factory=dict)


# --- 1. exclusive optionals stated only in prose -------------------------------------------
CUSTOMERS = [
    {"customer_id": "cus_1001", "name": "Weber Foods", "email": "billing@weber.example"},
    {"customer_id": "cus_1002", "name": "Bauer Print", "email": "office@bauer.example"},
]
CUSTOMER = closed(
    {"customer_id": {"type": "string"}, "name": {"type": "string"}, "email": {"type": "string"}},
    ("customer_id", "name", "email"),
)
LOOKUP_PROPS = {
    "customer_id": {"type": "string", "description": "Id from list_customers, e.g. cus_1001."},
    "email": {"type": "string", "description": "The customer's billing email address."},
}
FIND_DOC = (
    "Find one customer by id or by billing email. Use when you know the customer but not the "
    "rest of the record. Give either customer_id or email, not both. Returns not_found if no "
    "customer matches. Example: find_customer(customer_id='cus_1001')."
)


def _customers(tool_name: str, args: dict[str, Any], clean: bool) -> Answer:
    if tool_name == "list_customers":
        return ok({"results": CUSTOMERS})
    if "customer_id" not in args and "email" not in args:
        message = "Give customer_id or email."
        return refuse(
            "invalid_argument",
            message,
            "Call find_customer with customer_id.",
            [issue("customer_id", "required", message)],
        )
    # planted (prose only): with both, the id wins and the email is ignored
    key = "customer_id" if "customer_id" in args else "email"
    found = next((c for c in CUSTOMERS if c[key] == args[key]), None)
    if found is None:
        return refuse(
            "not_found",
            f"No customer has this {key}.",
            "Call list_customers for the ids.",
            [issue(key, "not_found", f"Unknown {key}.")],
        )
    return ok(found)


EXCLUSIVE = Case(
    "customers",
    "Customers",
    "Customers: list customers and find one by id or email. Call list_customers first. It does "
    "not create or change customers. Every error carries code, message, hint and issues.",
    [
        tool(
            "list_customers",
            "List customers",
            "List every customer. Use when you need customer ids; returns an empty list when "
            "there are none. Example: list_customers().",
            closed({}),
            rows(CUSTOMER),
        ),
        tool("find_customer", "Find a customer", FIND_DOC, closed(LOOKUP_PROPS), CUSTOMER),
    ],
    _customers,
    twin_tools={
        "find_customer": tool(
            "find_customer",
            "Find a customer",
            FIND_DOC,
            closed(
                LOOKUP_PROPS,
                oneOf=[{"required": ["customer_id"]}, {"required": ["email"]}],
            ),
            CUSTOMER,
        )
    },
)

# --- 2. a server name with a version and mixed case ----------------------------------------
NOTES = [
    {"note_id": "n1", "title": "Taxes 2025", "body": "File by March."},
    {"note_id": "n2", "title": "Garden plan", "body": "Tomatoes by the wall."},
]
NOTE = closed(
    {"note_id": {"type": "string"}, "title": {"type": "string"}, "body": {"type": "string"}},
    ("note_id", "title", "body"),
)
NOTE_ID = {"type": "string", "description": "Id from list_notes, e.g. n1."}
LIST_NOTES = tool(
    "list_notes",
    "List notes",
    "List every note. Use when you need note ids; returns an empty list when there are none. "
    "Example: list_notes().",
    closed({}),
    rows(NOTE),
)


def _notes(tool_name: str, args: dict[str, Any], clean: bool) -> Answer:
    if tool_name == "list_notes":
        return ok({"results": NOTES})
    found = next((n for n in NOTES if n["note_id"] == args["note_id"]), None)
    if found is None:
        return refuse(
            "not_found",
            "No note has this id.",
            "Call list_notes for the ids.",
            [issue("note_id", "not_found", "Unknown note id.")],
        )
    return ok(found)


NAMED = Case(
    "NotesServer-v2.1",  # planted: a version and a class name
    "Notes",
    "Notes: list and read notes. Call list_notes first; get_note needs an id from it. It does "
    "not create or change notes. Every error carries code, message, hint and issues.",
    [
        LIST_NOTES,
        tool(
            "get_note",
            "Read a note",
            "Read one note by id. Use when you have an id from list_notes; returns not_found "
            "otherwise. Example: get_note(note_id='n1').",
            closed({"note_id": NOTE_ID}, ("note_id",)),
            NOTE,
        ),
    ],
    _notes,
    twin_name="notes",
)

# --- 3. an action enum with a destructive mode, annotated non-destructive ------------------
TAGS = ["urgent", "later", "home"]
TAG_OUT = closed(
    {"tags": {"type": "array", "items": {"type": "string"}}, "changed": {"type": "boolean"}},
    ("tags", "changed"),
)
MANAGE_PROPS = {
    "tag": {"type": "string", "description": "A tag from list_tags, e.g. urgent."},
    "new_name": {"type": "string", "description": "For rename: the new name. Omit otherwise."},
    "dry_run": {
        "type": "boolean",
        "default": True,
        "description": "true: say what would change and change nothing.",
    },
}


def manage(name: str, modes: list[str], annotations: types.ToolAnnotations) -> types.Tool:
    return tool(
        name,
        "Manage tags",
        f"{'/'.join(m.capitalize() for m in modes)} a tag, first as a dry run. Use when the "
        f"user asks to change tags. Returns not_found for an unknown tag. Example: {name}("
        f"action='{modes[0]}', tag='later', dry_run=true).",
        closed(
            {"action": {"type": "string", "enum": modes, "description": "What to do."}}
            | MANAGE_PROPS,
            ("action", "tag"),
        ),
        TAG_OUT,
        annotations,
    )


def writes(*, destructive: bool, read_only: bool = False) -> types.ToolAnnotations:
    return types.ToolAnnotations(
        read_only_hint=read_only,
        destructive_hint=destructive,
        idempotent_hint=True,
        open_world_hint=False,
    )


def _tags(tool_name: str, args: dict[str, Any], clean: bool) -> Answer:
    if tool_name == "list_tags":
        return ok({"tags": TAGS, "changed": False})
    if args["tag"] not in TAGS:
        return refuse(
            "not_found",
            "No such tag.",
            "Call list_tags for the tags.",
            [issue("tag", "not_found", "Unknown tag.", TAGS)],
        )
    return ok({"tags": TAGS, "changed": False})  # a dry run, or nothing to change here


MODES = Case(
    "tags",
    "Tags",
    "Tags: list, add, rename and delete the tags of a notebook, each change first as a dry "
    "run. Call list_tags first. It does not edit notes. Every error carries code, message, hint "
    "and issues.",
    [
        tool(
            "list_tags",
            "List tags",
            "List every tag. Use when you need a tag's exact name; returns an empty list when "
            "there are none. Example: list_tags().",
            closed({}),
            TAG_OUT,
        ),
        # planted: a destructive mode under `destructiveHint: false`, and one under read-only
        manage("manage_tags", ["add", "rename", "delete"], writes(destructive=False)),
        manage(
            "manage_labels",
            ["rename", "purge"],
            writes(destructive=False, read_only=True),
        ),
    ],
    _tags,
    twin_tools={
        "manage_tags": manage("manage_tags", ["add", "rename", "delete"], writes(destructive=True)),
        "manage_labels": manage("manage_labels", ["rename", "purge"], writes(destructive=True)),
    },
)

# --- 4. one tool whose errors do not name the field, among tools whose errors do -----------
RECIPES: list[dict[str, Any]] = [
    {"recipe_id": "r1", "title": "Lentil soup", "minutes": 40, "vegetarian": True},
    {"recipe_id": "r2", "title": "Fish tacos", "minutes": 25, "vegetarian": False},
    {"recipe_id": "r3", "title": "Pea risotto", "minutes": 35, "vegetarian": True},
]
RECIPE = closed(
    {
        "recipe_id": {"type": "string"},
        "title": {"type": "string"},
        "minutes": {"type": "integer"},
        "vegetarian": {"type": "boolean"},
    },
    ("recipe_id", "title", "minutes", "vegetarian"),
)


def _recipes(tool_name: str, args: dict[str, Any], clean: bool) -> Answer:
    if tool_name == "search_recipes":
        words = str(args["query"]).lower().split()
        limit = args.get("max_minutes", 999)
        hits = [r for r in RECIPES if any(w in r["title"].lower() for w in words)]
        return ok({"results": [r for r in hits if r["minutes"] <= limit]})
    if tool_name == "get_recipe":
        found = next((r for r in RECIPES if r["recipe_id"] == args["recipe_id"]), None)
        if found is None:
            return refuse(
                "not_found",
                "No recipe has this id.",
                "Call search_recipes for the ids.",
                [issue("recipe_id", "not_found", "Unknown recipe id.")],
            )
        return ok(found)
    pool = [r for r in RECIPES if r["vegetarian"] or not args.get("vegetarian")]
    pool = [r for r in pool if r["minutes"] <= 30 or not args.get("quick")]
    return ok(pool[0] if pool else RECIPES[0])


FEEDBACK = Case(
    "recipes",
    "Recipes",
    "Recipes: search recipes, read one, or get a suggestion. Call search_recipes first; "
    "get_recipe needs an id from it. It does not plan shopping. Every error carries code, "
    "message, hint and issues.",
    [
        tool(
            "search_recipes",
            "Search recipes",
            "Search recipes by words in the title. Use when the user names a dish; returns an "
            "empty list if nothing matches. Example: search_recipes(query='soup').",
            closed(
                {
                    "query": {"type": "string", "description": "Words in the title, e.g. soup."},
                    "max_minutes": {
                        "type": "integer",
                        "minimum": 1,
                        "description": "Only recipes this quick. Omit for any.",
                    },
                },
                ("query",),
            ),
            rows(RECIPE),
        ),
        tool(
            "get_recipe",
            "Read a recipe",
            "Read one recipe by id. Use when you have an id from search_recipes; returns "
            "not_found otherwise. Example: get_recipe(recipe_id='r1').",
            closed(
                {
                    "recipe_id": {
                        "type": "string",
                        "description": "Id from search_recipes, e.g. r1.",
                    }
                },
                ("recipe_id",),
            ),
            RECIPE,
        ),
        tool(
            "suggest_recipe",
            "Suggest a recipe",
            "Suggest one recipe. Use when the user asks what to cook; returns the first "
            "recipe when no filter matches. Example: suggest_recipe(vegetarian=true).",
            closed(
                {
                    "vegetarian": {"type": "boolean", "description": "Omit for any recipe."},
                    "quick": {
                        "type": "boolean",
                        "description": "30 minutes at most. Omit for any.",
                    },
                }
            ),
            RECIPE,
        ),
    ],
    _recipes,
    unnamed=frozenset({"suggest_recipe"}),  # planted: "Invalid input." and no field
)

# --- 5. a free list of strings whose values are only in prose ------------------------------
ISSUES = [
    {"issue_id": "is_1", "title": "Crash on save", "labels": ["bug"]},
    {"issue_id": "is_2", "title": "Dark mode", "labels": ["feature"]},
    {"issue_id": "is_3", "title": "Typo in help", "labels": ["docs", "bug"]},
]
ISSUE = closed(
    {
        "issue_id": {"type": "string"},
        "title": {"type": "string"},
        "labels": {"type": "array", "items": {"type": "string"}},
    },
    ("issue_id", "title", "labels"),
)
LABELS_DOC = "Labels to match: 'bug', 'feature' or 'docs'. Omit for every issue."


def search_issues(labels: dict[str, Any]) -> types.Tool:
    return tool(
        "search_issues",
        "Search issues",
        "Search issues by label. Use when the user asks for open bugs or features; returns an "
        "empty list if nothing matches. Example: search_issues(labels=['bug']).",
        closed({"labels": labels}),
        rows(ISSUE),
    )


def _issues(tool_name: str, args: dict[str, Any], clean: bool) -> Answer:
    if tool_name == "search_issues":
        wanted = set(args.get("labels") or [])
        # planted: a label nobody has (a typo) matches nothing, and nothing says so
        return ok({"results": [i for i in ISSUES if not wanted or wanted & set(i["labels"])]})
    found = next((i for i in ISSUES if i["issue_id"] == args["issue_id"]), None)
    if found is None:
        return refuse(
            "not_found",
            "No issue has this id.",
            "Call search_issues for the ids.",
            [issue("issue_id", "not_found", "Unknown issue id.")],
        )
    return ok(found)


PROSE = Case(
    "issues",
    "Issues",
    "Issues: search the issues of one project by label and read one. Call search_issues "
    "first; get_issue needs an id from it. It does not file or close issues. Every error "
    "carries code, message, hint and issues.",
    [
        search_issues({"type": "array", "items": {"type": "string"}, "description": LABELS_DOC}),
        tool(
            "get_issue",
            "Read an issue",
            "Read one issue by id. Use when you have an id from search_issues; returns "
            "not_found otherwise. Example: get_issue(issue_id='is_1').",
            closed(
                {
                    "issue_id": {
                        "type": "string",
                        "description": "Id from search_issues, e.g. is_1.",
                    }
                },
                ("issue_id",),
            ),
            ISSUE,
        ),
    ],
    _issues,
    twin_tools={
        "search_issues": search_issues(
            {
                "type": "array",
                "items": {"type": "string", "enum": ["bug", "feature", "docs"]},
                "description": LABELS_DOC,
            }
        )
    },
)

# --- 6. a raw exception message answering a junk cursor ------------------------------------
EVENTS = [{"event_id": f"ev_{i}", "title": f"Meeting {i}", "day": "2026-10-05"} for i in range(5)]
EVENT = closed(
    {"event_id": {"type": "string"}, "title": {"type": "string"}, "day": {"type": "string"}},
    ("event_id", "title", "day"),
)
PAGE = closed(
    {
        "results": {"type": "array", "items": EVENT},
        "next_cursor": {"type": "string"},
        "has_more": {"type": "boolean"},
    },
    ("results", "has_more"),
)


def _events(tool_name: str, args: dict[str, Any], clean: bool) -> Answer:
    offset = 0
    if "cursor" in args:
        try:
            offset = int(json.loads(base64.urlsafe_b64decode(args["cursor"]))["offset"])
        except (ValueError, KeyError, TypeError, binascii.Error) as exc:
            said = "This cursor was not issued by this server." if clean else f"Bad cursor: {exc}"
            return refuse(  # planted (not clean): the decoder's own words
                "invalid_cursor",
                said,
                "Call list_events again without cursor.",
                [issue("cursor", "invalid_cursor", said)],
            )
    limit = int(args.get("limit", 2))
    page: dict[str, Any] = {"results": EVENTS[offset : offset + limit]}
    page["has_more"] = offset + limit < len(EVENTS)
    if page["has_more"]:
        page["next_cursor"] = base64.urlsafe_b64encode(
            json.dumps({"offset": offset + limit}).encode()
        ).decode()
    return ok(page)


CURSORS = Case(
    "events",
    "Events",
    "Events: list the events of a calendar page by page. Call list_events and follow "
    "next_cursor. It does not create events. Every error carries code, message, hint and issues.",
    [
        tool(
            "list_events",
            "List events",
            "List events, oldest first, page by page. Use when the user asks what is planned; "
            "returns an empty page past the end. Example: list_events(limit=2).",
            closed(
                {
                    "cursor": {
                        "type": "string",
                        "description": "next_cursor of the previous page; omit to start.",
                    },
                    "limit": {
                        "type": "integer",
                        "minimum": 1,
                        "maximum": 50,
                        "default": 2,
                        "description": "Page size.",
                    },
                }
            ),
            PAGE,
        )
    ],
    _events,
)

# --- 7. an idempotency key that takes "uuid" and a megabyte -------------------------------
CREATED: dict[str, dict[str, Any]] = {}  # key -> the note it made (a retry replays it)


def create_note(key: dict[str, Any]) -> types.Tool:
    return tool(
        "create_note",
        "Create a note",
        "Create a note. Use when the user asks to save text; a retry with the same "
        "idempotency_key returns the first note. Fails if the title is empty. Example: "
        "create_note(title='Taxes', body='File by March', idempotency_key='<a new UUID>').",
        closed(
            {
                "title": {"type": "string", "minLength": 1, "description": "The note's title."},
                "body": {"type": "string", "description": "The text. Omit for an empty note."},
                "idempotency_key": key,
            },
            ("title", "idempotency_key"),
        ),
        NOTE,
        types.ToolAnnotations(
            read_only_hint=False,
            destructive_hint=False,
            idempotent_hint=True,
            open_world_hint=False,
        ),
    )


def _keyed_notes(tool_name: str, args: dict[str, Any], clean: bool) -> Answer:
    if tool_name == "list_notes":
        return ok({"results": NOTES + list(CREATED.values())})
    key = args["idempotency_key"]
    if clean and key.casefold() in NOT_KEYS:
        message = f"{key!r} is a placeholder, not a key."
        return refuse(
            "invalid_key",
            message,
            f"Generate a key, e.g. '{uuid.uuid4()}', and call create_note again.",
            [issue("idempotency_key", "invalid_key", message)],
        )
    if placeholder(args["title"]):
        return refuse(
            "invalid_argument",
            "The title is a placeholder.",
            "Send the note's real title.",
            [issue("title", "placeholder", "The title is a placeholder.")],
        )
    if key not in CREATED:
        note_id = f"n{len(NOTES) + len(CREATED) + 1}"
        CREATED[key] = {"note_id": note_id, "title": args["title"], "body": args.get("body", "")}
    return ok(CREATED[key])


KEYS = Case(
    "keyed-notes",
    "Notes",
    "Notes: list notes and create one; a create is keyed, so a retry never makes a second note. "
    "Call list_notes first. It does not delete notes. Every error carries code, message, hint "
    "and issues.",
    [LIST_NOTES, create_note({"type": "string", "description": KEY["description"]})],
    _keyed_notes,
    twin_tools={"create_note": create_note(KEY)},
)

# --- 8. an order a retry places twice (seen only when the baseline is a valid order) -------
TODAY = "2026-10-05"  # the server's own clock: a Monday
SLOTS = [f"{h:02d}:00" for h in range(8, 20)]
PRODUCTS = [
    {"product_id": "p_101", "name": "Espresso beans 1 kg", "price_cents": 2400},
    {"product_id": "p_102", "name": "Filter papers", "price_cents": 300},
]
ORDERS: list[dict[str, Any]] = []
PLACED: dict[str, dict[str, Any]] = {}  # idempotency key -> order (the twin replays)
DAY = {
    "type": "string",
    "pattern": r"^\d{4}-\d{2}-\d{2}$",
    "description": "A delivery day, YYYY-MM-DD, after today (list_delivery_windows says which).",
}
ORDER = closed(
    {
        "order_id": {"type": "string"},
        "product_id": {"type": "string"},
        "quantity": {"type": "integer"},
        "day": {"type": "string"},
        "start": {"type": "string"},
        "end": {"type": "string"},
        "email": {"type": "string"},
    },
    ("order_id", "product_id", "quantity", "day", "start", "end", "email"),
)
WINDOWS = closed(
    {
        "today": {"type": "string"},
        "windows": {
            "type": "array",
            "items": closed(
                {"day": {"type": "string"}, "start": {"type": "string"}, "end": {"type": "string"}},
                ("day", "start", "end"),
            ),
        },
    },
    ("today", "windows"),
)
ORDER_PROPS: dict[str, Any] = {
    "product_id": {"type": "string", "description": "Id from list_products, e.g. p_101."},
    "quantity": {"type": "integer", "minimum": 1, "maximum": 20, "description": "How many."},
    "day": DAY,
    "start": {"type": "string", "enum": SLOTS[:-1], "description": "Window start, on the hour."},
    "end": {"type": "string", "enum": SLOTS[1:], "description": "Window end, after the start."},
    "email": {"type": "string", "description": "The buyer's email address, for the receipt."},
}
ORDER_REQUIRED = ("product_id", "quantity", "day", "start", "end", "email")


def create_order(keyed: bool) -> types.Tool:
    props = {**ORDER_PROPS, **({"idempotency_key": KEY} if keyed else {})}
    required = (*ORDER_REQUIRED, *(("idempotency_key",) if keyed else ()))
    retry = " A retry with the same idempotency_key returns the first order." if keyed else ""
    return tool(
        "create_order",
        "Order a product",
        "Order a product for delivery in a window. Use when the user asks to buy; returns "
        "invalid_argument for a day that is not after today." + retry + " Example: "
        "create_order(product_id='p_101', quantity=1, day='2026-10-06', start='09:00', "
        "end='11:00', email='jana@example.org').",
        closed(props, required),
        ORDER,
        types.ToolAnnotations(
            read_only_hint=False,
            destructive_hint=False,
            idempotent_hint=keyed,
            open_world_hint=False,
        ),
    )


def _order(args: dict[str, Any], clean: bool) -> Answer:
    def wrong(path: str, message: str) -> Answer:
        return refuse(
            "invalid_argument",
            message,
            f"Fix {path} and call create_order again.",
            [issue(path, "invalid_value", message)],
        )

    if clean and args["idempotency_key"] in PLACED:
        return ok(PLACED[args["idempotency_key"]])
    if args["product_id"] not in {p["product_id"] for p in PRODUCTS}:
        return wrong("product_id", "No such product; call list_products.")
    if args["day"] <= TODAY:
        return wrong("day", f"Deliveries start the day after today ({TODAY}).")
    if args["end"] <= args["start"]:
        return wrong("end", "The window ends after it starts.")
    if "@" not in args["email"]:
        return wrong("email", "Send the buyer's email address.")
    # planted (not clean): no key, so a retry after a timeout places a second order
    order = {"order_id": f"ord_{1001 + len(ORDERS)}", **{k: args[k] for k in ORDER_REQUIRED}}
    ORDERS.append(order)
    if clean:
        PLACED[args["idempotency_key"]] = order
    return ok(order)


def _orders(tool_name: str, args: dict[str, Any], clean: bool) -> Answer:
    if tool_name == "list_products":
        return ok({"results": PRODUCTS})
    if tool_name == "list_orders":
        return ok({"results": [o for o in ORDERS if o["email"] == args["email"]]})
    if tool_name == "list_delivery_windows":
        days = ["2026-10-06", "2026-10-07"]
        windows = [{"day": d, "start": "09:00", "end": "12:00"} for d in days]
        return ok({"today": TODAY, "windows": windows})
    return _order(args, clean)


ORDERS_CASE = Case(
    "orders",
    "Orders",
    f"Orders: list products and delivery windows, place an order, list your orders. Today is "
    f"{TODAY}. Call list_products and list_delivery_windows, then create_order. It does not "
    "cancel orders. Every error carries code, message, hint and issues.",
    [
        tool(
            "list_products",
            "List products",
            "List every product. Use when you need a product id; returns an empty list when "
            "there are none. Example: list_products().",
            closed({}),
            rows(
                closed(
                    {
                        "product_id": {"type": "string"},
                        "name": {"type": "string"},
                        "price_cents": {"type": "integer"},
                    },
                    ("product_id", "name", "price_cents"),
                )
            ),
        ),
        tool(
            "list_delivery_windows",
            "List delivery windows",
            "List the delivery windows of the coming days. Use when you need a day and a time "
            "to order for; returns an empty list when none is free. "
            "Example: list_delivery_windows().",
            closed({}),
            WINDOWS,
        ),
        tool(
            "list_orders",
            "List my orders",
            "List a buyer's orders. Use when the user asks what they ordered; returns an empty "
            "list when there are none. Example: list_orders(email='jana@example.org').",
            closed({"email": ORDER_PROPS["email"]}, ("email",)),
            rows(ORDER),
        ),
        create_order(keyed=False),
    ],
    _orders,
    twin_tools={"create_order": create_order(keyed=True)},
)

CASES: dict[str, Case] = {
    "exclusive": EXCLUSIVE,
    "name": NAMED,
    "modes": MODES,
    "feedback": FEEDBACK,
    "prose": PROSE,
    "cursor": CURSORS,
    "keys": KEYS,
    "orders": ORDERS_CASE,
}


def build(case: Case, clean: bool) -> Server:
    listed = [case.twin_tools.get(t.name, t) if clean else t for t in case.tools]
    by_name = {t.name: t for t in listed}

    async def list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
        return types.ListToolsResult(tools=listed)

    async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> Answer:
        name, args = params.name, dict(params.arguments or {})
        spec = by_name.get(name)
        if spec is None:
            return refuse("unknown_tool", f"No tool {name}.", "Call tools/list.", [])
        issues = issues_of(spec.input_schema, args)
        if issues:
            if name in case.unnamed and not clean and issues[0]["code"] != "unknown_property":
                # planted: the field and what was expected are left out
                return refuse(
                    "invalid_argument",
                    "Invalid input.",
                    f"Check the arguments and call {name} again.",
                    [],
                )
            return refuse(
                "invalid_argument",
                issues[0]["message"],
                f"Fix {issues[0]['path']} and call {name} again.",
                issues,
            )
        return case.answer(name, args, clean)

    server_name = (case.twin_name or case.name) if clean else case.name
    return Server(
        server_name,
        version="1.0.0",
        title=case.title,
        instructions=case.instructions,
        on_list_tools=list_tools,
        on_call_tool=call_tool,
    )


async def main(case: Case, clean: bool) -> None:
    server = build(case, clean)
    async with stdio_server() as (read, write):
        await server.run(read, write, server.create_initialization_options())


if __name__ == "__main__":
    anyio.run(main, CASES[sys.argv[1]], "--clean" in sys.argv[2:])
