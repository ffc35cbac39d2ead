"""The raw wire: what only a hand-written client sends, on every method and both transports.

`fuzz` sends tool calls; this sends the rest of the surface as raw bytes, in both eras:
`prompts/get`, `completion/complete` (prompt arguments and resource template variables) and
`resources/read` with each of the boundary's value classes (NUL, lone surrogates, integers past
64 bits, deep nesting, huge text), and whole-message damage (broken JSON, invalid UTF-8, every
`id` shape, a batch, a non-object `params`, an unknown method). Over stdio each goes as one line
to a server process of its own; over HTTP as a POST, followed by the transport's own refusals
(wrong content type or accept, unknown protocol version, a foreign Host or Origin, a GET stream,
routing headers that disagree with the body).

The bodies it sends are planned in `wire_plan`; here are the checks of their answers and the two
transports' senders.

Every request must get one answer: a result, or a JSON-RPC error whose `data` is the envelope
(`machine_code` other than `internal_error`, a `hint`), never a bare -32603, never a leak.
"""

from __future__ import annotations

import contextlib
import json
import subprocess
import threading
from collections.abc import Callable, Mapping, Sequence
from queue import Empty, Queue
from typing import IO, Any, TextIO

import anyio
import httpx2

from drivable import settings
from drivable.reliability.checks import Finding, check_result, leaks
from drivable.reliability.fuzz import MODERN, FuzzReport
from drivable.reliability.wire_plan import ENVELOPE_DAMAGE as ENVELOPE_DAMAGE
from drivable.reliability.wire_plan import LEGACY as LEGACY
from drivable.reliability.wire_plan import Surface as Surface
from drivable.reliability.wire_plan import method_bodies as method_bodies
from drivable.reliability.wire_plan import plan_wire as plan_wire
from drivable.reliability.wire_plan import request_bytes
from drivable.target import Target, connect

ANSWER_TIMEOUT_S = 30.0


async def surface_of(client: Any) -> Surface:
    prompts: list[tuple[str, tuple[str, ...]]] = []
    templates: list[str] = []
    try:
        for prompt in (await client.list_prompts()).prompts:
            prompts.append((prompt.name, tuple(a.name for a in prompt.arguments or ())))
    except Exception:
        pass  # a server without prompts: nothing of it to send
    with contextlib.suppress(Exception):
        templates = [
            t.uri_template for t in (await client.list_resource_templates()).resource_templates
        ]
    return Surface(tuple(prompts), tuple(templates))


def check_answer(label: str, sent: bytes, answer: Mapping[str, Any] | None) -> list[Finding]:
    """One raw message's answer: an answer, structured, no internal error, no leak."""
    where = label[:80]
    if answer is None:
        return [Finding("no_answer", where, "no JSON-RPC answer")]
    text = json.dumps(answer, ensure_ascii=False)
    sent_text = sent.decode("utf-8", "replace")
    found = leaks(text, [sent_text, *_strings(sent_text)])
    findings = [Finding("leak", where, ", ".join(found))] if found else []
    if "jsonrpc" not in answer and "code" in answer:
        # The HTTP layer's own refusal (401, 413): the body is the envelope itself.
        if not answer.get("hint"):
            findings.append(Finding("malformed_envelope", where, f"HTTP {answer.get('code')}"))
        elif answer.get("code") == "internal_error":
            findings.append(Finding("internal_error", where, str(answer.get("request_id"))))
        return findings
    error = answer.get("error")
    if isinstance(error, Mapping):
        data = error.get("data")
        if not isinstance(data, Mapping) or not data.get("machine_code") or not data.get("hint"):
            findings.append(Finding("malformed_envelope", where, f"JSON-RPC {error.get('code')}"))
        elif data.get("machine_code") == "internal_error" or error.get("code") == -32603:
            findings.append(Finding("internal_error", where, str(data.get("request_id"))))
        return findings
    result = answer.get("result")
    if isinstance(result, Mapping) and result.get("isError"):
        from drivable.contract.envelope import envelope_of

        texts = [str(c.get("text", "")) for c in result.get("content", []) if isinstance(c, dict)]
        findings += check_result(where, sent_text, envelope_of(result), texts, True)
    elif not isinstance(result, Mapping):
        findings.append(Finding("malformed_envelope", where, "neither result nor error"))
    return findings


def _strings(text: str) -> list[str]:
    """Pieces of what was sent, so an echo of the caller's own text is not taken for a leak."""
    return [p for p in text.replace('"', " ").replace(",", " ").split() if len(p) >= 3][:200]


def _tally(report: FuzzReport, label: str, sent: bytes, answer: Mapping[str, Any] | None) -> None:
    report.calls += 1
    report.raw += 1
    report.findings += check_answer(label, sent, answer)
    if answer is None:
        return
    if "jsonrpc" not in answer and "code" in answer:
        report.transport_refusals += 1
        report.codes[f"wire HTTP {answer.get('code')}"] += 1
        return
    error = answer.get("error")
    if isinstance(error, Mapping):
        report.transport_refusals += 1
        data = error.get("data")
        data = data if isinstance(data, Mapping) else {}
        report.codes[f"wire JSON-RPC {error.get('code')} {data.get('machine_code')}"] += 1
        return
    result = answer.get("result")
    if isinstance(result, Mapping) and result.get("isError"):
        report.rejected += 1
        report.codes["wire tool error"] += 1
    else:
        report.accepted += 1
        report.codes["wire answered"] += 1


