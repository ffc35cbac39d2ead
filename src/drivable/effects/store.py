"""The effect store: idempotency receipts and single-use token nonces, on SQLite or PostgreSQL.

How a key is claimed (the same on both stores; the database does the exclusion, so it holds across
threads, processes and hosts):

1. Read the receipt row of (principal, tool, key). ``done`` with the same digest -> replay; any row
   with another digest -> mismatch; ``running`` -> wait (poll) up to ``wait_s``, then ``in_progress``.
2. No row: insert one in state ``running`` with a fresh owner id and a short lease, and commit. The
   primary key makes exactly one inserter win.
3. The winner opens the *effect transaction*: it locks its receipt row (``SELECT ... FOR UPDATE`` on
   PostgreSQL, ``BEGIN IMMEDIATE`` on SQLite), checks it still owns it, and hands the transaction to
   the caller, who writes the effect in it. The receipt turns ``done`` with the result in the same
   transaction, so the effect and its receipt commit together or not at all.
4. An exception (or a cancellation, or no ``record``) rolls the effect back and deletes the
   ``running`` row, so a retry runs the effect afresh.
5. A process killed mid-effect leaves a ``running`` row with no effect (its transaction died with
   it). Once the lease is over and nobody holds the row lock, the next caller takes the claim over
   and runs the effect once.
"""

from __future__ import annotations

import hashlib
import json
import logging
import math
import re
import threading
import time
import uuid
from abc import ABC, abstractmethod
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator, Mapping, Sequence
from contextlib import AbstractAsyncContextManager, asynccontextmanager, contextmanager, suppress
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any, Final, Literal, Protocol, TypeVar, runtime_checkable

import anyio
import anyio.to_thread

from drivable.effects.canonical import canonical_json, differing_fields, normalised_arguments
from drivable.effects.outcomes import (
    Executed,
    InProgress,
    Mismatch,
    NotFound,
    Replay,
    StoreUnavailable,
    StoreUnavailableError,
    UnavailableReason,
    Updated,
    Upserted,
    VersionConflict,
)

log = logging.getLogger("drivable.effects")

READING: ContextVar[bool] = ContextVar("drivable.effects.reading", default=False)
"""True while a read-only tool runs: its transactions do not take SQLite's write lock up front, so
reads never queue behind a long write (a refund). Set by the runtime around read-only handlers."""

DEFAULT_WINDOW_S: Final = 86_400.0
"""How long receipts are kept (and replayed): 24 hours."""
DEFAULT_WAIT_S: Final = 2.0
"""How long a second call waits for the first one holding the same key before ``in_progress``."""
DEFAULT_LEASE_S: Final = 5.0
"""How long a claim may stay ``running`` without a live transaction before another call may take
it over (only matters after a crash: a live effect transaction holds a lock)."""
DEFAULT_PURGE_INTERVAL_S: Final = 60.0

T = TypeVar("T")
Dialect = Literal["sqlite", "postgresql"]

_IDENTIFIER = re.compile(r"^[A-Za-z_][A-Za-z0-9_]{0,62}$")

SCHEMA: Final = (
    """
    CREATE TABLE IF NOT EXISTS drivable_receipts (
        principal TEXT NOT NULL,
        tool TEXT NOT NULL,
        key TEXT NOT NULL,
        digest TEXT NOT NULL,
        arguments TEXT NOT NULL,
        state TEXT NOT NULL,
        owner TEXT NOT NULL,
        result TEXT,
        created_at DOUBLE PRECISION NOT NULL,
        recorded_at DOUBLE PRECISION,
        lease_until DOUBLE PRECISION NOT NULL,
        expires_at DOUBLE PRECISION NOT NULL,
        PRIMARY KEY (principal, tool, key)
    )
    """,
    "CREATE INDEX IF NOT EXISTS drivable_receipts_expiry ON drivable_receipts (expires_at)",
    """
    CREATE TABLE IF NOT EXISTS drivable_token_uses (
        nonce TEXT PRIMARY KEY,
        expires_at DOUBLE PRECISION NOT NULL,
        used_at DOUBLE PRECISION NOT NULL
    )
    """,
    "CREATE INDEX IF NOT EXISTS drivable_token_uses_expiry ON drivable_token_uses (expires_at)",
)

