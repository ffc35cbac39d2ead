"""One suite, both stores (SQLite file, real PostgreSQL): receipts, replay, mismatch, in progress,
rollback, scoping, expiry, upsert, version preconditions, nonces."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import anyio
import pytest

from drivable.effects import (
    Executed,
    InProgress,
    Mismatch,
    NewClaim,
    NotFound,
    Replay,
    SqlEffectStore,
    StoreUnavailable,
    Transaction,
    TransactionEnded,
    Updated,
    VersionConflict,
    open_store,
)

REFUND = {"invoice_id": "inv_1", "amount_cents": 4200, "idempotency_key": "k1"}


async def make_refunds_table(store: SqlEffectStore) -> None:
    async with store.transaction() as tx:
        await tx.execute(
            "CREATE TABLE IF NOT EXISTS refunds ("
            " id TEXT PRIMARY KEY, invoice_id TEXT NOT NULL, amount_cents INTEGER NOT NULL)"
        )


async def count_refunds(store: SqlEffectStore) -> int:
    async with store.transaction() as tx:
        row = (await tx.execute("SELECT COUNT(*) FROM refunds")).first()
    assert row is not None
    return int(row[0])


def refund_effect(
    refund_id: str, args: dict[str, Any] = REFUND
) -> Callable[[Transaction], Awaitable[dict[str, Any]]]:
    async def effect(tx: Transaction) -> dict[str, Any]:
        await tx.execute(
            "INSERT INTO refunds (id, invoice_id, amount_cents) VALUES (?, ?, ?)",
            (refund_id, args["invoice_id"], args["amount_cents"]),
        )
        return {"status": "refunded", "refund_id": refund_id, "amount_cents": 4200}

    return effect


async def test_first_call_executes_and_retry_replays(store: SqlEffectStore) -> None:
    await make_refunds_table(store)
    first = await store.run_idempotent(
        tool="refund", principal="alice", key="k1", arguments=REFUND, effect=refund_effect("rf_1")
    )
    assert isinstance(first, Executed)
    assert first.replayed is False
    # The model resends everything, control fields differ: still the same call.
    again = {**REFUND, "dry_run": False, "confirm_token": "whatever"}
    second = await store.run_idempotent(
        tool="refund", principal="alice", key="k1", arguments=again, effect=refund_effect("rf_2")
    )
    assert isinstance(second, Replay)
    assert second.replayed is True
    assert second.result == first.result
    assert await count_refunds(store) == 1
    receipt = await store.receipt(tool="refund", principal="alice", key="k1")
    assert receipt is not None and receipt.state == "done"


async def test_same_key_other_arguments_is_a_mismatch_naming_fields(
    store: SqlEffectStore,
) -> None:
    await make_refunds_table(store)
    args = {**REFUND, "meta": {"reason": "dup", "tags": ["a", "b"]}}
    await store.run_idempotent(
        tool="refund", principal="alice", key="k1", arguments=args, effect=refund_effect("rf_1")
    )
    changed = {**args, "amount_cents": 4300, "meta": {"reason": "dup", "tags": ["a", "c"]}}
    out = await store.run_idempotent(
        tool="refund", principal="alice", key="k1", arguments=changed, effect=refund_effect("x")
    )
    assert isinstance(out, Mismatch)
    assert out.code == "idempotency_mismatch"
    assert out.fields == ("amount_cents", "meta.tags.1")
    assert await count_refunds(store) == 1


async def test_numbers_are_normalised_in_the_digest(store: SqlEffectStore) -> None:
    await make_refunds_table(store)
    await store.run_idempotent(
        tool="refund", principal="a", key="k", arguments=REFUND, effect=refund_effect("rf_1")
    )
    out = await store.run_idempotent(
        tool="refund",
        principal="a",
        key="k",
        arguments={**REFUND, "amount_cents": 4200.0},
        effect=refund_effect("rf_2"),
    )
    assert isinstance(out, Replay)


async def test_exception_rolls_back_effect_and_releases_key(store: SqlEffectStore) -> None:
    await make_refunds_table(store)

    async def failing(tx: Transaction) -> dict[str, Any]:
        await refund_effect("rf_1")(tx)
        raise RuntimeError("upstream refused")

    with pytest.raises(RuntimeError):
        await store.run_idempotent(
            tool="refund", principal="a", key="k", arguments=REFUND, effect=failing
        )
    assert await count_refunds(store) == 0
    assert await store.receipt(tool="refund", principal="a", key="k") is None
    out = await store.run_idempotent(
        tool="refund", principal="a", key="k", arguments=REFUND, effect=refund_effect("rf_2")
    )
    assert isinstance(out, Executed) and out.result["refund_id"] == "rf_2"
    assert await count_refunds(store) == 1


async def test_leaving_without_record_changes_nothing_and_frees_the_key(
    store: SqlEffectStore,
) -> None:
    await make_refunds_table(store)
    async with store.idempotent(tool="refund", principal="a", key="k", arguments=REFUND) as claim:
        assert isinstance(claim, NewClaim)
        await refund_effect("rf_1")(claim.transaction)  # written, then a domain refusal
    assert await count_refunds(store) == 0
    assert await store.receipt(tool="refund", principal="a", key="k") is None


async def test_cancellation_rolls_back(store: SqlEffectStore) -> None:
    await make_refunds_table(store)
    with anyio.move_on_after(0.3):
        async with store.idempotent(
            tool="refund", principal="a", key="k", arguments=REFUND
        ) as claim:
            assert isinstance(claim, NewClaim)
            await refund_effect("rf_1")(claim.transaction)
            await anyio.sleep(5)
            claim.record({"never": True})
    assert await count_refunds(store) == 0
    assert await store.receipt(tool="refund", principal="a", key="k") is None


async def test_receipts_are_scoped_per_principal_and_tool(store: SqlEffectStore) -> None:
    await make_refunds_table(store)
    a = await store.run_idempotent(
        tool="refund", principal="alice", key="k", arguments=REFUND, effect=refund_effect("rf_a")
    )
    b = await store.run_idempotent(
        tool="refund", principal="bob", key="k", arguments=REFUND, effect=refund_effect("rf_b")
    )
    c = await store.run_idempotent(
        tool="refund_v2", principal="alice", key="k", arguments=REFUND, effect=refund_effect("rf_c")
    )
    assert isinstance(a, Executed) and isinstance(b, Executed) and isinstance(c, Executed)
    assert {a.result["refund_id"], b.result["refund_id"], c.result["refund_id"]} == {
        "rf_a",
        "rf_b",
        "rf_c",
    }
    # Bob's arguments differ but it is his own key: never a mismatch against Alice's receipt.
    assert await store.receipt(tool="refund", principal="mallory", key="k") is None


async def test_second_call_waits_then_reports_in_progress(store: SqlEffectStore) -> None:
    await make_refunds_table(store)
    async with store.idempotent(tool="refund", principal="a", key="k", arguments=REFUND) as claim:
        assert isinstance(claim, NewClaim)
        await refund_effect("rf_1")(claim.transaction)
        started = anyio.current_time()
        out = await store.run_idempotent(
            tool="refund",
            principal="a",
            key="k",
            arguments=REFUND,
            effect=refund_effect("rf_2"),
            wait_s=0.3,
        )
        assert anyio.current_time() - started >= 0.3
        assert isinstance(out, InProgress)
        assert out.code == "in_progress" and out.temporary and out.retry_after_ms > 0
        # Different arguments under a running key: the mismatch is known without waiting.
        other = {**REFUND, "amount_cents": 1}
        async with store.idempotent(
            tool="refund", principal="a", key="k", arguments=other, wait_s=0
        ) as mismatch:
            assert isinstance(mismatch, Mismatch) and mismatch.fields == ("amount_cents",)
        claim.record({"refund_id": "rf_1"})
    assert await count_refunds(store) == 1


async def test_a_waiting_call_gets_the_replay_when_the_first_finishes(
    store: SqlEffectStore,
) -> None:
    await make_refunds_table(store)
    results: list[Any] = []

    async def slow(tx: Transaction) -> dict[str, Any]:
        out = await refund_effect("rf_1")(tx)
        await anyio.sleep(0.3)
        return out

    async def call(effect: Any) -> None:
        results.append(
            await store.run_idempotent(
                tool="refund", principal="a", key="k", arguments=REFUND, effect=effect, wait_s=10
            )
        )

    async with anyio.create_task_group() as tg:
        tg.start_soon(call, slow)
        await anyio.sleep(0.05)
        tg.start_soon(call, refund_effect("rf_2"))
    kinds = sorted(type(r).__name__ for r in results)
    assert kinds == ["Executed", "Replay"]
    assert results[0].result == results[1].result
    assert await count_refunds(store) == 1


async def test_many_concurrent_tasks_one_key_execute_once(store: SqlEffectStore) -> None:
    await make_refunds_table(store)
    results: list[Any] = []
    counter = iter(range(1000))

    async def effect(tx: Transaction) -> dict[str, Any]:
        return await refund_effect(f"rf_{next(counter)}")(tx)

    async def call() -> None:
        results.append(
            await store.run_idempotent(
                tool="refund", principal="a", key="k", arguments=REFUND, effect=effect, wait_s=30
            )
        )

    async with anyio.create_task_group() as tg:
        for _ in range(60):
            tg.start_soon(call)
    assert sum(isinstance(r, Executed) for r in results) == 1
    assert sum(isinstance(r, Replay) for r in results) == 59
    assert len({r.result["refund_id"] for r in results}) == 1
    assert await count_refunds(store) == 1


INSERT_REFUND = "INSERT INTO refunds (id, invoice_id, amount_cents) VALUES (?, ?, ?)"


async def test_statements_sent_at_once_by_one_effect_all_land_in_its_transaction(
    store: SqlEffectStore,
) -> None:
    await make_refunds_table(store)

    async def effect(tx: Transaction) -> dict[str, Any]:
        async with anyio.create_task_group() as tg:
            for n in range(40):
                tg.start_soon(tx.execute, INSERT_REFUND, (f"rf_{n}", "inv_1", n))
                tg.start_soon(tx.execute, "SELECT COUNT(*) FROM refunds")
        return {"refunds": 40}

    out = await store.run_idempotent(
        tool="refund", principal="a", key="k", arguments=REFUND, effect=effect
    )
    assert isinstance(out, Executed)
    assert await count_refunds(store) == 40


async def test_a_statement_after_its_transaction_ended_is_refused_and_writes_nothing(
    store: SqlEffectStore,
) -> None:
    """A task an effect started and did not wait for must not write outside the transaction
    (on a connection back in the pool, where it would commit on its own)."""
    await make_refunds_table(store)
    kept: list[Transaction] = []

    async def effect(tx: Transaction) -> dict[str, Any]:
        kept.append(tx)
        return {"status": "refunded"}

    await store.run_idempotent(
        tool="refund", principal="a", key="k", arguments=REFUND, effect=effect
    )
    async with store.transaction() as tx:
        kept.append(tx)
    for tx in kept:
        with pytest.raises(TransactionEnded):
            await tx.execute(INSERT_REFUND, ("rf_late", "inv_1", 1))
    assert await count_refunds(store) == 0


async def test_receipts_expire_after_the_window_and_are_purged(store_url: str) -> None:
    now = [1_000_000.0]
    store = open_store(store_url, clock=lambda: now[0])
    try:
        await make_refunds_table(store)
        first = await store.run_idempotent(
            tool="refund",
            principal="a",
            key="k",
            arguments=REFUND,
            effect=refund_effect("rf_1"),
            window_s=60,
        )
        assert isinstance(first, Executed)
        now[0] += 59
        replay = await store.run_idempotent(
            tool="refund", principal="a", key="k", arguments=REFUND, effect=refund_effect("x")
        )
        assert isinstance(replay, Replay)
        now[0] += 2
        assert await store.purge_expired() == 1
        assert await store.receipt(tool="refund", principal="a", key="k") is None
        # After the window the key is free again: the call runs anew (declared behaviour).
        again = await store.run_idempotent(
            tool="refund", principal="a", key="k", arguments=REFUND, effect=refund_effect("rf_2")
        )
        assert isinstance(again, Executed)
    finally:
        await store.close()


async def test_an_expired_receipt_is_replaced_without_purge(store_url: str) -> None:
    now = [1_000_000.0]
    store = open_store(store_url, clock=lambda: now[0], purge_interval_s=1e9)
    try:
        await make_refunds_table(store)
        await store.run_idempotent(
            tool="refund", principal="a", key="k", arguments=REFUND, effect=refund_effect("rf_1")
        )
        now[0] += 86_400 + 1
        other = {**REFUND, "amount_cents": 1}
        out = await store.run_idempotent(
            tool="refund", principal="a", key="k", arguments=other, effect=refund_effect("rf_2")
        )
        assert isinstance(out, Executed)
    finally:
        await store.close()


async def test_upsert_on_a_stable_id(store: SqlEffectStore) -> None:
    async with store.transaction() as tx:
        await tx.execute("CREATE TABLE customers (id TEXT PRIMARY KEY, name TEXT, plan TEXT)")
    async with store.transaction() as tx:
        first = await tx.upsert("customers", {"id": "c1"}, {"name": "Ada", "plan": "free"})
        second = await tx.upsert("customers", {"id": "c1"}, {"name": "Ada", "plan": "pro"})
        assert first.created and not second.created
        rows = (await tx.execute("SELECT id, name, plan FROM customers")).rows
    assert rows == [("c1", "Ada", "pro")]
    with pytest.raises(ValueError):
        async with store.transaction() as tx:
            await tx.upsert("customers; DROP TABLE x", {"id": "c1"}, {})


async def test_compare_and_set_reports_a_conflict_with_the_current_version(
    store: SqlEffectStore,
) -> None:
    async with store.transaction() as tx:
        await tx.execute(
            "CREATE TABLE invoices (id TEXT PRIMARY KEY, memo TEXT, version INTEGER NOT NULL)"
        )
        await tx.execute("INSERT INTO invoices VALUES ('inv_1', 'a', 3)")
    async with store.transaction() as tx:
        ok = await tx.compare_and_set(
            "invoices", key={"id": "inv_1"}, expected_version=3, values={"memo": "b"}
        )
        assert ok == Updated(version=4)
        stale = await tx.compare_and_set(
            "invoices",
            key={"id": "inv_1"},
            expected_version=3,
            values={"memo": "c"},
            reread_tool="get_invoice",
            reread_arguments={"invoice_id": "inv_1"},
        )
        assert isinstance(stale, VersionConflict)
        assert stale.code == "conflict" and stale.current == 4 and stale.expected == 3
        assert stale.reread_tool == "get_invoice"
        missing = await tx.compare_and_set(
            "invoices", key={"id": "nope"}, expected_version=1, values={"memo": "x"}
        )
        assert isinstance(missing, NotFound)
        memo = (await tx.execute("SELECT memo FROM invoices")).rows
    assert memo == [("b",)]


async def test_nonces_are_single_use_and_roll_back_with_their_transaction(
    store: SqlEffectStore,
) -> None:
    assert await store.use_nonce("n1", 2e9) is True
    assert await store.use_nonce("n1", 2e9) is False
    with pytest.raises(RuntimeError):
        async with store.transaction() as tx:
            assert await store.use_nonce("n2", 2e9, transaction=tx) is True
            raise RuntimeError("effect failed")
    assert await store.use_nonce("n2", 2e9) is True


async def test_driver_errors_in_effect_code_propagate_and_roll_back(
    store: SqlEffectStore,
) -> None:
    await make_refunds_table(store)

    async def duplicate(tx: Transaction) -> dict[str, Any]:
        await refund_effect("rf_1")(tx)
        await refund_effect("rf_1")(tx)  # primary key violation: the caller's bug
        return {}

    with pytest.raises(Exception) as info:
        await store.run_idempotent(
            tool="refund", principal="a", key="k", arguments=REFUND, effect=duplicate
        )
    assert "Integrity" in type(info.value).__name__ or "Unique" in type(info.value).__name__
    assert await count_refunds(store) == 0
    assert await store.receipt(tool="refund", principal="a", key="k") is None


def test_open_store_urls(tmp_path: Any) -> None:
    s = open_store(f"sqlite:///{tmp_path}/a/b.db")
    assert s.dialect == "sqlite"
    assert open_store("postgresql://u@127.0.0.1:1/x").dialect == "postgresql"
    with pytest.raises(ValueError):
        open_store("mysql://x")
    with pytest.raises(ValueError):
        open_store("sqlite://relative.db")


def _assert_safe(outcome: StoreUnavailable) -> None:
    text = repr(outcome) + outcome.message
    for leak in ("SELECT", "INSERT", "sqlite", "psycopg", "/", "Traceback", "connection"):
        assert leak not in text


async def test_unreachable_postgres_is_store_unavailable() -> None:
    store = open_store("postgresql://postgres@127.0.0.1:1/none", connect_timeout_s=1)
    try:
        out = await store.run_idempotent(
            tool="refund", principal="a", key="k", arguments=REFUND, effect=refund_effect("x")
        )
        assert isinstance(out, StoreUnavailable)
        assert out.temporary and out.retry_after_ms > 0 and out.reason == "unreachable"
        _assert_safe(out)
    finally:
        await store.close()


async def test_read_only_sqlite_file_is_store_unavailable(tmp_path: Any) -> None:
    path = tmp_path / "ro.db"
    store = open_store(f"sqlite:///{path}")
    await make_refunds_table(store)
    await store.close()
    path.chmod(0o444)
    (tmp_path).chmod(0o555)
    try:
        import os

        if os.geteuid() == 0:
            pytest.skip("root ignores file permissions")
        ro = open_store(f"sqlite:///{path}")
        out = await ro.run_idempotent(
            tool="refund", principal="a", key="k", arguments=REFUND, effect=refund_effect("x")
        )
        assert isinstance(out, StoreUnavailable)
        _assert_safe(out)
        await ro.close()
    finally:
        (tmp_path).chmod(0o755)
        path.chmod(0o644)


async def test_unopenable_sqlite_file_is_store_unavailable(tmp_path: Any) -> None:
    (tmp_path / "dir.db").mkdir()  # a directory where the database file should be
    store = open_store(f"sqlite:///{tmp_path / 'dir.db'}")
    out = await store.run_idempotent(
        tool="refund", principal="a", key="k", arguments=REFUND, effect=refund_effect("x")
    )
    assert isinstance(out, StoreUnavailable)
    _assert_safe(out)
    await store.close()


async def test_read_only_postgres_is_store_unavailable(pg_dsn: str) -> None:
    from urllib.parse import quote

    from tests.effects.effects_pg import throwaway_schema

    with throwaway_schema(pg_dsn) as url:
        ro_url = url + quote(" -cdefault_transaction_read_only=on")
        store = open_store(ro_url)
        try:
            out = await store.run_idempotent(
                tool="refund", principal="a", key="k", arguments=REFUND, effect=refund_effect("x")
            )
            assert isinstance(out, StoreUnavailable)
            assert out.reason == "read_only"
            _assert_safe(out)
        finally:
            await store.close()


async def test_a_dropped_postgres_connection_is_unavailable_then_recovers(pg_dsn: str) -> None:
    import psycopg

    from tests.effects.effects_pg import throwaway_schema

    app = f"drivable-test-{id(pg_dsn):x}-{anyio.current_time():.0f}"
    with throwaway_schema(pg_dsn) as url:
        store = open_store(url, application_name=app)
        try:
            await make_refunds_table(store)
            ok = await store.run_idempotent(
                tool="refund", principal="a", key="k1", arguments=REFUND, effect=refund_effect("1")
            )
            assert isinstance(ok, Executed)
            with psycopg.connect(pg_dsn, autocommit=True) as admin:
                # Only this store's connections: other runs may share the server.
                admin.execute(
                    "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                    "WHERE application_name = %s",
                    (app,),
                )
            down = await store.run_idempotent(
                tool="refund", principal="a", key="k2", arguments=REFUND, effect=refund_effect("2")
            )
            assert isinstance(down, StoreUnavailable) and down.reason == "unreachable"
            _assert_safe(down)
            up = await store.run_idempotent(
                tool="refund", principal="a", key="k2", arguments=REFUND, effect=refund_effect("2")
            )
            assert isinstance(up, Executed)
            assert await count_refunds(store) == 2
        finally:
            await store.close()


async def test_many_keys_at_once_each_execute_once(store: SqlEffectStore) -> None:
    await make_refunds_table(store)
    results: list[tuple[str, Any]] = []

    async def call(key: str, n: int) -> None:
        async def effect(tx: Transaction) -> dict[str, Any]:
            return await refund_effect(f"rf_{key}_{n}")(tx)

        out = await store.run_idempotent(
            tool="refund", principal="a", key=key, arguments=REFUND, effect=effect, wait_s=30
        )
        results.append((key, out))

    async with anyio.create_task_group() as tg:
        for n in range(8):
            for k in range(15):
                tg.start_soon(call, f"k{k}", n)
    assert await count_refunds(store) == 15
    for k in range(15):
        mine = [out for key, out in results if key == f"k{k}"]
        assert sum(isinstance(o, Executed) for o in mine) == 1
        assert len({o.result["refund_id"] for o in mine}) == 1


class _PragmaBackend:
    """A real SQLite backend whose connections carry one extra pragma (a full or read-only file
    that even root cannot write around)."""

    @staticmethod
    def store(path: Any, pragma: str) -> SqlEffectStore:
        from drivable.effects.sqlite import SqliteBackend

        class Backend(SqliteBackend):
            def connect(self) -> Any:
                conn = super().connect()
                conn.execute(pragma)
                return conn

        return SqlEffectStore(Backend(path))


async def test_full_sqlite_file_is_store_unavailable(tmp_path: Any) -> None:
    path = tmp_path / "full.db"
    setup = open_store(f"sqlite:///{path}")
    await make_refunds_table(setup)
    await setup.close()
    store = _PragmaBackend.store(path, "PRAGMA max_page_count = 12")

    async def big(tx: Transaction) -> dict[str, Any]:
        for i in range(200):
            await tx.execute(
                "INSERT INTO refunds (id, invoice_id, amount_cents) VALUES (?, ?, 1)",
                (f"rf_{i}", "x" * 2000),
            )
        return {}

    out = await store.run_idempotent(
        tool="refund", principal="a", key="k", arguments=REFUND, effect=big
    )
    assert isinstance(out, StoreUnavailable) and out.reason == "full"
    _assert_safe(out)
    await store.close()


async def test_query_only_sqlite_is_store_unavailable(tmp_path: Any) -> None:
    path = tmp_path / "ro.db"
    setup = open_store(f"sqlite:///{path}")
    await make_refunds_table(setup)
    await setup.close()
    store = _PragmaBackend.store(path, "PRAGMA query_only = ON")
    out = await store.run_idempotent(
        tool="refund", principal="a", key="k", arguments=REFUND, effect=refund_effect("x")
    )
    assert isinstance(out, StoreUnavailable) and out.reason == "read_only"
    _assert_safe(out)
    await store.close()
