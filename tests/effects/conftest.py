from __future__ import annotations

import os
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest

from drivable.effects import SqlEffectStore, open_store
from tests.effects.effects_pg import PostgresMissing, ensure_postgres, throwaway_schema

STORES = ["sqlite", "postgresql"]


@pytest.fixture(scope="session")
def pg_dsn() -> str:
    if os.environ.get("DRIVABLE_PG") == "skip":
        pytest.skip("DRIVABLE_PG=skip")
    try:
        return ensure_postgres()
    except PostgresMissing as exc:
        pytest.fail(str(exc))


@pytest.fixture(params=STORES)
def store_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """A URL of an empty store of each kind (a fresh file; a fresh PostgreSQL schema)."""
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'effects.db'}"
    else:
        dsn = request.getfixturevalue("pg_dsn")
        with throwaway_schema(dsn) as url:
            yield url


@pytest.fixture
async def store(store_url: str) -> AsyncIterator[SqlEffectStore]:
    s = open_store(store_url)
    try:
        yield s
    finally:
        await s.close()
