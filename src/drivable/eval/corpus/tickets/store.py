"""The tracker's tables in the effect store, so a ticket change and its receipt commit together.

The store URL comes from `DRIVABLE_STORE` (what `drivable serve --store` sets), else
`DRIVABLE_TICKETS_STORE`, else a fresh SQLite file for this process alone: each process then starts
from the generated data, and its receipts and confirm tokens live beside the tickets they name.
The first process on a store creates the tables and loads the data; later ones find them.
"""

from __future__ import annotations

import atexit
import os
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any

from drivable import settings
from drivable.effects import Transaction, open_store
from drivable.effects.seeded import SeededData
from drivable.eval.corpus.tickets.data import DATA_VERSION, Dataset, generate
from drivable.kinds.text_folding import words

STORE_ENV = "DRIVABLE_TICKETS_STORE"
SHARED_STORE_ENV = "DRIVABLE_STORE"

SCHEMA = (
    "CREATE TABLE IF NOT EXISTS tracker_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
    "CREATE TABLE IF NOT EXISTS tracker_tickets ("
    " ticket_id TEXT PRIMARY KEY, project TEXT NOT NULL, number INTEGER NOT NULL,"
    " title TEXT NOT NULL, description TEXT NOT NULL, status TEXT NOT NULL,"
    " priority TEXT NOT NULL, assignee TEXT, reporter TEXT NOT NULL, labels TEXT NOT NULL,"
    " created_at TEXT NOT NULL, updated_at TEXT NOT NULL, version INTEGER NOT NULL,"
    " deleted_at TEXT, words TEXT NOT NULL)",
    "CREATE TABLE IF NOT EXISTS tracker_comments ("
    " comment_id TEXT PRIMARY KEY, ticket_id TEXT NOT NULL, author TEXT NOT NULL,"
    " body TEXT NOT NULL, created_at TEXT NOT NULL)",
    "CREATE INDEX IF NOT EXISTS tracker_comments_ticket ON tracker_comments (ticket_id)",
)
_SEED_LOCK = 38_0038  # PostgreSQL: one process loads the data, the others wait for it
TICKET_COLUMNS = (
    "ticket_id, project, title, description, status, priority, assignee, reporter, labels, "
    "created_at, updated_at, version"
)


def default_url() -> str:
    configured = settings.from_environment("store") or settings.TICKETS_STORE.get()
    if configured:
        return configured
    handle, path = tempfile.mkstemp(prefix="tickets-", suffix=".sqlite")
    os.close(handle)
    atexit.register(_remove, path)
    return f"sqlite:///{path}" if not path.startswith("/") else f"sqlite:////{path[1:]}"


def _remove(path: str) -> None:
    for suffix in ("", "-wal", "-shm"):
        Path(path + suffix).unlink(missing_ok=True)


def searchable(*texts: str) -> str:
    """The folded words a free-text query is matched against (case and accents away)."""
    return " " + " ".join(words(t) for t in texts) + " "


def labels_cell(labels: tuple[str, ...] | list[str]) -> str:
    """Labels as one cell, ",bug,ui,", so "has label x" is one LIKE '%,x,%'."""
    return "," + ",".join(labels) + "," if labels else ","


@dataclass(frozen=True)
class TicketRecord:
    ticket_id: str
    project: str
    title: str
    description: str
    status: str
    priority: str
    assignee: str | None
    reporter: str
    labels: tuple[str, ...]
    created_at: str
    updated_at: str
    version: int

    @classmethod
    def of(cls, row: tuple[Any, ...]) -> TicketRecord:
        values = dict(zip([f.name for f in fields(cls)], row, strict=True))
        values["labels"] = tuple(x for x in str(values["labels"]).split(",") if x)
        values["version"] = int(values["version"])
        return cls(**values)


