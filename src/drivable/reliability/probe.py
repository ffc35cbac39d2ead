"""The probe: a small contract with real effects on a configurable store, for faults and access.

`drivable serve drivable.reliability.probe:make --http --verifier drivable.reliability.probe:verifier`
serves it; the store is the URL in DRIVABLE_RELIABILITY_STORE (SQLite or PostgreSQL), shared by
every worker process. `add_entry` is keyed (an idempotency_key runs the effect once), writing one
row of `probe_entries` in the effect's transaction, so a duplicate effect is a second row with the
same label; `void_entry` is destructive (dry run, then a confirm token bound to the principal).

The tokens below are fixed, public test credentials: the probe is a test server, never a product.
"""

from __future__ import annotations

import contextlib
import datetime
import os
import sqlite3
import uuid
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field

from drivable import settings
from drivable.contract import READ_ONLY, Call, Contract, Effects, Repair, Summary, ToolError
from drivable.contract.durable import (
    CONFIRM_TOKEN,
    DRY_RUN,
    IDEMPOTENCY_KEY,
    ConfirmToken,
    IdempotencyKey,
)
from drivable.effects import open_store
from drivable.kinds import Kind, KindModel
from drivable.serve.auth import StaticToken, StaticTokenVerifier

STORE_ENV = settings.RELIABILITY_STORE.name
SECRET = b"reliability-probe-secret-0123456789"
WRITE_SCOPE = "entries:write"
READ_SCOPE = "entries:read"

ALICE_TOKEN = "probe-alice-token-0123456789"
BOB_TOKEN = "probe-bob-token-0123456789"
READER_TOKEN = "probe-reader-token-0123456789"
EXPIRED_TOKEN = "probe-expired-token-0123456789"

verifier = StaticTokenVerifier(
    {
        ALICE_TOKEN: StaticToken("alice", frozenset({READ_SCOPE, WRITE_SCOPE})),
        BOB_TOKEN: StaticToken("bob", frozenset({READ_SCOPE, WRITE_SCOPE})),
        READER_TOKEN: StaticToken("carol", frozenset({READ_SCOPE})),
        EXPIRED_TOKEN: StaticToken(
            "dave",
            frozenset({READ_SCOPE, WRITE_SCOPE}),
            expires_at=datetime.datetime(2020, 1, 1, tzinfo=datetime.UTC),
        ),
    }
)

TABLE_SQL = (
    "CREATE TABLE IF NOT EXISTS probe_entries ("
    "entry_id TEXT PRIMARY KEY, principal TEXT NOT NULL, label TEXT NOT NULL, amount INTEGER NOT NULL)"
)


def prepare_store(url: str) -> None:
    """Create the probe's table before any worker starts (so no two workers race to create it)."""
    if url.startswith(("postgresql://", "postgres://")):
        import psycopg

        with psycopg.connect(url, autocommit=True) as pg:
            pg.execute(TABLE_SQL)
        return
    path = url[len("sqlite:///") :] if url.startswith("sqlite:///") else url
    with contextlib.closing(sqlite3.connect(path)) as conn, conn:
        conn.execute(TABLE_SQL)


def count_rows(url: str, *, label: str | None = None) -> dict[str, int]:
    """Rows per label (all labels, or one): a label seen twice is a duplicated effect."""
    sql = "SELECT label, COUNT(*) FROM probe_entries"
    params: tuple[str, ...] = ()
    if url.startswith(("postgresql://", "postgres://")):
        import psycopg

        if label is not None:
            sql += " WHERE label = %s"
            params = (label,)
        with psycopg.connect(url, autocommit=True) as conn:
            rows = conn.execute(sql + " GROUP BY label", params).fetchall()
        return {str(r[0]): int(r[1]) for r in rows}
    path = url[len("sqlite:///") :] if url.startswith("sqlite:///") else url
    if label is not None:
        sql += " WHERE label = ?"
        params = (label,)
    with contextlib.closing(sqlite3.connect(path)) as conn:
        found = conn.execute(sql + " GROUP BY label", params).fetchall()
    return {str(r[0]): int(r[1]) for r in found}