class StdioWire:
    """One stdio server process spoken to in raw lines: write a line, read its answer."""

    def __init__(self, command: Sequence[str], env: Mapping[str, str], errlog: IO[str]) -> None:
        full = settings.child_environment(env)
        self.process = subprocess.Popen(
            list(command),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=errlog,
            env=full,
        )
        self.lines: Queue[bytes] = Queue()
        threading.Thread(target=self._pump, daemon=True).start()

    def _pump(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self.lines.put(line)
        self.lines.put(b"")

    def exchange(self, line: bytes, timeout: float = ANSWER_TIMEOUT_S) -> dict[str, Any] | None:
        """Send one line; the next response (a result or an error), notifications skipped."""
        assert self.process.stdin is not None
        try:
            self.process.stdin.write(line + b"\n")
            self.process.stdin.flush()
        except (BrokenPipeError, OSError):
            return None
        while True:
            try:
                got = self.lines.get(timeout=timeout)
            except Empty:
                return None
            if not got:
                return None
            try:
                message = json.loads(got)
            except ValueError:
                return {"error": {"code": "(stdout not JSON)"}}
            if isinstance(message, dict) and ("result" in message or "error" in message):
                return message

    def close(self) -> None:
        if self.process.stdin is not None:
            with contextlib.suppress(OSError):
                self.process.stdin.close()
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(timeout=10)


INITIALIZE = (
    b'{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25",'
    b'"capabilities":{},"clientInfo":{"name":"drivable-wire","version":"1"}}}'
)
INITIALIZED = b'{"jsonrpc":"2.0","method":"notifications/initialized"}'


def wire_stdio(
    command: Sequence[str],
    env: Mapping[str, str],
    surface: Surface,
    report: FuzzReport,
    errlog: IO[str],
    *,
    modern: bool,
    canary: str | None = None,
) -> None:
    """Every raw message over stdio, in the leg's era, on a server process of its own; the
    server must still answer tools/list at the end."""
    wire = StdioWire(command, env, errlog)
    try:
        if not modern:
            wire.exchange(INITIALIZE)
            assert wire.process.stdin is not None
            wire.process.stdin.write(INITIALIZED + b"\n")
            wire.process.stdin.flush()
        for label, body in plan_wire(surface, (modern,)):
            _tally(report, label, body, wire.exchange(_with_canary(body, canary)))
        last = request_bytes("tools/list", b"{}", modern, 1)
        report.liveness_checks += 1
        answer = wire.exchange(last)
        # Alive is answering: a result, or a structured refusal (a connection whose era the
        # first well-formed request fixed refuses the other era's envelope, by design).
        if answer is None or ("result" not in answer and check_answer("stdio", last, answer)):
            report.liveness_failures += 1
            report.findings.append(Finding("dead", "stdio", "no tools/list after the raw lines"))
    finally:
        wire.close()


def _with_canary(body: bytes, canary: str | None) -> bytes:
    """The canary rides in the first string value of the message's arguments (never the method)."""
    if canary is None or b'"value":"' not in body:
        return body
    return body.replace(b'"value":"', b'"value":"' + canary.encode(), 1)


async def wire_http(
    http: httpx2.AsyncClient,
    url: str,
    headers: Mapping[str, str],
    surface: Surface,
    report: FuzzReport,
    *,
    canary: str | None = None,
) -> None:
    """Every raw message as a POST (both eras), then the transport's own refusals."""
    for label, body in plan_wire(surface):
        sent = dict(headers)
        if label.startswith(MODERN):
            sent["mcp-protocol-version"] = MODERN
            sent.update(routing_headers(body))
        answer = await _post(http, url, sent, _with_canary(body, canary))
        _tally(report, label, body, answer)
    for label, request in transport_requests(url, headers):
        try:
            response = await request(http)
        except httpx2.HTTPError as exc:
            report.calls += 1
            report.findings.append(Finding("no_answer", label, type(exc).__name__))
            continue
        report.calls += 1
        report.raw += 1
        report.transport_refusals += 1
        report.codes[f"wire HTTP {response.status_code}"] += 1
        report.findings += check_http_refusal(label, response)


def routing_headers(body: bytes) -> dict[str, str]:
    """The routing headers a 2026-07-28 client derives from the body (mcp-name base64-wrapped as
    the SDK does; a name no header can carry, such as a lone surrogate, is left out)."""
    from mcp.shared.inbound import NAME_BEARING_METHODS, encode_header_value

    message = json.loads(body.decode("utf-8", "surrogatepass"))
    method = message["method"]
    out = {"mcp-method": method}
    key = NAME_BEARING_METHODS.get(method)
    value = message.get("params", {}).get(key) if key else None
    if isinstance(value, str):
        # A name no header can carry is left out: the server refuses the mismatch (-32020).
        with contextlib.suppress(UnicodeEncodeError):
            out["mcp-name"] = encode_header_value(value)
    return out


async def _post(
    http: httpx2.AsyncClient, url: str, headers: Mapping[str, str], body: bytes
) -> dict[str, Any] | None:
    from drivable.reliability.fuzz import _parse_http_answer

    try:
        response = await http.post(url, content=body, headers=dict(headers))
    except httpx2.HTTPError:
        return None
    if response.status_code >= 500:
        return {"error": {"code": -32603, "message": f"HTTP {response.status_code}"}}
    return _parse_http_answer(response)


Request = Callable[[httpx2.AsyncClient], Any]


def transport_requests(url: str, headers: Mapping[str, str]) -> list[tuple[str, Request]]:
    """Requests the SDK's transport answers by itself, each with what it should be refused for."""
    body = b'{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}'
    modern = request_bytes("tools/list", b"{}", True, 1)

    def post(changes: Mapping[str, str | None], content: bytes = body) -> Request:
        sent = {k: v for k, v in {**headers, **changes}.items() if v is not None}
        return lambda http: http.post(url, content=content, headers=sent)

    auth = {k: v for k, v in headers.items() if k == "authorization"}
    return [
        ("HTTP: content-type text/plain", post({"content-type": "text/plain"})),
        ("HTTP: no content-type", post({"content-type": None})),
        ("HTTP: accept text/html", post({"accept": "text/html"})),
        ("HTTP: no accept", post({"accept": None})),
        ("HTTP: unknown protocol version header", post({"mcp-protocol-version": "1999-01-01"})),
        (
            "HTTP: 2026-07-28 body, other version header",
            post({"mcp-protocol-version": LEGACY, "mcp-method": "tools/list"}, modern),
        ),
        (
            "HTTP: routing header disagrees with the body",
            post({"mcp-protocol-version": MODERN, "mcp-method": "tools/call"}, modern),
        ),
        ("HTTP: foreign Host", post({"host": "evil.example"})),
        ("HTTP: cross-site Origin", post({"origin": "http://evil.example"})),
        ("HTTP: unknown session id", post({"mcp-session-id": "no-such-session"})),
        ("HTTP: empty body", post({}, b"")),
        (
            "HTTP: GET stream",
            lambda http: http.get(url, headers={**auth, "accept": "text/event-stream"}),
        ),
        (
            "HTTP: GET stream without credentials",
            lambda http: http.get(url, headers={"accept": "text/event-stream"}),
        ),
        ("HTTP: DELETE", lambda http: http.delete(url, headers=auth)),
        ("HTTP: PUT", lambda http: http.put(url, content=body, headers=dict(headers))),
        ("HTTP: no token", post({"authorization": None})),
        ("HTTP: wrong token", post({"authorization": "Bearer wrong-token-0000"})),
    ]


def check_http_refusal(label: str, response: httpx2.Response) -> list[Finding]:
    """An HTTP-level answer: never 5xx, JSON, and the envelope naming the fix (the 401 and 413
    bodies are the envelope itself; the rest a JSON-RPC error with it in `error.data`)."""
    if response.status_code >= 500:
        return [Finding("internal_error", label, f"HTTP {response.status_code}")]
    found = leaks(response.text, [])
    findings = [Finding("leak", label, ", ".join(found))] if found else []
    if 200 <= response.status_code < 300:
        return findings  # answered (an accepted request): nothing to refuse
    try:
        body = response.json()
    except ValueError:
        return [
            *findings,
            Finding("malformed_envelope", label, f"HTTP {response.status_code} not JSON"),
        ]
    error = body.get("error") if isinstance(body, dict) else None
    data = error.get("data") if isinstance(error, dict) else body
    named = isinstance(data, dict) and (data.get("machine_code") or data.get("code"))
    if not isinstance(data, dict) or not named or not data.get("hint"):
        findings.append(Finding("malformed_envelope", label, f"HTTP {response.status_code}"))
    elif named == "internal_error":
        findings.append(Finding("internal_error", label, f"HTTP {response.status_code}"))
    return findings


async def wire_leg(
    target: Target, report: FuzzReport, *, errlog: TextIO | None, canary: str | None
) -> None:
    """The raw wire over the target's transport, in the target's era, tallied into `report`."""
    async with connect(target, read_timeout_seconds=ANSWER_TIMEOUT_S, errlog=errlog) as client:
        surface = await surface_of(client)
    modern = target.mode != "legacy"
    if target.url is None:
        assert errlog is not None
        await anyio.to_thread.run_sync(
            lambda: wire_stdio(
                target.command, target.env, surface, report, errlog, modern=modern, canary=canary
            )
        )
        return
    headers = {"accept": "application/json, text/event-stream", "content-type": "application/json"}
    if target.bearer_token:
        headers["authorization"] = f"Bearer {target.bearer_token}"
    async with httpx2.AsyncClient(timeout=httpx2.Timeout(ANSWER_TIMEOUT_S)) as http:
        await wire_http(http, target.url, headers, surface, report, canary=canary)