_SCOPE = "principal = ? AND tool = ? AND key = ?"


def _identifier(name: str) -> str:
    if not _IDENTIFIER.match(name):
        raise ValueError(f"not a plain SQL identifier: {name!r}")
    return f'"{name}"'


# --------------------------------------------------------------------------------------------
# Backends: the only dialect-specific part (connect, begin, lock clauses, error classification).


class Backend(ABC):
    dialect: Dialect
    max_connections: int

    @abstractmethod
    def connect(self) -> Any: ...

    @abstractmethod
    def close(self, conn: Any) -> None: ...

    @abstractmethod
    def begin_write(self, conn: Any) -> None:
        """Open a transaction that may write (and, on SQLite, takes the write lock now)."""

    def begin_read(self, conn: Any) -> None:
        """Open a transaction for a read-only tool (on SQLite: without the write lock)."""
        self.begin_write(conn)

    @abstractmethod
    def execute(self, conn: Any, sql: str, params: Sequence[Any] = ()) -> Any:
        """Run one statement with ``?`` placeholders; return the driver cursor."""

    @abstractmethod
    def classify(self, exc: BaseException) -> UnavailableReason | None:
        """The reason a driver exception means "the store is unavailable", or None when it is
        not a store failure (a bug or a constraint in the caller's own SQL)."""

    @abstractmethod
    def reusable(self, conn: Any) -> bool:
        """Roll back any open transaction; False when the connection must be discarded."""

    @abstractmethod
    def init_schema(self, conn: Any) -> None: ...

    def begin_claim(self, conn: Any) -> None:
        """Open the short transaction that inserts or takes over a ``running`` claim row.

        It may commit without waiting for the disk: if it is lost in a crash, so is everything
        after it (the log is ordered), and the effect transaction, which commits durably,
        flushes it first. A lost claim is a claim whose effect never committed."""
        self.begin_write(conn)

    def after_claim(self, conn: Any) -> None:  # noqa: B027 - a hook; most backends need none
        """Undo connection settings of :meth:`begin_claim` (outside any transaction)."""

    @contextmanager
    def short_lock_wait(self, conn: Any) -> Iterator[None]:
        """Within this block, give up quickly on locks held by others."""
        yield

    @contextmanager
    def relaxed(self, conn: Any) -> Iterator[None]:
        """Autocommit statements in this block may commit without waiting for the flush (same
        argument as :meth:`begin_claim`)."""
        yield

    insert_first: bool = False  # try the claim INSERT before looking (it never blocks)
    lock_row: str = ""  # appended to the SELECT that checks ownership in the effect transaction
    try_lock_row: str = ""  # appended to the SELECT of a takeover: skip rows a live owner holds

    def commit(self, conn: Any) -> None:
        self.execute(conn, "COMMIT")

    def rollback(self, conn: Any) -> None:
        self.execute(conn, "ROLLBACK")


# --------------------------------------------------------------------------------------------
# Connection pool: bounded, event-loop agnostic (waiters poll), connections used by one task at
# a time and driven from worker threads.


