"""A small stdio MCP server on the SDK's low-level Server, written the way many are: loose about
errors, logging on stdout, and able to crash or hang on request. It appends every tools/call it
receives to the file UPSTREAM_LOG (one JSON line each, before acting), so a test can read from
the upstream's own log what reached it.

Run: python upstream_server.py (UPSTREAM_LOG=/path/calls.jsonl, UPSTREAM_NOISY=1 for a log line on
stdout at start).
"""

from __future__ import annotations

import json
import os
import sys
import time
from typing import Any

import anyio
from mcp import MCPError, types
from mcp.server import Server
from mcp.server.stdio import stdio_server

NOTES: dict[str, dict[str, Any]] = {"n1": {"note_id": "n1", "title": "Taxes"}}
IMPORTED: dict[str, str] = {}  # the server's own idempotency keys
WRITE = types.ToolAnnotations(read_only_hint=False, destructive_hint=False, idempotent_hint=False)
DELETE = types.ToolAnnotations(read_only_hint=False, destructive_hint=True, idempotent_hint=True)
READ = types.ToolAnnotations(read_only_hint=True)


def _tool(
    name: str, description: str, props: dict[str, Any], required: list[str], **kw: Any
) -> types.Tool:
    schema = {"type": "object", "properties": props, "required": required}
    return types.Tool(name=name, description=description, input_schema=schema, **kw)


TOOLS = [
    _tool(
        "create_note",
        "Create a note with a title, an optional due date, priority and tags; returns its id.",
        {
            "title": {"type": "string", "minLength": 1},
            "due_date": {"type": "string", "format": "date"},
            "priority": {"type": "string", "enum": ["low", "normal", "high"]},
            "tags": {"type": "array", "items": {"type": "string"}},
            "estimate_hours": {"type": "number"},
        },
        ["title"],
        annotations=WRITE,
    ),
    _tool(
        "delete_note",
        "Delete a note by its id (n1, n2, ...); the id comes from create_note or list_notes.",
        {"note_id": {"type": "string"}},
        ["note_id"],
        annotations=DELETE,
    ),
    _tool("list_notes", "List every note with its id and title.", {}, [], annotations=READ),
    _tool("ping", "Answer pong.", {}, [], annotations=READ),
    _tool(
        "set_age",
        "Set the age of the account holder in years (the server checks it is under 150).",
        {"age": {"type": "integer"}},
        ["age"],
    ),
    _tool(
        "crash_now",
        "Stop the server process at once (a test of restarts).",
        {},
        [],
        annotations=READ,
    ),
    _tool(
        "hang_for",
        "Wait the given number of seconds before answering (a test of timeouts).",
        {"seconds": {"type": "number"}},
        ["seconds"],
        annotations=READ,
    ),
    _tool(
        "print_logs", "Print three log lines on stdout, then answer done.", {}, [], annotations=READ
    ),
    _tool(
        "fail_inside", "Fail with a Python traceback in the error text.", {}, [], annotations=READ
    ),
    _tool(
        "open_note",
        "Read one note by its id; a missing one is answered as a success saying Error.",
        {"note_id": {"type": "string"}},
        ["note_id"],
        annotations=READ,
    ),
    _tool(
        "list_items",
        "List `count` items in the given shape: rows (a JSON list), text (one line each), object "
        "(structured, with the items in a list field) or images (one small image block each).",
        {
            "count": {"type": "integer", "minimum": 0, "maximum": 5000},
            "shape": {"type": "string", "enum": ["rows", "text", "object", "images"]},
        },
        ["count", "shape"],
        annotations=READ,
    ),
    _tool(
        "import_note",
        "Import a note under the caller's idempotency_key: the same key imports once.",
        {"title": {"type": "string"}, "idempotency_key": {"type": "string", "minLength": 8}},
        ["title", "idempotency_key"],
        annotations=WRITE,
    ),
    _tool(
        "archive_note",
        "Archive a note in two steps of the server's own: dry_run (default true) answers a "
        "confirm_token; the call with dry_run false and that token archives it.",
        {
            "note_id": {"type": "string"},
            "dry_run": {"type": "boolean", "default": True},
            "confirm_token": {"type": "string"},
        },
        ["note_id"],
        annotations=types.ToolAnnotations(destructive_hint=False, idempotent_hint=True),
    ),
    _tool(
        "refuse_rpc",
        "Refuse the call with a JSON-RPC invalid-params error.",
        {},
        [],
        annotations=READ,
    ),
]


