"""The decisions in SQLite with FTS5: built once into a cache file, then read.

`default_path()` is `$DRIVABLE_CASELAW_DB`, or `caselaw-<data version>.sqlite` under
`$XDG_CACHE_HOME/drivable` (`~/.cache/drivable`). `Store.open(path)` builds the bundled decisions
there when the file does not exist yet (a few seconds, written to a temporary file and renamed, so
several processes starting at once never see half a database). Search text is matched without
case or diacritics ("nahrada skody" finds "náhrada škody"); every user word is quoted, so no query
syntax reaches FTS5.
"""

from __future__ import annotations

import os
import re
import secrets
import sqlite3
import tempfile
import threading
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from drivable import settings
from drivable.kinds import read
from drivable.servers.caselaw.case_number import CaseNumber
from drivable.servers.caselaw.data import DATA_VERSION, Record, generate

ENV = settings.CASELAW_DB.name
SCHEMA_VERSION = "1"
CHUNK_CHARS = 2400
_HEADING = re.compile(r"^(?:[IVXLC]+|[0-9]{1,2})\.\s+\S.{0,80}$")
_WORD = re.compile(r"\w+", re.UNICODE)

SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS decisions (
    rowid INTEGER PRIMARY KEY,
    decision_id TEXT NOT NULL UNIQUE,
    court TEXT NOT NULL,
    case_number TEXT NOT NULL,
    case_key TEXT NOT NULL,
    case_loose TEXT NOT NULL,
    ecli TEXT,
    decided_on TEXT NOT NULL,
    decision_type TEXT NOT NULL,
    subject TEXT NOT NULL,
    locale TEXT NOT NULL,
    headline TEXT NOT NULL,
    summary TEXT NOT NULL,
    text TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS decisions_case_key ON decisions (case_key);
CREATE INDEX IF NOT EXISTS decisions_case_loose ON decisions (case_loose);
CREATE INDEX IF NOT EXISTS decisions_date ON decisions (decided_on DESC, decision_id);
CREATE INDEX IF NOT EXISTS decisions_court ON decisions (court, decided_on);
CREATE TABLE IF NOT EXISTS statutes (
    decision INTEGER NOT NULL REFERENCES decisions (rowid) ON DELETE CASCADE,
    eli TEXT NOT NULL,
    PRIMARY KEY (decision, eli)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS statutes_eli ON statutes (eli);
CREATE VIRTUAL TABLE IF NOT EXISTS decisions_fts USING fts5 (
    headline, summary, text, case_number UNINDEXED,
    content='decisions', content_rowid='rowid',
    tokenize='unicode61 remove_diacritics 2'
);
"""

TRIGGERS = """
CREATE TRIGGER IF NOT EXISTS decisions_ai AFTER INSERT ON decisions BEGIN
  INSERT INTO decisions_fts (rowid, headline, summary, text, case_number)
  VALUES (new.rowid, new.headline, new.summary, new.text, new.case_number);
END;
CREATE TRIGGER IF NOT EXISTS decisions_ad AFTER DELETE ON decisions BEGIN
  INSERT INTO decisions_fts (decisions_fts, rowid, headline, summary, text, case_number)
  VALUES ('delete', old.rowid, old.headline, old.summary, old.text, old.case_number);
END;
"""

COLUMNS = (
    "decision_id, court, case_number, ecli, decided_on, decision_type, subject, locale, "
    "headline, summary"
)


def default_path() -> Path:
    configured = settings.CASELAW_DB.get()
    if configured:
        return Path(configured).expanduser()
    return settings.user_cache() / "drivable" / f"caselaw-{DATA_VERSION}.sqlite"


def query_words(text: str) -> list[str]:
    """The words of a query as FTS5 sees them (at most 24)."""
    return _WORD.findall(text.casefold())[:24]


def fts_query(text: str, *, any_word: bool = False) -> str | None:
    """An FTS5 query of the words in `text`, each quoted (no operators reach FTS5).

    Every word is required, or any one when `any_word`. Words of five letters or more match by
    their stem (the first letters, at least four), so "škody" finds "škoda" and "škodě": Czech,
    Polish and German inflect their nouns.
    """
    terms = []
    for word in query_words(text):
        if len(word) >= 5 and not word.isdigit():
            terms.append(f'"{word[: max(4, len(word) - 2)]}"*')
        else:
            terms.append(f'"{word}"')
    return (" OR " if any_word else " ").join(terms) if terms else None


def chunk_text(text: str) -> list[tuple[str, str]]:
    """(heading, body) parts of a text: a new part at each section heading ("IV. Posouzení věci")
    or when a part would pass CHUNK_CHARS. The same text always gives the same parts."""
    parts: list[tuple[str, list[str]]] = []
    for paragraph in [p.strip() for p in text.split("\n\n") if p.strip()]:
        size = sum(len(x) for x in parts[-1][1]) if parts else 0
        if _HEADING.match(paragraph):
            parts.append((paragraph, [paragraph]))
        elif not parts or size + len(paragraph) > CHUNK_CHARS:
            heading = "Header" if not parts else f"{parts[-1][0]} (continued)"
            parts.append((heading, [paragraph]))
        else:
            parts[-1][1].append(paragraph)
    return [(heading, "\n\n".join(body)) for heading, body in parts]


@dataclass(frozen=True)
class Filters:
    court: str | None = None
    date_from: str | None = None
    date_to: str | None = None
    subject: str | None = None
    locale: str | None = None
    eli: str | None = None

    def active(self) -> dict[str, str]:
        return {k: v for k, v in self.__dict__.items() if v is not None}


class Store:
    """One SQLite database of decisions; a connection per thread, read-mostly."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._local = threading.local()

    @classmethod
    def open(cls, path: Path | None = None, *, count: int | None = None) -> Store:
        """Open the database at `path`, building the bundled decisions there first if missing."""
        chosen = path or default_path()
        if not chosen.exists():
            build(chosen, generate() if count is None else generate(count))
        return cls(chosen)

    @property
    def db(self) -> sqlite3.Connection:
        found: sqlite3.Connection | None = getattr(self._local, "db", None)
        if found is None:
            found = sqlite3.connect(self.path, check_same_thread=False)
            found.row_factory = sqlite3.Row
            found.execute("PRAGMA foreign_keys = ON")
            self._local.db = found
        return found

    def meta(self, key: str) -> str | None:
        row = self.db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return None if row is None else str(row[0])

    def cursor_secret(self) -> bytes:
        """The secret cursors are signed with: shared by every process serving this database."""
        configured = settings.SECRET.get()
        if configured:
            return configured
        return (self.meta("cursor_secret") or "").encode()

    # -- search --------------------------------------------------------------------------------

    def _where(
        self, query: str | None, filters: Filters, any_word: bool = False
    ) -> tuple[str, str, list[Any], bool]:
        clauses: list[str] = []
        params: list[Any] = []
        joined = False
        match = fts_query(query, any_word=any_word) if query else None
        if match:
            joined = True
            clauses.append("decisions_fts MATCH ?")
            params.append(match)
        if filters.court:
            clauses.append("d.court = ?")
            params.append(filters.court)
        if filters.date_from:
            clauses.append("d.decided_on >= ?")
            params.append(filters.date_from)
        if filters.date_to:
            clauses.append("d.decided_on <= ?")
            params.append(filters.date_to)
        if filters.subject:
            clauses.append("d.subject = ?")
            params.append(filters.subject)
        if filters.locale:
            clauses.append("(d.locale = ? OR d.locale LIKE ? || '-%')")
            params.extend([filters.locale, filters.locale])
        if filters.eli:
            clauses.append(
                "EXISTS (SELECT 1 FROM statutes s WHERE s.decision = d.rowid "
                "AND (s.eli = ? OR s.eli LIKE ? || '/%'))"
            )
            params.extend([filters.eli, filters.eli])
        source = (
            "decisions_fts CROSS JOIN decisions d ON d.rowid = decisions_fts.rowid"
            if joined
            else "decisions d"
        )
        where = f" WHERE {' AND '.join(clauses)}" if clauses else ""
        return source, where, params, joined

    def search(
        self,
        query: str | None,
        filters: Filters,
        offset: int,
        limit: int,
        *,
        any_word: bool = False,
    ) -> tuple[list[dict[str, Any]], int]:
        """A page of decisions (best match first with a query, newest first without) and the total."""
        source, where, params, joined = self._where(query, filters, any_word=any_word)
        source += where
        if joined:
            order = "bm25(decisions_fts, 8.0, 4.0, 1.0), d.decided_on DESC, d.decision_id"
        else:
            order = "d.decided_on DESC, d.decision_id"
        page = [
            int(r[0])
            for r in self.db.execute(
                f"SELECT d.rowid FROM {source} ORDER BY {order} LIMIT ? OFFSET ?",
                [*params, limit, offset],
            )
        ]
        total = int(self.db.execute(f"SELECT count(*) FROM {source}", params).fetchone()[0])
        if not page:
            return [], total
        marks = ",".join("?" * len(page))
        by_row = {
            int(r["rid"]): dict(r)
            for r in self.db.execute(
                f"SELECT {COLUMNS}, rowid AS rid FROM decisions WHERE rowid IN ({marks})", page
            )
        }
        if joined:
            # Snippets for the page only: FTS5 computes them per matched row otherwise.
            for rid, snippet in self.db.execute(
                "SELECT rowid, snippet(decisions_fts, 2, '«', '»', '…', 16) FROM decisions_fts "
                f"WHERE decisions_fts MATCH ? AND rowid IN ({marks})",
                [params[0], *page],
            ):
                by_row[int(rid)]["snippet"] = snippet
        found = [by_row[rid] for rid in page]
        self._attach_statutes(found)
        return found, total

    def matching(self, query: str | None, filters: Filters, *, any_word: bool = False) -> int:
        """How many decisions match `query` and `filters`."""
        source, where, params, _ = self._where(query, filters, any_word=any_word)
        return int(self.db.execute(f"SELECT count(*) FROM {source}{where}", params).fetchone()[0])

    def values(
        self, query: str | None, filters: Filters, name: str, *, any_word: bool = False
    ) -> list[tuple[str, int]]:
        """Each value of filter `name` among the decisions matching `query` and `filters`, with
        how many have it (a date bound's values are decision days; a statute's, the statutes a
        decision applies)."""
        source, where, params, _ = self._where(query, filters, any_word=any_word)
        if name == "eli":
            sql = (
                f"SELECT s2.eli, count(*) FROM {source} JOIN statutes s2 ON s2.decision = d.rowid"
                f"{where} GROUP BY s2.eli"
            )
        else:
            column = {
                "court": "d.court",
                "subject": "d.subject",
                "locale": "d.locale",
                "date_from": "d.decided_on",
                "date_to": "d.decided_on",
            }[name]
            sql = f"SELECT {column}, count(*) FROM {source}{where} GROUP BY 1"
        return [(str(r[0]), int(r[1])) for r in self.db.execute(sql, params).fetchall()]

    def matches_every_word(self, query: str) -> bool:
        """True when some decision contains every word of `query` (filters aside)."""
        match = fts_query(query)
        if match is None:
            return True
        found = self.db.execute(
            "SELECT 1 FROM decisions_fts WHERE decisions_fts MATCH ? LIMIT 1", (match,)
        ).fetchone()
        return found is not None

    def _attach_statutes(self, rows: list[dict[str, Any]]) -> None:
        if not rows:
            return
        ids = [r["rid"] for r in rows]
        marks = ",".join("?" * len(ids))
        by: dict[int, list[str]] = {}
        for decision, eli in self.db.execute(
            f"SELECT decision, eli FROM statutes WHERE decision IN ({marks}) ORDER BY decision, eli",
            ids,
        ):
            by.setdefault(decision, []).append(eli)
        for row in rows:
            row["statutes"] = by.get(row.pop("rid"), [])

    # -- one decision --------------------------------------------------------------------------

    def get(self, decision_id: str) -> dict[str, Any] | None:
        row = self.db.execute(
            f"SELECT {COLUMNS}, text, rowid AS rid FROM decisions WHERE decision_id = ?",
            (decision_id,),
        ).fetchone()
        if row is None:
            return None
        found = [dict(row)]
        self._attach_statutes(found)
        return found[0]

    def by_case_number(self, number: CaseNumber | str) -> list[dict[str, str]]:
        """Every decision a case number names (court, case number, id), best tier first.

        A plain string is read through the case_number kind first (a tool's argument already is).
        """
        if not isinstance(number, CaseNumber):
            read_as = read("case_number", number).value
            if not isinstance(read_as, CaseNumber):
                return []
            number = read_as
        tiers = (
            ("case_key = ?", number.key),
            ("case_loose = ?", number.loose),
            ("case_key LIKE ? || '-%'", number.key),
        )
        for clause, value in tiers:
            rows = self.db.execute(
                f"SELECT decision_id, court, case_number FROM decisions WHERE {clause} "
                "ORDER BY court, decision_id LIMIT 10",
                (value,),
            ).fetchall()
            if rows:
                return [dict(r) for r in rows]
        return []

    def complete_ids(self, prefix: str, limit: int = 100) -> list[str]:
        rows = self.db.execute(
            "SELECT decision_id FROM decisions WHERE decision_id >= ? AND decision_id < ? "
            "ORDER BY decision_id LIMIT ?",
            (prefix, prefix + "\U0010ffff", limit),
        ).fetchall()
        return [str(r[0]) for r in rows]

    def courts(self) -> dict[str, tuple[int, str, str]]:
        """Per court: how many decisions, the first and the last decision date."""
        rows = self.db.execute(
            "SELECT court, count(*), min(decided_on), max(decided_on) FROM decisions GROUP BY court"
        ).fetchall()
        return {str(r[0]): (int(r[1]), str(r[2]), str(r[3])) for r in rows}

    def count(self) -> int:
        return int(self.db.execute("SELECT count(*) FROM decisions").fetchone()[0])

    # -- writing -------------------------------------------------------------------------------

    def upsert(self, records: Iterable[Record]) -> int:
        """Insert or replace decisions by decision_id (a re-import of a line changes nothing)."""
        return _insert(self.db, records, replace=True)


def _insert(db: sqlite3.Connection, records: Iterable[Record], *, replace: bool) -> int:
    done = 0
    with db:
        for record in records:
            # Stored numbers are read through the case_number kind like any the tool receives.
            stored = read("case_number", record.case_number).value
            key, loose = (stored.key, stored.loose) if isinstance(stored, CaseNumber) else ("", "")
            if replace:
                db.execute("DELETE FROM decisions WHERE decision_id = ?", (record.decision_id,))
            cursor = db.execute(
                "INSERT INTO decisions (decision_id, court, case_number, case_key, case_loose, ecli, "
                "decided_on, decision_type, subject, locale, headline, summary, text) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    record.decision_id,
                    record.court,
                    record.case_number,
                    key or record.case_number.casefold(),
                    loose or record.case_number.casefold(),
                    record.ecli or None,
                    record.decided_on,
                    record.decision_type,
                    record.subject,
                    record.locale,
                    record.headline,
                    record.summary,
                    record.text,
                ),
            )
            db.executemany(
                "INSERT OR IGNORE INTO statutes (decision, eli) VALUES (?, ?)",
                [(cursor.lastrowid, eli) for eli in record.statutes],
            )
            done += 1
    return done


def create(path: Path) -> sqlite3.Connection:
    """An empty database with the schema, the triggers and a fresh cursor secret."""
    db = sqlite3.connect(path)
    db.executescript(SCHEMA + TRIGGERS)
    with db:
        db.execute(
            "INSERT OR IGNORE INTO meta VALUES ('schema_version', ?), ('data_version', ?), "
            "('cursor_secret', ?)",
            (SCHEMA_VERSION, DATA_VERSION, secrets.token_hex(32)),
        )
    return db


def build(path: Path, records: Iterable[Record]) -> None:
    """Write `records` into a new database at `path` atomically (temporary file, then rename)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(prefix=path.name, suffix=".building", dir=path.parent)
    os.close(handle)
    os.unlink(temporary)
    try:
        db = create(Path(temporary))
        db.execute("PRAGMA journal_mode = OFF")
        db.execute("PRAGMA synchronous = OFF")
        _insert(db, records, replace=False)
        with db:
            db.execute("INSERT INTO decisions_fts (decisions_fts) VALUES ('optimize')")
        db.close()
        os.replace(temporary, path)
    finally:
        if os.path.exists(temporary):
            os.unlink(temporary)


__all__ = [
    "ENV",
    "Filters",
    "Store",
    "build",
    "chunk_text",
    "create",
    "default_path",
    "fts_query",
    "query_words",
]
