"""Values no store can keep, through the real wire: every one is refused at the boundary as
`invalid_arguments` naming its field (or `payload_too_large`), never `internal_error`, never a bare
JSON-RPC error, on both stores, both eras, stdio and HTTP; and nothing of them reaches a log.

The SDK client sends what it can encode (NUL, integers past 64 bits, deep nesting); raw bodies
over HTTP (httpx) and raw lines over stdio send the rest (lone surrogates, huge text with one).
"""

from __future__ import annotations

import json
import os
import select
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from typing import Any

import httpx2
import pytest

from drivable.reliability.processes import Served
from drivable.target import Target, connect
from tests.serve.hostile_support import (
    CANARY,
    WRITER,
    answer_of,
    billing_http,
    billing_stdio,
    envelope_of_result,
    http_headers,
    request,
    tool_call,
)

INVOICE = "inv_30001"
KEY = "hostile-key-0000000001"
DEEP = 40

# (tool, arguments, the field the refusal must name): what the SDK client can send.
SDK_CASES: list[tuple[str, dict[str, Any], str]] = [
    ("list_customers", {"query": f"{CANARY}\x00b"}, "query"),
    (
        "update_invoice",
        {"invoice_id": INVOICE, "expected_version": 1, "memo": f"{CANARY}\x00"},
        "memo",
    ),
    ("update_invoice", {"invoice_id": INVOICE, "expected_version": 2**63, "memo": "x"}, "expected_version"),
    ("update_invoice", {"invoice_id": INVOICE, "expected_version": -(2**70)}, "expected_version"),
    # A lenient reader turns the text into an integer: the boundary checks what it read, too.
    ("update_invoice", {"invoice_id": INVOICE, "expected_version": "9223372036854775808"}, "expected_version"),
    ("refund_invoice", {"invoice_id": INVOICE, "amount_cents": 2**64, "idempotency_key": KEY}, "amount_cents"),
    (
        "create_invoice",
        {"customer_id": "cus_1001", "lines": [{"description": f"{CANARY}\x00", "unit_cents": 5}], "idempotency_key": KEY},
        "lines.0.description",
    ),
    ("list_customers", {"query": "a", "limit": json.loads("[" * DEEP + "]" * DEEP)}, "limit"),
]  # fmt: skip

# The same, as raw bytes: what only a hand-written client sends.
RAW_CASES: list[tuple[str, bytes, str]] = [
    ("get_invoice", b'{"invoice_id":"CANARY-h0st1le\\ud800"}', "invoice_id"),
    ("find_invoices", b'{"state":"CANARY-h0st1le\\udfff"}', "state"),
    ("find_invoices", b'{"date_from":"CANARY-h0st1le\\ud800x"}', "date_from"),
    ("list_customers", b'{"query":"x\\ud800y CANARY-h0st1le"}', "query"),
    (
        "refund_invoice",
        b'{"invoice_id":"inv_30001","amount_cents":5,"idempotency_key":"hostile-key-0000000002",'
        b'"dry_run":"CANARY-h0st1le\\ud800"}',
        "dry_run",
    ),
    ("list_customers", b'{"query":"a\\u0000b"}', "query"),
    ("update_invoice", b'{"invoice_id":"inv_30001","expected_version":99999999999999999999999}', "expected_version"),
    ("list_customers", b'{"query":' + b"[" * 600 + b"]" * 600 + b"}", "query"),
]  # fmt: skip

# Over the inline bound (256 KiB) but under the HTTP body bound: the size check must count it,
# although one lone surrogate makes it unencodable.
HUGE = b'{"query":"' + b"a" * 270_000 + b'\\ud800"}'


@pytest.fixture(scope="module", params=["sqlite", "postgresql"])
def store(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[str]:
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path_factory.mktemp('hostile') / 'billing.sqlite'}"
        return
    from tests.effects.effects_pg import PostgresMissing, ensure_postgres, throwaway_schema

    try:
        dsn = ensure_postgres()
    except PostgresMissing as exc:
        pytest.fail(str(exc))
    with throwaway_schema(dsn) as url:
        yield url


