"""What both SQL stores share: the schema, the defaults, and the dialect seam (`Backend`).

A backend is the only dialect-specific part: connect, begin, lock clauses, error classification.
"""

from __future__ import annotations

import re
from abc import ABC, abstractmethod
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any, Final, Literal

from drivable.effects.outcomes import (
    UnavailableReason,
)

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
    # What a keyed call made (one record per receipt), and whether a later call undid it: kept
    # apart from the receipts so a store made before it needs no migration, and joined to the
    # receipt in the one lookup a replay makes.
    """
    CREATE TABLE IF NOT EXISTS drivable_made (
        principal TEXT NOT NULL,
        tool TEXT NOT NULL,
        key TEXT NOT NULL,
        kind TEXT NOT NULL,
        entity_id TEXT NOT NULL,
        undone_by TEXT,
        undone_at DOUBLE PRECISION,
        expires_at DOUBLE PRECISION NOT NULL,
        PRIMARY KEY (principal, tool, key)
    )
    """,
    "CREATE INDEX IF NOT EXISTS drivable_made_entity ON drivable_made (kind, entity_id)",
    "CREATE INDEX IF NOT EXISTS drivable_made_expiry ON drivable_made (expires_at)",
)

_SCOPE = "principal = ? AND tool = ? AND key = ?"


def _identifier(name: str) -> str:
    if not _IDENTIFIER.match(name):
        raise ValueError(f"not a plain SQL identifier: {name!r}")
    return f'"{name}"'


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

    separate_reads: bool = False  # read-only transactions get a pool of their own (see store)
    insert_first: bool = False  # try the claim INSERT before looking (it never blocks)
    lock_row: str = ""  # appended to the SELECT that checks ownership in the effect transaction
    try_lock_row: str = ""  # appended to the SELECT of a takeover: skip rows a live owner holds

    def commit(self, conn: Any) -> None:
        self.execute(conn, "COMMIT")

    def rollback(self, conn: Any) -> None:
        self.execute(conn, "ROLLBACK")
