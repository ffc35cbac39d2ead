"""Telemetry canary: argument values never reach a span, a metric or a log record.

An in-memory OpenTelemetry SDK (spans and metrics) and captured logging watch calls whose every
argument carries a canary string, valid and rejected ones alike; tool names and codes must show.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from typing import Any

import anyio
import pytest
from opentelemetry import metrics, trace
from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.metrics.export import InMemoryMetricReader
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from drivable.testing import connect
from tests.serve import serve_app

CANARY = "CANARY-q7Zx93"
BOUND = 60.0


class Telemetry:
    def __init__(self) -> None:
        self.spans = InMemorySpanExporter()
        self.metrics = InMemoryMetricReader()


@pytest.fixture(scope="module")
def telemetry() -> Iterator[Telemetry]:
    sink = Telemetry()
    tracer_provider = TracerProvider()
    tracer_provider.add_span_processor(SimpleSpanProcessor(sink.spans))
    meter_provider = MeterProvider(metric_readers=[sink.metrics])
    trace.set_tracer_provider(tracer_provider)
    metrics.set_meter_provider(meter_provider)
    if (
        trace.get_tracer_provider() is not tracer_provider
        or metrics.get_meter_provider() is not meter_provider
    ):
        pytest.skip("another test installed OpenTelemetry providers first (they are set once)")
    yield sink


CALLS: list[tuple[str, dict[str, Any]]] = [
    ("search_notes", {"query": CANARY}),  # valid
    ("search_notes", {"query": CANARY, "date_from": CANARY}),  # invalid date
    ("search_notes", {"query": CANARY, "limit": CANARY}),  # invalid number
    ("search_notes", {"query": CANARY, "date_form": CANARY}),  # unknown property
    ("search_notes", {"query": CANARY * 25_000}),  # too large
    ("get_note", {"note_id": f"note_{CANARY}"}),  # not_found or invalid id
    ("check_failure", {"flag": CANARY}),  # invalid boolean
    ("check_failure", {"flag": True}),  # internal error
    ("search_note", {"query": CANARY}),  # unknown tool
    ("archive_note", {"note_id": CANARY}),  # valid: read leniently as note_<canary>
    ("count_slowly", {"steps": CANARY}),  # invalid integer
]


def _shown(value: object) -> str:
    """An attribute's value as text: bytes decoded, so a value leaked as bytes is found too."""
    return value.decode("utf-8", "replace") if isinstance(value, bytes) else str(value)


def texts_of_spans(exporter: InMemorySpanExporter) -> list[str]:
    out: list[str] = []
    for span in exporter.get_finished_spans():
        out.append(span.name)
        out.extend(f"{k}={_shown(v)}" for k, v in (span.attributes or {}).items())
        for event in span.events:
            out.append(event.name)
            out.extend(f"{k}={_shown(v)}" for k, v in (event.attributes or {}).items())
        if span.status.description:
            out.append(span.status.description)
    return out


def texts_of_metrics(reader: InMemoryMetricReader) -> list[str]:
    out: list[str] = []
    data = reader.get_metrics_data()
    if data is None:
        return out
    for resource in data.resource_metrics:
        for scope in resource.scope_metrics:
            for metric in scope.metrics:
                out.append(metric.name)
                for point in metric.data.data_points:
                    out.extend(f"{k}={_shown(v)}" for k, v in (point.attributes or {}).items())
    return out


@pytest.mark.parametrize("mode", ["legacy", "auto"])
async def test_no_argument_value_reaches_telemetry(
    telemetry: Telemetry, caplog: pytest.LogCaptureFixture, mode: Any
) -> None:
    telemetry.spans.clear()
    caplog.set_level(logging.DEBUG)
    with anyio.fail_after(BOUND):
        async with connect(serve_app.contract, mode=mode) as client:
            outcomes = []
            for tool, arguments in CALLS:
                result = await client.call_tool(tool, arguments)
                outcomes.append(result.is_error)
    assert outcomes == [False, True, True, True, True, True, True, True, True, False, True]

    spans = texts_of_spans(telemetry.spans)
    measured = texts_of_metrics(telemetry.metrics)
    logged = [record.getMessage() for record in caplog.records]
    logged += [str(record.args) for record in caplog.records if record.args]
    logged += [caplog.text]
    for where, texts in (("span", spans), ("metric", measured), ("log", logged)):
        leaks = [t for t in texts if CANARY in t]
        assert not leaks, f"the canary reached a {where}: {leaks[:3]}"

    # What telemetry is for does show: tool names, outcomes, error and issue codes, paths.
    joined = "\n".join(spans)
    for expected in (
        "mcp.tool.name=search_notes",
        "mcp.tool.name=check_failure",
        "mcp.tool.name=search_note",
        "drivable.outcome=ok",
        "drivable.error.code=invalid_arguments",
        "drivable.error.code=payload_too_large",
        "drivable.error.code=internal_error",
        "drivable.error.code=unknown_tool",
        "unknown_property",
        "date_form",
    ):
        assert expected in joined, expected
    counted = "\n".join(measured)
    assert "drivable.tool.calls" in counted
    assert "code=invalid_arguments" in counted
    assert "tool=archive_note" in counted
