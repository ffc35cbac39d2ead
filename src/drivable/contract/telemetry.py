"""Telemetry through the OpenTelemetry API: a span and counters per call.

What is recorded: the tool name, the outcome, the error code, and the issue codes and paths of a
rejection. Never an argument value: arguments carry matter content and personal data.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import Any

from opentelemetry import metrics, trace

_tracer = trace.get_tracer("drivable")
_meter = metrics.get_meter("drivable")
_calls = _meter.create_counter("drivable.tool.calls", description="Tool calls by tool and outcome")
_rejections = _meter.create_counter(
    "drivable.tool.rejections", description="Rejected tool calls by tool and error code"
)


@contextmanager
def call_span(tool: str) -> Iterator[trace.Span]:
    with _tracer.start_as_current_span(
        "drivable.tool.call", attributes={"mcp.tool.name": tool}
    ) as span:
        yield span


def record_success(span: trace.Span, tool: str) -> None:
    span.set_attribute("drivable.outcome", "ok")
    _calls.add(1, {"tool": tool, "outcome": "ok"})


def record_rejection(span: trace.Span, tool: str, envelope: Mapping[str, Any]) -> None:
    code = str(envelope.get("code", ""))
    issues = envelope.get("issues") or []
    span.set_attribute("drivable.outcome", "error")
    span.set_attribute("drivable.error.code", code)
    span.set_attribute("drivable.issue.codes", [str(i.get("code", "")) for i in issues])
    span.set_attribute("drivable.issue.paths", [str(i.get("path", "")) for i in issues])
    _calls.add(1, {"tool": tool, "outcome": "error"})
    _rejections.add(1, {"tool": tool, "code": code})
