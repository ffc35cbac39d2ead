"""Tasks in the effect store: one row per task, in the same database as the receipts.

Any worker that shares the database answers for any task: the row is the truth (status, the pending
input requests and the answers to them, the cancel request, the result), and a worker running a task
holds a lease on it that it renews while it works. A lease that ran out means the worker died: the
next worker that looks takes the row over (one UPDATE decides who) and either runs the work again or
records a temporary failure, as the tool's declaration says.

Writes go through the store's write transactions; reads are single autocommit SELECTs on one of the
store's pooled connections (a poll never takes a write lock).
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any, Final

from drivable.canonical import canonical_text
from drivable.effects import SqlEffectStore, Transaction
from drivable.effects.backend import READING
from drivable.tasks.input_requests import InputRequests

# The rounds a client answered before its task started (`LongRunning.asks_first`): kept under this
# reserved key of `input_responses`, which tasks/update cannot write (it takes pending keys only).
BEFORE_TASK_KEY = "dev.drivable/before-task"

log = logging.getLogger("drivable.tasks")

# How long after a tombstone's result expired the id is still recognised (as expired, not unknown).
FORGET_AFTER_S: Final = 86_400.0

TERMINAL: Final = frozenset({"completed", "failed", "cancelled"})
ACTIVE: Final = frozenset({"working", "input_required"})

SCHEMA: Final = (
    """
    CREATE TABLE IF NOT EXISTS drivable_tasks (
        task_id TEXT PRIMARY KEY,
        principal TEXT NOT NULL,
        scopes TEXT,
        tool TEXT NOT NULL,
        arguments TEXT NOT NULL,
        idem_key TEXT,
        digest TEXT NOT NULL,
        status TEXT NOT NULL,
        status_message TEXT,
        result TEXT,
        error TEXT,
        input_requests TEXT NOT NULL,
        input_responses TEXT NOT NULL,
        cancel_requested INTEGER NOT NULL,
        attempt INTEGER NOT NULL,
        owner TEXT NOT NULL,
        lease_until DOUBLE PRECISION NOT NULL,
        created_at DOUBLE PRECISION NOT NULL,
        updated_at DOUBLE PRECISION NOT NULL,
        deadline_at DOUBLE PRECISION NOT NULL,
        ttl_ms BIGINT NOT NULL,
        poll_ms INTEGER NOT NULL,
        expires_at DOUBLE PRECISION NOT NULL,
        forget_at DOUBLE PRECISION NOT NULL
    )
    """,
    # A retried tools/call with the same idempotency key finds its task (NULL keys never collide).
    "CREATE UNIQUE INDEX IF NOT EXISTS drivable_tasks_key "
    "ON drivable_tasks (principal, tool, idem_key)",
    "CREATE INDEX IF NOT EXISTS drivable_tasks_lease ON drivable_tasks (status, lease_until)",
    "CREATE INDEX IF NOT EXISTS drivable_tasks_forget ON drivable_tasks (forget_at)",
)

_COLUMNS: Final = (
    "task_id, principal, scopes, tool, arguments, idem_key, digest, status, status_message, "
    "result, error, input_requests, input_responses, cancel_requested, attempt, owner, "
    "lease_until, created_at, updated_at, deadline_at, ttl_ms, poll_ms, expires_at, forget_at"
)


@dataclass(frozen=True, slots=True)
class TaskRow:
    task_id: str
    principal: str
    scopes: tuple[str, ...] | None
    tool: str
    arguments: dict[str, Any]
    idem_key: str | None
    digest: str
    status: str
    status_message: str | None
    result: dict[str, Any] | None
    error: dict[str, Any] | None
    input_requests: dict[str, Any]
    input_responses: dict[str, Any]
    cancel_requested: bool
    attempt: int
    owner: str
    lease_until: float
    created_at: float
    updated_at: float
    deadline_at: float
    ttl_ms: int
    poll_ms: int
    expires_at: float
    forget_at: float

    @property
    def terminal(self) -> bool:
        return self.status in TERMINAL

    @classmethod
    def of(cls, row: Sequence[Any]) -> TaskRow:
        scopes = json.loads(row[2]) if row[2] is not None else None
        return cls(
            task_id=row[0],
            principal=row[1],
            scopes=tuple(scopes) if scopes is not None else None,
            tool=row[3],
            arguments=json.loads(row[4]),
            idem_key=row[5],
            digest=row[6],
            status=row[7],
            status_message=row[8],
            result=json.loads(row[9]) if row[9] is not None else None,
            error=json.loads(row[10]) if row[10] is not None else None,
            input_requests=json.loads(row[11]),
            input_responses=json.loads(row[12]),
            cancel_requested=bool(row[13]),
            attempt=int(row[14]),
            owner=row[15],
            lease_until=float(row[16]),
            created_at=float(row[17]),
            updated_at=float(row[18]),
            deadline_at=float(row[19]),
            ttl_ms=int(row[20]),
            poll_ms=int(row[21]),
            expires_at=float(row[22]),
            forget_at=float(row[23]),
        )


def _kept(value: Any) -> str:
    """A result as the tool shaped it: its fields in the author's order (the order a model reads
    them in, as the blocking call sends them), not sorted."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


