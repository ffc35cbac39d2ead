"""Fuzzing over the wire: generated and hostile arguments for every advertised tool.

Arguments come from each tool's advertised input schema (`schema.strategy_for`, about half of the
calls) and from hostile mutations of it (`schema.hostile_arguments`, the other half), sent with the
official SDK client over streamable HTTP. What the SDK client cannot send (lone surrogates, NaN,
bodies over the bound, invalid UTF-8, nesting deeper than any parser allows) goes as raw JSON-RPC
bytes over HTTP. Every answer is checked (`checks`), and the server must still answer after.
"""

from __future__ import annotations

import json
import random
import time
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import anyio
import httpx2

from drivable.contract.envelope import envelope_of
from drivable.reliability.checks import Finding, check_result, check_transport_refusal, leaks
from drivable.reliability.schema import ONE_MEGABYTE, draw_many, hostile_arguments, strategy_for
from drivable.target import Target, connect

CALL_TIMEOUT_S = 30.0
SDK_BODY_MAX = 200 * 1024  # larger arguments go raw: the answer is then read whole
SDK_DEPTH_MAX = 100
LIVENESS_EVERY = 250
HEADERS = {"accept": "application/json, text/event-stream", "content-type": "application/json"}


@dataclass
class FuzzReport:
    server: str
    calls: int = 0
    generated: int = 0
    hostile: int = 0
    raw: int = 0
    resource_reads: int = 0
    accepted: int = 0
    rejected: int = 0
    transport_refusals: int = 0
    codes: Counter[str] = field(default_factory=Counter)
    findings: list[Finding] = field(default_factory=list)
    liveness_checks: int = 0
    liveness_failures: int = 0
    seconds: float = 0.0
    tools: list[str] = field(default_factory=list)

    def count(self, kind: str) -> int:
        return sum(1 for f in self.findings if f.kind == kind)

    @property
    def internal_errors(self) -> int:
        return self.count("internal_error")

    @property
    def leaks(self) -> int:
        return self.count("leak")

    def to_dict(self) -> dict[str, Any]:
        return {
            "server": self.server,
            "tools": self.tools,
            "calls": self.calls,
            "generated": self.generated,
            "hostile": self.hostile,
            "raw": self.raw,
            "resource_reads": self.resource_reads,
            "accepted": self.accepted,
            "rejected": self.rejected,
            "transport_refusals": self.transport_refusals,
            "codes": dict(self.codes.most_common()),
            "internal_errors": self.internal_errors,
            "leaks": self.leaks,
            "unnamed_fields": self.count("unnamed_field"),
            "malformed_envelopes": self.count("malformed_envelope"),
            "no_answer": self.count("no_answer"),
            "liveness_checks": self.liveness_checks,
            "liveness_failures": self.liveness_failures,
            "findings": [f.__dict__ for f in self.findings[:50]],
            "seconds": round(self.seconds, 1),
        }


def raw_bodies(tool: str) -> list[tuple[str, bytes]]:
    """Bodies the SDK client cannot produce: (a label, the raw JSON-RPC bytes)."""
    head = (
        b'{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":'
        + json.dumps(tool).encode()
        + b',"arguments":'
    )
    tail = b"}}"
    return [
        ("lone surrogate escape", head + b'{"x":"\\ud800","y":"\\udfff\\u0000"}' + tail),
        ("invalid UTF-8", head + b'{"x":"\xff\xfe\xc3\x28"}' + tail),
        ("NaN and Infinity", head + b'{"x":NaN,"y":Infinity,"z":-Infinity}' + tail),
        ("huge numbers", head + b'{"x":1e400,"y":' + b"9" * 5000 + b"}" + tail),
        ("deep nesting", head + b'{"x":' + b"[" * 100_000 + b"]" * 100_000 + b"}" + tail),
        ("1 MB string", head + b'{"x":"' + b"a" * ONE_MEGABYTE + b'"}' + tail),
        ("arguments not an object", head + b'"just a string"' + tail),
        ("truncated JSON", head + b'{"x":"abc'),
    ]