def _log(name: str, arguments: dict[str, Any]) -> None:
    path = os.environ.get("UPSTREAM_LOG")
    if path:
        with open(path, "a", encoding="utf-8") as log:
            log.write(json.dumps({"tool": name, "arguments": arguments}) + "\n")


def _text(text: str, error: bool = False) -> types.CallToolResult:
    return types.CallToolResult(content=[types.TextContent(type="text", text=text)], is_error=error)


PIXEL = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=="


def items(count: int, shape: str) -> types.CallToolResult:
    """`count` items, each a few dozen characters, in one of four shapes."""
    rows = [
        {"item_id": f"i{k}", "title": f"Item number {k}", "score": k * 1.5} for k in range(count)
    ]
    if shape == "rows":
        return _text(json.dumps(rows))
    if shape == "text":
        return _text("".join(f"line {k}: the item called Item number {k}\n" for k in range(count)))
    if shape == "object":
        structured = {"total": count, "items": rows, "tags": [], "source": "notes"}
        return types.CallToolResult(
            content=[types.TextContent(type="text", text=json.dumps(structured))],
            structured_content=structured,
        )
    images: list[Any] = [
        types.ImageContent(type="image", data=PIXEL, mime_type="image/png") for _ in range(count)
    ]
    return types.CallToolResult(content=[types.TextContent(type="text", text="images"), *images])


async def list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
    return types.ListToolsResult(tools=TOOLS)


async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
    args = dict(params.arguments or {})
    name = params.name
    _log(name, args)
    if name == "create_note":
        note_id = f"n{len(NOTES) + 1}"
        NOTES[note_id] = {"note_id": note_id, **args}
        return _text(json.dumps(NOTES[note_id]))
    if name == "delete_note":
        if args.get("note_id") not in NOTES:
            return _text(f"Error: Note not found: {args.get('note_id')}", error=True)
        NOTES.pop(args["note_id"])
        return _text("deleted")
    if name == "list_notes":
        return _text(json.dumps(list(NOTES.values())))
    if name == "open_note":
        note = NOTES.get(str(args.get("note_id")))
        return _text(
            json.dumps(note) if note else f"Error: no note has the id {args.get('note_id')}"
        )
    if name == "ping":
        return _text("pong")
    if name == "import_note":
        key = str(args["idempotency_key"])
        if key not in IMPORTED:
            IMPORTED[key] = f"n{len(NOTES) + 1}"
            NOTES[IMPORTED[key]] = {"note_id": IMPORTED[key], "title": args["title"]}
        return _text(json.dumps(NOTES[IMPORTED[key]]))
    if name == "archive_note":
        note_id = str(args["note_id"])
        token = f"up-{note_id}-{len(NOTES)}"
        if args.get("dry_run", True):
            call = {"note_id": note_id, "dry_run": False, "confirm_token": token}
            return types.CallToolResult(
                content=[types.TextContent(type="text", text=f"would archive {note_id}")],
                structured_content={"would_archive": note_id, "next_call": {"arguments": call}},
            )
        if args.get("confirm_token") != token:
            return _text("confirm_token is not the one the dry run issued", error=True)
        return _text(f"archived {note_id}")
    if name == "list_items":
        return items(int(args["count"]), str(args["shape"]))
    if name == "set_age":
        if args.get("age", 0) >= 150:
            return _text(
                "1 validation error for set_age\nage\n  Input should be less than 150 "
                "[type=less_than, input_value=200, input_type=int]",
                error=True,
            )
        return _text("set")
    if name == "crash_now":
        os._exit(3)
    if name == "hang_for":
        await anyio.sleep(float(args.get("seconds", 0)))
        return _text("awake")
    if name == "print_logs":
        for i in range(3):
            sys.stdout.write(f"[log] step {i} at {time.time():.0f}\n")
        sys.stdout.flush()
        return _text("done")
    if name == "fail_inside":
        return _text(
            'Traceback (most recent call last):\n  File "/srv/app/notes.py", line 12, in go\n'
            "    db.execute('SELECT * FROM secret_table')\nsqlite3.OperationalError: no table",
            error=True,
        )
    if name == "refuse_rpc":
        raise MCPError(code=types.INVALID_PARAMS, message="Invalid arguments: expected nothing")
    return _text(f"Unknown tool {name}", error=True)