@pytest.fixture(scope="module")
def http(store: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    with billing_http(store, tmp_path_factory.mktemp("hostile-http")) as served:
        yield served


def _refused(envelope: dict[str, Any] | None, field: str, label: str) -> None:
    assert envelope is not None, label
    assert envelope["code"] in ("invalid_arguments", "payload_too_large"), (label, envelope)
    if envelope["code"] == "invalid_arguments":
        paths = [i["path"] for i in envelope["issues"]]
        assert any(p == field or p.startswith(field + ".") for p in paths), (label, paths)
    assert CANARY not in json.dumps(envelope, ensure_ascii=True).replace("received", ""), label


@pytest.mark.parametrize("mode", ["auto", "legacy"])
@pytest.mark.parametrize("transport", ["stdio", "http"])
async def test_sdk_client_values_are_refused_naming_the_field(
    store: str, http: Served, transport: str, mode: str
) -> None:
    target = (
        billing_stdio(store) if transport == "stdio" else Target(url=http.url, bearer_token=WRITER)
    )
    with tempfile.TemporaryFile("w+") as errlog:
        async with connect(target, mode=mode, errlog=errlog, read_timeout_seconds=60) as client:  # type: ignore[arg-type]
            for tool, arguments, field in SDK_CASES:
                result = await client.call_tool(tool, arguments)
                assert result.is_error, (tool, field)
                wire = result.model_dump(mode="json", by_alias=True)
                _refused(envelope_of_result(wire), field, f"{tool}.{field}")
            # still serving
            alive = await client.call_tool("list_customers", {"query": "a"})
            assert not alive.is_error
        errlog.seek(0)
        assert CANARY not in errlog.read()


def _post(served: Served, body: bytes, *, modern: bool) -> tuple[int, dict[str, Any] | None]:
    response = httpx2.post(
        served.url, content=body, headers=http_headers(body, modern=modern), timeout=60
    )
    return response.status_code, answer_of(response.headers.get("content-type", ""), response.text)


@pytest.mark.parametrize("modern", [True, False], ids=["2026-07-28", "2025-11-25"])
def test_raw_http_values_are_refused_naming_the_field(http: Served, modern: bool) -> None:
    for tool, arguments, field in RAW_CASES:
        status, message = _post(http, tool_call(tool, arguments, modern=modern), modern=modern)
        assert message is not None, (tool, field, status)
        if "error" in message:
            # the handshake era's transport parses with a stricter parser: a refusal, with the
            # envelope in error.data naming the fix
            error = message["error"]
            assert error["code"] in (-32700, -32600, -32602), (tool, field, message)
            assert error["data"]["machine_code"] in ("invalid_request", "invalid_arguments")
            assert error["data"]["hint"]
            continue
        assert status == 200
        _refused(envelope_of_result(message["result"]), field, f"{tool}.{field}")
    status, message = _post(http, tool_call("list_customers", HUGE, modern=modern), modern=modern)
    assert message is not None
    if "result" in message:
        envelope = envelope_of_result(message["result"])
        assert envelope is not None and envelope["code"] == "payload_too_large", envelope
    else:
        assert message["error"]["data"]["machine_code"] in ("invalid_request", "payload_too_large")
    assert CANARY not in http.log_text()


def _stdio_exchange(
    store: str, lines: list[bytes], expect: int
) -> tuple[list[dict[str, Any]], str]:
    """Send raw lines to `drivable serve billing` over stdio and keep stdin open until `expect`
    answers came (or the bound passed); the answers and the server's stderr."""
    command = [sys.executable, "-m", "drivable", "serve", "billing", "--store", store]
    answers: list[dict[str, Any]] = []
    with tempfile.TemporaryFile() as errfile:
        process = subprocess.Popen(
            command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=errfile
        )
        assert process.stdin is not None and process.stdout is not None
        try:
            process.stdin.write(b"".join(line + b"\n" for line in lines))
            process.stdin.flush()
            deadline = time.monotonic() + 120
            # Read the pipe's fd directly: a buffered readline after select() leaves a second
            # line of the same chunk in the file's buffer, where select() never sees it (the
            # last answer then looked lost, once in ~40 runs under load).
            fd, pending = process.stdout.fileno(), b""
            while len(answers) < expect and time.monotonic() < deadline:
                ready, _, _ = select.select([fd], [], [], 1.0)
                if ready:
                    chunk = os.read(fd, 1 << 16)
                    if not chunk:
                        break
                    *complete, pending = (pending + chunk).split(b"\n")
                    answers.extend(json.loads(line) for line in complete if line.strip())
        finally:
            process.stdin.close()
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(timeout=30)
        errfile.seek(0)
        stderr = errfile.read().decode("utf-8", "replace")
    assert len(answers) >= expect, (answers, stderr[-2000:])
    return answers, stderr


def test_raw_stdio_values_are_refused_naming_the_field(store: str) -> None:
    lines = [
        tool_call(tool, arguments, modern=True, request_id=str(n).encode())
        for n, (tool, arguments, _) in enumerate(RAW_CASES)
    ]
    answers, stderr = _stdio_exchange(store, lines, len(lines))
    by_id = {a.get("id"): a for a in answers}
    for n, (tool, _, field) in enumerate(RAW_CASES):
        answer = by_id.get(n)
        assert answer is not None and "result" in answer, (tool, field, answer)
        _refused(envelope_of_result(answer["result"]), field, f"{tool}.{field}")
    assert CANARY not in stderr


def test_completion_with_a_nul_is_a_structured_refusal(store: str, http: Served) -> None:
    """completion/complete never answers with the driver's message, nor with an invalid code."""
    params = (
        b'{"ref":{"type":"ref/resource","uri":"billing://invoices/{invoice_id}"},'
        b'"argument":{"name":"invoice_id","value":"inv\\u0000CANARY-h0st1le"}}'
    )
    for modern in (True, False):
        body = request("completion/complete", params, modern=modern)
        _, message = _post(http, body, modern=modern)
        assert message is not None and "error" in message, message
        error = message["error"]
        assert error["code"] == -32602, error
        assert error["data"]["machine_code"] == "invalid_arguments"
        assert "NUL" in error["data"]["hint"]
        assert "PostgreSQL" not in json.dumps(message)
    lines = [request("completion/complete", params, modern=True, request_id=b"1")]
    answers, _ = _stdio_exchange(store, lines, 1)
    assert answers[0]["error"]["data"]["machine_code"] == "invalid_arguments"


def test_resources_and_prompts_refuse_bad_values_structured(http: Served) -> None:
    """resources/read and prompts/get: bad values and missing arguments are -32602 with the
    envelope naming the fix, in both eras; never -32603, never the driver's words."""
    cases = [
        ("resources/read", b'{"uri":"billing://invoices/inv_\\u0000CANARY-h0st1le"}'),
        ("resources/read", b'{"uri":"billing://invoices/inv_\\ud800CANARY-h0st1le"}'),
        ("prompts/get", b'{"name":"refund_an_invoice","arguments":{"invoice":"a\\u0000CANARY-h0st1le"}}'),
        ("prompts/get", b'{"name":"refund_an_invoice","arguments":{"amount":"5"}}'),
        ("prompts/get", b'{"name":"no_such_prompt","arguments":{}}'),
    ]  # fmt: skip
    for modern in (True, False):
        for method, params in cases:
            _, message = _post(http, request(method, params, modern=modern), modern=modern)
            assert message is not None and "error" in message, (method, params, message)
            error = message["error"]
            # -32020: a 2026-07-28 name header cannot spell a lone surrogate (the SDK's refusal)
            assert error["code"] in (-32602, -32700, -32020), (method, params, error)
            data = error["data"]
            assert data["machine_code"] in ("invalid_arguments", "not_found", "invalid_request")
            assert data["hint"], error
            assert "PostgreSQL" not in json.dumps(message)
    assert CANARY not in http.log_text()
