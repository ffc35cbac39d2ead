"""One probe call as the wire answered it, and the text a model would read from the answer."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Literal

import anyio
from mcp import Client, MCPError
from mcp import types as mt
from pydantic import ValidationError

Outcome = Literal["error-result", "success", "jsonrpc-error", "timeout", "crash", "invalid-result"]
UNKNOWN_PROPERTY = "dv_unknown_property"


@dataclass
class ProbeCall:
    probe: str
    tool: str
    arguments: dict[str, Any]
    outcome: Outcome
    field: str | None = None
    result: dict[str, Any] | None = None
    error: dict[str, Any] | None = None
    # A success whose text reads as an error (isError false): never counted as a success.
    error_as_success: bool = False
    listed: str | None = None  # the listed value a `typo-value` probe misspelled

    @property
    def succeeded(self) -> bool:
        return self.outcome == "success" and not self.error_as_success

    def evidence(self, schema: Any = None) -> dict[str, Any]:
        out: dict[str, Any] = {"probe": self.probe, "sent": trim_sent(self.arguments)}
        if self.result is not None:
            out["answer"] = trim_answer(self.result)
        if self.error is not None:
            out["jsonrpc_error"] = self.error
        if self.outcome in ("timeout", "crash", "invalid-result"):
            out["outcome"] = self.outcome
        if schema is not None:
            out["schema"] = schema
        return out


SENT_CHARS = 200


def trim_sent(arguments: dict[str, Any]) -> dict[str, Any]:
    """What was sent, with a long string (the megabyte key) told by its start and its length."""
    return {
        k: f"{v[:40]}... ({len(v):,} characters)"
        if isinstance(v, str) and len(v) > SENT_CHARS
        else v
        for k, v in arguments.items()
    }


def trim_answer(result: dict[str, Any], limit: int = 600) -> dict[str, Any]:
    out = dict(result)
    content = []
    for block in result.get("content") or []:
        if isinstance(block, dict) and isinstance(block.get("text"), str):
            text = block["text"]
            block = {**block, "text": text if len(text) <= limit else text[:limit] + "..."}
        content.append(block)
    out["content"] = content
    sc = json.dumps(result.get("structuredContent"), default=str)
    if len(sc) > 2 * limit:
        out["structuredContent"] = sc[: 2 * limit] + "..."
    return out


def text_blocks(call: ProbeCall) -> list[str]:
    if call.result is None:
        return []
    return [
        b["text"]
        for b in call.result.get("content") or []
        if isinstance(b, dict) and isinstance(b.get("text"), str)
    ]


def answer_text(call: ProbeCall) -> str:
    parts = text_blocks(call)
    if call.result is not None and call.result.get("structuredContent") is not None:
        parts.append(json.dumps(call.result["structuredContent"], default=str))
    if call.error is not None:
        parts.append(json.dumps(call.error, default=str))
    return "\n".join(parts)


async def call_raw(
    client: Client, name: str, arguments: dict[str, Any], timeout: float
) -> ProbeCall:
    """One tools/call as the wire answered it: no output-schema check by the client, no retries."""
    call = ProbeCall("", name, arguments, "crash")
    session = client.session
    adapter = getattr(session, "_call_tool_adapter", None)
    try:
        with anyio.fail_after(timeout):
            if adapter is not None:
                result: Any = await session.send_request(
                    mt.CallToolRequest(
                        params=mt.CallToolRequestParams(name=name, arguments=arguments)
                    ),
                    adapter,
                )
            else:  # pragma: no cover - SDK internals moved; the public call still works
                result = await client.call_tool(name, arguments)
    except MCPError as exc:
        call.outcome = "jsonrpc-error"
        call.error = {"code": exc.code, "message": exc.message, "data": exc.data}
        return call
    except TimeoutError:
        call.outcome = "timeout"
        return call
    except ValidationError as exc:
        call.outcome = "invalid-result"
        call.error = {"message": f"result does not match the protocol: {exc.error_count()} errors"}
        return call
    except Exception as exc:  # the connection itself failed: evidence, not a crash of the audit
        call.outcome = "crash"
        call.error = {"message": f"{type(exc).__name__}"}
        return call
    if isinstance(result, mt.CallToolResult):
        call.result = result.model_dump(by_alias=True, mode="json", exclude_none=True)
        call.outcome = "error-result" if result.is_error else "success"
    else:
        call.outcome = "success"
        call.result = {"resultType": getattr(result, "result_type", "?")}
    return call
