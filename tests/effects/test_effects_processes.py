"""Exactly once across OS processes, and after a kill -9 in the middle of a mutation."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import anyio
import pytest

from drivable.effects import Executed, Replay, SqlEffectStore, Transaction, open_store

WORKER = Path(__file__).parent / "effects_worker.py"
ARGS = {"invoice_id": "inv_1", "amount_cents": 4200}


async def make_refunds_table(url: str) -> None:
    store = open_store(url)
    try:
        async with store.transaction() as tx:
            await tx.execute(
                "CREATE TABLE IF NOT EXISTS refunds ("
                " id TEXT PRIMARY KEY, invoice_id TEXT NOT NULL, amount_cents INTEGER NOT NULL)"
            )
    finally:
        await store.close()


async def count_refunds(url: str) -> int:
    store = open_store(url)
    try:
        async with store.transaction() as tx:
            row = (await tx.execute("SELECT COUNT(*) FROM refunds")).first()
    finally:
        await store.close()
    assert row is not None
    return int(row[0])


def spawn(*args: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, str(WORKER), *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )


def race_across_processes(url: str, tmp_path: Path, processes: int, calls: int) -> list[Any]:
    go = tmp_path / "go"
    procs = [spawn("race", url, "key-1", str(calls), str(go)) for _ in range(processes)]
    try:
        for p in procs:
            assert p.stdout is not None
            assert p.stdout.readline().strip() == "ready"
        go.touch()
        lines: list[Any] = []
        for p in procs:
            out, err = p.communicate(timeout=120)
            assert p.returncode == 0, err[-2000:]
            lines += [json.loads(line) for line in out.splitlines() if line.strip()]
        return lines
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()


def assert_exactly_once(lines: list[Any], total: int) -> None:
    assert len(lines) == total
    kinds = Counter(line["kind"] for line in lines)
    assert kinds == {"Executed": 1, "Replay": total - 1}, kinds
    assert len({json.dumps(line["result"], sort_keys=True) for line in lines}) == 1


async def test_200_calls_over_4_processes_sharing_postgres(pg_dsn: str, tmp_path: Path) -> None:
    from tests.effects.effects_pg import throwaway_schema

    with throwaway_schema(pg_dsn) as url:
        await make_refunds_table(url)
        lines = await anyio.to_thread.run_sync(race_across_processes, url, tmp_path, 4, 50)
        assert_exactly_once(lines, 200)
        assert await count_refunds(url) == 1


async def test_calls_over_3_processes_sharing_one_sqlite_file(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'shared.db'}"
    await make_refunds_table(url)
    lines = await anyio.to_thread.run_sync(race_across_processes, url, tmp_path, 3, 40)
    assert_exactly_once(lines, 120)
    assert await count_refunds(url) == 1


async def test_200_concurrent_tasks_one_sqlite_store(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'one.db'}"
    await make_refunds_table(url)
    store: SqlEffectStore = open_store(url)
    results: list[Any] = []

    async def effect(tx: Transaction) -> dict[str, Any]:
        await tx.execute(
            "INSERT INTO refunds (id, invoice_id, amount_cents) VALUES ('rf_1', 'inv_1', 4200)"
        )
        await anyio.sleep(0.05)
        return {"refund_id": "rf_1"}

    async def call() -> None:
        results.append(
            await store.run_idempotent(
                tool="refund", principal="p", key="k", arguments=ARGS, effect=effect, wait_s=60
            )
        )

    try:
        async with anyio.create_task_group() as tg:
            for _ in range(200):
                tg.start_soon(call)
    finally:
        await store.close()
    assert Counter(type(r).__name__ for r in results) == {"Executed": 1, "Replay": 199}
    assert await count_refunds(url) == 1


def run_crash(url: str, phase: str) -> Any:
    p = spawn("crash", url, "key-crash", phase)
    try:
        assert p.stdout is not None
        line = p.stdout.readline().strip()
        assert line.startswith("inside" if phase == "mid" else "done"), p.stderr
        os.kill(p.pid, signal.SIGKILL)
        p.wait(timeout=30)
        assert p.returncode == -signal.SIGKILL
        return json.loads(line[len("done ") :]) if phase == "after" else None
    finally:
        if p.poll() is None:
            p.kill()


async def retry(url: str) -> Any:
    store = open_store(url)

    async def effect(tx: Transaction) -> dict[str, Any]:
        await tx.execute(
            "INSERT INTO refunds (id, invoice_id, amount_cents) VALUES ('rf_retry', 'inv_1', 4200)"
        )
        return {"status": "refunded", "refund_id": "rf_retry", "pid": os.getpid()}

    try:
        return await store.run_idempotent(
            tool="refund", principal="p", key="key-crash", arguments=ARGS, effect=effect, wait_s=10
        )
    finally:
        await store.close()


@pytest.fixture
def crash_url(store_url: str) -> str:
    return store_url


async def test_kill_9_mid_mutation_then_retry_runs_the_effect_once(crash_url: str) -> None:
    await make_refunds_table(crash_url)
    await anyio.to_thread.run_sync(run_crash, crash_url, "mid")
    assert await count_refunds(crash_url) == 0  # the partial effect died with its transaction
    out = await retry(crash_url)
    assert isinstance(out, Executed), out
    assert out.recovered is True  # took the abandoned claim over after its lease
    assert out.result["refund_id"] == "rf_retry"
    assert await count_refunds(crash_url) == 1
    again = await retry(crash_url)
    assert isinstance(again, Replay) and again.result == out.result
    assert await count_refunds(crash_url) == 1


async def test_kill_9_after_commit_then_retry_replays(crash_url: str) -> None:
    await make_refunds_table(crash_url)
    result = await anyio.to_thread.run_sync(run_crash, crash_url, "after")
    out = await retry(crash_url)
    assert isinstance(out, Replay), out
    assert out.result == result
    assert await count_refunds(crash_url) == 1


def kill_at_random_moments(url: str, rounds: int, seed: int) -> None:
    import random

    rng = random.Random(seed)
    for _ in range(rounds):
        p = spawn("loop", url, "key")
        try:
            assert p.stdout is not None
            assert p.stdout.readline().strip() == "started"
            import time

            time.sleep(rng.uniform(0.2, 0.8))
            os.kill(p.pid, signal.SIGKILL)
            p.wait(timeout=30)
        finally:
            if p.poll() is None:
                p.kill()


async def test_repeated_kill_9_never_duplicates_an_effect(crash_url: str) -> None:
    """A worker mutating key after key is killed at random moments, again and again, restarting
    from the first key each time (every earlier call is retried). Then every key is retried once
    more. Each key's effect exists exactly once and matches its receipt."""
    store = open_store(crash_url)
    try:
        async with store.transaction() as tx:
            await tx.execute("CREATE TABLE keyed_effects (id TEXT PRIMARY KEY, key TEXT NOT NULL)")
        await anyio.to_thread.run_sync(kill_at_random_moments, crash_url, 6, 20261129)
        async with store.transaction() as tx:
            counts = dict(
                (await tx.execute("SELECT key, COUNT(*) FROM keyed_effects GROUP BY key")).rows
            )
        assert counts, "the worker never got to write"
        assert max(counts.values()) == 1, counts
        n = max(int(k.rsplit("-", 1)[1]) for k in counts) + 2
        for i in range(n):
            key = f"key-{i}"

            async def effect(tx: Transaction, key: str = key) -> dict[str, Any]:
                await tx.execute(
                    "INSERT INTO keyed_effects (id, key) VALUES (?, ?)", (f"final-{key}", key)
                )
                return {"key": key}

            out = await store.run_idempotent(
                tool="t", principal="p", key=key, arguments={"n": i}, effect=effect, wait_s=10
            )
            assert isinstance(out, Executed | Replay) and out.result == {"key": key}
            if key in counts:
                assert isinstance(out, Replay), key  # its effect exists: it must not run again
        async with store.transaction() as tx:
            final = dict(
                (await tx.execute("SELECT key, COUNT(*) FROM keyed_effects GROUP BY key")).rows
            )
        assert final == {f"key-{i}": 1 for i in range(n)}
    finally:
        await store.close()
