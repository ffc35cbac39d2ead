"""billing over real transports with the official SDK client: in process, `drivable serve billing`
over stdio, and several server processes on streamable HTTP sharing one PostgreSQL database."""

from __future__ import annotations

import asyncio
import json
import os
import socket
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import jsonschema
import mcp_types as types
import pytest
from mcp import Client
from mcp.shared.exceptions import MCPError

from drivable.contract import Contract, envelope_of
from drivable.serve import build_server
from drivable.servers.billing.ledger import Ledger
from drivable.target import Mode, Target, connect
from tests.cli import CLI
from tests.effects.effects_pg import throwaway_schema
from tests.servers.billing.billing_helpers import LEAKS, token_of


class Wire:
    """Calls over a connected SDK client, each result checked against its tool's schemas."""

    def __init__(self, client: Any, tools: dict[str, Any]) -> None:
        self.client = client
        self.tools = tools

    async def __call__(self, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
        result = await self.client.call_tool(name, arguments)
        data: dict[str, Any] = dict(envelope_of(result) or result.structured_content or {})
        assert json.loads(result.content[0].text) == data
        if not result.is_error:
            jsonschema.validate(data, self.tools[name].output_schema)
        assert not LEAKS.search(json.dumps(data, ensure_ascii=False)), data
        return dict(data, is_error=bool(result.is_error))


async def wire_of(client: Any) -> Wire:
    tools = {t.name: t for t in (await client.list_tools()).tools}
    assert "refund_invoice" in tools and tools["refund_invoice"].annotations.destructive_hint
    return Wire(client, tools)


async def a_paid(call: Wire) -> str:
    page = await call("find_invoices", {"state": "paid", "limit": 50})
    return str(
        next(r for r in page["results"] if 5_000 <= r["refundable_cents"] <= 500_000)["invoice_id"]
    )


async def drive_refund(call: Wire, key: str) -> tuple[str, str]:
    """The seed's refund flow as a model sends it; returns (invoice_id, refund_id)."""
    inv = await a_paid(call)
    args = {"invoice_id": inv, "amount_cents": "4 000", "dry_run": "ano", "idempotency_key": key}
    preview = await call("refund_invoice", args)
    assert preview["status"] == "would_refund", preview
    assert "amount_cents: Read '4 000' as 4000." in preview["notes"]
    unconfirmed = await call("refund_invoice", {**args, "dry_run": "false"})
    assert unconfirmed["code"] == "confirmation_required"
    assert unconfirmed["repair"]["arguments"]["dry_run"] is False  # the confirming call
    assert unconfirmed["details"]["preview"]["status"] == "would_refund"
    real = {**args, "dry_run": False, "confirm_token": token_of(preview)}
    done = await call("refund_invoice", real)
    assert done["status"] == "refunded", done
    again = await call("refund_invoice", real)
    assert again["refund_id"] == done["refund_id"] and again["notes"]
    placeholder = await call("get_invoice", {"invoice_id": "inv_xxx"})
    assert placeholder["code"] == "invalid_arguments"
    asked = await call("find_invoices", {"date_from": "01/02/2026"})
    assert asked["issues"][0]["readings"] == ["2026-02-01", "2026-01-02"]
    over = await call(
        "refund_invoice", {**args, "amount_cents": 500_000, "idempotency_key": key + "-b"}
    )
    assert over["code"] == "refund_exceeds_balance" and over["repair"]["tool"] == "get_invoice"
    return inv, str(done["refund_id"])


async def count_refunds(url: str, invoice_id: str) -> int:
    ledger = Ledger(url)
    try:
        async with ledger.store.transaction() as tx:
            row = (
                await tx.execute(
                    "SELECT COUNT(*) FROM billing_refunds WHERE invoice_id = ?", (invoice_id,)
                )
            ).first()
        return int(row[0]) if row else 0
    finally:
        await ledger.close()


async def test_the_sdk_client_in_process(billing: Contract) -> None:
    async with Client(build_server(billing), mode="legacy") as client:
        call = await wire_of(client)
        await drive_refund(call, "sdk-in-process-0001")


async def test_drivable_serve_billing_over_stdio(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'stdio.sqlite'}"
    target = Target(command=(*CLI, "serve", "billing", "--store", url))
    with open(os.devnull, "w") as errlog:
        async with connect(target, mode="auto", errlog=errlog, read_timeout_seconds=60) as client:
            call = await wire_of(client)
            inv, _ = await drive_refund(call, "stdio-refund-0001")
    assert await count_refunds(url, inv) == 1  # the server's own file holds exactly one


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@contextmanager
def serving(url: str, logs: Path, workers: list[int]) -> Iterator[list[str]]:
    """`drivable serve billing --http --port N --workers W --store URL`, one subprocess per entry
    of `workers`, started together; yields their endpoints."""
    ports = [free_port() for _ in workers]
    processes = []
    for n, (port, count) in enumerate(zip(ports, workers, strict=True)):
        command = [
            *CLI, "serve", "billing", "--http", "--port", str(port), "--workers", str(count),
            "--store", url, "--insecure",
        ]  # fmt: skip
        with (logs / f"serve-{n}.log").open("wb") as sink:
            processes.append(subprocess.Popen(command, stdout=sink, stderr=subprocess.STDOUT))
    try:
        deadline = time.monotonic() + 90
        for n, (port, process) in enumerate(zip(ports, processes, strict=True)):
            while True:
                assert process.poll() is None, (logs / f"serve-{n}.log").read_text()[-2000:]
                assert time.monotonic() < deadline, "the server did not start"
                try:
                    with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                        break
                except OSError:
                    time.sleep(0.1)
        yield [f"http://127.0.0.1:{port}/mcp" for port in ports]
    finally:
        for process in processes:
            process.terminate()
        for process in processes:
            try:
                process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(timeout=15)


async def test_two_hundred_calls_over_http_on_four_processes_refund_once(
    pg_dsn: str, tmp_path: Path
) -> None:
    """Two servers of two workers each (four processes) share one PostgreSQL schema; 200
    concurrent confirmed refunds with one key, spread over 20 clients, refund exactly once."""
    with (
        throwaway_schema(pg_dsn) as url,
        serving(url, tmp_path, workers=[2, 2]) as (first, second),
    ):
        mode: Mode = "auto"
        with open(os.devnull, "w") as errlog:
            async with connect(Target(url=first), mode=mode, errlog=errlog) as client:
                call = await wire_of(client)
                inv = await a_paid(call)
                args = {
                    "invoice_id": inv,
                    "amount_cents": 3000,
                    "idempotency_key": "http-one-key-0001",
                }
                preview = await call("refund_invoice", args)
                confirmed = {**args, "dry_run": False, "confirm_token": token_of(preview)}

        async def client_burst(url: str) -> list[dict[str, Any]]:
            with open(os.devnull, "w") as errlog:
                async with connect(
                    Target(url=url), mode=mode, errlog=errlog, read_timeout_seconds=60
                ) as client:
                    call = await wire_of(client)

                    async def one() -> dict[str, Any]:
                        for _ in range(60):
                            out = await call("refund_invoice", confirmed)
                            if out.get("code") != "in_progress":
                                return out
                            await asyncio.sleep(out["retry_after_ms"] / 1000)
                        raise AssertionError("still in progress")

                    return await asyncio.gather(*(one() for _ in range(10)))

        bursts = await asyncio.gather(
            *(client_burst(first if n % 2 else second) for n in range(20))
        )
        results = [r for burst in bursts for r in burst]
        assert len(results) == 200
        assert all(not r["is_error"] for r in results), [r for r in results if r["is_error"]][:1]
        assert len({r["refund_id"] for r in results}) == 1
        assert sum(1 for r in results if not r.get("notes")) == 1  # one ran; 199 replayed
        assert await count_refunds(url, inv) == 1


async def test_resources_and_the_prompt_over_the_sdk_client(billing: Contract) -> None:
    billing.check()  # the prompt names real tools
    async with Client(build_server(billing), mode="legacy") as client:
        resources = (await client.list_resources()).resources
        assert [str(r.uri) for r in resources] == ["billing://summary"]
        summary = json.loads((await client.read_resource("billing://summary")).contents[0].text)  # type: ignore[union-attr]
        assert summary["does_not"] and summary["data"]["invoices"] == 240
        invoice = json.loads(
            (await client.read_resource("billing://invoices/inv_30001")).contents[0].text  # type: ignore[union-attr]
        )
        assert invoice["invoice_id"] == "inv_30001" and "lines" in invoice
        with pytest.raises(MCPError) as caught:
            await client.read_resource("billing://invoices/inv_nosuchthing")
        assert caught.value.error.data["machine_code"] == "not_found"
        assert caught.value.error.data["repair"]["tool"] == "find_invoices"
        rendered = await client.get_prompt(
            "refund_an_invoice", {"invoice": "inv_30001", "amount": "42 EUR"}
        )
        text = rendered.messages[0].content.text  # type: ignore[union-attr]
        assert "get_invoice" in text and "dry_run" in text and "inv_30001" in text


async def test_invoice_ids_complete(either: Contract) -> None:
    async with Client(build_server(either), mode="auto") as client:
        ref = types.ResourceTemplateReference(
            type="ref/resource", uri="billing://invoices/{invoice_id}"
        )
        done = await client.complete(ref, {"name": "invoice_id", "value": "INV_3000"})
        assert done.completion.values == [f"inv_{30001 + n}" for n in range(9)]
