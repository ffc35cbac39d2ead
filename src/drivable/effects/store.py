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

`SqlEffectStore` is here, the async side (connections, worker threads, cancellation); the steps of
a claim, synchronous SQL, are `receipts.ClaimSteps`; beside them: `backend` (the schema, the
defaults and the dialect seam), `pool` (connections), `transaction` (what effect code writes
through), `claims` (what a claim returns) and `protocol` (`EffectStore`, what the runtime needs of
any store). The names other
modules use are imported from here or from `drivable.effects`.
"""

from __future__ import annotations

import hashlib
import logging
import math
import time
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping, Sequence
from contextlib import asynccontextmanager, suppress
from typing import Any, Final, TypeVar

import anyio
import anyio.to_thread

from drivable.canonical import canonical_json
from drivable.effects.backend import (
    DEFAULT_LEASE_S,
    DEFAULT_PURGE_INTERVAL_S,
    DEFAULT_WAIT_S,
    DEFAULT_WINDOW_S,
    READING,
    Backend,
    Dialect,
)
from drivable.effects.canonical import normalised_arguments
from drivable.effects.claims import (
    Claim,
    NewClaim,
    ReceiptView,
    _Claimed,
    _Scope,
    _Wait,
)
from drivable.effects.outcomes import (
    Executed,
    InProgress,
    Mismatch,
    Replay,
    StoreUnavailable,
    StoreUnavailableError,
    UnavailableReason,
)
from drivable.effects.pool import _Pool
from drivable.effects.receipts import ClaimSteps
from drivable.effects.transaction import Transaction

log = logging.getLogger("drivable.effects")

T = TypeVar("T")


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
        self._steps = ClaimSteps(backend, clock)
        self._pool = _Pool(backend)
        # A read-only tool's transactions take connections of their own where the database lets
        # readers pass writers (SQLite in WAL): never queued behind writers waiting for the lock.
        self._reads = _Pool(backend) if backend.separate_reads else self._pool
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

    async def _acquire(self, pool: _Pool | None = None) -> Any:
        pool = pool or self._pool
        try:
            conn = await pool.acquire()
        except Exception as exc:
            err = self._unavailable(exc, internal=True)
            if err is None:
                raise
            raise err from exc
        if not self._schema_ready:
            try:
                await self._call(self.backend.init_schema, conn)
            except BaseException:
                pool.release(conn, discard=True)
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
                await claim.transaction._end()
                await self._abandon(conn, scope, owner)
            raise
        with anyio.CancelScope(shield=True):
            await claim.transaction._end()
            if claim._result_json is None:
                await self._abandon(conn, scope, owner)
                return
            try:
                await self._call(
                    self._steps.finish,
                    conn,
                    scope,
                    owner,
                    claim._result_json,
                    window_s,
                    claim.transaction.made_record,
                )
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
                    self._steps.claim_step, conn, scope, digest, args_json, window_s, lease_s, owner
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
            await self._call(self._steps.release_claim, conn, scope, owner)
        except Exception:
            broken = True  # the lease will expire; a retry then takes the claim over
        self._pool.release(conn, discard=broken)

    async def _maybe_purge(self, conn: Any) -> None:
        now = time.monotonic()
        if now - self._last_purge < self._purge_interval_s:
            return
        self._last_purge = now
        with suppress(Exception):
            await self._call(self._steps.purge, conn)

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
        reading = READING.get()
        pool = self._reads if reading else self._pool
        conn = await self._acquire(pool)
        broken = False
        begin = self.backend.begin_read if reading else self.backend.begin_write
        try:
            await self._call(begin, conn)
            tx = Transaction(self, conn)
            try:
                yield tx
            except BaseException:
                with anyio.CancelScope(shield=True):
                    await tx._end()
                    try:
                        await self._call(self.backend.rollback, conn)
                    except Exception:
                        broken = True
                raise
            with anyio.CancelScope(shield=True):
                await tx._end()
                await self._call(self.backend.commit, conn)
        except StoreUnavailableError:
            broken = True
            raise
        finally:
            pool.release(conn, discard=broken)

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
            return await self._call(self._steps.receipt, conn, _Scope(principal, tool, key))

    async def purge_expired(self) -> int:
        """Delete receipts and token uses past their window; returns how many rows went."""
        async with self._connection() as conn:
            self._last_purge = time.monotonic()
            return await self._call(self._steps.purge, conn)

    async def close(self) -> None:
        self._pool.close()
        self._reads.close()


def _is_driver_error(exc: BaseException) -> bool:
    # Any DB-API error: both drivers derive theirs from a module-level ``Error``.
    return any(c.__name__ == "Error" and c.__module__ in _DRIVER_MODULES for c in type(exc).__mro__)


_DRIVER_MODULES: Final = frozenset({"sqlite3", "psycopg", "psycopg.errors"})