class TaskStore(InputRequests):
    """The task rows of one effect store."""

    def __init__(self, store: SqlEffectStore, *, clock: Callable[[], float] = time.time) -> None:
        self.store = store
        self.clock = clock
        self._ready = False

    @property
    def _lock(self) -> str:
        # Row lock for read-modify-write on PostgreSQL; SQLite's BEGIN IMMEDIATE already holds the
        # database write lock for the whole transaction.
        return " FOR UPDATE" if self.store.dialect == "postgresql" else ""

    @asynccontextmanager
    async def _write(self) -> AsyncIterator[Transaction]:
        """A write transaction that takes SQLite's write lock up front, also when called from a
        read-only tool's handler (the store reads those without it): a task row is read, then
        written, in one transaction, and a deferred one could not upgrade while another writes."""
        token = READING.set(False)
        try:
            async with self.store.transaction() as tx:
                yield tx
        finally:
            READING.reset(token)

    async def ready(self) -> None:
        if self._ready:
            return
        for attempt in range(3):
            try:
                async with self._write() as tx:
                    for statement in SCHEMA:
                        await tx.execute(statement)
                break
            except Exception:
                # Two workers creating the tables at once on PostgreSQL: one loses a catalog race.
                if attempt == 2:
                    raise
                log.info("task schema creation raced another worker; trying again")
        self._ready = True

    # -- reads ------------------------------------------------------------------------------

    async def _select(self, sql: str, params: Sequence[Any]) -> list[tuple[Any, ...]]:
        await self.ready()
        store = self.store
        # A single autocommit SELECT on a pooled connection: no write lock, any worker.
        async with store._connection() as conn:
            return await store._call(
                lambda: [tuple(r) for r in store._x(conn, sql, tuple(params)).fetchall()]
            )

    async def get(self, task_id: str, principal: str | None = None) -> TaskRow | None:
        sql = f"SELECT {_COLUMNS} FROM drivable_tasks WHERE task_id = ?"
        params: list[Any] = [task_id]
        if principal is not None:
            sql += " AND principal = ?"
            params.append(principal)
        rows = await self._select(sql, params)
        return TaskRow.of(rows[0]) if rows else None

    async def by_key(self, principal: str, tool: str, key: str) -> TaskRow | None:
        rows = await self._select(
            f"SELECT {_COLUMNS} FROM drivable_tasks WHERE principal = ? AND tool = ? "
            "AND idem_key = ?",
            [principal, tool, key],
        )
        return TaskRow.of(rows[0]) if rows else None

    async def abandoned(self, tools: Sequence[str], limit: int = 20) -> list[str]:
        """Ids of active tasks of `tools` whose lease ran out (their worker died). Other tools'
        tasks belong to other servers sharing the database: never ours to recover."""
        if not tools:
            return []
        marks = ", ".join("?" for _ in tools)
        rows = await self._select(
            "SELECT task_id FROM drivable_tasks WHERE status IN ('working', 'input_required') "
            f"AND lease_until < ? AND tool IN ({marks}) ORDER BY lease_until LIMIT ?",
            [self.clock(), *tools, limit],
        )
        return [r[0] for r in rows]

    # -- writes -----------------------------------------------------------------------------

    async def create(self, row: TaskRow) -> bool:
        """Insert the task; False when a task with the same idempotency key exists already."""
        await self.ready()
        async with self._write() as tx:
            done = await tx.execute(
                f"INSERT INTO drivable_tasks ({_COLUMNS}) VALUES "
                f"({', '.join('?' for _ in range(24))}) ON CONFLICT DO NOTHING",
                [
                    row.task_id,
                    row.principal,
                    canonical_text(list(row.scopes)) if row.scopes is not None else None,
                    row.tool,
                    canonical_text(row.arguments),
                    row.idem_key,
                    row.digest,
                    row.status,
                    row.status_message,
                    None,
                    None,
                    "{}",
                    canonical_text(
                        row.input_responses
                    ),  # the rounds answered before the task (if any)
                    0,
                    row.attempt,
                    row.owner,
                    row.lease_until,
                    row.created_at,
                    row.updated_at,
                    row.deadline_at,
                    row.ttl_ms,
                    row.poll_ms,
                    row.expires_at,
                    row.forget_at,
                ],
            )
        return done.rowcount == 1

    async def _locked(self, tx: Transaction, task_id: str) -> TaskRow | None:
        found = await tx.execute(
            f"SELECT {_COLUMNS} FROM drivable_tasks WHERE task_id = ?{self._lock}", [task_id]
        )
        first = found.first()
        return TaskRow.of(first) if first is not None else None

    async def heartbeat(
        self, task_id: str, owner: str, lease_s: float, status_message: str | None
    ) -> TaskRow | None:
        """Renew the lease (and write a pending status message); None when the task is no longer
        this worker's (taken over after a stall, or finished elsewhere)."""
        now = self.clock()
        async with self._write() as tx:
            sets = "lease_until = ?"
            params: list[Any] = [now + lease_s]
            if status_message is not None:
                sets += ", status_message = ?, updated_at = ?"
                params += [status_message, now]
            done = await tx.execute(
                f"UPDATE drivable_tasks SET {sets} WHERE task_id = ? AND owner = ? "
                "AND status IN ('working', 'input_required')",
                [*params, task_id, owner],
            )
            if done.rowcount != 1:
                return None
            return await self._locked(tx, task_id)

    async def finish(
        self,
        task_id: str,
        owner: str,
        *,
        status: str,
        status_message: str,
        result: Mapping[str, Any] | None = None,
        error: Mapping[str, Any] | None = None,
        keep_s: float,
        forget_s: float,
    ) -> bool:
        """Record the terminal state, if this worker still owns the task."""
        now = self.clock()
        async with self._write() as tx:
            row = await self._locked(tx, task_id)
            if row is None or row.owner != owner or row.terminal:
                return False
            ttl_ms = int((now + keep_s - row.created_at) * 1000)
            await tx.execute(
                "UPDATE drivable_tasks SET status = ?, status_message = ?, result = ?, error = ?, "
                "input_requests = '{}', updated_at = ?, ttl_ms = ?, expires_at = ?, forget_at = ? "
                "WHERE task_id = ?",
                [
                    status,
                    status_message,
                    _kept(result) if result is not None else None,
                    _kept(error) if error is not None else None,
                    now,
                    ttl_ms,
                    now + keep_s,
                    now + keep_s + forget_s,
                    task_id,
                ],
            )
        return True

    async def take_over(self, task_id: str, owner: str, lease_s: float) -> TaskRow | None:
        """Claim an active task whose lease ran out; the row as claimed, or None if another
        worker got it first (or it is alive or finished)."""
        now = self.clock()
        async with self._write() as tx:
            row = await self._locked(tx, task_id)
            if row is None or row.terminal or row.lease_until >= now:
                return None
            # The dead worker's questions die with it: a restart asks anew, with new keys. What
            # was answered before the task existed stays: the restart needs it again.
            kept = {k: v for k, v in row.input_responses.items() if k == BEFORE_TASK_KEY}
            await tx.execute(
                "UPDATE drivable_tasks SET owner = ?, lease_until = ?, attempt = attempt + 1, "
                "status = 'working', input_requests = '{}', input_responses = ?, "
                "updated_at = ? WHERE task_id = ?",
                [owner, now + lease_s, canonical_text(kept), now, task_id],
            )
            return await self._locked(tx, task_id)

    async def restart(self, task_id: str, owner: str, status_message: str) -> None:
        now = self.clock()
        async with self._write() as tx:
            await tx.execute(
                "UPDATE drivable_tasks SET status = 'working', status_message = ?, updated_at = ? "
                "WHERE task_id = ? AND owner = ?",
                [status_message, now, task_id, owner],
            )

    async def request_cancel(self, task_id: str, principal: str) -> TaskRow | None:
        now = self.clock()
        async with self._write() as tx:
            row = await self._locked(tx, task_id)
            if row is None or row.principal != principal:
                return None
            if not row.terminal and not row.cancel_requested:
                await tx.execute(
                    "UPDATE drivable_tasks SET cancel_requested = 1, updated_at = ? "
                    "WHERE task_id = ?",
                    [now, task_id],
                )
            return row

    async def release_key(self, task_id: str) -> None:
        """Free an expired task's idempotency key, so the same call starts a new task."""
        async with self._write() as tx:
            await tx.execute(
                "UPDATE drivable_tasks SET idem_key = NULL WHERE task_id = ?", [task_id]
            )

    async def purge(self) -> int:
        """Forget tasks whose tombstone outlived its window."""
        await self.ready()
        async with self._write() as tx:
            done = await tx.execute(
                "DELETE FROM drivable_tasks WHERE forget_at < ?", [self.clock()]
            )
        return done.rowcount