def depth(value: Any) -> int:
    """How deep a JSON value nests, iteratively."""
    deepest = 0
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        current, level = stack.pop()
        deepest = max(deepest, level)
        if isinstance(current, dict):
            stack.extend((v, level + 1) for v in current.values())
        elif isinstance(current, list):
            stack.extend((v, level + 1) for v in current)
    return deepest


def _jsonable(args: Any) -> bytes | None:
    """The UTF-8 JSON the SDK client would send, or None when it cannot encode it (the client's
    serializer also stops at a nesting depth well under what a hostile client sends)."""
    if depth(args) > SDK_DEPTH_MAX:
        return None
    try:
        return json.dumps(args, ensure_ascii=False, allow_nan=False).encode("utf-8")
    except (ValueError, UnicodeEncodeError, RecursionError, TypeError):
        return None


def with_canary(args: Any, canary: str) -> Any:
    """Every string value carries the canary; a map without strings gets one more property."""
    placed = [False]

    def walk(value: Any, depth: int) -> Any:
        if depth > 50:
            return value
        if isinstance(value, str):
            placed[0] = True
            return value + canary
        if isinstance(value, dict):
            return {k: walk(v, depth + 1) for k, v in value.items()}
        if isinstance(value, list):
            return [walk(v, depth + 1) for v in value]
        return value

    out = walk(args, 0)
    if isinstance(out, dict) and not placed[0]:
        out["note"] = canary
    return out


def _parse_http_answer(response: httpx2.Response) -> dict[str, Any] | None:
    """The JSON-RPC message of a JSON or SSE response (None when it has none)."""
    text = response.text
    if response.headers.get("content-type", "").startswith("text/event-stream"):
        for line in text.splitlines():
            if line.startswith("data:"):
                try:
                    message = json.loads(line[5:].strip())
                except ValueError:
                    continue
                if isinstance(message, dict) and ("result" in message or "error" in message):
                    return message
        return None
    try:
        parsed = json.loads(text)
    except ValueError:
        return None
    return parsed if isinstance(parsed, dict) else None


@dataclass
class _Plan:
    tool: str
    args: Any
    kind: str  # generated | hostile | raw
    raw: bytes | None = None


