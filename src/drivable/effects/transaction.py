"""The transaction handed to effect code: statements, upserts and compare-and-set, in the same
transaction as the call's receipt.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import anyio.to_thread

from drivable.effects.backend import Dialect, _identifier
from drivable.effects.outcomes import (
    NotFound,
    Updated,
    Upserted,
    VersionConflict,
)

if TYPE_CHECKING:
    from drivable.effects.store import SqlEffectStore


@dataclass(frozen=True, slots=True)
class Rows:
    rows: list[tuple[Any, ...]]
    rowcount: int

    def first(self) -> tuple[Any, ...] | None:
        return self.rows[0] if self.rows else None


class TransactionEnded(RuntimeError):
    """A statement sent through a transaction after it committed or rolled back (a task the
    effect started and did not wait for): it would run outside the transaction, on a connection
    another call may hold."""


class Transaction:
    """An open write transaction of the store. Statements use ``?`` placeholders on both stores
    (on PostgreSQL they are translated; do not put a literal ``?`` in SQL text). Statements sent
    at once (tasks of one effect) run one after another; once the transaction ends, a statement
    raises :class:`TransactionEnded`."""

    def __init__(self, store: SqlEffectStore, conn: Any) -> None:
        self._store = store
        self._conn = conn
        self._lock = threading.Lock()  # one statement at a time on the connection
        self._open = True
        self.tool: str | None = None
        """The tool whose call this transaction runs (set by the runtime): what `undo` names."""
        self.made_record: tuple[str, str] | None = None

    @property
    def dialect(self) -> Dialect:
        return self._store.backend.dialect

    @property
    def connection(self) -> Any:
        """The raw driver connection (sqlite3 / psycopg), for code that needs more than
        ``execute``. It is synchronous: call it from a worker thread, within this transaction."""
        return self._conn

    def made(self, kind: str, entity_id: str) -> None:
        """Name the record this call's effect made (`("booking", "bk_2863")`). Inside a keyed
        call it is kept with the call's receipt, committed with it, so that a later `undo` of the
        record is said when the receipt is replayed (docs/effects.md, "Undone since"). One record
        per call: a second one replaces the first. Outside a keyed call it is kept nowhere."""
        if not kind or not entity_id:
            raise ValueError("made() needs a kind and an id")
        self.made_record = (kind, entity_id)

    async def undo(self, kind: str, entity_id: str, *, by: str | None = None) -> int:
        """Mark, in this transaction, every receipt whose call made this record as undone by
        `by` (default: this transaction's tool): a replay of such a call then says so rather
        than answer as if the record stood. The first undo is the one kept. Returns how many
        receipts it marked (none when no receipt, or none still kept, made the record)."""
        store = self._store
        marked = await self.execute(
            "UPDATE drivable_made SET undone_by = ?, undone_at = ? "
            "WHERE kind = ? AND entity_id = ? AND undone_at IS NULL",
            (by or self.tool or "another call", store._clock(), kind, entity_id),
        )
        return marked.rowcount

    async def execute(self, sql: str, params: Sequence[Any] = ()) -> Rows:
        """Run one statement in this transaction. A store failure raises
        :class:`StoreUnavailableError`; other driver errors (constraint violations, bad SQL) are
        the caller's and propagate unchanged (the claim then rolls back)."""
        return await self._store._call(self._run, sql, tuple(params), internal=False)

    def _run(self, sql: str, params: tuple[Any, ...]) -> Rows:
        with self._lock:
            if not self._open:
                raise TransactionEnded("the transaction has ended: await statements inside it")
            cur = self._store.backend.execute(self._conn, sql, params)
            rows = [tuple(r) for r in cur.fetchall()] if cur.description is not None else []
            return Rows(rows, cur.rowcount)

    async def _end(self) -> None:
        """Refuse statements from now on; a statement running now finishes first."""
        if self._lock.acquire(blocking=False):
            self._open = False
            self._lock.release()
            return
        await anyio.to_thread.run_sync(self._end_waiting)

    def _end_waiting(self) -> None:
        with self._lock:
            self._open = False

    async def upsert(
        self, table: str, key: Mapping[str, Any], values: Mapping[str, Any]
    ) -> Upserted:
        """Create-or-update on a stable id: insert ``key | values``; if a row with ``key`` exists
        (the key columns must carry a unique constraint), update ``values`` on it instead."""
        if not key:
            raise ValueError("upsert needs at least one key column")
        t = _identifier(table)
        key_cols = [_identifier(c) for c in key]
        val_cols = [_identifier(c) for c in values]
        cols = key_cols + val_cols
        inserted = await self.execute(
            f"INSERT INTO {t} ({', '.join(cols)}) VALUES ({', '.join('?' for _ in cols)}) "
            f"ON CONFLICT ({', '.join(key_cols)}) DO NOTHING",
            [*key.values(), *values.values()],
        )
        if inserted.rowcount == 1:
            return Upserted(created=True)
        if values:
            await self.execute(
                f"UPDATE {t} SET {', '.join(f'{c} = ?' for c in val_cols)} "
                f"WHERE {' AND '.join(f'{c} = ?' for c in key_cols)}",
                [*values.values(), *key.values()],
            )
        return Upserted(created=False)

    async def compare_and_set(
        self,
        table: str,
        *,
        key: Mapping[str, Any],
        expected_version: int,
        values: Mapping[str, Any],
        version_column: str = "version",
        reread_tool: str | None = None,
        reread_arguments: Mapping[str, Any] | None = None,
    ) -> Updated | VersionConflict | NotFound:
        """Update ``values`` and bump the integer version only if it still is
        ``expected_version`` (atomically). A stale version is a :class:`VersionConflict` naming
        the current version and the read call to make before reapplying."""
        if not key:
            raise ValueError("compare_and_set needs at least one key column")
        t = _identifier(table)
        v = _identifier(version_column)
        where = " AND ".join(f"{_identifier(c)} = ?" for c in key)
        sets = [f"{_identifier(c)} = ?" for c in values] + [f"{v} = {v} + 1"]
        done = await self.execute(
            f"UPDATE {t} SET {', '.join(sets)} WHERE {where} AND {v} = ? RETURNING {v}",
            [*values.values(), *key.values(), expected_version],
        )
        row = done.first()
        if row is not None:
            return Updated(version=int(row[0]))
        current = (
            await self.execute(f"SELECT {v} FROM {t} WHERE {where}", [*key.values()])
        ).first()
        if current is None:
            return NotFound()
        return VersionConflict(
            expected=expected_version,
            current=current[0],
            reread_tool=reread_tool,
            reread_arguments=dict(reread_arguments or {}),
        )
