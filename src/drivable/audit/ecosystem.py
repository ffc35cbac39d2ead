"""Which framework a server is written with, and how a fix is spelled there.

Detected from what the audit can see: the command (`node`, `npx`, a `.js` entry; `python -m
drivable...`; a script that imports `fastmcp`), the serverInfo and the package folders the command
runs from. A remediation names the generic fix; `adapt` adds how to write it in the server's own
framework, so a TypeScript server is not told to configure pydantic.
"""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path
from typing import Any, Literal

from drivable.audit.model import Finding

Ecosystem = Literal["drivable", "fastmcp", "python-sdk", "typescript", "unknown"]

FIXES: dict[str, dict[str, str]] = {
    "3.closed-schemas": {
        "drivable": "drivable closes every input schema it derives; a hand-written schema "
        "needs `additionalProperties: false`.",
        "fastmcp": "FastMCP/pydantic: take a model argument with "
        '`model_config = ConfigDict(extra="forbid")`.',
        "python-sdk": "Python SDK: write `additionalProperties: false` into the Tool's "
        'inputSchema, or derive it from a pydantic model with `extra="forbid"`.',
        "typescript": "TypeScript/zod: declare the input with `z.object({...}).strict()` "
        "(zod 3) or `z.strictObject({...})` (zod 4).",
    },
    "3.output-schema": {
        "drivable": "Return an `Output` model from the handler: drivable publishes its schema.",
        "fastmcp": "FastMCP: annotate the tool's return type with a pydantic model or "
        "TypedDict; FastMCP derives outputSchema and structuredContent from it.",
        "python-sdk": "Python SDK: set `outputSchema` on the Tool and return "
        "`structuredContent` beside the text block.",
        "typescript": "TypeScript: pass `outputSchema` (a zod shape) to `registerTool` and "
        "return `structuredContent`.",
    },
    "6.symbolic-codes": {
        "drivable": "Raise the tool's declared error codes: drivable writes the envelope.",
        "fastmcp": "FastMCP: raise `ToolError(json.dumps({...envelope}))`, so the envelope is "
        "the text block of an isError result.",
        "python-sdk": "Python SDK: return `CallToolResult(isError=True, "
        "content=[TextContent(type='text', text=json.dumps(envelope))])`.",
        "typescript": "TypeScript: return `{isError: true, content: [{type: 'text', text: "
        "JSON.stringify(envelope)}]}` without structuredContent.",
    },
    "6.tool-errors": {
        "fastmcp": "FastMCP: raise `ToolError` (an isError result), never return error text.",
        "python-sdk": "Python SDK: return `CallToolResult(isError=True, ...)` instead of raising "
        "McpError or returning error text.",
        "typescript": "TypeScript: return `{isError: true, content: [...]}` instead of throwing "
        "McpError or returning error text.",
    },
    "3.declare-effects": {
        "drivable": "drivable sets every hint from the tool's declared effect.",
        "fastmcp": "FastMCP: `@mcp.tool(annotations={'readOnlyHint': True, ...})`.",
        "python-sdk": "Python SDK: `Tool(..., annotations=ToolAnnotations(read_only_hint=...))`.",
        "typescript": "TypeScript: `registerTool(name, {annotations: {readOnlyHint: true, ...}})`.",
    },
}
_IMPORTS_FASTMCP = re.compile(r"^\s*(from|import)\s+(fastmcp|mcp\.server\.fastmcp)\b", re.M)


def detect(target: dict[str, Any]) -> Ecosystem:
    command = [str(c) for c in target.get("command") or []]
    joined = " ".join(command).lower()
    server = (target.get("surface") or {}).get("server") or {}
    if "drivable" in joined or str(server.get("name", "")).startswith("drivable"):
        return "drivable"
    if command and (
        Path(command[0]).name in ("node", "npx", "bun", "deno", "tsx")
        or re.search(r"\.(m?js|ts)$", command[-1])
        or "node_modules" in joined
    ):
        return "typescript"
    if "fastmcp" in joined:
        return "fastmcp"
    for part in command[1:]:
        if part.endswith(".py"):
            try:
                if _IMPORTS_FASTMCP.search(Path(part).read_text(encoding="utf-8")[:20_000]):
                    return "fastmcp"
            except OSError:
                pass
    if command and (
        "python" in Path(command[0]).name or "site-packages" in joined or "/bin/" in command[0]
    ):
        return "python-sdk"
    return "unknown"


_PYDANTIC_ASIDE = re.compile(r"\s*\(pydantic:[^)]*\)")


def adapt(findings: list[Finding], ecosystem: Ecosystem) -> list[Finding]:
    """The same findings, each remediation completed with its spelling in `ecosystem`."""
    out = []
    for f in findings:
        fix = FIXES.get(f.rule, {}).get(ecosystem)
        text = f.remediation
        if ecosystem not in ("python-sdk", "fastmcp", "unknown"):
            text = _PYDANTIC_ASIDE.sub("", text)
        if fix:
            text = f"{text.rstrip()} {fix}"
        out.append(replace(f, remediation=text) if text != f.remediation else f)
    return out
