"""Billing fixtures: a fresh store per test (a real SQLite file; a real PostgreSQL schema), the
contract on it, and helpers that check every result against the contract it claims."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest

from drivable.contract import Contract
from drivable.servers.billing.ledger import Ledger
from drivable.servers.billing.server import make_contract
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


async def open_billing(url: str) -> tuple[Ledger, Contract]:
    ledger = Ledger(url, **SIZE)
    await ledger.prepare()
    return ledger, make_contract(ledger)


@pytest.fixture
async def billing(sqlite_url: str) -> AsyncIterator[Contract]:
    """The contract on a fresh SQLite file (most behaviour is the same on both stores)."""
    ledger, contract = await open_billing(sqlite_url)
    try:
        yield contract
    finally:
        await ledger.close()


@pytest.fixture
async def either(store_url: str) -> AsyncIterator[Contract]:
    """The contract on a fresh store of each kind."""
    ledger, contract = await open_billing(store_url)
    try:
        yield contract
    finally:
        await ledger.close()
