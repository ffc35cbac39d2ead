"""A real MCP server (the SDK's low-level `Server`, stdio) whose whole surface comes from a JSON file.

`python spec_server.py SPEC.json`, or the file named by `SURFACE_SPEC`. The spec holds wire dicts:
`{"name", "version", "instructions", "tools", "resources", "resource_templates", "prompts",
"discover_meta", "summary", "subscribe", "completions", "publish_fingerprint"}`. `summary` is served as
the JSON body of the resource whose uri is `summary_uri` (default `surface://capabilities`).
With `publish_fingerprint`, the server computes its own fingerprint with
`drivable.surface.fingerprint.of_collected` (as the runtime will) and publishes it in discover `_meta`,
in the summary's `server.fingerprint` and in every tool's `_meta`.
"""

from __future__ import annotations

import json
import os
import sys
from typing import Any

import anyio
import mcp_types as types
from mcp.server import Server
from mcp.server.stdio import stdio_server

NS = "dev.drivable.test"


def build(spec: dict[str, Any]) -> Server[Any]:
    summary_uri = spec.get("summary_uri", "surface://capabilities")
    tools = [dict(t) for t in spec.get("tools", [])]
    resources = [dict(r) for r in spec.get("resources", [])]
    summary = spec.get("summary")
    if summary is not None and not any(r["uri"] == summary_uri for r in resources):
        resources.append(
            {"uri": summary_uri, "name": "capability-summary", "mimeType": "application/json"}
        )
    templates = spec.get("resource_templates", [])
    prompts = spec.get("prompts", [])
    discover_meta = dict(spec.get("discover_meta") or {})

    async def list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
        if spec.get("fail_tools"):
            raise RuntimeError("tools/list is broken on purpose")
        return types.ListToolsResult(tools=[types.Tool.model_validate(t) for t in tools])

    async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        return types.CallToolResult(content=[types.TextContent(type="text", text="ok")])

    async def list_resources(ctx: Any, params: Any) -> types.ListResourcesResult:
        return types.ListResourcesResult(
            resources=[types.Resource.model_validate(r) for r in resources]
        )

    async def list_templates(ctx: Any, params: Any) -> types.ListResourceTemplatesResult:
        return types.ListResourceTemplatesResult(
            resource_templates=[types.ResourceTemplate.model_validate(r) for r in templates]
        )

    async def read_resource(
        ctx: Any, params: types.ReadResourceRequestParams
    ) -> types.ReadResourceResult:
        body = json.dumps(summary) if str(params.uri) == summary_uri else "{}"
        return types.ReadResourceResult(
            contents=[
                types.TextResourceContents(
                    uri=str(params.uri), mime_type="application/json", text=body
                )
            ]
        )

    async def list_prompts(ctx: Any, params: Any) -> types.ListPromptsResult:
        return types.ListPromptsResult(prompts=[types.Prompt.model_validate(p) for p in prompts])

    async def get_prompt(ctx: Any, params: types.GetPromptRequestParams) -> types.GetPromptResult:
        return types.GetPromptResult(messages=[])

    async def subscribe(ctx: Any, params: Any) -> types.EmptyResult:
        return types.EmptyResult()

    async def complete(ctx: Any, params: Any) -> types.CompleteResult:
        return types.CompleteResult(completion=types.Completion(values=[]))

    handlers: dict[str, Any] = {"on_list_tools": list_tools, "on_call_tool": call_tool}
    if resources or templates:
        handlers.update(
            on_list_resources=list_resources,
            on_list_resource_templates=list_templates,
            on_read_resource=read_resource,
        )
        if spec.get("subscribe"):
            handlers["on_subscribe_resource"] = subscribe
    if prompts:
        handlers.update(on_list_prompts=list_prompts, on_get_prompt=get_prompt)
    if spec.get("completions"):
        handlers["on_completion"] = complete
    server: Server[Any] = Server(
        spec.get("name", "spec"),
        version=spec.get("version", "1.0.0"),
        instructions=spec.get("instructions"),
        **handlers,
    )

    if spec.get("publish_fingerprint"):
        from drivable.surface.fingerprint import of_collected
        from drivable.target import wire

        own = {
            "server": {"name": server.name, "version": spec.get("version", "1.0.0")},
            "capabilities": wire(server.get_capabilities()),
            "instructions": spec.get("instructions"),
            "discover": {"_meta": discover_meta},
            "tools": tools,
            "resources": resources,
            "resource_templates": templates,
            "prompts": prompts,
            "capability_summary": summary,
        }
        value = of_collected(own).value
        discover_meta[f"{NS}/fingerprint"] = value
        for tool in tools:
            tool.setdefault("_meta", {})[f"{NS}/fingerprint"] = value
        if isinstance(summary, dict):
            summary.setdefault("server", {})["fingerprint"] = value

    async def discover(ctx: Any, params: Any) -> types.DiscoverResult:
        result = await server._handle_discover(ctx, params)
        if discover_meta:
            result.meta = {**(result.meta or {}), **discover_meta}
        return result

    server.add_request_handler("server/discover", types.RequestParams, discover)
    return server


async def main() -> None:
    path = sys.argv[1] if len(sys.argv) > 1 else os.environ["SURFACE_SPEC"]
    with open(path, encoding="utf-8") as fh:
        spec = json.load(fh)
    server = build(spec)
    async with stdio_server() as (read, write):
        await server.run(read, write, server.create_initialization_options())


if __name__ == "__main__":
    anyio.run(main)
