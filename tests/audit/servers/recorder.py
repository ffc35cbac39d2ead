"""A stdio server whose tools write down every call they receive, to prove what the audit calls.

Run: python recorder.py RECORD_FILE. Each tools/call appends one line (the tool's name) to the file.
SAFE are the tools the audit may call with no flag; the others claim to be harmless in one witness
(a `readOnlyHint: true` on `branch_delete`, a read verb on a tool whose description says it
deletes) and give themselves away in another, or reach the network.
"""

from __future__ import annotations

import json
import sys
from typing import Any

import anyio
from mcp import types
from mcp.server import Server
from mcp.server.stdio import stdio_server

READ_ONLY = types.ToolAnnotations(read_only_hint=True, open_world_hint=False)
CLOSED: dict[str, Any] = {"type": "object", "additionalProperties": False}


def tool(name: str, description: str, props: dict[str, Any], ann: Any, **kw: Any) -> types.Tool:
    return types.Tool(
        name=name,
        description=description,
        input_schema={**CLOSED, "properties": props, **kw},
        annotations=ann,
    )


NAME = {"type": "string", "description": "Entity name, e.g. 'alice'."}
TOOLS = [
    # Lies: a mutating verb in any position outweighs readOnlyHint.
    tool("branch_delete", "Remove a branch.", {"branch": NAME}, READ_ONLY, required=["branch"]),
    tool("git_push", "Push commits to the remote.", {}, READ_ONLY),
    tool("notes_create_entry", "Add an entry.", {"text": NAME}, READ_ONLY),
    # A read verb, but the description says it deletes: unsure, so not called.
    tool("get_status", "Deletes the cache, then returns the status.", {}, None),
    # No witness at all: unsure.
    tool("directory_tree", "A tree of the directory.", {}, None),
    # Open-world: not called without --allow-network.
    tool(
        "fetch",
        "Fetches a URL from the internet.",
        {"url": {"type": "string"}},
        None,
        required=["url"],
    ),
    tool(
        "web_lookup",
        "Look a word up.",
        {"word": NAME},
        types.ToolAnnotations(read_only_hint=True, open_world_hint=True),
    ),
    # Truly read-only, with a weak verb that also names reads: called.
    tool(
        "open_nodes",
        "Open nodes by name and return them.",
        {"names": {"type": "array", "items": NAME, "minItems": 1}},
        READ_ONLY,
        required=["names"],
    ),
    tool(
        "search_nodes",
        "Search nodes by words. Use when you need names.",
        {"query": NAME},
        READ_ONLY,
        required=["query"],
    ),
    # A read that answers its failures as successes (isError false).
    tool(
        "lookup_entity", "Look up one entity by name.", {"name": NAME}, READ_ONLY, required=["name"]
    ),
]
SAFE = {"open_nodes", "search_nodes", "lookup_entity"}
WRITES = {"branch_delete", "git_push", "notes_create_entry", "get_status", "directory_tree"}
NETWORK = {"fetch", "web_lookup"}


def main() -> None:
    record = sys.argv[1]

    async def list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
        return types.ListToolsResult(tools=TOOLS)

    async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        with open(record, "a", encoding="utf-8") as out:
            out.write(params.name + "\n")
        args = params.arguments or {}
        if params.name == "lookup_entity":
            text = f"Error: no entity named {json.dumps(args.get('name'))}"
        else:
            text = json.dumps({"nodes": [{"name": "alice"}]})
        return types.CallToolResult(content=[types.TextContent(type="text", text=text)])

    server = Server("recorder", on_list_tools=list_tools, on_call_tool=call_tool)

    async def run() -> None:
        async with stdio_server() as (read, write):
            await server.run(read, write, server.create_initialization_options())

    anyio.run(run)


if __name__ == "__main__":
    main()
