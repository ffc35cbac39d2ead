"""The document store's tables, in the effect store's own database (the SQL, and nothing else).

Folders, documents and shares live beside the idempotency receipts and spent confirm tokens, so a
share, a move or a delete commits together with its receipt. The URL comes from `DRIVABLE_STORE`
(what `drivable serve --store` sets), else `DRIVABLE_DOCUMENTS_STORE`; without either, a scratch
SQLite file made for this process and removed when it exits, so receipts live exactly as long as
the documents they speak of (a fresh process starts from the generated data, as the naive twin).
"""

from __future__ import annotations

import atexit
import shutil
import tempfile
from dataclasses import dataclass, fields
from typing import Any

from drivable import settings
from drivable.effects import Transaction, open_store
from drivable.effects.seeded import SeededData
from drivable.eval.corpus.documents.data import Library, generate, parent, searchable
from drivable.kinds.text_folding import words

STORE_ENV = "DRIVABLE_DOCUMENTS_STORE"
SHARED_STORE_ENV = "DRIVABLE_STORE"

SCHEMA: tuple[str, ...] = (
    "CREATE TABLE IF NOT EXISTS docs_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
    "CREATE TABLE IF NOT EXISTS docs_people (email TEXT PRIMARY KEY, name TEXT NOT NULL)",
    "CREATE TABLE IF NOT EXISTS docs_folders (path TEXT PRIMARY KEY, parent TEXT)",
    """CREATE TABLE IF NOT EXISTS docs_documents (
        document_id TEXT PRIMARY KEY, name TEXT NOT NULL, folder TEXT NOT NULL,
        type TEXT NOT NULL, size_bytes BIGINT NOT NULL, owner TEXT NOT NULL,
        modified_on TEXT NOT NULL, version INTEGER NOT NULL, text TEXT NOT NULL,
        folded_name TEXT NOT NULL, folded TEXT NOT NULL)""",
    "CREATE INDEX IF NOT EXISTS docs_documents_folder ON docs_documents (folder)",
    """CREATE TABLE IF NOT EXISTS docs_shares (
        document_id TEXT NOT NULL, email TEXT NOT NULL, role TEXT NOT NULL,
        PRIMARY KEY (document_id, email))""",
)
COLUMNS = "document_id, name, folder, type, size_bytes, owner, modified_on, version"
ORDER: dict[str, str] = {  # list_folder's sort orders
    "name": "lower(name), document_id",
    "newest": "modified_on DESC, lower(name), document_id",
    "oldest": "modified_on, lower(name), document_id",
    "largest": "size_bytes DESC, lower(name), document_id",
    "smallest": "size_bytes, lower(name), document_id",
}
_SCRATCH: list[str] = []
_SEED_LOCK = 0x646F6373  # "docs": the advisory lock under which one process loads the data


def default_url() -> str:
    configured = settings.from_environment("store") or settings.DOCUMENTS_STORE.get()
    if configured:
        return configured
    if not _SCRATCH:
        folder = tempfile.mkdtemp(prefix="drivable-documents-")
        atexit.register(shutil.rmtree, folder, ignore_errors=True)
        _SCRATCH.append(f"sqlite:///{folder}/documents.sqlite")
    return _SCRATCH[0]


@dataclass(frozen=True)
class Row:
    document_id: str
    name: str
    folder: str
    type: str
    size_bytes: int
    owner: str
    modified_on: str
    version: int

    @classmethod
    def of(cls, row: tuple[Any, ...]) -> Row:
        return cls(
            str(row[0]), str(row[1]), str(row[2]), str(row[3]), int(row[4]), str(row[5]),
            str(row[6]), int(row[7]),
        )  # fmt: skip


@dataclass(frozen=True)
class Filters:
    """What a search narrows by: the query's folded words, and the filters (None: not filtering)."""

    words: tuple[str, ...] = ()
    folder: str | None = None
    owner: str | None = None
    type: str | None = None
    modified_from: str | None = None
    modified_to: str | None = None
    min_size: int | None = None
    max_size: int | None = None

    def active(self) -> dict[str, Any]:
        """The filters set, by name, in declaration order (the query's words are not a filter)."""
        return {
            f.name: getattr(self, f.name)
            for f in fields(self)
            if f.name != "words" and getattr(self, f.name) is not None
        }

    def where(self) -> tuple[str, list[Any]]:
        clauses: list[str] = []
        params: list[Any] = []
        for word in self.words:
            clauses.append("folded LIKE ? ESCAPE '\\'")
            params.append(f"%{_escaped(word)}%")
        for name, value in self.active().items():
            if name == "folder":
                if value != "/":
                    clauses.append("(folder = ? OR folder LIKE ? ESCAPE '\\')")
                    params += [value, f"{_escaped(value)}/%"]
                continue
            clauses.append(
                {
                    "owner": "owner = ?",
                    "type": "type = ?",
                    "modified_from": "modified_on >= ?",
                    "modified_to": "modified_on <= ?",
                    "min_size": "size_bytes >= ?",
                    "max_size": "size_bytes <= ?",
                }[name]
            )
            params.append(value)
        return (" WHERE " + " AND ".join(clauses)) if clauses else "", params


