"""Access by default: a tool that changes data needs a scope, and an HTTP server with such tools
does not start without a token verifier unless told `--insecure`.

Over HTTP with billing: a read-only token and an anonymous caller can move no money (no refund,
not even through a confirm token a writer obtained); the example server without a verifier
refuses to start; with `--insecure` it opens every tool, as asked.
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest

from drivable.contract import READ_ONLY, Contract, Effects, Summary
from drivable.kinds import KindModel
from drivable.reliability.processes import Served
from drivable.serve.http import InsecureServingError, build_app
from drivable.target import Target, connect
from tests.serve.conftest import HERE, ROOT, HttpServer, start_http, stop_http
from tests.serve.hostile_support import READER, WRITER, billing_http, envelope_of_result

BOUND = 90.0
GET_DESCRIPTION = 'Returns whether a thing exists, by its name. Example: {"name": "<name>"}.'
SET_DESCRIPTION = (
    'Marks a thing as set, by its name; setting it twice is fine. Example: {"name": "<name>"}.'
)


@pytest.fixture(scope="module")
def billing(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    work = tmp_path_factory.mktemp("access")
    with billing_http(f"sqlite:///{work / 'billing.sqlite'}", work) as served:
        yield served


def _envelope(result: Any) -> dict[str, Any]:
    found = envelope_of_result(result.model_dump(mode="json", by_alias=True))
    assert found is not None, result
    return found


async def _paid_invoice(client: Any) -> tuple[str, int]:
    page = await client.call_tool("find_invoices", {"state": "paid", "limit": 5})
    assert not page.is_error, page
    first = page.structured_content["results"][0]
    return first["invoice_id"], int(first.get("refundable_cents") or 100)


@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_a_read_only_token_moves_no_money(billing: Served, mode: str) -> None:
    with anyio.fail_after(BOUND):
        async with connect(Target(url=billing.url, bearer_token=WRITER), mode=mode) as writer:  # type: ignore[arg-type]
            invoice, _ = await _paid_invoice(writer)
            args = {"invoice_id": invoice, "amount_cents": 1, "idempotency_key": f"k-{mode}-0001x"}
            preview = await writer.call_tool("refund_invoice", {**args, "dry_run": True})
            assert not preview.is_error, preview
            token = preview.structured_content["next_call"]["arguments"]["confirm_token"]
        async with connect(Target(url=billing.url, bearer_token=READER), mode=mode) as reader:  # type: ignore[arg-type]
            seen = await reader.call_tool("get_invoice", {"invoice_id": invoice})
            assert not seen.is_error
            before = seen.structured_content["invoice"]["refunded_cents"]
            for arguments in (
                {**args, "dry_run": True},
                {**args, "dry_run": False, "confirm_token": token},
            ):
                refused = await reader.call_tool("refund_invoice", arguments)
                envelope = _envelope(refused)
                assert envelope["code"] == "insufficient_scope", envelope
                assert envelope["details"]["required_scopes"] == ["billing:write"]
            for tool, arguments in (
                ("void_invoice", {"invoice_id": invoice, "dry_run": True}),
                ("update_invoice", {"invoice_id": invoice, "expected_version": 1, "memo": "x"}),
            ):
                assert _envelope(await reader.call_tool(tool, arguments))["code"] == (
                    "insufficient_scope"
                )
            after = await reader.call_tool("get_invoice", {"invoice_id": invoice})
            assert after.structured_content["invoice"]["refunded_cents"] == before


@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_an_anonymous_caller_is_refused_before_any_tool(billing: Served, mode: str) -> None:
    import httpx2

    body = (
        b'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"refund_invoice",'
        b'"arguments":{"invoice_id":"inv_30001","amount_cents":1,"idempotency_key":"anon-key-0001"}}}'
    )
    headers = {"accept": "application/json, text/event-stream", "content-type": "application/json"}
    async with httpx2.AsyncClient(timeout=BOUND) as http:
        response = await http.post(billing.url, content=body, headers=headers)
    assert response.status_code == 401
    assert response.json()["code"] == "unauthenticated"


def test_mutating_tools_over_http_without_a_verifier_do_not_start(tmp_path: Path) -> None:
    for target in ("billing", "serve_app:contract"):
        completed = subprocess.run(
            [sys.executable, "-m", "drivable", "serve", target, "--http", "--port", "0"],
            cwd=HERE,
            capture_output=True,
            timeout=BOUND,
            env={
                "PYTHONPATH": f"{HERE}:{ROOT}",
                "DRIVABLE_STORE": f"sqlite:///{tmp_path / 'b.db'}",
            },
        )
        assert completed.returncode == 2, completed
        message = completed.stderr.decode()
        assert "--verifier" in message and "--insecure" in message, message


def test_a_read_only_contract_serves_without_a_verifier_and_a_mutating_one_does_not() -> None:
    class In(KindModel):
        name: str

    reads = Contract("reads", version="1", summary=Summary("Reads.", ["read"], ["write"]))
    writes = Contract("writes", version="1", summary=Summary("Writes.", ["write"], ["read"]))
    from drivable.contract import Output

    class Out(Output):
        ok: bool

    @reads.tool(name="get_thing", title="Get", description=GET_DESCRIPTION, effects=READ_ONLY)
    async def get_thing(args: In, call: Any) -> Out:
        return Out(ok=True)

    @writes.tool(
        name="set_thing",
        title="Set",
        description=SET_DESCRIPTION,
        effects=Effects(read_only=False, destructive=False, idempotent=True, open_world=False),
    )
    async def set_thing(args: In, call: Any) -> Out:
        return Out(ok=True)

    build_app(reads)
    # the runtime inferred the write scope the mutating tool needs
    assert writes.tools["set_thing"].scopes == ("writes:write",)
    with pytest.raises(InsecureServingError, match="--insecure"):
        build_app(writes)
    build_app(writes, insecure=True)


@pytest.fixture(scope="module")
def insecure_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[HttpServer]:
    server = start_http(Path(tmp_path_factory.mktemp("insecure")), "--insecure")
    yield server
    stop_http(server)


@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_insecure_opens_every_tool_as_asked(insecure_server: HttpServer, mode: str) -> None:
    with anyio.fail_after(BOUND):
        async with connect(Target(url=insecure_server.url), mode=mode) as client:  # type: ignore[arg-type]
            ok = await client.call_tool("archive_note", {"note_id": "note_1"})
            assert not ok.is_error, ok.structured_content