class _Pool:
    def __init__(self, backend: Backend) -> None:
        self._backend = backend
        self._idle: list[Any] = []
        self._count = 0
        self._lock = threading.Lock()
        self._closed = False

    async def acquire(self) -> Any:
        delay = 0.001
        while True:
            create = False
            with self._lock:
                if self._idle:
                    return self._idle.pop()
                if self._count < self._backend.max_connections:
                    self._count += 1
                    create = True
            if create:
                try:
                    return await anyio.to_thread.run_sync(self._backend.connect)
                except BaseException:
                    with self._lock:
                        self._count -= 1
                    raise
            await anyio.sleep(delay)
            delay = min(delay * 2, 0.02)

    def release(self, conn: Any, *, discard: bool = False) -> None:
        if not discard:
            try:
                discard = not self._backend.reusable(conn)
            except Exception:
                discard = True
        with self._lock:
            if discard or self._closed:
                self._count -= 1
            else:
                self._idle.append(conn)
                return
        with suppress(Exception):
            self._backend.close(conn)

    def close(self) -> None:
        with self._lock:
            self._closed = True
            idle, self._idle = self._idle, []
            self._count -= len(idle)
        for conn in idle:
            with suppress(Exception):
                self._backend.close(conn)


# --------------------------------------------------------------------------------------------
# Transactions handed to effect code.


@dataclass(frozen=True, slots=True)
class Rows:
    rows: list[tuple[Any, ...]]
    rowcount: int

    def first(self) -> tuple[Any, ...] | None:
        return self.rows[0] if self.rows else None


class Transaction:
    """An open write transaction of the store. Statements use ``?`` placeholders on both stores
    (on PostgreSQL they are translated; do not put a literal ``?`` in SQL text)."""

    def __init__(self, store: SqlEffectStore, conn: Any) -> None:
        self._store = store
        self._conn = conn

    @property
    def dialect(self) -> Dialect:
        return self._store.backend.dialect

    @property
    def connection(self) -> Any:
        """The raw driver connection (sqlite3 / psycopg), for code that needs more than
        ``execute``. It is synchronous: call it from a worker thread, within this transaction."""
        return self._conn

    async def execute(self, sql: str, params: Sequence[Any] = ()) -> Rows:
        """Run one statement in this transaction. A store failure raises
        :class:`StoreUnavailableError`; other driver errors (constraint violations, bad SQL) are
        the caller's and propagate unchanged (the claim then rolls back)."""
        return await self._store._call(self._run, sql, tuple(params), internal=False)

    def _run(self, sql: str, params: tuple[Any, ...]) -> Rows:
        cur = self._store.backend.execute(self._conn, sql, params)
        rows = [tuple(r) for r in cur.fetchall()] if cur.description is not None else []
        return Rows(rows, cur.rowcount)

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


# --------------------------------------------------------------------------------------------
# Claims.


@dataclass(frozen=True, slots=True)
class _Scope:
    principal: str
    tool: str
    key: str

    def params(self) -> tuple[str, str, str]:
        return (self.principal, self.tool, self.key)


class NewClaim:
    """This call owns the key: run the effect in ``transaction`` and ``record`` its result.

    Leaving the block after ``record`` commits the effect and the receipt together. Leaving it
    without ``record`` (a domain refusal that changed nothing) or with an exception rolls back and
    releases the key, so a retry runs afresh."""

    replayed: Literal[False] = False

    def __init__(
        self, transaction: Transaction, scope: _Scope, owner: str, recovered: bool
    ) -> None:
        self.transaction = transaction
        self.recovered = recovered
        """True when this call took over a claim abandoned by a crashed process."""
        self._scope = scope
        self._owner = owner
        self._result_json: str | None = None

    def record(self, result: Mapping[str, Any]) -> None:
        """Keep ``result`` (JSON) as the receipt replayed to retries of this call."""
        if self._result_json is not None:
            raise RuntimeError("record() was already called for this claim")
        self._result_json = canonical_json(normalised_result(result)).decode("utf-8")

    @property
    def recorded(self) -> bool:
        return self._result_json is not None

    @property
    def result(self) -> dict[str, Any]:
        """The recorded result exactly as a replay will return it."""
        if self._result_json is None:
            raise RuntimeError("nothing recorded")
        value: dict[str, Any] = json.loads(self._result_json)
        return value


def normalised_result(result: Mapping[str, Any]) -> dict[str, Any]:
    if not isinstance(result, Mapping):
        raise TypeError("a recorded result must be a mapping")
    return normalised_arguments({"r": result})["r"]  # type: ignore[no-any-return]


