"""The cost of idempotency receipts per mutation, on SQLite and PostgreSQL, in one run.

For each store the same mutation (insert one refund row) runs three ways, interleaved in rounds so
that drift hits all three alike:

- plain:    ``store.transaction()`` + the insert (the same tool without receipts);
- receipt:  ``store.run_idempotent`` with a fresh key (claim, effect + receipt in one transaction);
- replay:   ``store.run_idempotent`` with a key already used (the retry a model sends).

Each store runs twice: durable (SQLite synchronous=FULL; PostgreSQL synchronous_commit=on: one
flush per commit, the defaults) and without the flush (SQLite NORMAL; synchronous_commit=off),
which shows the pure round-trip and CPU cost when the shared disk is noisy.

Prints per-operation medians and the ratios receipt/plain and replay/plain. PostgreSQL comes from
DRIVABLE_PG_DSN or ``scripts/ensure-postgres.sh``; it is skipped (said so) when neither works.

    python -m benchmarks.bench_effects [--rounds 20 --per-round 25]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

import anyio

from drivable.effects import Executed, Replay, SqlEffectStore, Transaction, open_store

ROOT = Path(__file__).resolve().parents[1]
ARGS = {"invoice_id": "inv_1", "amount_cents": 4200}


def postgres_dsn() -> str | None:
    dsn = os.environ.get("DRIVABLE_PG_DSN")
    if dsn:
        return dsn
    proc = subprocess.run(
        ["bash", str(ROOT / "scripts" / "ensure-postgres.sh")],
        capture_output=True,
        text=True,
        check=False,
    )
    if proc.returncode != 0:
        print(f"   postgresql: skipped ({proc.stderr.strip().splitlines()[-1:]})")
        return None
    return proc.stdout.strip().splitlines()[-1]


async def insert(tx: Transaction) -> dict[str, Any]:
    refund_id = f"rf_{uuid.uuid4().hex}"
    await tx.execute(
        "INSERT INTO bench_refunds (id, invoice_id, amount_cents) VALUES (?, ?, ?)",
        (refund_id, ARGS["invoice_id"], ARGS["amount_cents"]),
    )
    return {"status": "refunded", "refund_id": refund_id, "amount_cents": ARGS["amount_cents"]}


async def measure(store: SqlEffectStore, rounds: int, per_round: int) -> dict[str, list[float]]:
    async with store.transaction() as tx:
        await tx.execute(
            "CREATE TABLE IF NOT EXISTS bench_refunds ("
            " id TEXT PRIMARY KEY, invoice_id TEXT NOT NULL, amount_cents INTEGER NOT NULL)"
        )
    replay_key = "bench-replay"
    first = await store.run_idempotent(
        tool="refund", principal="bench", key=replay_key, arguments=ARGS, effect=insert
    )
    assert isinstance(first, Executed | Replay)
    times: dict[str, list[float]] = {"plain": [], "receipt": [], "replay": []}

    async def plain() -> None:
        async with store.transaction() as tx:
            await insert(tx)

    async def receipt() -> None:
        out = await store.run_idempotent(
            tool="refund", principal="bench", key=uuid.uuid4().hex, arguments=ARGS, effect=insert
        )
        assert isinstance(out, Executed)

    async def replay() -> None:
        out = await store.run_idempotent(
            tool="refund", principal="bench", key=replay_key, arguments=ARGS, effect=insert
        )
        assert isinstance(out, Replay)

    ops = [("plain", plain), ("receipt", receipt), ("replay", replay)]
    for _ in range(3):  # warm the pool, the page cache and the plans
        for _name, op in ops:
            await op()
    # Interleave operation by operation, rotating the order, so that the (noisy, shared) disk
    # and CPU hit the three alike.
    for i in range(rounds * per_round):
        k = i % len(ops)
        for name, op in ops[k:] + ops[:k]:
            t0 = time.perf_counter()
            await op()
            times[name].append(time.perf_counter() - t0)
    return times


def report(kind: str, times: dict[str, list[float]]) -> dict[str, float]:
    med = {k: statistics.median(v) for k, v in times.items()}
    n = len(times["plain"])
    ratios = {
        "receipt/plain": med["receipt"] / med["plain"],
        "replay/plain": med["replay"] / med["plain"],
    }
    print(
        f"   {kind:<24} n={n:<5} plain {med['plain'] * 1e3:7.3f} ms   "
        f"receipt {med['receipt'] * 1e3:7.3f} ms   replay {med['replay'] * 1e3:7.3f} ms   "
        f"receipt/plain {ratios['receipt/plain']:5.2f}x   "
        f"replay/plain {ratios['replay/plain']:5.2f}x"
    )
    return ratios


async def run(rounds: int, per_round: int) -> None:
    with tempfile.TemporaryDirectory(prefix="drivable-bench-") as tmp:
        for label, sync in (("sqlite (durable)", "FULL"), ("sqlite (no flush)", "NORMAL")):
            store = open_store(f"sqlite:///{tmp}/bench-{sync}.db", synchronous=sync)
            try:
                report(label, await measure(store, rounds, per_round))
            finally:
                await store.close()
    dsn = postgres_dsn()
    if dsn is None:
        return
    import psycopg

    schema = f"bench_{uuid.uuid4().hex[:10]}"
    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute(f"CREATE SCHEMA {schema}")
    try:
        sep = "&" if "?" in dsn else "?"
        base = f"{dsn}{sep}options=-csearch_path%3D{schema}"
        for label, extra in (
            ("postgresql (durable)", ""),
            ("postgresql (no flush)", "%20-csynchronous_commit%3Doff"),
        ):
            store = open_store(base + extra)
            try:
                report(label, await measure(store, rounds, per_round))
            finally:
                await store.close()
    finally:
        with psycopg.connect(dsn, autocommit=True) as conn:
            conn.execute(f"DROP SCHEMA {schema} CASCADE")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--rounds", type=int, default=20)
    parser.add_argument("--per-round", type=int, default=25)
    args = parser.parse_args(argv if argv is not None else [])
    print("   cost of receipts per mutation: medians of one run; durable = fsync per commit")
    anyio.run(run, args.rounds, args.per_round)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
