"""A server of the campaign on a fresh store: a SQLite file, or a PostgreSQL database of its own
that is dropped after the run."""

from __future__ import annotations

import uuid
from pathlib import Path
from typing import Any

from drivable import settings
from drivable.reliability.processes import serve
from drivable.reliability.profiles import profile_of


def store_url(kind: str, name: str, work: Path, made: list[str]) -> str:
    """A fresh store of `kind` for one run: a SQLite file, or a PostgreSQL database of its own."""
    if kind == "sqlite":
        return f"sqlite:///{work / f'{name}-{uuid.uuid4().hex[:6]}.sqlite'}"
    import psycopg

    admin = postgres_dsn()
    database = f"drivable_rel_{uuid.uuid4().hex[:10]}"
    with psycopg.connect(admin, autocommit=True) as connection:
        connection.execute(f'CREATE DATABASE "{database}"')
    made.append(database)
    return admin.rsplit("/", 1)[0] + "/" + database


def drop_stores(made: list[str]) -> None:
    if not made:
        return
    import psycopg

    with psycopg.connect(postgres_dsn(), autocommit=True) as connection:
        for database in made:
            connection.execute(f'DROP DATABASE IF EXISTS "{database}" WITH (FORCE)')
    made.clear()


def postgres_dsn() -> str:
    """The PostgreSQL the campaign creates its databases in (DRIVABLE_PG_DSN, else the one
    `scripts/ensure-postgres.sh` started), as a DSN of its `postgres` database."""
    dsn = settings.PG_DSN.get() or ""
    if not dsn:
        written = Path(__file__).resolve().parents[3] / "var" / "postgres.dsn"
        dsn = written.read_text().strip() if written.exists() else ""
    dsn = dsn or "postgresql://postgres@127.0.0.1:55432/postgres"
    return dsn.rsplit("/", 1)[0] + "/postgres"


def serve_profile(
    name: str, work: Path, workers: int, store: str = "sqlite"
) -> tuple[Any, dict[str, str]]:
    prof = profile_of(name)
    env: dict[str, str] = dict(prof.env)
    made: list[str] = []
    if prof.store_env:
        url = store_url(store, name, work, made)
        if prof.prepare is not None:
            prof.prepare(url)
        env[prof.store_env] = url
    served = serve(
        prof.target,
        work,
        workers=workers,
        verifier=prof.verifier,
        env=env,
        ready_token=prof.token,
        insecure=prof.insecure,
    )
    served.databases = made
    return served, env
