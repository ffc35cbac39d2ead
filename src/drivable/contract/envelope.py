"""The error envelope: one shape for every failure, each naming the next step.

`{"code", "message", "hint", "issues": [...], "repair": {...}?, "temporary", "retry_after_ms",
"request_id"}` travels in a result with `isError: true` as the JSON text of `content[0]` (what a
model reads) and as the object in `_meta["dev.drivable/envelope"]` (what a machine reads). An error
result carries no `structuredContent`: clients that validate structured content against the
tool's outputSchema even on errors (the TypeScript SDK 1.x) would throw instead of passing the
envelope on (docs/runtime.md, "Error results every client accepts"). Handlers raise `ToolError`;
the runtime builds the rest; `envelope_of` reads it back from any result.

The same envelope travels in a JSON-RPC error's `data` (a resource's failure, a transport's
refusal, a task that failed), `code` and `message` renamed `machine_code` and `human_message`
([6.rename]): `rpc_data` is that rendering and the only place that builds it; `from_rpc_data` reads
it back.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Issue:
    """One field at fault: its dotted path, issue code, message, and what was received/expected."""

    path: str
    code: str
    message: str
    received: Any = None
    expected: str | None = None
    readings: Sequence[Any] | None = None
    has_received: bool = False

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"path": self.path, "code": self.code, "message": self.message}
        if self.has_received:
            out["received"] = self.received
        if self.expected:
            out["expected"] = self.expected
        if self.readings:
            out["readings"] = list(self.readings)
        return out


@dataclass(frozen=True)
class Repair:
    """A literally callable next call: a real tool and arguments its schema accepts."""

    tool: str
    arguments: Mapping[str, Any]
    next_step: str

    def to_dict(self) -> dict[str, Any]:
        # the call first, its label last (docs/decisions/0024-how-a-next-step-is-said.md, 1)
        return {"tool": self.tool, "arguments": dict(self.arguments), "next_step": self.next_step}


class ToolError(Exception):
    """A domain failure raised by a handler; becomes the envelope with `isError: true`.

    `code` must be registered (the runtime's codes, or the contract's domain codes). `repair`,
    when given, is checked against the named tool's input schema before it is sent.
    """

    def __init__(
        self,
        code: str,
        message: str,
        *,
        hint: str,
        issues: Sequence[Issue] = (),
        repair: Repair | None = None,
        retry_after_ms: int | None = None,
        details: Mapping[str, Any] | None = None,
    ) -> None:
        super().__init__(code)
        self.code = code
        self.message = message
        self.hint = hint
        self.issues = tuple(issues)
        self.repair = repair
        self.retry_after_ms = retry_after_ms
        self.details = dict(details or {})


@dataclass
class Envelope:
    """The wire form of a failure."""

    code: str
    message: str
    hint: str
    issues: list[Issue] = field(default_factory=list)
    repair: Repair | None = None
    temporary: bool = False
    retry_after_ms: int | None = None
    request_id: str = ""
    details: dict[str, Any] = field(default_factory=dict)
    fingerprint: str | None = None

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "code": self.code,
            "message": self.message,
            "hint": self.hint,
            "issues": [i.to_dict() for i in self.issues],
        }
        if self.repair is not None:
            out["repair"] = self.repair.to_dict()
        out["temporary"] = self.temporary
        out["retry_after_ms"] = self.retry_after_ms if self.temporary else None
        out["request_id"] = self.request_id
        if self.details:
            out["details"] = self.details
        if self.fingerprint:
            out["fingerprint"] = self.fingerprint
        return out


ISSUE_SCHEMA: dict[str, Any] = {
    "type": "object",
    "additionalProperties": False,
    "required": ["path", "code", "message"],
    "properties": {
        "path": {"type": "string"},
        "code": {"type": "string"},
        "message": {"type": "string"},
        "received": {},
        "expected": {"type": "string"},
        "readings": {"type": "array"},
    },
}


def envelope_schema(codes: Sequence[str]) -> dict[str, Any]:
    """The JSON Schema of the envelope (documented beside each tool's error catalog)."""
    return {
        "type": "object",
        "additionalProperties": False,
        "required": [
            "code",
            "message",
            "hint",
            "issues",
            "temporary",
            "retry_after_ms",
            "request_id",
        ],
        "properties": {
            "code": {"type": "string", "enum": sorted(codes)},
            "message": {"type": "string"},
            "hint": {"type": "string"},
            "issues": {"type": "array", "items": ISSUE_SCHEMA},
            "repair": {
                "type": "object",
                "additionalProperties": False,
                "required": ["next_step", "tool", "arguments"],
                "properties": {
                    "next_step": {"type": "string"},
                    "tool": {"type": "string"},
                    "arguments": {"type": "object"},
                },
            },
            "temporary": {"type": "boolean"},
            "retry_after_ms": {"type": ["integer", "null"], "minimum": 0},
            "request_id": {"type": "string"},
            "details": {"type": "object"},
            "fingerprint": {"type": "string"},
        },
    }


# Where an error result carries the envelope object for machines (the text carries it for models).
ENVELOPE_META_KEY = "dev.drivable/envelope"


def envelope_of(result: Any) -> dict[str, Any] | None:
    """The envelope of an error result, or None when `result` is no error or carries none.

    `result` is an SDK `CallToolResult` or its wire dict (camelCase). Read from `_meta`, then from
    structured content (servers built before the envelope left it), then from the JSON text.
    """
    if isinstance(result, Mapping):
        is_error = bool(result.get("isError"))
        meta = result.get("_meta")
        structured = result.get("structuredContent")
        content = result.get("content") or []
        texts = [c.get("text") for c in content if isinstance(c, Mapping)]
    else:
        is_error = bool(getattr(result, "is_error", False))
        meta = getattr(result, "meta", None)
        structured = getattr(result, "structured_content", None)
        texts = [getattr(c, "text", None) for c in getattr(result, "content", None) or []]
    if not is_error:
        return None
    candidates: list[Any] = []
    if isinstance(meta, Mapping):
        candidates.append(meta.get(ENVELOPE_META_KEY))
    candidates.append(structured)
    for text in texts:
        if isinstance(text, str):
            try:
                candidates.append(json.loads(text))
            except ValueError:
                continue
    for found in candidates:
        if _is_envelope(found):
            return dict(found)
    return None


def _is_envelope(value: Any) -> bool:
    return (
        isinstance(value, Mapping)
        and isinstance(value.get("code"), str)
        and isinstance(value.get("message"), str)
    )


def rpc_data(envelope: Envelope | Mapping[str, Any]) -> dict[str, Any]:
    """The envelope as a JSON-RPC error's `data` carries it ([6.rename]): `code` is
    `machine_code`, `message` is `human_message`, every other field as in a tool result."""
    body = envelope.to_dict() if isinstance(envelope, Envelope) else dict(envelope)
    return {"machine_code": body.pop("code"), "human_message": body.pop("message"), **body}


def rpc_error(envelope: Envelope | Mapping[str, Any], rpc_code: int) -> dict[str, Any]:
    """A JSON-RPC `error` object whose `data` is the envelope and whose message is its own."""
    data = rpc_data(envelope)
    return {"code": rpc_code, "message": data["human_message"], "data": data}


def from_rpc_data(data: Any) -> dict[str, Any] | None:
    """The envelope in a JSON-RPC error's `data`, back in the shape a tool result carries it (an
    envelope already in that shape as it is); None when `data` carries none."""
    if not isinstance(data, Mapping):
        return None
    if _is_envelope(data):
        return dict(data)
    if not isinstance(data.get("machine_code"), str):
        return None
    rest = {k: v for k, v in data.items() if k not in ("machine_code", "human_message")}
    return {"code": data["machine_code"], "message": data.get("human_message", ""), **rest}


# A failure reported as a success: what FastMCP and the SDK's MCPServer send for a `-> str` tool
# that returns "Error: ..." (`{"result": "Error: ..."}` beside the same text), or a traceback.
_ERROR_TEXT = re.compile(
    r"^\s*(?:error|exception)\b\s*[:\-]|^\s*traceback \(most recent call last\)", re.I
)


def reads_as_error(texts: Sequence[str], structured: Any = None) -> bool:
    """Whether a result not flagged `isError` reports a failure anyway: every text it carries,
    or the one string of a structured `{"result": ...}`, opens with "Error:" / "Exception:" (or
    "- ") or a Python traceback. A model reads it as the failure it is; so do the eval's scorer and
    the auditor. "Errors: 0" or "error rate 2 %" do not open that way."""
    if isinstance(structured, Mapping) and set(structured) == {"result"}:
        value = structured["result"]
        if isinstance(value, str) and _ERROR_TEXT.match(value):
            return True
    said = [t for t in texts if t.strip()]
    return bool(said) and all(_ERROR_TEXT.match(t) for t in said)
