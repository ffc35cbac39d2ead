"""The embedded store: one SQLite file in WAL mode, no set-up.

Exclusion across threads and processes comes from SQLite's own file locks: every write transaction
starts with ``BEGIN IMMEDIATE`` (takes the write lock up front, so two writers never both read
then both write). Readers never block in WAL mode, which is what lets a waiting call see that a
key is ``running``.
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any, Final, Literal

from drivable.effects.backend import DEFAULT_PURGE_INTERVAL_S, SCHEMA, Backend
from drivable.effects.outcomes import UnavailableReason
from drivable.effects.store import SqlEffectStore

# Primary result codes (the low byte of the extended code).
_REASONS: Final[dict[int, UnavailableReason]] = {
    3: UnavailableReason.READ_ONLY,  # SQLITE_PERM
    5: UnavailableReason.BUSY,  # SQLITE_BUSY
    6: UnavailableReason.BUSY,  # SQLITE_LOCKED
    7: UnavailableReason.FULL,  # SQLITE_NOMEM
    8: UnavailableReason.READ_ONLY,  # SQLITE_READONLY
    10: UnavailableReason.FAILED,  # SQLITE_IOERR
    11: UnavailableReason.FAILED,  # SQLITE_CORRUPT
    13: UnavailableReason.FULL,  # SQLITE_FULL
    14: UnavailableReason.UNREACHABLE,  # SQLITE_CANTOPEN
    15: UnavailableReason.BUSY,  # SQLITE_PROTOCOL
    26: UnavailableReason.FAILED,  # SQLITE_NOTADB
}

Synchronous = Literal["OFF", "NORMAL", "FULL", "EXTRA"]


class SqliteBackend(Backend):
    dialect = "sqlite"
    separate_reads = True  # WAL readers never wait for the writer; their connections must not

    def __init__(
        self,
        path: str | os.PathLike[str],
        *,
        busy_timeout_s: float = 10.0,
        synchronous: Synchronous = "FULL",
        max_connections: int = 16,
    ) -> None:
        self.path = os.fspath(path)
        self.busy_timeout_s = busy_timeout_s
        self.synchronous = synchronous
        self.max_connections = max_connections

    def connect(self) -> sqlite3.Connection:
        conn = sqlite3.connect(
            self.path,
            timeout=self.busy_timeout_s,
            isolation_level=None,  # we issue BEGIN / COMMIT ourselves
            check_same_thread=False,  # pooled; used by one task at a time from worker threads
        )
        try:
            conn.execute(f"PRAGMA busy_timeout = {int(self.busy_timeout_s * 1000)}")
            mode = conn.execute("PRAGMA journal_mode = WAL").fetchone()
            if mode is None or str(mode[0]).lower() != "wal":
                raise sqlite3.OperationalError("could not switch the journal to WAL")
            conn.execute(f"PRAGMA synchronous = {self.synchronous}")
        except BaseException:
            conn.close()
            raise
        return conn

    def close(self, conn: Any) -> None:
        conn.close()

    def begin_write(self, conn: Any) -> None:
        conn.execute("BEGIN IMMEDIATE")

    def begin_read(self, conn: Any) -> None:
        # Deferred: WAL readers see a snapshot and never wait for the writer.
        conn.execute("BEGIN")

    def begin_claim(self, conn: Any) -> None:
        # In WAL mode NORMAL still orders commits; the next FULL commit syncs this one too.
        if self.synchronous in ("FULL", "EXTRA"):
            conn.execute("PRAGMA synchronous = NORMAL")
        conn.execute("BEGIN IMMEDIATE")

    @contextmanager
    def relaxed(self, conn: Any) -> Iterator[None]:
        if self.synchronous not in ("FULL", "EXTRA"):
            yield
            return
        conn.execute("PRAGMA synchronous = NORMAL")
        try:
            yield
        finally:
            conn.execute(f"PRAGMA synchronous = {self.synchronous}")

    def after_claim(self, conn: Any) -> None:
        if self.synchronous in ("FULL", "EXTRA") and not conn.in_transaction:
            conn.execute(f"PRAGMA synchronous = {self.synchronous}")

    def execute(self, conn: Any, sql: str, params: Sequence[Any] = ()) -> Any:
        return conn.execute(sql, tuple(params))

    def classify(self, exc: BaseException) -> UnavailableReason | None:
        if not isinstance(exc, sqlite3.Error):
            return None
        code = getattr(exc, "sqlite_errorcode", None)
        if isinstance(code, int) and (code & 0xFF) in _REASONS:
            return _REASONS[code & 0xFF]
        if isinstance(exc, sqlite3.OperationalError) and "locked" in str(exc):
            return UnavailableReason.BUSY
        return None

    def reusable(self, conn: Any) -> bool:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        return True

    def init_schema(self, conn: Any) -> None:
        self.begin_write(conn)
        try:
            for statement in SCHEMA:
                conn.execute(statement)
            conn.execute("COMMIT")
        except BaseException:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            raise

    @contextmanager
    def short_lock_wait(self, conn: Any) -> Iterator[None]:
        conn.execute("PRAGMA busy_timeout = 50")
        try:
            yield
        finally:
            conn.execute(f"PRAGMA busy_timeout = {int(self.busy_timeout_s * 1000)}")


class SqliteStore(SqlEffectStore):
    """Effect store in one SQLite file (created on first use, with its directory)."""

    def __init__(
        self,
        path: str | os.PathLike[str],
        *,
        busy_timeout_s: float = 10.0,
        synchronous: Synchronous = "FULL",
        max_connections: int = 16,
        clock: Callable[[], float] | None = None,
        purge_interval_s: float = DEFAULT_PURGE_INTERVAL_S,
    ) -> None:
        directory = os.path.dirname(os.fspath(path))
        if directory:
            os.makedirs(directory, exist_ok=True)
        backend = SqliteBackend(
            path,
            busy_timeout_s=busy_timeout_s,
            synchronous=synchronous,
            max_connections=max_connections,
        )
        if clock is None:
            super().__init__(backend, purge_interval_s=purge_interval_s)
        else:
            super().__init__(backend, clock=clock, purge_interval_s=purge_interval_s)
        self.path = backend.path
