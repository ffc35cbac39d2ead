"""Secrets and payloads never logged: a canary in every argument of every fuzzed call must not
appear in a log record, a span or a metric.

The calls run in this process (the SDK client on an in-process server), so an in-memory
OpenTelemetry SDK (spans and metrics) and a root logging handler at DEBUG see everything the
runtime records. OpenTelemetry providers are set once per process: run this in a fresh process
(`drivable reliability canary`), as the tests do.
"""

from __future__ import annotations

import logging
import traceback
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from drivable.contract import Contract
from drivable.reliability.fuzz import FuzzReport, fuzz
from drivable.target import Target, connect

CANARY = "CANARY-7f3Kq9zW"


@dataclass
class CanaryReport:
    canary: str
    calls: int = 0
    log_records: int = 0
    spans: int = 0
    metric_points: int = 0
    in_logs: int = 0
    in_spans: int = 0
    in_metrics: int = 0
    bare_errors: int = 0
    telemetry_checked: bool = True
    servers: list[dict[str, Any]] = field(default_factory=list)
    excerpts: list[str] = field(default_factory=list)

    @property
    def passed(self) -> bool:
        clean = self.in_logs == self.in_spans == self.in_metrics == self.bare_errors == 0
        return self.telemetry_checked and clean

    def to_dict(self) -> dict[str, Any]:
        out = dict(self.__dict__)
        out["passed"] = self.passed
        return out


# What follows the canary in a string: the classes that once reached logs through the error
# builder and pydantic's own messages (NUL, lone surrogates of both halves).
SUFFIXES = ("", "\x00", "\ud800", "x\udfff", "\x00\ud800")


def hostile_calls(contract: Contract, canary: str) -> list[tuple[str, dict[str, Any]]]:
    """Calls that take every error path with the canary aboard: each string property alone with
    each suffix (the others missing), a wrong type, an unknown property, an integer past 64 bits,
    nesting past the bound, a value over the inline size, an unknown tool."""
    calls: list[tuple[str, dict[str, Any]]] = []
    for name, spec in sorted(contract.tools.items()):
        properties = spec.input_schema.get("properties", {})
        for prop in sorted(properties):
            for suffix in SUFFIXES:
                calls.append((name, {prop: canary + suffix}))
            calls.append((name, {prop: {"nested": [canary + "\ud800"]}}))
            calls.append((name, {prop: 2**64, f"{prop}_": canary}))
        deep: Any = canary + "\x00"
        for _ in range(200):
            deep = [deep]
        calls.append((name, {"x": deep}))
        calls.append((name, {"x": canary + "a" * (contract.max_inline_bytes + 10) + "\ud800"}))
        calls.append((name, {"unknown_property": canary + "\ud800"}))
    calls.append(("no_such_tool", {"q": canary + "\x00\ud800"}))
    return calls


async def _hostile_pass(contract: Contract, report: CanaryReport) -> int:
    """The hostile calls through the SDK client on the in-process server (no JSON framing, so
    lone surrogates arrive as they are); every answer must be a result, never an exception."""
    from drivable.serve.mount import build_server

    sent = 0
    async with connect(Target(server=build_server(contract))) as client:
        for tool, arguments in hostile_calls(contract, CANARY):
            sent += 1
            try:
                await client.call_tool(tool, arguments)
            except Exception as failure:  # a bare JSON-RPC error: a broken promise
                report.bare_errors += 1
                report.excerpts.append(f"{tool}: {type(failure).__name__}")
    return sent


class _Capture(logging.Handler):
    def __init__(self) -> None:
        super().__init__(level=logging.DEBUG)
        self.texts: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        text = f"{record.name} {record.levelname} {record.getMessage()}"
        if record.exc_info:
            text += "\n" + "".join(traceback.format_exception(*record.exc_info))
        self.texts.append(text)


async def canary_campaign(
    contracts: Sequence[tuple[str, Contract, tuple[str, dict[str, Any]]]],
    *,
    calls_per_server: int,
    seed: int = 7,
) -> CanaryReport:
    """Fuzz each (name, contract, liveness call) in process with the canary in every argument."""
    from opentelemetry import metrics, trace
    from opentelemetry.sdk.metrics import MeterProvider
    from opentelemetry.sdk.metrics.export import InMemoryMetricReader
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    from drivable.serve.mount import build_server

    report = CanaryReport(CANARY)
    spans = InMemorySpanExporter()
    reader = InMemoryMetricReader()
    tracer_provider = TracerProvider()
    tracer_provider.add_span_processor(SimpleSpanProcessor(spans))
    meter_provider = MeterProvider(metric_readers=[reader])
    trace.set_tracer_provider(tracer_provider)
    metrics.set_meter_provider(meter_provider)
    report.telemetry_checked = (
        trace.get_tracer_provider() is tracer_provider
        and metrics.get_meter_provider() is meter_provider
    )
    capture = _Capture()
    root = logging.getLogger()
    old_level = root.level
    root.addHandler(capture)
    root.setLevel(logging.DEBUG)
    try:
        for name, contract, liveness in contracts:
            async with contract.started():  # open across the fuzzed sessions and direct calls
                result: FuzzReport = await fuzz(
                    Target(server=build_server(contract)),
                    server=name,
                    calls=calls_per_server,
                    liveness=liveness,
                    seed=seed,
                    canary=CANARY,
                )
                report.calls += result.calls
                report.servers.append(result.to_dict())
                report.calls += await _hostile_pass(contract, report)
    finally:
        root.removeHandler(capture)
        root.setLevel(old_level)
    report.log_records = len(capture.texts)
    for text in capture.texts:
        if CANARY in text:
            report.in_logs += 1
            report.excerpts.append(text[:200])
    finished = spans.get_finished_spans()
    report.spans = len(finished)
    for span in finished:
        blob = span.to_json()
        if CANARY in blob:
            report.in_spans += 1
            report.excerpts.append(blob[:200])
    data = reader.get_metrics_data()
    blob = data.to_json() if data is not None else ""
    report.metric_points = blob.count('"attributes"')
    report.in_metrics = blob.count(CANARY)
    return report