@dataclass(frozen=True)
class Filters:
    """A search's filters as the tools read them; None is "not filtering"."""

    query: str | None = None
    project: str | None = None
    status: str | None = None
    priority: str | None = None
    assignee: str | None = None  # an e-mail, or "unassigned"
    labels: tuple[str, ...] = ()
    created_from: str | None = None
    created_to: str | None = None
    updated_from: str | None = None
    updated_to: str | None = None

    def where(self) -> tuple[str, list[Any]]:
        clauses = ["deleted_at IS NULL"]
        params: list[Any] = []
        if self.query:
            for word in words(self.query).split():
                clauses.append("words LIKE ?")
                params.append(f"%{word}%")
        for column in ("project", "status", "priority"):
            value = getattr(self, column)
            if value is not None:
                clauses.append(f"{column} = ?")
                params.append(value)
        if self.assignee == "unassigned":
            clauses.append("assignee IS NULL")
        elif self.assignee is not None:
            clauses.append("assignee = ?")
            params.append(self.assignee)
        for label in self.labels:
            clauses.append("labels LIKE ?")
            params.append(f"%,{label},%")
        for name, column, op in (
            ("created_from", "created_at", ">="),
            ("created_to", "created_at", "<="),
            ("updated_from", "updated_at", ">="),
            ("updated_to", "updated_at", "<="),
        ):
            day = getattr(self, name)
            if day is not None:
                clauses.append(f"substr({column}, 1, 10) {op} ?")
                params.append(day)
        return " AND ".join(clauses), params


# What an empty page reports for a filter left out: the values its rows have, per column.
VALUE_COLUMNS: Mapping[str, str] = {
    "project": "project",
    "status": "status",
    "priority": "priority",
    "assignee": "COALESCE(assignee, 'unassigned')",
}