class PingInput(KindModel):
    echo: Annotated[str, Field(min_length=1, max_length=64, description="Any short word.")] = "ping"


class PingOutput(BaseModel):
    model_config = ConfigDict(extra="forbid")
    alive: bool
    pid: int


class RecordInput(KindModel):
    label: Annotated[str, Field(min_length=1, max_length=200, description="What the entry is for.")]
    amount: int = Field(ge=1, le=1_000_000, description="Whole units, 1 to 1,000,000.")
    idempotency_key: IdempotencyKey = IDEMPOTENCY_KEY


class RecordOutput(BaseModel):
    model_config = ConfigDict(extra="forbid")
    entry_id: str
    label: str
    amount: int


class VoidInput(KindModel):
    entry_id: Annotated[str, Kind("identifier", prefix="ent_")] = Field(
        description="The entry_id add_entry returned, e.g. 'ent_3f2a'."
    )
    dry_run: bool = DRY_RUN
    confirm_token: ConfirmToken = CONFIRM_TOKEN


class VoidOutput(BaseModel):
    model_config = ConfigDict(extra="forbid")
    entry_id: str
    status: Literal["would_void", "voided"]


def make() -> Contract:
    """The probe contract on the store named by DRIVABLE_RELIABILITY_STORE."""
    contract = Contract(
        "reliability-probe",
        version="1.0.0",
        summary=Summary(
            text="Record and void ledger entries; used to test faults and access control.",
            does=["record an entry", "void an entry", "answer a liveness ping"],
            does_not=["list or edit entries"],
        ),
        settings_url="https://example.test/settings/probe",
    )
    url = settings.RELIABILITY_STORE.get()
    if url:
        contract.use_effects(open_store(url), SECRET)

    @contract.tool(
        name="check_alive",
        title="Check alive",
        description='Answers at once; a liveness check. Example: {"echo": "<any short word>"}.',
        effects=READ_ONLY,
    )
    async def ping(args: PingInput, call: Call) -> PingOutput:
        return PingOutput(alive=True, pid=os.getpid())

    @contract.tool(
        name="add_entry",
        title="Record an entry",
        description=(
            "Record one ledger entry; needs the scope entries:write. "
            'Example: {"label": "<label>", "amount": "<amount>", "idempotency_key": "<a key you make up>"}.'
        ),
        effects=Effects(read_only=False, destructive=False, idempotent=False, open_world=False),
        scopes=[WRITE_SCOPE],
    )
    async def add_entry(args: RecordInput, call: Call) -> RecordOutput:
        entry_id = f"ent_{uuid.uuid4().hex[:12]}"
        await call.transaction.execute(
            "INSERT INTO probe_entries (entry_id, principal, label, amount) VALUES (?, ?, ?, ?)",
            (entry_id, call.principal.id, args.label, args.amount),
        )
        return RecordOutput(entry_id=entry_id, label=args.label, amount=args.amount)

    @contract.tool(
        name="void_entry",
        title="Void an entry",
        description=(
            "Void one entry for good; needs the scope entries:write. Call it with dry_run true "
            "first, then make the preview's next_call (dry_run false and its confirm_token). "
            'Example: {"entry_id": "<entry_id of an entry>", "dry_run": true}.'
        ),
        effects=Effects(read_only=False, destructive=True, idempotent=True, open_world=False),
        errors=["not_found"],
        scopes=[WRITE_SCOPE],
    )
    async def void_entry(args: VoidInput, call: Call) -> VoidOutput:
        if args.dry_run:
            return VoidOutput(entry_id=args.entry_id, status="would_void")
        rows = await call.transaction.execute(
            "DELETE FROM probe_entries WHERE entry_id = ? AND principal = ?",
            (args.entry_id, call.principal.id),
        )
        if rows.rowcount == 0:
            raise ToolError(
                "not_found",
                f"No entry of yours has the id {args.entry_id}.",
                hint="Use an entry_id add_entry returned to you.",
                repair=Repair("check_alive", {"echo": "ping"}, "check_alive"),
            )
        return VoidOutput(entry_id=args.entry_id, status="voided")

    return contract
