"""A stdio (or streamable HTTP) MCP server written to the checklist: the auditor's clean control.

Low-level `mcp.server.Server`, strict closed schemas validated in the handler, output schemas,
explicit annotations, lifecycle metadata, and the error envelope on every rejection.
Run: python clean.py            (stdio)
     python clean.py --http PORT [TOKEN] (streamable HTTP on 127.0.0.1, bearer token if given)
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import sys
import uuid
from typing import Any

import anyio
import jsonschema
from mcp import types
from mcp.server import Server
from mcp.server.stdio import stdio_server

DIALECT = "https://json-schema.org/draft/2020-12/schema"
LIFECYCLE = {"org.drivable.test/lifecycle": {"stability": "stable"}}
NOTES = [
    {"note_id": "n1", "title": "Taxes 2025", "updated": "2026-01-10"},
    {"note_id": "n2", "title": "Garden plan", "updated": "2026-02-01"},
    {"note_id": "n3", "title": "Tax receipts", "updated": "2026-03-05"},
]
SECRET = b"clean-server-cursor-key"
INSTRUCTIONS = (
    "Notes: search and read a small personal notes store, and delete a note in two steps. "
    "Call search_notes first; get_note needs an id from it. "
    "It does not create or edit notes and does not search the web. "
    "Every error carries code, message, hint and, when the fix is known, a repair call."
)

SEARCH_IN = {
    "$schema": DIALECT,
    "type": "object",
    "properties": {
        "query": {"type": "string", "minLength": 1, "description": "Words in the title, e.g. tax."},
        "updated_after": {
            "type": "string",
            "format": "date",
            "pattern": r"^\d{4}-\d{2}-\d{2}$",
            "description": "Only notes updated after this day, YYYY-MM-DD. Omit for all.",
        },
        "limit": {
            "type": "integer",
            "minimum": 1,
            "maximum": 50,
            "default": 2,
            "description": "Page size.",
        },
        "cursor": {
            "type": "string",
            "description": "next_cursor of the previous page; omit to start.",
        },
        "detail": {
            "type": "string",
            "enum": ["summary", "full"],
            "default": "summary",
            "description": "Row density.",
        },
    },
    "required": ["query"],
    "additionalProperties": False,
}
NOTE_ROW = {
    "type": "object",
    "properties": {
        "note_id": {"type": "string"},
        "title": {"type": "string"},
        "updated": {"type": "string"},
    },
    "required": ["note_id", "title"],
    "additionalProperties": False,
}
SEARCH_OUT = {
    "type": "object",
    "properties": {
        "notes": {"type": "array", "items": NOTE_ROW},
        "next_cursor": {"type": "string"},
        "has_more": {"type": "boolean"},
    },
    "required": ["notes", "has_more"],
    "additionalProperties": False,
}
GET_IN = {
    "$schema": DIALECT,
    "type": "object",
    "properties": {
        "note_id": {
            "type": "string",
            "pattern": r"^n[0-9]+$",
            "examples": ["n1"],
            "description": "Id from search_notes, e.g. n1.",
        }
    },
    "required": ["note_id"],
    "additionalProperties": False,
}
DELETE_IN = {
    "$schema": DIALECT,
    "type": "object",
    "properties": {
        "note_id": {
            "type": "string",
            "pattern": r"^n[0-9]+$",
            "description": "Id from search_notes, e.g. n1.",
        },
        "dry_run": {
            "type": "boolean",
            "default": True,
            "description": "true: only say what would go.",
        },
        "confirm_token": {
            "type": "string",
            "description": "From the dry run; required when dry_run is false.",
        },
    },
    "required": ["note_id"],
    "additionalProperties": False,
}
DELETE_OUT = {
    "type": "object",
    "properties": {
        "note_id": {"type": "string"},
        "deleted": {"type": "boolean"},
        # A dry run's confirmation, written out as the call to make (its token in its arguments).
        "next_call": {
            "type": "object",
            "properties": {
                "tool": {"type": "string"},
                # untyped, as drivable's runtime lists it: its shape is delete_note's inputSchema
                "arguments": {"description": "Arguments delete_note's inputSchema accepts."},
            },
            "required": ["tool", "arguments"],
            "additionalProperties": False,
        },
    },
    "required": ["note_id", "deleted"],
    "additionalProperties": False,
}

TOOLS = [
    types.Tool(
        name="delete_note",
        title="Delete a note",
        description=(
            "Delete one note in two steps. Use when the user asks to remove a note. "
            "The first call (dry_run true) returns next_call: the same call with dry_run false "
            "and a confirm_token, which deletes. Returns not_found if the id does not exist. "
            "Example: delete_note(note_id='n1')."
        ),
        input_schema=DELETE_IN,
        output_schema=DELETE_OUT,
        annotations=types.ToolAnnotations(
            read_only_hint=False, destructive_hint=True, idempotent_hint=True, open_world_hint=False
        ),
        _meta=LIFECYCLE,
    ),
    types.Tool(
        name="get_note",
        title="Read a note",
        description=(
            "Read one note by id. Use when you have an id from search_notes. Returns not_found "
            "with a repair if the id does not exist. Example: get_note(note_id='n1')."
        ),
        input_schema=GET_IN,
        output_schema=NOTE_ROW,
        annotations=types.ToolAnnotations(
            read_only_hint=True, destructive_hint=False, idempotent_hint=True, open_world_hint=False
        ),
        _meta=LIFECYCLE,
    ),
    types.Tool(
        name="search_notes",
        title="Search notes",
        description=(
            "Search notes by words in the title. Use when you need note ids or titles. Returns an "
            "empty list if nothing matches; pages with next_cursor. "
            "Example: search_notes(query='tax', limit=2)."
        ),
        input_schema=SEARCH_IN,
        output_schema=SEARCH_OUT,
        annotations=types.ToolAnnotations(
            read_only_hint=True, destructive_hint=False, idempotent_hint=True, open_world_hint=False
        ),
        _meta=LIFECYCLE,
    ),
]
BY_NAME = {t.name: t for t in TOOLS}


def result(structured: dict[str, Any], *, error: bool = False) -> types.CallToolResult:
    return types.CallToolResult(
        content=[types.TextContent(type="text", text=json.dumps(structured))],
        # Errors carry the envelope in text only: clients check structuredContent against the
        # tool's outputSchema even on isError results.
        structured_content=None if error else structured,
        is_error=error,
    )


def envelope(
    code: str,
    message: str,
    hint: str,
    issues: list[dict[str, Any]],
    repair: dict[str, Any] | None = None,
) -> types.CallToolResult:
    env: dict[str, Any] = {
        "code": code,
        "message": message,
        "hint": hint,
        "issues": issues,
        "temporary": False,
        "retry_after_ms": None,
        "request_id": uuid.uuid4().hex[:12],
    }
    if repair:
        env["repair"] = repair
    return result(env, error=True)


def sign(offset: int) -> str:
    raw = str(offset).encode()
    mac = hmac.new(SECRET, raw, hashlib.sha256).hexdigest()[:16]
    return base64.urlsafe_b64encode(raw + b"." + mac.encode()).decode()


def unsign(cursor: str) -> int | None:
    try:
        raw, mac = base64.urlsafe_b64decode(cursor.encode()).split(b".", 1)
    except (ValueError, TypeError):
        return None
    good = hmac.new(SECRET, raw, hashlib.sha256).hexdigest()[:16].encode()
    return int(raw) if hmac.compare_digest(mac, good) and raw.isdigit() else None


def issues_of(schema: dict[str, Any], args: dict[str, Any]) -> list[dict[str, Any]]:
    out = []
    for err in jsonschema.Draft202012Validator(schema).iter_errors(args):
        path = ".".join(str(p) for p in err.absolute_path)
        if err.validator == "required":
            missing = [r for r in err.validator_value if r not in (err.instance or {})]
            for name in missing:
                out.append({"path": name, "code": "required", "message": f"{name} is required."})
            continue
        if err.validator == "additionalProperties":
            allowed = sorted(schema.get("properties", {}))
            for name in sorted(set(err.instance) - set(allowed)):
                out.append(
                    {
                        "path": name,
                        "code": "unknown_property",
                        "expected": allowed,
                        "message": f"{name} is not a parameter.",
                    }
                )
            continue
        prop = schema["properties"].get(path, {})
        expected = prop.get("enum") or prop.get("format") or prop.get("type")
        code = (
            "ambiguous_date"
            if path == "updated_after" and isinstance(err.instance, str) and "/" in err.instance
            else "invalid_value"
        )
        issue: dict[str, Any] = {
            "path": path,
            "code": code,
            "expected": expected,
            "message": f"{path} must be {expected}.",
        }
        if code == "ambiguous_date":
            a, b, y = err.instance.split("/")[:3]
            issue["readings"] = [f"{y}-{b}-{a}", f"{y}-{a}-{b}"]
        out.append(issue)
    return out


async def list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
    return types.ListToolsResult(tools=TOOLS)


async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
    name, args = params.name, dict(params.arguments or {})
    tool = BY_NAME.get(name)
    if tool is None:
        return envelope("unknown_tool", f"No tool {name}.", "Call search_notes.", [], None)
    issues = issues_of(tool.input_schema, args)
    if issues:
        repair = None
        if name == "search_notes" and isinstance(args.get("query"), str) and args["query"]:
            repair = {
                "next_step": "retry_valid",
                "tool": "search_notes",
                "arguments": {"query": args["query"]},
            }
        elif name in ("get_note", "delete_note"):
            repair = {
                "next_step": "look_up_id",
                "tool": "search_notes",
                "arguments": {"query": "note"},
            }
        return envelope(
            "invalid_argument",
            "Some arguments are not valid.",
            f"Fix {issues[0]['path']} and call {name} again.",
            issues,
            repair,
        )
    if name == "search_notes":
        offset = 0
        if "cursor" in args:
            decoded = unsign(args["cursor"])
            if decoded is None:
                return envelope(
                    "invalid_cursor",
                    "This cursor was not issued by this server.",
                    "Call search_notes again without cursor.",
                    [{"path": "cursor", "code": "invalid_cursor", "message": "Unknown cursor."}],
                    {
                        "next_step": "restart",
                        "tool": "search_notes",
                        "arguments": {"query": args["query"]},
                    },
                )
            offset = decoded
        limit = int(args.get("limit", 2))
        words = args["query"].lower().split()
        hits = [n for n in NOTES if any(w in n["title"].lower() for w in words)] or (
            NOTES if args["query"] in ("note", "string") else []
        )
        page = hits[offset : offset + limit]
        out: dict[str, Any] = {"notes": page, "has_more": offset + limit < len(hits)}
        if out["has_more"]:
            out["next_cursor"] = sign(offset + limit)
        return result(out)
    if name == "get_note":
        note = next((n for n in NOTES if n["note_id"] == args["note_id"]), None)
        if note is None:
            return envelope(
                "not_found",
                "No note has this id.",
                "Call search_notes to find the id.",
                [{"path": "note_id", "code": "not_found", "message": "Unknown id."}],
                {"next_step": "look_up_id", "tool": "search_notes", "arguments": {"query": "note"}},
            )
        return result(dict(note))
    note_id = args["note_id"]
    if args.get("dry_run", True):
        confirm = {"note_id": note_id, "dry_run": False, "confirm_token": "confirm-" + note_id}
        return result(
            {
                "note_id": note_id,
                "deleted": False,
                "next_call": {"tool": "delete_note", "arguments": confirm},
            }
        )
    if args.get("confirm_token") != "confirm-" + note_id:
        return envelope(
            "confirmation_required",
            "Deleting needs the token of a dry run.",
            "Call delete_note with dry_run true first.",
            [
                {
                    "path": "confirm_token",
                    "code": "confirmation_required",
                    "message": "Missing or wrong token.",
                }
            ],
            {
                "next_step": "dry_run",
                "tool": "delete_note",
                "arguments": {"note_id": note_id, "dry_run": True},
            },
        )
    return result({"note_id": note_id, "deleted": True})


server = Server(
    "drivable-clean-notes",
    version="1.0.0",
    title="Clean notes (test server)",
    instructions=INSTRUCTIONS,
    on_list_tools=list_tools,
    on_call_tool=call_tool,
)


async def main_stdio() -> None:
    async with stdio_server() as (read, write):
        await server.run(read, write, server.create_initialization_options())


def main_http(port: int, token: str | None) -> None:
    import uvicorn
    from starlette.responses import JSONResponse

    app = server.streamable_http_app(host="127.0.0.1")

    async def guarded(scope: Any, receive: Any, send: Any) -> None:
        """With a token set, every HTTP request must carry it as a bearer token."""
        if token is not None and scope["type"] == "http":
            headers = dict(scope.get("headers") or [])
            if headers.get(b"authorization") != f"Bearer {token}".encode():
                await JSONResponse({"error": "invalid_token"}, status_code=401)(
                    scope, receive, send
                )
                return
        await app(scope, receive, send)

    uvicorn.run(guarded, host="127.0.0.1", port=port, log_level="warning")


if __name__ == "__main__":
    if len(sys.argv) > 2 and sys.argv[1] == "--http":
        main_http(int(sys.argv[2]), sys.argv[3] if len(sys.argv) > 3 else None)
    else:
        anyio.run(main_stdio)