RESOURCES = [
    types.Resource(
        uri="notes://all",
        name="all-notes",
        title="All notes",
        description="Every note as JSON.",
        mime_type="application/json",
    ),
    types.Resource(uri="notes://pair", name="pair", description="Two bodies in one read."),
    types.Resource(uri="notes://broken", name="broken", description="Fails with a trace."),
]
TEMPLATES = [
    types.ResourceTemplate(
        uri_template="notes://note/{note_id}", name="note", description="One note by its id."
    ),
    types.ResourceTemplate(uri_template="files:///{+path}", name="file", description="A file."),
]
PROMPTS = [
    types.Prompt(
        name="summarize_note",
        description="Summarize one note for the user.",
        arguments=[types.PromptArgument(name="note_id", description="Its id", required=True)],
    ),
    types.Prompt(name="broken_prompt", description="Fails inside the server."),
]


async def list_resources(ctx: Any, params: Any) -> types.ListResourcesResult:
    return types.ListResourcesResult(resources=RESOURCES)


async def list_templates(ctx: Any, params: Any) -> types.ListResourceTemplatesResult:
    return types.ListResourceTemplatesResult(resource_templates=TEMPLATES)


async def read_resource(ctx: Any, params: types.ReadResourceRequestParams) -> Any:
    uri = str(params.uri)
    _log("resources/read", {"uri": uri})
    text: Any = None
    if uri == "notes://all":
        text = json.dumps(list(NOTES.values()))
    elif uri.startswith("notes://note/") and uri.removeprefix("notes://note/") in NOTES:
        text = json.dumps(NOTES[uri.removeprefix("notes://note/")])
    elif uri.startswith("files:///"):
        text = f"the file {uri.removeprefix('files:///')}"
    elif uri == "notes://pair":
        return types.ReadResourceResult(
            contents=[
                types.TextResourceContents(
                    uri="notes://pair/a", text="first", mime_type="text/plain"
                ),
                types.BlobResourceContents(uri="notes://pair/b", blob=PIXEL, mime_type="image/png"),
            ]
        )
    elif uri == "notes://broken":
        raise MCPError(
            code=types.INTERNAL_ERROR,
            message='Traceback (most recent call last):\n  File "/srv/app/res.py", line 3',
        )
    if text is None:
        raise MCPError(code=-32002, message=f"Resource not found: {uri}")
    return types.ReadResourceResult(
        contents=[types.TextResourceContents(uri=uri, text=text, mime_type="application/json")]
    )


async def list_prompts(ctx: Any, params: Any) -> types.ListPromptsResult:
    return types.ListPromptsResult(prompts=PROMPTS)


async def get_prompt(ctx: Any, params: types.GetPromptRequestParams) -> types.GetPromptResult:
    _log("prompts/get", {"name": params.name, **(params.arguments or {})})
    if params.name == "summarize_note":
        note_id = (params.arguments or {}).get("note_id", "")
        return types.GetPromptResult(
            description="Summarize one note.",
            messages=[
                types.PromptMessage(
                    role="user",
                    content=types.TextContent(type="text", text=f"Summarize note {note_id}."),
                ),
                types.PromptMessage(
                    role="assistant", content=types.TextContent(type="text", text="Reading it.")
                ),
            ],
        )
    raise MCPError(code=types.INTERNAL_ERROR, message="KeyError at /srv/app/prompts.py line 9")


server = Server(
    "notes-upstream",
    version="1.0.0",
    on_list_tools=list_tools,
    on_call_tool=call_tool,
    on_list_resources=list_resources,
    on_list_resource_templates=list_templates,
    on_read_resource=read_resource,
    on_list_prompts=list_prompts,
    on_get_prompt=get_prompt,
)


async def main() -> None:
    if os.environ.get("UPSTREAM_NOISY"):
        sys.stdout.write("notes-upstream starting\n")
        sys.stdout.flush()
    async with stdio_server() as (read, write):
        await server.run(read, write, server.create_initialization_options())


if __name__ == "__main__":
    anyio.run(main)
