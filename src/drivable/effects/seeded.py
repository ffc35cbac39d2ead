"""Domain data kept in an effect store: created and loaded once, whichever process comes first.

A domain's tables live beside the effect store's own, so an effect and its receipt commit in one
transaction. `prepare()` creates them and loads the domain's data unless another process already
did (on PostgreSQL under an advisory lock: the others wait, then read it), and keeps a secret in the
domain's meta table that every process on the store shares, so confirm tokens and cursors verify
on any worker (`DRIVABLE_SECRET` overrides it). A domain names its schema, meta table, lock and
data version, and writes `load()`.
"""

from __future__ import annotations

import secrets
import threading
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from typing import ClassVar

import anyio

from drivable import settings
from drivable.effects.store import SqlEffectStore
from drivable.effects.transaction import Transaction


class SeededData:
    """The part of a domain's data store every domain shares; subclasses write `load()`."""

    schema: ClassVar[Sequence[str]]
    meta_table: ClassVar[str]  # (key TEXT PRIMARY KEY, value TEXT): 'secret', 'data_version'
    seed_lock: ClassVar[int]  # the PostgreSQL advisory lock one loading process holds
    data_version: ClassVar[str | None] = None

    def __init__(self, store: SqlEffectStore) -> None:
        self.store = store
        self.secret: bytes = b""

    async def load(self, tx: Transaction) -> None:
        """Write the domain's data (run once per store, inside `prepare()`'s transaction)."""
        raise NotImplementedError

    async def prepare(self) -> None:
        """Create the tables and load the data unless another process already did."""
        async with self.store.transaction() as tx:
            if tx.dialect == "postgresql":
                await tx.execute("SELECT pg_advisory_xact_lock(?)", (self.seed_lock,))
            for statement in self.schema:
                await tx.execute(statement)
            got = (
                await tx.execute(f"SELECT value FROM {self.meta_table} WHERE key = 'secret'")
            ).first()
            if got is None:
                await self.load(tx)
                secret = secrets.token_hex(32)
                rows: list[tuple[str, str]] = [("secret", secret)]
                if self.data_version is not None:
                    rows.append(("data_version", self.data_version))
                for key, value in rows:
                    await tx.execute(
                        f"INSERT INTO {self.meta_table} (key, value) VALUES (?, ?)", (key, value)
                    )
            else:
                secret = str(got[0])
        self.secret = settings.SECRET.get() or bytes.fromhex(secret)

    def prepare_blocking(self) -> None:
        """`prepare()` from synchronous code (a `serve()` function), inside a loop or not."""
        failure: list[BaseException] = []

        def run() -> None:
            try:
                anyio.run(self.prepare)
            except BaseException as exc:  # handed to the caller's thread
                failure.append(exc)

        worker = threading.Thread(target=run, name=f"{self.meta_table}-prepare")
        worker.start()
        worker.join()
        if failure:
            raise failure[0]

    @asynccontextmanager
    async def using(self, transaction: Transaction | None) -> AsyncIterator[Transaction]:
        """The call's effect transaction when it has one, else a transaction of our own."""
        if transaction is not None:
            yield transaction
            return
        async with self.store.transaction() as tx:
            yield tx