def query_words(query: str | None) -> tuple[str, ...]:
    return tuple(words(query).split()) if query else ()


def _escaped(text: str) -> str:
    return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")


class Store(SeededData):
    """The documents in one effect store; `prepare()` before serving (creates and loads once)."""

    schema = SCHEMA
    meta_table = "docs_meta"
    seed_lock = _SEED_LOCK

    def __init__(self, url: str | None = None, library: Library | None = None) -> None:
        self.url = url or default_url()
        super().__init__(open_store(self.url))
        self._library = library

    async def load(self, tx: Transaction) -> None:
        await _load(tx, self._library or generate())

    # -- reading -------------------------------------------------------------------------------

    async def search(
        self, tx: Transaction, filters: Filters, offset: int, limit: int
    ) -> tuple[list[Row], int]:
        """A page of matches, documents with every word in their name first, then newest first."""
        where, params = filters.where()
        named = " AND ".join("folded_name LIKE ? ESCAPE '\\'" for _ in filters.words) or "1 = 1"
        rows = await tx.execute(
            f"SELECT {COLUMNS} FROM docs_documents{where} ORDER BY CASE WHEN {named} THEN 0 "
            "ELSE 1 END, modified_on DESC, document_id LIMIT ? OFFSET ?",
            (*params, *(f"%{_escaped(w)}%" for w in filters.words), limit, offset),
        )
        return [Row.of(r) for r in rows.rows], await self.count(tx, filters)

    async def count(self, tx: Transaction, filters: Filters) -> int:
        where, params = filters.where()
        got = (await tx.execute(f"SELECT COUNT(*) FROM docs_documents{where}", params)).first()
        return int(got[0]) if got else 0

    async def values(self, tx: Transaction, filters: Filters, column: str) -> list[tuple[Any, int]]:
        """Each value of `column` among the documents `filters` match, with how many have it."""
        where, params = filters.where()
        got = await tx.execute(
            f"SELECT {column}, COUNT(*) FROM docs_documents{where} GROUP BY {column}", params
        )
        return [(r[0], int(r[1])) for r in got.rows]

    async def document(self, tx: Transaction, document_id: str) -> tuple[Row, str] | None:
        """A document's row and its text."""
        got = (
            await tx.execute(
                f"SELECT {COLUMNS}, text FROM docs_documents WHERE document_id = ?", (document_id,)
            )
        ).first()
        return (Row.of(got), str(got[8])) if got is not None else None

    async def shares(self, tx: Transaction, document_id: str) -> list[tuple[str, str]]:
        got = await tx.execute(
            "SELECT email, role FROM docs_shares WHERE document_id = ? ORDER BY email",
            (document_id,),
        )
        return [(str(r[0]), str(r[1])) for r in got.rows]

    async def holder(self, tx: Transaction, document_id: str, email: str) -> tuple[str, str] | None:
        """What `email` holds of a document, its mailbox matched without case (the organisation's
        rule, as the mail server's): ("owner", the owner's address) or (its role, the share's
        address as stored); None when it holds nothing."""
        got = await tx.execute(
            "SELECT 'owner', owner FROM docs_documents WHERE document_id = ? AND "
            "lower(owner) = lower(?) UNION ALL SELECT role, email FROM docs_shares "
            "WHERE document_id = ? AND lower(email) = lower(?)",
            (document_id, email, document_id, email),
        )
        first = got.first()
        return (str(first[0]), str(first[1])) if first else None

    async def person(self, tx: Transaction, email: str) -> str | None:
        got = (await tx.execute("SELECT name FROM docs_people WHERE email = ?", (email,))).first()
        return str(got[0]) if got else None

    async def folder_exists(self, tx: Transaction, path: str) -> bool:
        got = await tx.execute("SELECT 1 FROM docs_folders WHERE path = ?", (path,))
        return got.first() is not None

    async def subfolders(self, tx: Transaction, path: str) -> list[tuple[str, int, int]]:
        """Each folder directly in `path`: its path, its documents and its folders (directly)."""
        got = await tx.execute(
            "SELECT f.path, (SELECT COUNT(*) FROM docs_documents d WHERE d.folder = f.path), "
            "(SELECT COUNT(*) FROM docs_folders g WHERE g.parent = f.path) "
            "FROM docs_folders f WHERE f.parent = ? ORDER BY lower(f.path)",
            (path,),
        )
        return [(str(r[0]), int(r[1]), int(r[2])) for r in got.rows]

    async def listing(
        self, tx: Transaction, path: str, sort: str, offset: int, limit: int
    ) -> tuple[list[Row], int]:
        rows = await tx.execute(
            f"SELECT {COLUMNS} FROM docs_documents WHERE folder = ? ORDER BY {ORDER[sort]} "
            "LIMIT ? OFFSET ?",
            (path, limit, offset),
        )
        total = (
            await tx.execute("SELECT COUNT(*) FROM docs_documents WHERE folder = ?", (path,))
        ).first()
        return [Row.of(r) for r in rows.rows], int(total[0]) if total else 0

    async def name_taken(self, tx: Transaction, folder: str, name: str, but: str) -> str | None:
        """The id of another document called `name` (in any case) in `folder`, if one is."""
        got = await tx.execute(
            "SELECT document_id FROM docs_documents WHERE folder = ? AND lower(name) = lower(?) "
            "AND document_id <> ?",
            (folder, name, but),
        )
        first = got.first()
        return str(first[0]) if first else None

    async def subtree(self, tx: Transaction, path: str) -> tuple[int, int, int]:
        """(documents, folders below it, bytes) a folder holds, all levels down."""
        like = f"{_escaped(path)}/%"
        docs = (
            await tx.execute(
                "SELECT COUNT(*), COALESCE(SUM(size_bytes), 0) FROM docs_documents "
                "WHERE folder = ? OR folder LIKE ? ESCAPE '\\'",
                (path, like),
            )
        ).rows[0]
        below = (
            await tx.execute(
                "SELECT COUNT(*) FROM docs_folders WHERE path LIKE ? ESCAPE '\\'", (like,)
            )
        ).rows[0]
        return int(docs[0]), int(below[0]), int(docs[1])

    # -- changing ------------------------------------------------------------------------------

    async def delete_document(self, tx: Transaction, document_id: str) -> list[tuple[str, str]]:
        """Delete a document and its shares; the shares it removed, (document_id, email)."""
        gone = await tx.execute(
            "SELECT document_id, email FROM docs_shares WHERE document_id = ?", (document_id,)
        )
        await tx.execute("DELETE FROM docs_shares WHERE document_id = ?", (document_id,))
        await tx.execute("DELETE FROM docs_documents WHERE document_id = ?", (document_id,))
        return [(str(d), str(e)) for d, e in gone.rows]

    async def delete_folder(self, tx: Transaction, path: str) -> list[tuple[str, str]]:
        """Delete a folder, the folders below it and their documents and shares; the shares it
        removed, (document_id, email)."""
        like = f"{_escaped(path)}/%"
        inside = "folder = ? OR folder LIKE ? ESCAPE '\\'"
        held = f"document_id IN (SELECT document_id FROM docs_documents WHERE {inside})"
        gone = await tx.execute(
            f"SELECT document_id, email FROM docs_shares WHERE {held}", (path, like)
        )
        await tx.execute(f"DELETE FROM docs_shares WHERE {held}", (path, like))
        await tx.execute(f"DELETE FROM docs_documents WHERE {inside}", (path, like))
        await tx.execute(
            "DELETE FROM docs_folders WHERE path = ? OR path LIKE ? ESCAPE '\\'", (path, like)
        )
        return [(str(d), str(e)) for d, e in gone.rows]

    async def close(self) -> None:
        await self.store.close()


async def _load(tx: Transaction, library: Library) -> None:
    for person in library.people:
        await tx.execute(
            "INSERT INTO docs_people (email, name) VALUES (?, ?)", (person.email, person.name)
        )
    for path in library.folders:
        above = None if path == "/" else parent(path)
        await tx.execute("INSERT INTO docs_folders (path, parent) VALUES (?, ?)", (path, above))
    for d in library.documents:
        await tx.execute(
            f"INSERT INTO docs_documents ({COLUMNS}, text, folded_name, folded) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                d.document_id, d.name, d.folder, d.type, d.size_bytes, d.owner,
                d.modified_on.isoformat(), d.version, d.text, words(d.name), searchable(d),
            ),
        )  # fmt: skip
        for share in d.shares:
            await tx.execute(
                "INSERT INTO docs_shares (document_id, email, role) VALUES (?, ?, ?)",
                (d.document_id, share.email, share.role),
            )
