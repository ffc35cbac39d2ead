"""A stdio MCP server with the defects the auditor used to miss or misjudge (issue 37).

Run: python blindspots.py. Each defect is listed in PLANTED as (rule id, subject); what must not be
asked of it is in the tests (tests/audit/test_audit_agreement.py). Otherwise it is written to be
clean (a summary, output schemas): in the planted corpus (tests/audit/planted_corpus.py) any
other critical or major finding on it counts against precision.
"""

from __future__ import annotations

import json
import re
from typing import Any

import anyio
from mcp import types
from mcp.server import Server
from mcp.server.stdio import stdio_server

PLANTED: list[tuple[str, str]] = [
    # a plain return wrapped as {"result": "Error: ..."}, isError false, for a well-formed id
    # nobody has (a malformed one is refused properly)
    ("6.tool-errors", "tool:get_note"),
    # the same for a bad value: "error: unsupported language" as a success
    ("6.tool-errors", "tool:count_words"),
    ("3.strict-types", "tool:read_events"),  # a date that never says how it is written
    ("3.dialect", "tool:tag_note"),  # draft-07 tuple `items`, no `$schema`: read as 2020-12
    ("3.dialect", "tool:list_notes"),  # declares draft-07
    ("9.list-changed", "server"),  # the catalog grows, `tools.listChanged` is not advertised
]

NOTES = {"n1": "Taxes 2025", "n2": "Garden plan"}
NOTE_ID = re.compile(r"^n\d+$")
CLOSED = {"type": "object", "additionalProperties": False}
WRAPPED = {
    "type": "object",
    "properties": {"result": {"type": "string"}},
    "required": ["result"],
}
READ = types.ToolAnnotations(read_only_hint=True, open_world_hint=False)
INSTRUCTIONS = (
    "Notebook: list and read notes, count words, read a day's events and preview tags. Call "
    "list_notes first. It does not create or delete notes."
)
EVENTS = {
    "type": "object",
    "properties": {"events": {"type": "array", "items": {"type": "object"}}},
    "required": ["events"],
}
TAGGED = {
    "type": "object",
    "properties": {"note_id": {"type": "string"}, "tagged": {"type": "boolean"}},
    "required": ["note_id", "tagged"],
}


def tool(name: str, description: str, props: dict[str, Any], **kw: Any) -> types.Tool:
    schema = {**CLOSED, "properties": props, **kw.pop("schema_extra", {})}
    return types.Tool(
        name=name, description=description, input_schema=schema, annotations=READ, **kw
    )


TOOLS = [
    tool(
        "list_notes",
        "List every note. Use when you need note ids; returns an empty list when there are "
        "none. Example: list_notes().",
        {},
        schema_extra={"$schema": "http://json-schema.org/draft-07/schema#"},
        output_schema={
            "type": "object",
            "properties": {"notes": {"type": "array", "items": {"type": "object"}}},
            "required": ["notes"],
        },
    ),
    tool(
        "get_note",
        "Read one note by id. Use when you have an id from list_notes; says so when none has "
        "it. Example: get_note(note_id='n1').",
        {"note_id": {"type": "string", "description": "Id from list_notes, e.g. n1."}},
        schema_extra={"required": ["note_id"]},
        output_schema=WRAPPED,
    ),
    tool(
        "count_words",
        "Count the words of a text. Use when asked how long a text is; refuses an unknown "
        "language. Example: count_words(text='a b c', language='en').",
        {
            "text": {"type": "string", "description": "The text."},
            "language": {"type": "string", "description": "ISO 639-1 code, e.g. 'en'."},
        },
        schema_extra={"required": ["text", "language"]},
        output_schema=WRAPPED,
    ),
    tool(
        "read_events",
        "Read the events of one day. Use when asked what happens on a day; returns an empty "
        "list if none. Example: read_events(day='2026-01-15').",
        {"day": {"type": "string", "description": "The day to read."}},
        schema_extra={"required": ["day"]},
        output_schema=EVENTS,
    ),
    tool(
        "tag_note",
        "Preview a tag on a note. Use before tagging; refuses an unknown note. Example: "
        "tag_note(note_id='n1').",
        {
            "note_id": {"type": "string", "description": "Id from list_notes, e.g. n1."},
            "pair": {
                "type": "array",
                "items": [{"type": "string"}, {"type": "integer"}],
                "description": "Omit for no tag: a tag name and its weight.",
            },
        },
        schema_extra={"required": ["note_id"]},
        output_schema=TAGGED,
    ),
]
# Listed from the second tools/list on: a toolset that loads late, told to nobody.
LATE = tool(
    "export_notes",
    "Export every note as JSON. Use when asked for a backup; returns an empty list when there "
    "are none. Example: export_notes().",
    {},
    output_schema={
        "type": "object",
        "properties": {"notes": {"type": "array"}},
        "required": ["notes"],
    },
)


def answer(value: Any, *, error: bool = False, structured: Any = None) -> types.CallToolResult:
    body = value if isinstance(value, str) else json.dumps(value)
    return types.CallToolResult(
        content=[types.TextContent(type="text", text=body)],
        structured_content=structured,
        is_error=error,
    )


def refuse(code: str, path: str, message: str) -> types.CallToolResult:
    envelope = {
        "code": code,
        "message": message,
        "hint": "Call list_notes for the ids.",
        "issues": [{"path": path, "code": code}],
    }
    return answer(envelope, error=True)


def wrapped(text: str) -> types.CallToolResult:
    """What FastMCP and the SDK's MCPServer send for a tool annotated `-> str`."""
    return answer(text, structured={"result": text})


listings = 0


async def list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
    global listings
    listings += 1
    return types.ListToolsResult(tools=[*TOOLS, LATE] if listings > 1 else TOOLS)


async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
    args = params.arguments or {}
    name = params.name
    note_id = str(args.get("note_id", ""))
    props: dict[str, Any] = next(
        (t.input_schema["properties"] for t in [*TOOLS, LATE] if t.name == name), {}
    )
    unknown = sorted(set(args) - set(props))
    if unknown:
        return refuse("unknown_property", unknown[0], f"{name} takes no {unknown[0]}.")
    if name == "list_notes":
        rows = [{"note_id": k, "title": v} for k, v in NOTES.items()]
        return answer({"notes": rows}, structured={"notes": rows})
    if name in ("get_note", "tag_note"):
        if not NOTE_ID.match(note_id):
            return refuse("invalid_id", "note_id", "A note id is n and a number, e.g. n1.")
        if name == "tag_note":
            tagged = {"note_id": note_id, "tagged": False}
            return answer(tagged, structured=tagged)
        if note_id not in NOTES:
            return wrapped(f"Error: no note has the id {note_id!r}")  # planted: isError false
        return wrapped(NOTES[note_id])
    if name == "count_words":
        if args.get("language") not in ("en", "de", "cs"):
            return wrapped(f"error: unsupported language {args.get('language')!r}")  # planted
        return wrapped(f"{len(str(args.get('text', '')).split())} words")
    if name == "read_events":
        if not re.fullmatch(r"\d{4}-\d{2}-\d{2}", str(args.get("day", ""))):
            return refuse("invalid_date", "day", "Write the day as YYYY-MM-DD.")
        return answer({"events": []}, structured={"events": []})
    return answer({"notes": []}, structured={"notes": []})


server = Server(
    "notebook",
    version="1.0.0",
    instructions=INSTRUCTIONS,
    on_list_tools=list_tools,
    on_call_tool=call_tool,
)


async def main() -> None:
    async with stdio_server() as (read, write):
        await server.run(read, write, server.create_initialization_options())


if __name__ == "__main__":
    anyio.run(main)
