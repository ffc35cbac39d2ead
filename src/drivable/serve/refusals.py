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

from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS, MODERN_PROTOCOL_VERSIONS

from drivable.contract.codes import TRANSPORT_REFUSALS
from drivable.contract.envelope import Envelope, rpc_data

PARSE_ERROR = -32700
INVALID_REQUEST = -32600
METHOD_NOT_FOUND = -32601
INVALID_PARAMS = -32602
HEADER_MISMATCH = -32020
UNSUPPORTED_PROTOCOL_VERSION = -32022
SUPPORTED_VERSIONS = (*HANDSHAKE_PROTOCOL_VERSIONS, *MODERN_PROTOCOL_VERSIONS)
ACCEPT = "application/json, text/event-stream"

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
}
_SAFE_WORDS = ("content-type", "accept", "host", "origin", "session", "method not allowed")


@dataclass(frozen=True)
class Refusal:
    rpc_code: int
    message: str
    hint: str
    request_id: Any = None


def error_data(
    message: str,
    hint: str,
    extra: Mapping[str, Any] | None = None,
    *,
    code: str = "invalid_request",
    retry_after_ms: int | None = None,
) -> dict[str, Any]:
    """A transport's envelope as JSON-RPC `error.data` carries it (`rpc_data`), after `extra`.

    A refusal before any tool ran has no contract to finish it: its request id is its own.
    """
    envelope = Envelope(
        code,
        message,
        hint=hint,
        temporary=retry_after_ms is not None,
        retry_after_ms=retry_after_ms,
        request_id=uuid.uuid4().hex[:16],
    )
    return {**dict(extra or {}), **rpc_data(envelope)}


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


def structured_error(error: Mapping[str, Any], status: int | None = None) -> dict[str, Any]:
    """A JSON-RPC error object made structured: the envelope in `data`, no quoted input.

    An error that already carries the envelope (drivable's own) is returned unchanged. The hint
    comes from what the failure was about (`refusal_of`: the HTTP status, the JSON-RPC code, the
    header the transport's message names), else from the JSON-RPC code.
    """
    data = error.get("data")
    if isinstance(data, Mapping) and "machine_code" in data:
        return dict(error)
    code = error.get("code")
    rpc_code = code if isinstance(code, int) and not isinstance(code, bool) else -32603
    raw = str(error.get("message", ""))
    message = _clean(raw, rpc_code)
    extra = dict(data) if isinstance(data, Mapping) else {}
    if rpc_code == -32603 or not (-32768 <= rpc_code <= -32000):
        # An invalid code (a driver's, say) or an internal error the SDK built from an exception:
        # nothing of it goes out.
        rpc_code, message = -32603, "The server failed unexpectedly before any handler ran."
        hint = "Send the request once more; if it fails again, tell the user."
        out = error_data(message, hint, code="internal_error", retry_after_ms=1000)
        return {"code": rpc_code, "message": message, "data": out}
    refusal = refusal_of(status, rpc_code, raw)
    if refusal is not None:
        hint = transport_hint(refusal, header=_header_named(raw))
    else:
        hint = _HINTS.get(
            rpc_code, "Check the request against the MCP specification and resend it."
        )
    return {"code": rpc_code, "message": message, "data": error_data(message, hint, extra)}


# Transport refusals (`drivable.contract.codes.TRANSPORT_REFUSALS`): each hint names what the
# refusal is about; none repeats what the caller sent.
ROUTING_HEADERS = {
    "mcp-method": ("Mcp-Method", "the body's method"),
    "mcp-name": ("Mcp-Name", "the body's params.name (params.uri for a resource)"),
    "mcp-protocol-version": (
        "MCP-Protocol-Version",
        "params._meta's io.modelcontextprotocol/protocolVersion",
    ),
}


