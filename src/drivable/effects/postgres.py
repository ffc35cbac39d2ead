"""The shared store: PostgreSQL through psycopg 3, for several server processes or hosts.

Connections run in autocommit mode and transactions are explicit (``BEGIN`` ... ``COMMIT``). The
effect transaction locks its receipt row with ``SELECT ... FOR UPDATE``; a takeover after a crash
uses ``FOR UPDATE SKIP LOCKED``, so a row whose owner is alive (its transaction holds the lock) is
never taken over, whatever the lease says. The schema is created under a transaction-scoped
advisory lock so that several processes starting together do not race on ``CREATE TABLE``.

Install with the ``postgres`` extra (``pip install 'drivable[postgres]'``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any, Final

from drivable.effects.backend import DEFAULT_PURGE_INTERVAL_S, SCHEMA, Backend
from drivable.effects.outcomes import UnavailableReason
from drivable.effects.store import SqlEffectStore

_SCHEMA_LOCK: Final = 0x64726976  # "driv": the advisory lock id guarding schema creation


def _translate(sql: str) -> str:
    return sql.replace("%", "%%").replace("?", "%s")


class PostgresBackend(Backend):
    dialect = "postgresql"
    insert_first = True
    lock_row = " FOR UPDATE"
    try_lock_row = " FOR UPDATE SKIP LOCKED"

    def __init__(
        self,
        dsn: str,
        *,
        max_connections: int = 10,
        connect_timeout_s: int = 5,
        application_name: str = "drivable-effects",
    ) -> None:
        try:
            import psycopg
        except ImportError as exc:  # pragma: no cover - exercised only without the extra
            raise ImportError(
                "PostgresStore needs psycopg 3: pip install 'drivable[postgres]'"
            ) from exc
        self._psycopg = psycopg
        self.dsn = dsn
        self.max_connections = max_connections
        self.connect_timeout_s = connect_timeout_s
        self.application_name = application_name

    def connect(self) -> Any:
        conn = self._psycopg.connect(
            self.dsn,
            autocommit=True,
            connect_timeout=self.connect_timeout_s,
            application_name=self.application_name,
        )
        # Claim rows and other bookkeeping commit without waiting for the flush (see
        # Backend.begin_claim); every write transaction restores the configured durability.
        conn.execute("SET synchronous_commit TO off")
        return conn

    def close(self, conn: Any) -> None:
        conn.close()

    def begin_write(self, conn: Any) -> None:
        # DEFAULT is the server's or the DSN's setting, not the session's "off" above.
        conn.execute("BEGIN; SET LOCAL synchronous_commit TO DEFAULT")

    def begin_claim(self, conn: Any) -> None:
        conn.execute("BEGIN")

    def execute(self, conn: Any, sql: str, params: Sequence[Any] = ()) -> Any:
        if params:
            return conn.execute(_translate(sql), tuple(params))
        return conn.execute(sql)

    def classify(self, exc: BaseException) -> UnavailableReason | None:
        pg = self._psycopg
        errors = pg.errors
        if isinstance(exc, errors.ReadOnlySqlTransaction):
            return UnavailableReason.READ_ONLY
        if isinstance(exc, errors.DiskFull | errors.OutOfMemory):
            return UnavailableReason.FULL
        if isinstance(
            exc,
            errors.LockNotAvailable
            | errors.DeadlockDetected
            | errors.SerializationFailure
            | errors.QueryCanceled
            | errors.TooManyConnections,
        ):
            return UnavailableReason.BUSY
        if isinstance(exc, pg.OperationalError | pg.InterfaceError):
            return UnavailableReason.UNREACHABLE
        return None

    def reusable(self, conn: Any) -> bool:
        if conn.closed:
            return False
        status = conn.info.transaction_status
        if status == self._psycopg.pq.TransactionStatus.IDLE:
            return True
        if status in (
            self._psycopg.pq.TransactionStatus.INTRANS,
            self._psycopg.pq.TransactionStatus.INERROR,
        ):
            conn.execute("ROLLBACK")
            return True
        return False

    def init_schema(self, conn: Any) -> None:
        conn.execute("BEGIN")
        try:
            conn.execute("SELECT pg_advisory_xact_lock(%s)", (_SCHEMA_LOCK,))
            for statement in SCHEMA:
                conn.execute(statement)
            conn.execute("COMMIT")
        except BaseException:
            if not conn.closed:
                conn.execute("ROLLBACK")
            raise

    @contextmanager
    def short_lock_wait(self, conn: Any) -> Iterator[None]:
        yield  # the takeover uses SKIP LOCKED: it never waits for a live owner


class PostgresStore(SqlEffectStore):
    """Effect store in a PostgreSQL database (tables ``drivable_receipts`` and
    ``drivable_token_uses`` are created on first use)."""

    def __init__(
        self,
        dsn: str,
        *,
        max_connections: int = 10,
        connect_timeout_s: int = 5,
        application_name: str = "drivable-effects",
        clock: Callable[[], float] | None = None,
        purge_interval_s: float = DEFAULT_PURGE_INTERVAL_S,
    ) -> None:
        backend = PostgresBackend(
            dsn,
            max_connections=max_connections,
            connect_timeout_s=connect_timeout_s,
            application_name=application_name,
        )
        if clock is None:
            super().__init__(backend, purge_interval_s=purge_interval_s)
        else:
            super().__init__(backend, clock=clock, purge_interval_s=purge_interval_s)