Claim = NewClaim | Replay | Mismatch | InProgress | StoreUnavailable


@dataclass(frozen=True, slots=True)
class _Claimed:
    recovered: bool


@dataclass(frozen=True, slots=True)
class _Wait:
    retry_after_ms: int


class _Again:
    pass


_Step = _Claimed | _Wait | _Again | Replay | Mismatch


@dataclass(frozen=True, slots=True)
class ReceiptView:
    """What the store holds for a key (for operators and tests; not for clients)."""

    state: Literal["running", "done"]
    digest: str
    result: dict[str, Any] | None
    expires_at: float


# --------------------------------------------------------------------------------------------
# The store interface.


@runtime_checkable
class EffectStore(Protocol):
    @property
    def dialect(self) -> Dialect: ...

    def idempotent(
        self,
        *,
        tool: str,
        principal: str,
        key: str,
        arguments: Mapping[str, Any],
        window_s: float = DEFAULT_WINDOW_S,
        wait_s: float = DEFAULT_WAIT_S,
        lease_s: float = DEFAULT_LEASE_S,
    ) -> AbstractAsyncContextManager[Claim]: ...

    async def run_idempotent(
        self,
        *,
        tool: str,
        principal: str,
        key: str,
        arguments: Mapping[str, Any],
        effect: Callable[[Transaction], Awaitable[Mapping[str, Any]]],
        window_s: float = DEFAULT_WINDOW_S,
        wait_s: float = DEFAULT_WAIT_S,
        lease_s: float = DEFAULT_LEASE_S,
    ) -> Executed | Replay | Mismatch | InProgress | StoreUnavailable: ...

    def transaction(self) -> AbstractAsyncContextManager[Transaction]: ...

    async def use_nonce(
        self, nonce: str, expires_at: float, *, transaction: Transaction | None = None
    ) -> bool | StoreUnavailable: ...

    async def receipt(self, *, tool: str, principal: str, key: str) -> ReceiptView | None: ...

    async def purge_expired(self) -> int: ...

    async def close(self) -> None: ...