def plan_calls(
    schemas: Mapping[str, Mapping[str, Any]],
    calls: int,
    seed: int,
    canary: str | None,
    *,
    include_raw: bool = True,
) -> list[_Plan]:
    """`calls` planned calls over the tools, about half generated and half hostile, plus raw ones."""
    names = sorted(schemas)
    rng = random.Random(seed)
    plans: list[_Plan] = []
    raw_each = [raw_bodies(name) if include_raw else [] for name in names]
    raw_total = sum(len(r) for r in raw_each)
    budget = max(calls - raw_total, len(names) * 2)
    for index, name in enumerate(names):
        share = budget // len(names) + (1 if index < budget % len(names) else 0)
        good = draw_many(strategy_for(schemas[name]), share // 2, seed + index)
        bad = draw_many(hostile_arguments(schemas[name]), share - share // 2, seed + 7919 + index)
        plans += [_Plan(name, a, "generated") for a in good]
        plans += [_Plan(name, a, "hostile") for a in bad]
        for _label, body in raw_each[index]:
            plans.append(_Plan(name, None, "raw", body))
    if canary is not None:
        for plan in plans:
            if plan.raw is None:
                plan.args = with_canary(plan.args, canary)
            else:
                plan.raw = plan.raw.replace(b'"x":', b'"' + canary.encode() + b'":', 1)
    rng.shuffle(plans)
    return plans[: max(calls, len(plans))]


async def fuzz(
    target: Target,
    *,
    server: str,
    calls: int,
    liveness: tuple[str, dict[str, Any]],
    seed: int = 20261129,
    canary: str | None = None,
    time_budget_s: float = 900.0,
    exclude: tuple[str, ...] = (),
) -> FuzzReport:
    """Send about `calls` fuzzed calls to `target`; stop early at `time_budget_s`.

    Raw JSON-RPC bodies need an HTTP target; an in-process target gets the SDK-sendable calls.
    """
    report = FuzzReport(server)
    started = time.monotonic()
    url = target.url or ""
    headers = dict(HEADERS)
    if target.bearer_token:
        headers["authorization"] = f"Bearer {target.bearer_token}"
    async with connect(target, read_timeout_seconds=CALL_TIMEOUT_S) as client:
        listed = await client.list_tools()
        schemas = {t.name: t.input_schema for t in listed.tools if t.name not in exclude}
    report.tools = sorted(schemas)
    plans = plan_calls(schemas, calls, seed, canary, include_raw=bool(url))
    if not url:
        plans = [p for p in plans if p.raw is None and _jsonable(p.args) is not None]
    async with httpx2.AsyncClient(timeout=httpx2.Timeout(CALL_TIMEOUT_S)) as http:
        client_cm = connect(target, read_timeout_seconds=CALL_TIMEOUT_S)
        client = await client_cm.__aenter__()
        try:
            for number, plan in enumerate(plans, 1):
                if time.monotonic() - started > time_budget_s:
                    break
                report.calls += 1
                body = plan.raw if plan.raw is not None else _jsonable(plan.args)
                raw = bool(url) and (
                    body is None or plan.raw is not None or len(body) > SDK_BODY_MAX
                )
                setattr(report, plan.kind, getattr(report, plan.kind) + 1)
                if raw:
                    if body is None or plan.raw is None:
                        message = {
                            "jsonrpc": "2.0",
                            "id": number,
                            "method": "tools/call",
                            "params": {"name": plan.tool, "arguments": plan.args},
                        }
                        body = json.dumps(message, ensure_ascii=True, allow_nan=True).encode()
                    failed = await _send_raw(http, url, headers, plan, body, report)
                else:
                    failed = await _send_sdk(client, plan, report)
                if failed or number % LIVENESS_EVERY == 0:
                    alive = await _alive(client, liveness)
                    report.liveness_checks += 1
                    if not alive:
                        # The client may be what broke: reconnect once before calling it dead.
                        await client_cm.__aexit__(None, None, None)
                        client_cm = connect(target, read_timeout_seconds=CALL_TIMEOUT_S)
                        client = await client_cm.__aenter__()
                        if not await _alive(client, liveness):
                            report.liveness_failures += 1
                            report.findings.append(Finding("dead", plan.tool, "no answer after"))
            await fuzz_resources(client, report, max(12, calls // 50))
            report.liveness_checks += 1
            if not await _alive(client, liveness):
                report.liveness_failures += 1
                report.findings.append(Finding("dead", liveness[0], "no answer at the end"))
        finally:
            await client_cm.__aexit__(None, None, None)
    report.seconds = time.monotonic() - started
    return report


RESOURCE_FILLS: tuple[str, ...] = (
    "../../etc/passwd",
    "%2e%2e%2fetc%2fpasswd",
    "\x00",
    "' OR 1=1 --",
    "x" * 20_000,
    "a/../../b",
    "",
    "%ff%fe",
    "{id}",
    "9" * 400,
    "\u202e\u200b",
    "NaN",
)


async def fuzz_resources(client: Any, report: FuzzReport, budget: int) -> None:
    """Hostile values in every resource template's variables: each read answers or is refused
    with the envelope in `error.data` (machine_code, never internal_error), leaking nothing."""
    import re

    try:
        templates = (await client.list_resource_templates()).resource_templates
    except Exception:
        return
    for fill in RESOURCE_FILLS:
        for template in templates:
            if budget <= 0:
                return
            budget -= 1
            uri = fill.join(re.split(r"\{[^}]+\}", template.uri_template))
            report.calls += 1
            report.resource_reads += 1
            try:
                with anyio.fail_after(CALL_TIMEOUT_S):
                    await client.read_resource(uri)
                report.accepted += 1
                continue
            except TimeoutError:
                report.findings.append(Finding("no_answer", uri[:80], "resource read timed out"))
                continue
            except Exception as exc:
                error = getattr(exc, "error", None)
                data = getattr(error, "data", None)
                message = str(getattr(error, "message", exc))
            report.rejected += 1
            code = str(data.get("machine_code")) if isinstance(data, dict) else "(no envelope)"
            report.codes[f"resource {code}"] += 1
            if not isinstance(data, dict):
                report.findings.append(Finding("malformed_envelope", uri[:80], "no error.data"))
                continue
            if code == "internal_error":
                report.findings.append(
                    Finding("internal_error", uri[:80], str(data.get("request_id")))
                )
            found = leaks(json.dumps(data, ensure_ascii=False) + message, [fill, uri])
            if found:
                report.findings.append(Finding("leak", uri[:80], ", ".join(found)))


async def _alive(client: Any, liveness: tuple[str, dict[str, Any]]) -> bool:
    try:
        with anyio.fail_after(CALL_TIMEOUT_S):
            result = await client.call_tool(liveness[0], liveness[1])
    except Exception:
        return False
    return not result.is_error


async def _send_sdk(client: Any, plan: _Plan, report: FuzzReport) -> bool:
    """One call through the SDK client; True when it raised (the liveness check then runs)."""
    try:
        with anyio.fail_after(CALL_TIMEOUT_S):
            result = await client.call_tool(plan.tool, plan.args)
    except TimeoutError:
        report.findings.append(Finding("no_answer", plan.tool, "timed out"))
        return True
    except Exception as exc:  # a protocol-level refusal the SDK raises
        report.transport_refusals += 1
        report.codes[f"(raised {type(exc).__name__})"] += 1
        return True
    texts = [getattr(c, "text", "") for c in result.content]
    structured = envelope_of(result) if result.is_error else result.structured_content
    if result.is_error:
        report.rejected += 1
        report.codes[str((structured or {}).get("code"))] += 1
    else:
        report.accepted += 1
    report.findings += check_result(plan.tool, plan.args, structured, texts, result.is_error)
    return False


async def _send_raw(
    http: httpx2.AsyncClient,
    url: str,
    headers: Mapping[str, str],
    plan: _Plan,
    body: bytes,
    report: FuzzReport,
) -> bool:
    try:
        with anyio.fail_after(CALL_TIMEOUT_S):
            response = await http.post(url, content=body, headers=dict(headers))
    except (TimeoutError, httpx2.HTTPError) as exc:
        report.findings.append(Finding("no_answer", plan.tool, type(exc).__name__))
        return True
    message = _parse_http_answer(response)
    result = message.get("result") if message else None
    if response.status_code != 200 or not isinstance(result, dict):
        report.transport_refusals += 1
        code = f"HTTP {response.status_code}"
        if message and isinstance(message.get("error"), dict):
            code += f" / JSON-RPC {message['error'].get('code')}"
        elif message and "code" in message:
            code += f" / {message['code']}"
        report.codes[code] += 1
        report.findings += check_transport_refusal(response.status_code, response.content)
        return response.status_code >= 500
    is_error = bool(result.get("isError"))
    structured = envelope_of(result) if is_error else result.get("structuredContent")
    texts = [str(c.get("text", "")) for c in result.get("content", []) if isinstance(c, dict)]
    if is_error:
        report.rejected += 1
        report.codes[str((structured or {}).get("code"))] += 1
    else:
        report.accepted += 1
    sent = plan.args if plan.args is not None else body.decode("utf-8", errors="replace")
    report.findings += check_result(plan.tool, sent, structured, texts, is_error)
    return False