def transport_hint(
    refusal: str, *, path: str = "/mcp", sessions: bool = False, header: str | None = None
) -> str:
    """The hint of a transport refusal, naming what it is about (`TRANSPORT_REFUSALS[...].about`)."""
    if refusal == "unknown_path":
        return (
            f"Send MCP requests to the path {path} of this server; no other path serves anything."
        )
    if refusal == "method_not_allowed":
        answered = (
            "GET opens a session's event stream and DELETE ends the session"
            if sessions
            else "this server keeps no sessions, so GET and DELETE have nothing to act on"
        )
        return f"Use the HTTP method POST to send a JSON-RPC request to {path} ({answered})."
    if refusal == "not_acceptable":
        return (
            f"Send the header Accept: {ACCEPT} (a POST's answer comes as JSON or as an event "
            "stream; a GET stream needs text/event-stream)."
        )
    if refusal == "unsupported_media_type":
        return "Send the body as JSON with the header Content-Type: application/json."
    if refusal == "unsupported_protocol_version":
        return (
            "Send the header MCP-Protocol-Version with a version this server speaks ("
            + ", ".join(SUPPORTED_VERSIONS)
            + "; error.data.supported lists them), or leave it out and start with initialize."
        )
    if refusal == "routing_header_mismatch":
        name, source = ROUTING_HEADERS.get(header or "", ("", ""))
        if not name:
            return (
                "Send each routing header once and equal to the body: the header Mcp-Method as "
                "its method, Mcp-Name as its params.name, MCP-Protocol-Version as params._meta's "
                "io.modelcontextprotocol/protocolVersion."
            )
        return f"Send the header {name} once, equal to {source} (routing headers repeat the body)."
    if refusal == "unknown_session":
        return (
            "Start a new session: initialize without the Mcp-Session-Id header, then send the "
            "Mcp-Session-Id header its answer gives."
        )
    if refusal == "session_required":
        return (
            "Send the Mcp-Session-Id header the initialize answer gave, or start a session with "
            "initialize."
        )
    if refusal == "misdirected_host":
        return (
            "Connect through the address the server is bound to, so that the Host header names "
            "it (not another name)."
        )
    if refusal == "forbidden_origin":
        return (
            "Connect from an origin the server allows: send no cross-site Origin header (the "
            "server's operator lists the allowed ones)."
        )
    if refusal == "not_json":
        return "Send the body as " + JSON_HINT[len("Send ") :]
    if refusal == "not_one_request":
        return "Send as the body " + SHAPE_HINT[len("Send ") :]
    raise KeyError(f"no hint for transport refusal {refusal!r}")


def refusal_of(status: int | None, rpc_code: int, message: str) -> str | None:
    """Which transport refusal an answer of the SDK's is, from its status, code and words."""
    lowered = message.lower()
    if rpc_code == HEADER_MISMATCH:
        return "routing_header_mismatch"
    if rpc_code == UNSUPPORTED_PROTOCOL_VERSION:
        return "unsupported_protocol_version"
    if status == 404:
        return "unknown_session" if "session" in lowered else "unknown_path"
    if status == 400 and "session" in lowered:
        return "session_required"
    if status == 415 or (status == 400 and "content-type" in lowered):
        return "unsupported_media_type"
    by_status = {
        405: "method_not_allowed",
        406: "not_acceptable",
        421: "misdirected_host",
        403: "forbidden_origin",
    }
    if status in by_status:
        return by_status[status]
    if status == 400 and rpc_code == PARSE_ERROR:
        return "not_json"
    if status == 400 and rpc_code in (INVALID_REQUEST, INVALID_PARAMS):
        # At 400 the transport refused the message before any method ran: its -32602 is about
        # the message's shape (a handler's own -32602 comes on a 200 answer).
        return "not_one_request"
    return None


def _header_named(message: str) -> str | None:
    """The routing header a transport's message is about (a name from our list, never its text)."""
    lowered = message.lower()
    found = [(lowered.find(h), h) for h in ROUTING_HEADERS if h in lowered]
    return min(found)[1] if found else None


def transport_refusal(
    refusal: str,
    message: str,
    hint: str,
    *,
    rpc_code: int = INVALID_REQUEST,
    extra: Mapping[str, Any] | None = None,
    retry_after_ms: int | None = None,
) -> dict[str, Any]:
    """The JSON-RPC error message of a transport refusal, the envelope's code from the registry."""
    code = TRANSPORT_REFUSALS[refusal].code
    data = error_data(message, hint, extra, code=code, retry_after_ms=retry_after_ms)
    return {
        "jsonrpc": "2.0",
        "id": None,
        "error": {"code": rpc_code, "message": message, "data": data},
    }


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
    message = message or f"The transport refused the request (HTTP {status})."
    refusal = refusal_of(status, INVALID_REQUEST, text)
    if refusal is None or refusal == "not_one_request":
        hint = "Check the request against the MCP specification."
        return {
            "jsonrpc": "2.0",
            "id": None,
            "error": {
                "code": INVALID_REQUEST,
                "message": message,
                "data": error_data(message, hint),
            },
        }
    return transport_refusal(refusal, message, transport_hint(refusal))
