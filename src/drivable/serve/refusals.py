"""Refusals a transport gives before any handler runs, each with the envelope naming the fix.

The SDK's transports answer some requests themselves (a body that is not JSON, not one JSON-RPC
request, a wrong header, content type or protocol version) with plain text, bare JSON-RPC codes
or pydantic's own message, which quotes the input. Both transports route those answers through
here, so every one is a JSON-RPC error whose `data` is the envelope (`machine_code`,
`human_message`, `hint`), and none repeats anything the caller sent.

`shape_refusal` also refuses what the SDK would silently drop: a request whose `id` is an object,
an array, a fraction, a boolean or null is read by the SDK as a notification and never answered.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

PARSE_ERROR = -32700
INVALID_REQUEST = -32600
METHOD_NOT_FOUND = -32601
INVALID_PARAMS = -32602

SHAPE_HINT = (
    'Send one JSON-RPC 2.0 request object: "jsonrpc": "2.0", a string "method", an "id" '
    'that is a string or an integer, and "params" as an object.'
)
JSON_HINT = (
    "Send one JSON-RPC request as UTF-8 JSON: complete, nested at most a few dozen levels, with "
    "no unpaired surrogate escapes (\\ud800 to \\udfff) in its strings."
)
_HINTS: dict[int, str] = {
    PARSE_ERROR: JSON_HINT,
    INVALID_REQUEST: SHAPE_HINT,
    METHOD_NOT_FOUND: "Call a method the server offers (server/discover or initialize lists them).",
    INVALID_PARAMS: (
        'Send the params the method\'s MCP schema requires (for tools/call: a string "name" '
        'and an object "arguments").'
    ),
    -32020: (
        "Send the routing headers the body implies: mcp-method equal to the body's method, "
        "mcp-name equal to its params.name, and mcp-protocol-version equal to params._meta's "
        "io.modelcontextprotocol/protocolVersion."
    ),
    -32022: (
        "Use a protocol version the server supports (error.data.supported lists them), or "
        "start with initialize to negotiate one."
    ),
}
_STATUS_HINTS: dict[int, str] = {
    400: JSON_HINT,
    404: "Start a new session (initialize without an mcp-session-id header) or drop the header.",
    405: "POST JSON-RPC requests to this endpoint (GET opens the event stream where offered).",
    406: "Send the header Accept: application/json, text/event-stream.",
    415: "Send the body with the header Content-Type: application/json.",
    421: "Connect through the address the server is bound to (its own Host), not another name.",
    403: "Connect from an origin the server allows (no cross-site Origin header).",
}
# What the SDK says in words (plain text bodies): the status says the rest.
_SAFE_WORDS = ("content-type", "accept", "host", "origin", "session", "method not allowed")


@dataclass(frozen=True)
class Refusal:
    rpc_code: int
    message: str
    hint: str
    request_id: Any = None


def error_data(message: str, hint: str, extra: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The envelope in JSON-RPC `error.data` (renamed for the JSON-RPC side, as resources do)."""
    data: dict[str, Any] = dict(extra or {})
    data.update(
        {
            "machine_code": "invalid_request",
            "human_message": message,
            "hint": hint,
            "issues": [],
            "temporary": False,
            "retry_after_ms": None,
            "request_id": uuid.uuid4().hex[:16],
        }
    )
    return data


def error_message(refusal: Refusal) -> dict[str, Any]:
    return {
        "jsonrpc": "2.0",
        "id": refusal.request_id,
        "error": {
            "code": refusal.rpc_code,
            "message": refusal.message,
            "data": error_data(refusal.message, refusal.hint),
        },
    }


def _text(value: str) -> bool:
    """Whether a string is Unicode text an answer can carry (no unpaired surrogate)."""
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _valid_id(value: Any) -> bool:
    if isinstance(value, str):
        return _text(value)
    return isinstance(value, int) and not isinstance(value, bool)


