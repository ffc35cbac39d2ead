"""The store's connection pool serves callers in the order they came: a released connection goes
to the longest-waiting caller, never to one that arrived after it; a caller that gives up leaves
the queue and loses nothing; a waiter on another thread's event loop is woken there.
"""

from __future__ import annotations

import threading
from pathlib import Path

import anyio
import pytest

from drivable.effects.pool import _Pool
from drivable.effects.sqlite import SqliteBackend


def pool_of(tmp_path: Path, size: int) -> _Pool:
    return _Pool(SqliteBackend(tmp_path / "pool.sqlite", max_connections=size))


@pytest.mark.parametrize("size", [1, 3])
async def test_a_released_connection_goes_to_the_longest_waiter(tmp_path: Path, size: int) -> None:
    pool = pool_of(tmp_path, size)
    held = [await pool.acquire() for _ in range(size)]
    order: list[str] = []

    async def take(name: str) -> None:
        conn = await pool.acquire()
        order.append(name)
        await anyio.sleep(0.02)
        pool.release(conn)

    async with anyio.create_task_group() as group:
        for name in ("a", "b", "c", "d"):
            group.start_soon(take, name)
            await anyio.sleep(0.01)  # queued one after the other
        for conn in held:
            pool.release(conn)
        for name in ("x", "y"):  # late: they find a released connection but queue behind
            group.start_soon(take, name)
    assert order[:4] == ["a", "b", "c", "d"] and sorted(order[4:]) == ["x", "y"], order
    pool.close()


async def test_a_caller_that_gives_up_leaves_the_queue_and_nothing_leaks(tmp_path: Path) -> None:
    pool = pool_of(tmp_path, 1)
    held = await pool.acquire()
    with anyio.move_on_after(0.05):
        await pool.acquire()  # gives up while queued
    got: list[object] = []

    async def take() -> None:
        got.append(await pool.acquire())

    async with anyio.create_task_group() as group:
        group.start_soon(take)
        await anyio.sleep(0.01)
        pool.release(held)
    assert got == [held]  # the one who gave up did not swallow it
    pool.release(got[0])
    assert pool._count == 1 and len(pool._idle) == 1 and not pool._waiters
    pool.close()


async def test_a_waiter_on_another_threads_loop_is_woken_there(tmp_path: Path) -> None:
    pool = pool_of(tmp_path, 1)
    held = await pool.acquire()
    got: list[object] = []
    queued = threading.Event()

    def other_thread() -> None:
        async def take() -> None:
            async with anyio.create_task_group() as group:
                group.start_soon(lambda: _append(got, pool))
                await anyio.sleep(0.05)
                queued.set()

        anyio.run(take)

    thread = threading.Thread(target=other_thread)
    thread.start()
    await anyio.to_thread.run_sync(queued.wait)
    pool.release(held)  # from this loop: delivered on the other one
    await anyio.to_thread.run_sync(thread.join, 10)
    assert got == [held]
    pool.close()


async def _append(got: list[object], pool: _Pool) -> None:
    conn = await pool.acquire()
    got.append(conn)
    pool.release(conn)


async def test_a_read_never_waits_behind_writers_waiting_for_the_write_lock(tmp_path: Path) -> None:
    """Writers queued on SQLite's write lock hold every write connection; a read-only tool's
    transaction still reads at once, from a connection of its own, while the lock is held."""
    import sqlite3

    from drivable.effects import SqliteStore
    from drivable.effects.backend import READING

    store = SqliteStore(tmp_path / "reads.sqlite", max_connections=2, busy_timeout_s=5.0)
    async with store.transaction() as tx:
        await tx.execute("CREATE TABLE t (x INTEGER)")
        await tx.execute("INSERT INTO t VALUES (1)")
    locker = sqlite3.connect(tmp_path / "reads.sqlite", isolation_level=None)
    locker.execute("BEGIN IMMEDIATE")  # another process's long write
    events: list[str] = []

    async def write(n: int) -> None:
        async with store.transaction() as tx:  # waits for the lock, holding a connection
            await tx.execute("INSERT INTO t VALUES (?)", (n,))
        events.append("write")

    async def read() -> None:
        token = READING.set(True)
        try:
            async with store.transaction() as tx:
                rows = await tx.execute("SELECT COUNT(*) FROM t")
            events.append(f"read {rows.first()}")
        finally:
            READING.reset(token)

    async with anyio.create_task_group() as group:
        for n in (2, 3, 4):  # more writers than write connections
            group.start_soon(write, n)
        await anyio.sleep(0.2)
        with anyio.fail_after(4):  # well inside the writers' 5 s wait for the lock
            await read()
        events.append("lock released")
        locker.execute("COMMIT")
    locker.close()
    assert events[:2] == ["read (1,)", "lock released"], events
    assert events.count("write") == 3
    await store.close()
