"""The error envelope: one shape for every failure, each naming the next step.

`{"code", "message", "hint", "issues": [...], "repair": {...}?, "temporary", "retry_after_ms",
"request_id"}` travels in `structuredContent` of a result with `isError: true`, with a JSON text
mirror in `content` (see DESIGN.md). Handlers raise `ToolError`; the runtime builds the rest.
"""

from __future__ import annotations

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
        return {"next_step": self.next_step, "tool": self.tool, "arguments": dict(self.arguments)}


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