def shape_refusal(message: Any) -> Refusal | None:
    """A refusal for a decoded message the SDK would misread or drop; None when it is fine.

    Only requests and notifications are checked (responses to the server's own requests pass).
    """
    if not isinstance(message, dict):
        return Refusal(INVALID_REQUEST, "The body is not one JSON-RPC message object.", SHAPE_HINT)
    rid = message.get("id")
    answer_to = rid if _valid_id(rid) else None
    if message.get("jsonrpc") != "2.0":
        return Refusal(
            INVALID_REQUEST, 'The message lacks "jsonrpc": "2.0".', SHAPE_HINT, answer_to
        )
    if "method" not in message:
        return None  # a response (or an error) to a request of the server's
    if not isinstance(message["method"], str):
        return Refusal(INVALID_REQUEST, "The method is not a string.", SHAPE_HINT, answer_to)
    if not _text(message["method"]):
        return Refusal(
            INVALID_REQUEST,
            "The method name holds an unpaired surrogate escape, so it names no method.",
            SHAPE_HINT,
            answer_to,
        )
    if "id" in message and not _valid_id(rid):
        return Refusal(
            INVALID_REQUEST,
            "The request id is not a string (of Unicode text) or an integer, so no answer could "
            "name it.",
            SHAPE_HINT,
        )
    params = message.get("params")
    if params is not None and not isinstance(params, dict):
        return Refusal(INVALID_REQUEST, "The params are not an object.", SHAPE_HINT, answer_to)
    return None


def decode(raw: bytes) -> tuple[Any, Refusal | None]:
    """The JSON value of a body or line, or the parse refusal (never raises, at any depth)."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        return None, Refusal(PARSE_ERROR, "The message is not valid UTF-8.", JSON_HINT)
    try:
        return json.loads(text), None
    except RecursionError:
        return None, Refusal(PARSE_ERROR, "The message nests too deeply to be read.", JSON_HINT)
    except ValueError:
        return None, Refusal(PARSE_ERROR, "The message is not valid JSON.", JSON_HINT)


def structured_error(error: Mapping[str, Any]) -> dict[str, Any]:
    """A JSON-RPC error object made structured: the envelope in `data`, no quoted input.

    An error that already carries the envelope (drivable's own) is returned unchanged.
    """
    data = error.get("data")
    if isinstance(data, Mapping) and "machine_code" in data:
        return dict(error)
    code = error.get("code")
    rpc_code = code if isinstance(code, int) and not isinstance(code, bool) else -32603
    message = _clean(str(error.get("message", "")), rpc_code)
    hint = _HINTS.get(rpc_code, "Check the request against the MCP specification and resend it.")
    extra = dict(data) if isinstance(data, Mapping) else {}
    if rpc_code == -32603 or not (-32768 <= rpc_code <= -32000):
        # An invalid code (a driver's, say) or an internal error the SDK built from an exception:
        # nothing of it goes out.
        rpc_code, message = -32603, "The server failed unexpectedly before any handler ran."
        hint = "Send the request once more; if it fails again, tell the user."
        out = error_data(message, hint)
        out["machine_code"] = "internal_error"
        out["temporary"], out["retry_after_ms"] = True, 1000
        return {"code": rpc_code, "message": message, "data": out}
    return {"code": rpc_code, "message": message, "data": error_data(message, hint, extra)}


def _clean(message: str, rpc_code: int) -> str:
    """The SDK's message, unless it quotes input (pydantic's text does): then a plain one."""
    quoting = ("input_value", "validation error", "Validation error", "line 1 column", "[type=")
    if not message or any(q in message for q in quoting) or len(message) > 200:
        return {
            PARSE_ERROR: "The message is not valid JSON for this transport.",
            INVALID_REQUEST: "The message is not a valid JSON-RPC request.",
            INVALID_PARAMS: "The params do not match the method's schema.",
        }.get(rpc_code, "The request was refused by the transport.")
    return message


def status_refusal(status: int, body: bytes) -> dict[str, Any]:
    """The JSON-RPC error (with the envelope) for a non-JSON HTTP refusal of the SDK's."""
    text = body.decode("utf-8", "replace").strip()
    lowered = text.lower()
    message = text if text and len(text) <= 120 and any(w in lowered for w in _SAFE_WORDS) else ""
    hint = _STATUS_HINTS.get(status, "Check the request against the MCP specification.")
    if "content-type" in lowered:
        hint = _STATUS_HINTS[415]
    elif "accept" in lowered:
        hint = _STATUS_HINTS[406]
    message = message or f"The transport refused the request (HTTP {status})."
    return {
        "jsonrpc": "2.0",
        "id": None,
        "error": {"code": INVALID_REQUEST, "message": message, "data": error_data(message, hint)},
    }