class Tracker(SeededData):
    """The tracker's data in one effect store; `prepare()` before serving."""

    schema = SCHEMA
    meta_table = "tracker_meta"
    seed_lock = _SEED_LOCK
    data_version = DATA_VERSION

    def __init__(self, url: str | None = None, data: Dataset | None = None) -> None:
        self.url = url or default_url()
        super().__init__(open_store(self.url))
        self._data = data

    async def load(self, tx: Transaction) -> None:
        await _load(tx, self._data or generate())

    async def ticket(self, tx: Transaction, ticket_id: str) -> TicketRecord | None:
        row = (
            await tx.execute(
                f"SELECT {TICKET_COLUMNS} FROM tracker_tickets "
                "WHERE upper(ticket_id) = upper(?) AND deleted_at IS NULL",
                (ticket_id,),
            )
        ).first()
        return TicketRecord.of(row) if row is not None else None

    async def deleted(self, tx: Transaction, ticket_id: str) -> tuple[str, str] | None:
        """(ticket_id, deleted_at) of a deleted ticket, else None."""
        row = (
            await tx.execute(
                "SELECT ticket_id, deleted_at FROM tracker_tickets "
                "WHERE upper(ticket_id) = upper(?) AND deleted_at IS NOT NULL",
                (ticket_id,),
            )
        ).first()
        return (str(row[0]), str(row[1])) if row is not None else None

    async def find(
        self, tx: Transaction, filters: Filters, offset: int, limit: int
    ) -> tuple[list[TicketRecord], int]:
        where, params = filters.where()
        rows = await tx.execute(
            f"SELECT {TICKET_COLUMNS} FROM tracker_tickets WHERE {where} "
            "ORDER BY updated_at DESC, ticket_id LIMIT ? OFFSET ?",
            (*params, limit, offset),
        )
        return [TicketRecord.of(r) for r in rows.rows], await self.count(tx, filters)

    async def count(self, tx: Transaction, filters: Filters) -> int:
        where, params = filters.where()
        row = (
            await tx.execute(f"SELECT COUNT(*) FROM tracker_tickets WHERE {where}", params)
        ).first()
        return int(row[0]) if row else 0

    async def values(self, tx: Transaction, filters: Filters, name: str) -> list[tuple[str, int]]:
        """The values of one filter's column among the rows `filters` match, most rows first."""
        where, params = filters.where()
        if name == "labels":
            rows = await tx.execute(f"SELECT labels FROM tracker_tickets WHERE {where}", params)
            counts: dict[str, int] = {}
            for (cell,) in rows.rows:
                for label in str(cell).split(","):
                    if label:
                        counts[label] = counts.get(label, 0) + 1
            return sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))
        column = VALUE_COLUMNS.get(name)
        if column is None:
            return []
        rows = await tx.execute(
            f"SELECT {column} AS v, COUNT(*) FROM tracker_tickets WHERE {where} "
            "GROUP BY v ORDER BY COUNT(*) DESC, v",
            params,
        )
        return [(str(v), int(n)) for v, n in rows.rows]

    async def days(self, tx: Transaction, filters: Filters, column: str) -> list[tuple[str, int]]:
        """Each day of `column` (created_at, updated_at) among the rows `filters` match."""
        where, params = filters.where()
        rows = await tx.execute(
            f"SELECT substr({column}, 1, 10) AS d, COUNT(*) FROM tracker_tickets WHERE {where} "
            "GROUP BY d",
            params,
        )
        return [(str(d), int(n)) for d, n in rows.rows]

    async def comments(self, tx: Transaction, ticket_id: str) -> list[tuple[str, str, str, str]]:
        rows = await tx.execute(
            "SELECT comment_id, author, body, created_at FROM tracker_comments "
            "WHERE ticket_id = ? ORDER BY created_at, comment_id",
            (ticket_id,),
        )
        return [(str(a), str(b), str(c), str(d)) for a, b, c, d in rows.rows]

    async def comment_counts(self, tx: Transaction, ids: list[str]) -> dict[str, int]:
        if not ids:
            return {}
        marks = ", ".join("?" for _ in ids)
        rows = await tx.execute(
            f"SELECT ticket_id, COUNT(*) FROM tracker_comments WHERE ticket_id IN ({marks}) "
            "GROUP BY ticket_id",
            ids,
        )
        return {str(t): int(n) for t, n in rows.rows}

    async def next_number(self, tx: Transaction, project: str) -> int:
        row = (
            await tx.execute(
                "SELECT COALESCE(MAX(number), 0) FROM tracker_tickets WHERE project = ?",
                (project,),
            )
        ).first()
        return int(row[0]) + 1 if row else 1

    async def close(self) -> None:
        await self.store.close()


async def _load(tx: Transaction, data: Dataset) -> None:
    """Every generated ticket and comment, in a few multi-row statements."""
    tickets = [
        (
            t.ticket_id,
            t.project,
            t.number,
            t.title,
            t.description,
            t.status,
            t.priority,
            t.assignee,
            t.reporter,
            labels_cell(t.labels),
            t.created_at,
            t.updated_at,
            t.version,
            searchable(t.ticket_id, t.title, t.description),
        )
        for t in data.tickets
    ]
    comments = [
        (c.comment_id, c.ticket_id, c.author, c.body, c.created_at)
        for t in data.tickets
        for c in t.comments
    ]
    await _insert(
        tx,
        "tracker_tickets (ticket_id, project, number, title, description, status, priority, "
        "assignee, reporter, labels, created_at, updated_at, version, words)",
        tickets,
    )
    await _insert(
        tx, "tracker_comments (comment_id, ticket_id, author, body, created_at)", comments
    )


async def _insert(tx: Transaction, into: str, rows: list[tuple[Any, ...]]) -> None:
    batch = 60  # well under every driver's limit of bound parameters per statement
    for start in range(0, len(rows), batch):
        part = rows[start : start + batch]
        one = "(" + ", ".join("?" for _ in part[0]) + ")"
        await tx.execute(
            f"INSERT INTO {into} VALUES " + ", ".join(one for _ in part),
            [v for row in part for v in row],
        )
