"""A real PostgreSQL server for the tests: `scripts/ensure-postgres.sh` installs and starts one on
loopback if none answers, and prints its DSN. Set DRIVABLE_PG=skip to skip the PostgreSQL half."""

from __future__ import annotations

import os
import subprocess
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from urllib.parse import quote

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "ensure-postgres.sh"


class PostgresMissing(RuntimeError):
    pass


def ensure_postgres() -> str:
    """The DSN of a running server (DRIVABLE_PG_DSN wins when set)."""
    dsn = os.environ.get("DRIVABLE_PG_DSN")
    if dsn:
        return dsn
    proc = subprocess.run(
        ["bash", str(SCRIPT)], capture_output=True, text=True, timeout=900, check=False
    )
    if proc.returncode != 0 or not proc.stdout.strip():
        raise PostgresMissing(f"{SCRIPT.name} failed ({proc.returncode}): {proc.stderr[-2000:]}")
    dsn = proc.stdout.strip().splitlines()[-1]
    os.environ["DRIVABLE_PG_DSN"] = dsn  # for subprocesses and later sessions of this process
    return dsn


@contextmanager
def throwaway_schema(dsn: str) -> Iterator[str]:
    """A fresh schema for one test; yields a DSN whose search_path points at it."""
    import psycopg

    name = f"t_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute(f"CREATE SCHEMA {name}")
    sep = "&" if "?" in dsn else "?"
    try:
        yield f"{dsn}{sep}options={quote(f'-csearch_path={name}')}"
    finally:
        with psycopg.connect(dsn, autocommit=True) as conn:
            conn.execute(f"DROP SCHEMA {name} CASCADE")
