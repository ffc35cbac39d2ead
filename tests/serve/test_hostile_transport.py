"""What the transports answer before any tool runs: every request gets an answer or a defined
refusal, and every refusal is JSON-RPC with the envelope in `error.data` naming the fix, never
plain text, a bare code or pydantic's text quoting the input.

Raw bodies over HTTP (httpx) in both eras, raw lines over stdio; event streams are bounded.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import httpx2
import pytest
from starlette.types import Receive, Scope, Send

from drivable.reliability.processes import Served
from drivable.serve.guards import StreamBounds
from tests.serve.hostile_support import (
    CANARY,
    READER,
    answer_of,
    billing_http,
    http_headers,
    request,
    tool_call,
)
from tests.serve.test_hostile_values import _stdio_exchange

IDS = [b'{"a":"CANARY-h0st1le"}', b"[1]", b"1.5", b"null", b"true"]
LIST = b'{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}'


@pytest.fixture(scope="module")
def http(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    work = tmp_path_factory.mktemp("transport")
    with billing_http(f"sqlite:///{work / 'billing.sqlite'}", work) as served:
        yield served


def _structured(response: httpx2.Response, label: str) -> dict[str, Any]:
    message = answer_of(response.headers.get("content-type", ""), response.text)
    assert message is not None, (label, response.status_code, response.text[:300])
    error = message.get("error")
    assert isinstance(error, dict), (label, message)
    assert -32768 <= error["code"] <= -32000, (label, error)
    data = error["data"]
    assert data["machine_code"] and data["hint"] and data["human_message"], (label, error)
    text = json.dumps(message)
    for quoted in ("input_value", "validation error", "[type=", CANARY):
        assert quoted not in text, (label, text)
    found: dict[str, Any] = error
    return found


@pytest.mark.parametrize("modern", [True, False], ids=["2026-07-28", "2025-11-25"])
def test_every_request_id_shape_gets_an_answer_or_a_refusal(http: Served, modern: bool) -> None:
    for rid in IDS:
        body = tool_call("list_customers", b"{}", modern=modern, request_id=rid)
        response = httpx2.post(
            http.url, content=body, headers=http_headers(body, modern=modern, token=READER)
        )
        assert response.status_code == 400, (rid, response.status_code, response.text)
        assert _structured(response, rid.decode())["code"] == -32600
    for rid in (b'"a-string"', b"42"):
        body = tool_call("list_customers", b"{}", modern=modern, request_id=rid)
        response = httpx2.post(
            http.url, content=body, headers=http_headers(body, modern=modern, token=READER)
        )
        message = answer_of(response.headers.get("content-type", ""), response.text)
        assert message is not None and message["id"] == json.loads(rid), message


@pytest.mark.parametrize("modern", [True, False], ids=["2026-07-28", "2025-11-25"])
def test_transport_refusals_are_structured(http: Served, modern: bool) -> None:
    good = tool_call("list_customers", b'{"query":"a"}', modern=modern)
    headers = http_headers(good, modern=modern, token=READER)
    cases: list[tuple[str, bytes, dict[str, str]]] = [
        ("broken JSON", b'{"jsonrpc":"2.0","id":1,', headers),
        ("not UTF-8", b'{"jsonrpc":"2.0","id":1,"method":"tools/list","x":"\xff\xfe"}', headers),
        ("deep", b"[" * 100_000 + b"]" * 100_000, headers),
        ("jsonrpc 1.0", b'{"jsonrpc":"1.0","id":1,"method":"tools/list"}', headers),
        ("method not a string", b'{"jsonrpc":"2.0","id":1,"method":5}', headers),
        ("params not an object", b'{"jsonrpc":"2.0","id":1,"method":"tools/list","params":[1]}', headers),
        ("a batch", b"[" + LIST + b"," + LIST + b"]", headers),
        ("wrong content type", good, {**headers, "content-type": "text/plain"}),
        ("no accept", good, {k: v for k, v in headers.items() if k != "accept"} | {"accept": "text/html"}),
        ("wrong host", good, {**headers, "host": "evil.example"}),
        ("unknown protocol version", good, {**headers, "mcp-protocol-version": "1999-01-01"}),
        (
            "tools/call name not a string",
            request("tools/call", b'{"name":["CANARY-h0st1le"],"arguments":{}}', modern=modern),
            http_headers(LIST, modern=modern, token=READER) | {"mcp-method": "tools/call"},
        ),
    ]  # fmt: skip
    if modern:
        cases.append(("method header mismatch", good, {**headers, "mcp-method": "tools/list"}))
    for label, body, sent in cases:
        response = httpx2.post(http.url, content=body, headers=sent, timeout=60)
        if response.status_code == 200 and label == "no accept":
            continue  # the 2026-07-28 path answers plain JSON whatever Accept says
        assert response.status_code != 202, label
        _structured(response, label)
    assert CANARY not in http.log_text()


def test_a_stateless_server_refuses_event_streams_at_once(http: Served) -> None:
    for token in (None, READER):
        headers = {"accept": "text/event-stream"}
        if token:
            headers["authorization"] = f"Bearer {token}"
        response = httpx2.get(http.url, headers=headers, timeout=20)
        assert response.status_code in (401, 405), response.status_code
        if response.status_code == 405:
            _structured(response, "GET")


async def _silent_stream(scope: Scope, receive: Receive, send: Send) -> None:
    """An event stream that never sends an event (what a held GET looks like)."""
    await send(
        {
            "type": "http.response.start",
            "status": 200,
            "headers": [(b"content-type", b"text/event-stream")],
        }
    )
    await anyio.sleep_forever()


async def test_event_streams_are_bounded_per_client_in_all_and_in_silence() -> None:
    bounds = StreamBounds(_silent_stream, max_total=3, max_per_client=2, idle_s=0.3)
    statuses: list[int] = []

    async def one(client: str) -> None:
        scope: dict[str, Any] = {"type": "http", "method": "GET", "client": (client, 1)}
        sent: list[dict[str, Any]] = []

        async def receive() -> dict[str, Any]:
            await anyio.sleep_forever()
            return {}

        async def send(message: Any) -> None:
            sent.append(message)

        await bounds(scope, receive, send)
        statuses.append(int(sent[0]["status"]))

    with anyio.fail_after(10):
        async with anyio.create_task_group() as group:
            for client in ("10.0.0.1", "10.0.0.1", "10.0.0.1", "10.0.0.2", "10.0.0.3"):
                group.start_soon(one, client)
                await anyio.sleep(0.01)
    # two streams for the first client, one more for the second: three held until idle, then
    # closed; the first client's third and the third client (over the total) refused with 429
    assert sorted(statuses) == [200, 200, 200, 429, 429], statuses
    assert bounds.open == {}


def test_stdio_answers_every_line_it_cannot_read(tmp_path: Path) -> None:
    lines = [
        b'{"jsonrpc":"2.0","id":1,',
        b'{"jsonrpc":"2.0","id":2,"method":"tools/list","x":"\xff"}',
        b"[" * 100_000 + b"]" * 100_000,
        b'{"jsonrpc":"2.0","id":{"a":"CANARY-h0st1le"},"method":"tools/list"}',
        b'{"jsonrpc":"2.0","id":3.5,"method":"tools/list"}',
        b'{"jsonrpc":"2.0","id":77,"method":"tools/call","params":{"x":"' + b"a" * (1600 * 1024),
        request("tools/list", b"{}", modern=True, request_id=b"9"),
    ]
    answers, stderr = _stdio_exchange(f"sqlite:///{tmp_path / 'b.sqlite'}", lines, len(lines))
    errors = [a for a in answers if "error" in a]
    assert len(errors) == len(lines) - 1, answers
    codes = sorted(a["error"]["code"] for a in errors)
    assert codes.count(-32700) >= 2 and -32600 in codes, codes
    for answer in errors:
        data = answer["error"]["data"]
        assert data["machine_code"] in ("invalid_request", "payload_too_large") and data["hint"]
    assert any(a.get("id") == 9 and "result" in a for a in answers)  # still serving
    # a line too long to read is refused unread, naming its id so the caller stops waiting
    too_long = next(a for a in errors if a.get("id") == 77)
    assert too_long["error"]["data"]["machine_code"] == "payload_too_large"
    assert CANARY not in stderr
