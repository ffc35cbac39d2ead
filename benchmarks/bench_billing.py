"""The billing server: load time, call latency through the whole pipeline, and tools/list size.

- load: creating the tables and the generated data (120 customers, 1,200 invoices) in a fresh store.
- latency (in process, `Contract.call`: kinds, handler, effects, envelope), median and p95 in ms:
  find_invoices (mixed filters), get_invoice, a refund dry run, a confirmed refund (fresh key,
  receipt + spent token + business rows in one transaction) and its replay (same key).
- tools/list: the serialized catalog as a client receives it, in bytes and o200k tokens.

On SQLite always; on PostgreSQL when `DRIVABLE_PG_DSN` (or var/postgres.dsn) names a server.

    python -m benchmarks.bench_billing [--calls 200]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import statistics
import tempfile
import time
import uuid
from collections.abc import Awaitable, Callable
from contextlib import AsyncExitStack
from pathlib import Path
from typing import Any

from drivable.audit.tokens import count_json
from drivable.contract import Contract
from drivable.servers.billing import server
from drivable.servers.billing.ledger import Ledger

ROOT = Path(__file__).resolve().parents[1]


def percentiles(samples: list[float]) -> tuple[float, float]:
    ordered = sorted(samples)
    return statistics.median(ordered), ordered[min(len(ordered) - 1, int(len(ordered) * 0.95))]


async def timed(count: int, make: Callable[[int], Awaitable[Any]]) -> list[float]:
    out = []
    for n in range(count):
        start = time.perf_counter()
        await make(n)
        out.append((time.perf_counter() - start) * 1000)
    return out


async def ok(contract: Contract, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
    outcome = await contract.call(tool, arguments)
    if outcome.is_error:
        raise RuntimeError(f"{tool} failed in the benchmark: {outcome.structured.get('code')}")
    return outcome.structured


async def bench_store(label: str, url: str, calls: int) -> dict[str, tuple[float, float]]:
    ledger = Ledger(url)
    start = time.perf_counter()
    await ledger.prepare()
    load_ms = (time.perf_counter() - start) * 1000
    opened = AsyncExitStack()  # the contract's lifespan, open on this ledger until the end
    contract = await opened.enter_async_context(server.contract.started(ledger=ledger))
    rng = random.Random(5)
    paid = [
        r["invoice_id"]
        for r in (await ok(contract, "find_invoices", {"state": "paid", "limit": 50}))["results"]
        if r["refundable_cents"] >= 10 * calls
    ]

    def find(_: int) -> Awaitable[Any]:
        args: dict[str, Any] = {"limit": rng.choice(["10", 20, 50])}
        if rng.random() < 0.5:
            args["state"] = rng.choice(["paid", "open", "Void", "refunded"])
        if rng.random() < 0.4:
            args["date_from"] = rng.choice(["2025", "2026-01-01", "1. 3. 2026"])
        if rng.random() < 0.3:
            args["currency"] = rng.choice(["eur", "CZK", "usd"])
        if rng.random() < 0.2:
            args["detail"] = "full"
        return ok(contract, "find_invoices", args)

    results: dict[str, tuple[float, float]] = {}
    results["find_invoices"] = percentiles(await timed(calls, find))
    results["get_invoice"] = percentiles(
        await timed(
            calls, lambda n: ok(contract, "get_invoice", {"invoice_id": paid[n % len(paid)]})
        )
    )
    keys = [f"bench-{uuid.uuid4().hex}" for _ in range(calls)]

    def refund_args(n: int) -> dict[str, Any]:
        return {"invoice_id": paid[n % len(paid)], "amount_cents": 10, "idempotency_key": keys[n]}

    tokens: list[str] = []

    async def dry(n: int) -> None:
        preview = await ok(contract, "refund_invoice", {**refund_args(n), "dry_run": True})
        tokens.append(preview["next_call"]["arguments"]["confirm_token"])

    results["refund dry run"] = percentiles(await timed(calls, dry))

    def real(n: int) -> Awaitable[Any]:
        return ok(
            contract,
            "refund_invoice",
            {**refund_args(n), "dry_run": False, "confirm_token": tokens[n]},
        )

    results["refund confirmed"] = percentiles(await timed(calls, real))
    results["refund replay"] = percentiles(await timed(calls, real))
    await opened.aclose()
    await ledger.close()
    print(f"{label}: load {load_ms:.0f} ms")
    return results


async def tools_list_size(url: str) -> tuple[int, int]:
    from drivable.serve import build_server
    from drivable.target import Target, connect

    ledger = Ledger(url)
    async with (
        server.contract.started(ledger=ledger) as contract,
        connect(Target(server=build_server(contract)), mode="auto") as c,
    ):
        listed = await c.list_tools()
    await ledger.close()
    wire = listed.model_dump(mode="json", by_alias=True, exclude_none=True)
    text = json.dumps(wire, ensure_ascii=False, separators=(",", ":"))
    return len(text.encode()), count_json(wire)


def pg_dsn() -> str | None:
    dsn = os.environ.get("DRIVABLE_PG_DSN")
    if dsn:
        return dsn
    saved = ROOT / "var" / "postgres.dsn"
    return saved.read_text().strip() if saved.is_file() else None


async def run(calls: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        stores = [("sqlite", f"sqlite:///{Path(tmp) / 'billing.sqlite'}")]
        dsn = pg_dsn()
        schema = None
        if dsn:
            from urllib.parse import quote

            import psycopg

            schema = f"bench_{uuid.uuid4().hex[:10]}"
            try:
                with psycopg.connect(dsn, autocommit=True, connect_timeout=3) as conn:
                    conn.execute(f"CREATE SCHEMA {schema}")
                sep = "&" if "?" in dsn else "?"
                stores.append(
                    ("postgresql", f"{dsn}{sep}options={quote(f'-csearch_path={schema}')}")
                )
            except psycopg.Error:
                print("postgresql: not reachable, skipped")
                schema = None
        try:
            for label, url in stores:
                for tool, (median, p95) in (await bench_store(label, url, calls)).items():
                    print(f"{label:10} {tool:18} median {median:7.2f} ms   p95 {p95:7.2f} ms")
            size, tokens = await tools_list_size(stores[0][1])
            print(f"tools/list: {size} bytes, {tokens} o200k tokens")
        finally:
            if schema and dsn:
                import psycopg

                with psycopg.connect(dsn, autocommit=True) as conn:
                    conn.execute(f"DROP SCHEMA {schema} CASCADE")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--calls", type=int, default=200)
    options = parser.parse_args(argv if argv is not None else [])
    asyncio.run(run(options.calls))
    return 0


if __name__ == "__main__":
    import sys

    raise SystemExit(main(sys.argv[1:]))
