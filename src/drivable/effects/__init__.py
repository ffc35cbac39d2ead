"""drivable.effects: durable effects for mutating tools.

Idempotency receipts (replay, mismatch, in progress; written in the same transaction as the
effect), single-use confirm tokens for two-step destructive actions, version preconditions and
upserts, on SQLite (embedded default) or PostgreSQL (several processes or hosts). Everything a
client may see comes back as a typed outcome (see :mod:`drivable.effects.outcomes`); the runtime
turns it into its error envelope. See docs/effects.md.
"""

from __future__ import annotations

import os
from typing import Any
from urllib.parse import unquote, urlsplit

from drivable.effects.backend import DEFAULT_LEASE_S, DEFAULT_WAIT_S, DEFAULT_WINDOW_S
from drivable.effects.canonical import (
    CONTROL_FIELDS,
    arguments_digest,
    canonical_arguments,
    differing_fields,
)
from drivable.effects.claims import Claim, NewClaim, ReceiptView
from drivable.effects.outcomes import (
    Executed,
    InProgress,
    Mismatch,
    NotFound,
    Refusal,
    RefusalReason,
    Replay,
    StoreUnavailable,
    StoreUnavailableError,
    UnavailableReason,
    Undone,
    Updated,
    Upserted,
    VersionConflict,
)
from drivable.effects.protocol import EffectStore
from drivable.effects.sqlite import SqliteStore
from drivable.effects.store import SqlEffectStore
from drivable.effects.tokens import ConfirmTokens
from drivable.effects.transaction import Rows, Transaction, TransactionEnded
from drivable.effects.versions import check_version

__all__ = [
    "CONTROL_FIELDS",
    "DEFAULT_LEASE_S",
    "DEFAULT_WAIT_S",
    "DEFAULT_WINDOW_S",
    "Claim",
    "ConfirmTokens",
    "EffectStore",
    "Executed",
    "InProgress",
    "Mismatch",
    "NewClaim",
    "NotFound",
    "ReceiptView",
    "Refusal",
    "RefusalReason",
    "Replay",
    "Rows",
    "SqlEffectStore",
    "SqliteStore",
    "StoreUnavailable",
    "StoreUnavailableError",
    "Transaction",
    "TransactionEnded",
    "UnavailableReason",
    "Undone",
    "Updated",
    "Upserted",
    "VersionConflict",
    "arguments_digest",
    "canonical_arguments",
    "check_version",
    "differing_fields",
    "open_store",
]


def open_store(url: str, **options: Any) -> SqlEffectStore:
    """Open an effect store from a URL.

    - ``sqlite:///relative/file.db`` or ``sqlite:////absolute/file.db`` (SQLAlchemy's spelling:
      the path is what follows ``sqlite:///``); a bare filesystem path is read as SQLite too.
    - ``postgresql://user@host:port/db`` (or ``postgres://``): a libpq DSN, handed to psycopg.

    ``options`` go to the store's constructor. Nothing connects until first use."""
    scheme = urlsplit(url).scheme.lower()
    if scheme == "sqlite":
        if not url.lower().startswith("sqlite:///"):
            raise ValueError("write SQLite URLs as sqlite:///relative.db or sqlite:////abs.db")
        path = unquote(url[len("sqlite:///") :].split("?", 1)[0])
        if not path:
            raise ValueError("the SQLite URL names no file")
        return SqliteStore(path, **options)
    if scheme in ("postgresql", "postgres"):
        from drivable.effects.postgres import PostgresStore

        return PostgresStore(url, **options)
    if scheme == "" and url:
        return SqliteStore(os.fspath(url), **options)
    raise ValueError(f"unknown effect store scheme: {scheme!r}")
