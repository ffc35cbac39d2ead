"""Billing fixtures: a fresh store per test (a real SQLite file; a real PostgreSQL schema), the
contract on it, and helpers that check every result against the contract it claims."""

from __future__ import annotations

import copy
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from pathlib import Path

import pytest

from drivable.contract import Contract
from drivable.servers.billing import server
from drivable.servers.billing.ledger import Ledger
from tests.effects.effects_pg import PostgresMissing, ensure_postgres, throwaway_schema
from tests.servers.billing.billing_helpers import SIZE


@pytest.fixture(scope="session")
def pg_dsn() -> str:
    import os

    if os.environ.get("DRIVABLE_PG") == "skip":
        pytest.skip("DRIVABLE_PG=skip")
    try:
        return ensure_postgres()
    except PostgresMissing as exc:
        pytest.fail(str(exc))


@pytest.fixture(params=["sqlite", "postgresql"])
def store_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """A URL of an empty store of each kind (a fresh file; a fresh PostgreSQL schema)."""
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'billing.sqlite'}"
    else:
        with throwaway_schema(request.getfixturevalue("pg_dsn")) as url:
            yield url


@pytest.fixture
def sqlite_url(tmp_path: Path) -> str:
    return f"sqlite:///{tmp_path / 'billing.sqlite'}"


@asynccontextmanager
async def open_billing(url: str) -> AsyncIterator[Contract]:
    """The contract started on a ledger of its own at `url` (a copy of the module's contract,
    so that several can be open at once), the ledger closed after."""
    ledger = Ledger(url, **SIZE)
    try:
        async with copy.copy(server.contract).started(ledger=ledger) as contract:
            yield contract
    finally:
        await ledger.close()


@pytest.fixture
async def billing(sqlite_url: str) -> AsyncIterator[Contract]:
    """The contract on a fresh SQLite file (most behaviour is the same on both stores)."""
    async with open_billing(sqlite_url) as contract:
        yield contract


@pytest.fixture
async def either(store_url: str) -> AsyncIterator[Contract]:
    """The contract on a fresh store of each kind."""
    async with open_billing(store_url) as contract:
        yield contract