class SqlEffectStore:
    """The shared implementation over a :class:`Backend` (see the module docstring)."""

    def __init__(
        self,
        backend: Backend,
        *,
        clock: Callable[[], float] = time.time,
        purge_interval_s: float = DEFAULT_PURGE_INTERVAL_S,
    ) -> None:
        self.backend = backend
        self._clock = clock
        self._pool = _Pool(backend)
        self._schema_ready = False
        self._purge_interval_s = purge_interval_s
        self._last_purge = -math.inf

    @property
    def dialect(self) -> Dialect:
        return self.backend.dialect

    # -- plumbing -------------------------------------------------------------------------

    def _unavailable(self, exc: BaseException, *, internal: bool) -> StoreUnavailableError | None:
        reason = self.backend.classify(exc)
        if reason is None:
            if not internal or not _is_driver_error(exc):
                return None
            reason = UnavailableReason.FAILED
        # Class name only: driver messages can quote SQL and values.
        log.warning("effect store unavailable (%s): %s", reason.value, type(exc).__name__)
        retry = 250 if reason is UnavailableReason.BUSY else 1000
        err = StoreUnavailableError(StoreUnavailable(reason=reason, retry_after_ms=retry))
        return err

    async def _call(self, fn: Callable[..., T], *args: Any, internal: bool = True) -> T:
        try:
            return await anyio.to_thread.run_sync(lambda: fn(*args))
        except Exception as exc:
            err = self._unavailable(exc, internal=internal)
            if err is None:
                raise
            raise err from exc

    async def _acquire(self) -> Any:
        try:
            conn = await self._pool.acquire()
        except Exception as exc:
            err = self._unavailable(exc, internal=True)
            if err is None:
                raise
            raise err from exc
        if not self._schema_ready:
            try:
                await self._call(self.backend.init_schema, conn)
            except BaseException:
                self._pool.release(conn, discard=True)
                raise
            self._schema_ready = True
        return conn

    @asynccontextmanager
    async def _connection(self) -> AsyncIterator[Any]:
        conn = await self._acquire()
        broken = False
        try:
            yield conn
        except StoreUnavailableError:
            broken = True
            raise
        finally:
            self._pool.release(conn, discard=broken)

    def _x(self, conn: Any, sql: str, params: Sequence[Any] = ()) -> Any:
        return self.backend.execute(conn, sql, params)

    # -- claim steps (synchronous, in a worker thread) ------------------------------------

    def _insert_claim(
        self,
        conn: Any,
        scope: _Scope,
        digest: str,
        args_json: str,
        owner: str,
        now: float,
        window_s: float,
        lease_s: float,
    ) -> bool:
        cur = self._x(
            conn,
            "INSERT INTO drivable_receipts (principal, tool, key, digest, arguments, state, "
            "owner, created_at, lease_until, expires_at) "
            "VALUES (?, ?, ?, ?, ?, 'running', ?, ?, ?, ?) "
            "ON CONFLICT (principal, tool, key) DO NOTHING",
            (*scope.params(), digest, args_json, owner, now, now + lease_s, now + window_s),
        )
        return bool(cur.rowcount == 1)

    def _claim_step(
        self,
        conn: Any,
        scope: _Scope,
        digest: str,
        args_json: str,
        window_s: float,
        lease_s: float,
        owner: str,
    ) -> _Step:
        """One look at the key; when this call wins it, the effect transaction is open on
        ``conn`` on return (one worker-thread hop for the whole claim)."""
        step = self._claim_once(conn, scope, digest, args_json, window_s, lease_s, owner)
        if isinstance(step, _Claimed) and not self._open_effect(conn, scope, owner):
            return _Again()  # taken over between our insert and our lock: look again
        return step

    def _claim_once(
        self,
        conn: Any,
        scope: _Scope,
        digest: str,
        args_json: str,
        window_s: float,
        lease_s: float,
        owner: str,
    ) -> _Step:
        now = self._clock()
        # On PostgreSQL: one autocommit statement, committed without waiting for the flush (see
        # Backend.begin_claim). It never waits for a live effect transaction.
        if self.backend.insert_first and self._insert_claim(
            conn, scope, digest, args_json, owner, now, window_s, lease_s
        ):
            return _Claimed(recovered=False)
        row = self._x(
            conn,
            "SELECT digest, arguments, state, result, lease_until, expires_at, recorded_at "
            f"FROM drivable_receipts WHERE {_SCOPE}",
            scope.params(),
        ).fetchone()
        if row is not None:
            r_digest, r_args, state, result, lease_until, expires_at, recorded_at = row
            expired = expires_at <= now and (state == "done" or lease_until <= now)
            if not expired:
                if r_digest != digest:
                    fields = differing_fields(json.loads(r_args), json.loads(args_json))
                    return Mismatch(fields=tuple(fields) or ("arguments",))
                if state == "done":
                    return Replay(result=json.loads(result), recorded_at=float(recorded_at))
                if lease_until > now:
                    return _Wait(max(100, min(1000, int((lease_until - now) * 1000))))
                return self._take_over(conn, scope, owner, now, lease_s)
        elif not self.backend.insert_first:
            with self.backend.relaxed(conn):
                inserted = self._insert_claim(
                    conn, scope, digest, args_json, owner, now, window_s, lease_s
                )
            return _Claimed(recovered=False) if inserted else _Again()
        if row is None:
            return _Again()  # it went between our insert and our look
        # An expired receipt: replace it.
        self.backend.begin_claim(conn)
        try:
            self._x(
                conn,
                f"DELETE FROM drivable_receipts WHERE {_SCOPE} AND expires_at <= ? "
                "AND (state = 'done' OR lease_until <= ?)",
                (*scope.params(), now, now),
            )
            inserted = self._insert_claim(
                conn, scope, digest, args_json, owner, now, window_s, lease_s
            )
            self.backend.commit(conn)
        except BaseException:
            self._safe_rollback(conn)
            raise
        finally:
            self.backend.after_claim(conn)
        return _Claimed(recovered=False) if inserted else _Again()

    def _take_over(self, conn: Any, scope: _Scope, owner: str, now: float, lease_s: float) -> _Step:
        try:
            with self.backend.short_lock_wait(conn):
                self.backend.begin_claim(conn)
        except Exception as exc:
            self.backend.after_claim(conn)
            if self.backend.classify(exc) is UnavailableReason.BUSY:
                return _Wait(1000)  # a live effect transaction holds the store
            raise
        try:
            row = self._x(
                conn,
                f"SELECT state, lease_until FROM drivable_receipts WHERE {_SCOPE}"
                + self.backend.try_lock_row,
                scope.params(),
            ).fetchone()
            if row is None or row[0] != "running" or row[1] > now:
                # None: a live owner holds the row lock (or the row just went; the next look
                # tells). Either way, wait rather than spin.
                self.backend.rollback(conn)
                return _Wait(1000) if row is None or row[0] == "running" else _Again()
            self._x(
                conn,
                f"UPDATE drivable_receipts SET owner = ?, lease_until = ? WHERE {_SCOPE}",
                (owner, now + lease_s, *scope.params()),
            )
            self.backend.commit(conn)
        except BaseException:
            self._safe_rollback(conn)
            raise
        finally:
            self.backend.after_claim(conn)
        log.info("took over an abandoned claim (tool=%s)", scope.tool)
        return _Claimed(recovered=True)

    def _open_effect(self, conn: Any, scope: _Scope, owner: str) -> bool:
        self.backend.begin_write(conn)
        try:
            row = self._x(
                conn,
                f"SELECT owner, state FROM drivable_receipts WHERE {_SCOPE}"
                + self.backend.lock_row,
                scope.params(),
            ).fetchone()
        except BaseException:
            self._safe_rollback(conn)
            raise
        if row is None or row[0] != owner or row[1] != "running":
            self.backend.rollback(conn)
            return False
        return True

    def _finish(
        self, conn: Any, scope: _Scope, owner: str, result_json: str, window_s: float
    ) -> None:
        now = self._clock()
        done = self._x(
            conn,
            "UPDATE drivable_receipts SET state = 'done', result = ?, recorded_at = ?, "
            f"expires_at = ? WHERE {_SCOPE} AND owner = ? AND state = 'running'",
            (result_json, now, now + window_s, *scope.params(), owner),
        ).rowcount
        if done != 1:  # impossible while we hold the row lock; refuse to commit a blind effect
            self.backend.rollback(conn)
            raise RuntimeError("lost the idempotency claim inside its own transaction")
        self.backend.commit(conn)

    def _release_claim(self, conn: Any, scope: _Scope, owner: str) -> None:
        self._safe_rollback(conn)
        self._x(
            conn,
            f"DELETE FROM drivable_receipts WHERE {_SCOPE} AND owner = ? AND state = 'running'",
            (*scope.params(), owner),
        )

    def _safe_rollback(self, conn: Any) -> None:
        with suppress(Exception):
            self.backend.rollback(conn)

    def _purge(self, conn: Any) -> int:
        now = self._clock()
        n = self._x(
            conn,
            "DELETE FROM drivable_receipts WHERE expires_at <= ? "
            "AND (state = 'done' OR lease_until <= ?)",
            (now, now),
        ).rowcount
        n += self._x(conn, "DELETE FROM drivable_token_uses WHERE expires_at <= ?", (now,)).rowcount
        return int(n)

    # -- public API -----------------------------------------------------------------------

    @asynccontextmanager
    async def idempotent(
        self,
        *,
        tool: str,
        principal: str,
        key: str,
        arguments: Mapping[str, Any],
        window_s: float = DEFAULT_WINDOW_S,
        wait_s: float = DEFAULT_WAIT_S,
        lease_s: float = DEFAULT_LEASE_S,
    ) -> AsyncIterator[Claim]:
        """Claim ``key`` for this call (see the module docstring). Yields a :data:`Claim`:

        - :class:`Replay`: the stored result; do not run the handler;
        - :class:`Mismatch`: the key was used with other arguments (``fields`` differ);
        - :class:`InProgress`: another call holds the key beyond ``wait_s``;
        - :class:`StoreUnavailable`: the store failed; nothing ran;
        - :class:`NewClaim`: run the effect in ``claim.transaction`` and ``claim.record(result)``.

        Receipts are scoped to (principal, tool, key) and kept ``window_s`` seconds. Only the exit
        of a :class:`NewClaim` can raise :class:`StoreUnavailableError` (the commit failed: the
        effect did not happen)."""
        if not key:
            raise ValueError("an idempotency key must not be empty")
        normalised = normalised_arguments(arguments)
        args_json = canonical_json(normalised).decode("utf-8")
        digest = hashlib.sha256(args_json.encode("utf-8")).hexdigest()
        scope = _Scope(principal, tool, key)
        owner = uuid.uuid4().hex
        got = await self._claim(scope, digest, args_json, window_s, wait_s, lease_s, owner)
        if not isinstance(got, tuple):
            yield got
            return
        conn, recovered = got
        claim = NewClaim(Transaction(self, conn), scope, owner, recovered)
        try:
            yield claim
        except BaseException:
            with anyio.CancelScope(shield=True):
                await self._abandon(conn, scope, owner)
            raise
        with anyio.CancelScope(shield=True):
            if claim._result_json is None:
                await self._abandon(conn, scope, owner)
                return
            try:
                await self._call(self._finish, conn, scope, owner, claim._result_json, window_s)
            except BaseException:
                await self._abandon(conn, scope, owner, broken=True)
                raise
            await self._maybe_purge(conn)
            self._pool.release(conn)

    async def _claim(
        self,
        scope: _Scope,
        digest: str,
        args_json: str,
        window_s: float,
        wait_s: float,
        lease_s: float,
        owner: str,
    ) -> tuple[Any, bool] | Replay | Mismatch | InProgress | StoreUnavailable:
        deadline = time.monotonic() + wait_s
        delay = 0.005
        while True:
            try:
                conn = await self._acquire()
            except StoreUnavailableError as exc:
                return exc.outcome
            keep = False
            try:
                step = await self._call(
                    self._claim_step, conn, scope, digest, args_json, window_s, lease_s, owner
                )
                if isinstance(step, _Claimed):
                    keep = True
                    return (conn, step.recovered)
            except StoreUnavailableError as exc:
                self._pool.release(conn, discard=True)
                conn = None
                return exc.outcome
            finally:
                if conn is not None and not keep:
                    self._pool.release(conn)
            if isinstance(step, Replay | Mismatch):
                return step
            if isinstance(step, _Wait):
                left = deadline - time.monotonic()
                if left <= 0:
                    return InProgress(retry_after_ms=step.retry_after_ms)
                await anyio.sleep(min(delay, left))
                delay = min(delay * 2, 0.1)

    async def _abandon(self, conn: Any, scope: _Scope, owner: str, broken: bool = False) -> None:
        try:
            await self._call(self._release_claim, conn, scope, owner)
        except Exception:
            broken = True  # the lease will expire; a retry then takes the claim over
        self._pool.release(conn, discard=broken)

    async def _maybe_purge(self, conn: Any) -> None:
        now = time.monotonic()
        if now - self._last_purge < self._purge_interval_s:
            return
        self._last_purge = now
        with suppress(Exception):
            await self._call(self._purge, conn)

    async def run_idempotent(
        self,
        *,
        tool: str,
        principal: str,
        key: str,
        arguments: Mapping[str, Any],
        effect: Callable[[Transaction], Awaitable[Mapping[str, Any]]],
        window_s: float = DEFAULT_WINDOW_S,
        wait_s: float = DEFAULT_WAIT_S,
        lease_s: float = DEFAULT_LEASE_S,
    ) -> Executed | Replay | Mismatch | InProgress | StoreUnavailable:
        """:meth:`idempotent` as one call: ``effect(transaction)`` runs at most once per key and
        its returned mapping is the receipt. Exceptions of ``effect`` propagate (rolled back,
        key released); store failures come back as :class:`StoreUnavailable`."""
        try:
            async with self.idempotent(
                tool=tool,
                principal=principal,
                key=key,
                arguments=arguments,
                window_s=window_s,
                wait_s=wait_s,
                lease_s=lease_s,
            ) as claim:
                if not isinstance(claim, NewClaim):
                    return claim
                claim.record(await effect(claim.transaction))
            return Executed(result=claim.result, recovered=claim.recovered)
        except StoreUnavailableError as exc:
            return exc.outcome

    @asynccontextmanager
    async def transaction(self) -> AsyncIterator[Transaction]:
        """A write transaction without a receipt (upserts, naturally idempotent writes).
        Commits on success, rolls back on exception; store failures raise
        :class:`StoreUnavailableError`."""
        conn = await self._acquire()
        broken = False
        begin = self.backend.begin_read if READING.get() else self.backend.begin_write
        try:
            await self._call(begin, conn)
            try:
                yield Transaction(self, conn)
            except BaseException:
                with anyio.CancelScope(shield=True):
                    try:
                        await self._call(self.backend.rollback, conn)
                    except Exception:
                        broken = True
                raise
            with anyio.CancelScope(shield=True):
                await self._call(self.backend.commit, conn)
        except StoreUnavailableError:
            broken = True
            raise
        finally:
            self._pool.release(conn, discard=broken)

    async def use_nonce(
        self, nonce: str, expires_at: float, *, transaction: Transaction | None = None
    ) -> bool | StoreUnavailable:
        """Record a single-use nonce. True the first time, False ever after (until it expires
        and is purged). With ``transaction`` the use commits or rolls back with it."""
        sql = (
            "INSERT INTO drivable_token_uses (nonce, expires_at, used_at) VALUES (?, ?, ?) "
            "ON CONFLICT (nonce) DO NOTHING"
        )
        params = (nonce, expires_at, self._clock())
        try:
            if transaction is not None:
                return (await transaction.execute(sql, params)).rowcount == 1
            async with self._connection() as conn:
                cur = await self._call(self._x, conn, sql, params)
                return bool(cur.rowcount == 1)
        except StoreUnavailableError as exc:
            return exc.outcome

    async def receipt(self, *, tool: str, principal: str, key: str) -> ReceiptView | None:
        async with self._connection() as conn:
            row = await self._call(
                lambda: self._x(
                    conn,
                    f"SELECT state, digest, result, expires_at FROM drivable_receipts WHERE {_SCOPE}",
                    (principal, tool, key),
                ).fetchone()
            )
        if row is None:
            return None
        return ReceiptView(
            state=row[0],
            digest=row[1],
            result=json.loads(row[2]) if row[2] is not None else None,
            expires_at=float(row[3]),
        )

    async def purge_expired(self) -> int:
        """Delete receipts and token uses past their window; returns how many rows went."""
        async with self._connection() as conn:
            self._last_purge = time.monotonic()
            return await self._call(self._purge, conn)

    async def close(self) -> None:
        self._pool.close()


def _is_driver_error(exc: BaseException) -> bool:
    # Any DB-API error: both drivers derive theirs from a module-level ``Error``.
    return any(c.__name__ == "Error" and c.__module__ in _DRIVER_MODULES for c in type(exc).__mro__)


_DRIVER_MODULES: Final = frozenset({"sqlite3", "psycopg", "psycopg.errors"})
